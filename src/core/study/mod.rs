//! The study: people's ratings of puzzles ([`ratings`]), the plays not rated
//! yet ([`in_progress`]) and the regression of ratings on features that tells
//! a designer what to change ([`regress`]), which with several raters is a
//! mixed model ([`mixed`]) judged by the ratings' [`reliability`]; a
//! browser's play is replayed by [`play_log`]; people's plays check the
//! difficulty grades ([`grades`]).

pub mod grades;
pub mod in_progress;
pub mod mixed;
pub mod play_log;
pub mod ratings;
pub mod regress;
pub mod reliability;
