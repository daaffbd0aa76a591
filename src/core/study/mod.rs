//! The study: people's ratings of puzzles ([`ratings`]), the plays not rated
//! yet ([`in_progress`]) and the regression of ratings on features that tells
//! a designer what to change ([`regress`]).

pub mod in_progress;
pub mod ratings;
pub mod regress;
