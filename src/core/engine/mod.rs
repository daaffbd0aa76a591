//! The engine: the rules of Birds of a Feather and their exact science.
//!
//! [`card`] and [`state`] hold the rules; [`notation`] the research notation;
//! [`deal`] the numbered deals; [`board`] the compact boards the searches run
//! on; [`solver`] the exact solver; [`analysis`] the per-depth state-space
//! counts (seed 001's Figure 2); [`feature`] what each feature is (its
//! name, definition and range); [`features`] a puzzle's feature values;
//! [`shallow`] the states of the first few depths, breadth first;
//! [`halfway`] the exact halfway ratio without the state space; [`estimate`]
//! the cheap halfway estimator; [`canon`] canonical forms under
//! the game's symmetries; [`game`] a game a person plays; [`limits`] the
//! memory cap and the cancel switch every long search obeys. No I/O here.

pub mod analysis;
pub mod board;
pub mod canon;
pub mod card;
pub mod deal;
pub mod estimate;
pub mod feature;
pub mod features;
mod flock_cuts;
pub mod full_table;
pub mod game;
pub mod halfway;
pub mod limits;
pub mod notation;
pub mod shallow;
pub mod solver;
pub mod state;
