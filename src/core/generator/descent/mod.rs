//! Puzzle search: hill descent with random uphill steps over an energy (seed 001).
//!
//! Start from n random cards in random cells. Each step either swaps a random
//! unused card in for a random puzzle card (probability `swap_in`), or swaps a
//! random puzzle card's cell with another cell, empty or not. A step that does
//! not raise the energy is kept (unless screened out, see below); a worse one
//! is kept with probability `uphill`, else undone. The best puzzle seen is the result; a solvable
//! puzzle always beats an unsolvable one, and a budget that ends before any
//! solvable puzzle was met (a few cards, a few steps) is extended until one is.
//!
//! The search is seeded: the same seed and parameters give the same puzzle
//! and trace on any machine (the generator is `Xoshiro256PlusPlus`, a fixed
//! algorithm).
//!
//! With the exact halfway ratio at 16 cards a full score costs tens of
//! milliseconds to seconds, so boaf's defaults ([`SearchParams::for_cards`])
//! add two things to the paper's rule: a step that is not kept anyway is
//! first judged on the ratio's numerator ([`SearchParams::screen`]), and
//! each descent starts scored by the estimate ([`SearchParams::warmup`]).
//! Every energy the search keeps is exact.
//!
//! The parts: the knobs and their defaults (`params`), what a search says
//! as it goes (`progress`), the scorer (`scorer`) and the descent itself
//! (`hill`); everything public is re-exported here.

mod hill;
mod params;
mod progress;
mod scorer;
#[cfg(test)]
mod tests;

pub use hill::{Descent, Found, accepts, hill_descent, random_puzzle, uphill_coin};
pub use params::{
    DEFAULT_CONFIRM, DEFAULT_ENERGY, DEFAULT_SCREEN, DEFAULT_SWAP_IN, DEFAULT_UPHILL,
    DEFAULT_WARMUP, DIFFICULTY_HELP, GenError, HALFWAY_HELP, HalfwayMode, MAX_ITERATIONS,
    STEPS_HELP, SWAP_IN_HELP, SearchParams, UPHILL_HELP, default_iterations, paper_iterations,
};
pub use progress::{LayerHook, Phase, StepReport, WorkerProgress, layer_progress};
pub use scorer::{Judged, Score, Scorer};
