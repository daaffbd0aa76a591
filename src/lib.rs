//! boaf: the engine of a workbench for designing Birds of a Feather solitaire puzzles.
//!
//! The game and its science are pure, with no I/O and no UI types: the rules
//! in [`card`] and [`state`], the research notation in [`notation`], deal
//! numbers in [`deal`], the exact solver in [`solver`] (over the compact boards
//! of [`board`]), the per-depth state-space analysis in [`analysis`], the
//! puzzle features in [`features`], energies, the search, a played [`game`]
//! and the [`regress`]ion. The stores ([`store`], [`ratings`]) own the file
//! formats, and [`app`] is the desktop front end (kept in the library so the
//! tests can drive it).

pub mod analysis;
pub mod app;
pub mod board;
pub mod canon;
pub mod card;
pub mod deal;
pub mod energy;
pub mod estimate;
pub mod features;
pub mod game;
pub mod generator;
pub mod notation;
pub mod ratings;
pub mod regress;
pub mod search;
pub mod solver;
pub mod state;
pub mod store;

pub use card::Card;
pub use state::{Grid, Move, State};
