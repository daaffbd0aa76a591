//! The study: people's ratings of puzzles ([`ratings`]) and the regression of
//! ratings on features that tells a designer what to change ([`regress`]).

pub mod ratings;
pub mod regress;
