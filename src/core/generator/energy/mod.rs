//! Energies: what the generator minimizes (seed 001's E0–E5 and user-defined
//! ones). An unsolvable puzzle always scores a fixed penalty (1000 unless the
//! energy says otherwise).
//!
//! Three rooms: [`model`] (what an energy is, its value for a puzzle and its
//! id), [`file`](mod@file) (TOML energy files read with every error placed at its line
//! and column, and the built-in energies), and [`expr`] (the language of
//! values and conditions). The main types are re-exported here.

pub mod expr;
pub mod file;
pub mod model;

pub use expr::parse_condition;
pub use file::{BUILTIN, EnergyBook, EnergyError, builtin, load};
pub use model::{
    Bonus, Chain, Cmp, DEFAULT_PENALTY, Energy, Operand, RangeExcursion, RatedRange, Term, holds,
};
