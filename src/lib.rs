//! boaf: the engine of a workbench for designing Birds of a Feather solitaire puzzles.
//!
//! Everything here is pure: no I/O and no UI types. The rules live in
//! [`card`] and [`state`], the research notation in [`notation`], deal numbers
//! in [`deal`], the exact solver in [`solver`] (over the compact boards of
//! [`board`]), the per-depth state-space analysis in [`analysis`], and the
//! puzzle features in [`features`].

pub mod analysis;
pub mod board;
pub mod canon;
pub mod card;
pub mod deal;
pub mod energy;
pub mod estimate;
pub mod features;
pub mod generator;
pub mod notation;
pub mod search;
pub mod solver;
pub mod state;
pub mod store;

pub use card::Card;
pub use state::{Grid, Move, State};
