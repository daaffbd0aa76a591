//! boaf-core: everything boaf knows about Birds of a Feather puzzles, with no
//! GUI. The app (`boaf-app`) and the command line (`boaf`) are thin front
//! ends over it.
//!
//! - [`engine`]: the game and its exact science: cards, states, notation,
//!   deals, compact boards, the solver, the per-depth analysis, canonical
//!   forms, features, the halfway estimator and a played game. Pure: no I/O.
//! - [`generator`]: energies, the hill descent, the worker pipeline, the
//!   batch session that stores what the workers make, and the puzzle store.
//! - [`agents`]: players (random, greedy, flat Monte Carlo, MCTS) and the
//!   heuristic best-first search, with the statistics their experiments need.
//! - [`study`]: the ratings store and the regression of ratings on features.
//! - [`folder`]: the working folder's layout (`puzzles/`, `ratings/`,
//!   `assets/`, `energies/`) and how energies load from it; [`durable`]:
//!   writes that survive a crash; [`lock`]: one writer of a file at a time; [`format`](mod@format): numbers as people read them;
//!   [`parallel`]: work spread over a set number of threads; [`hash`]: the
//!   fixed hashes behind energy ids and seeds; [`stats`]: the experiments'
//!   statistics (Wilson, McNemar, Spearman).

#![warn(missing_docs)]

pub mod agents;
pub mod durable;
pub mod engine;
pub mod folder;
pub mod format;
pub mod generator;
pub mod hash;
pub mod lock;
pub mod memory;
pub mod parallel;
pub mod read;
pub mod stats;
pub mod study;

/// Temporary folders for the unit tests, shared with the integration tests.
#[cfg(test)]
#[path = "tests/common/temp.rs"]
mod temp;

pub use engine::card::Card;
pub use engine::state::{Grid, Move, State};
