//! The generator: what to minimize ([`energy`]), how ([`descent`], seed 001's
//! hill descent with random uphill steps), the worker threads that run
//! searches and stream candidates over a channel ([`pipeline`]), the batch
//! session that stores them as they come ([`batch`]), and the store itself
//! ([`store`]).

pub mod batch;
pub mod descent;
pub mod energy;
pub mod pipeline;
pub mod store;
