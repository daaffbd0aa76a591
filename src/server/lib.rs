//! boaf's rating studies: many people play and rate a designer's puzzles in
//! a browser. [`store`] keeps the studies, raters and ratings in one SQLite
//! file, taking and answering the types of [`answers`]; [`limits`] bounds
//! what is sent; with the default feature `http`, [`http`] serves the JSON
//! API raters' pages use (axum on tokio), [`page`] the rater's page itself,
//! and [`http::start`] runs it on a thread of its own for `boaf serve` and
//! the app. [`export`] writes a study's ratings as a ratings CSV. The play a
//! rater reports is
//! replayed by `boaf_core::study::play_log`.

#![warn(missing_docs)]

pub mod answers;
pub mod export;
pub mod limits;
pub mod store;

#[cfg(feature = "http")]
pub mod http;
#[cfg(feature = "http")]
pub mod page;
#[cfg(feature = "http")]
pub mod writer;
