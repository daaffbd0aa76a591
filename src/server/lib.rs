//! boaf's rating studies: many people play and rate a designer's puzzles in
//! a browser. [`store`] keeps the studies, raters and ratings in one SQLite
//! file, taking and answering the types of [`answers`]; [`limits`] bounds
//! what is sent; with the default feature `http`, [`http`] serves the JSON
//! API raters' pages use (axum on tokio). The play a rater reports is
//! replayed by `boaf_core::study::play_log`.

#![warn(missing_docs)]

pub mod answers;
pub mod limits;
pub mod store;

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
pub mod writer;
