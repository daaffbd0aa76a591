//! Seed 003's genetic algorithm (its Algorithm 3), tuning the greedy
//! agent's [`Weights`].
//!
//! A population of weight vectors lives for a number of generations. An
//! individual's fitness is the share of the training deals the greedy agent
//! wins with its weights (the agent is deterministic, so each deal is one
//! game; seed 003's opponents do not exist in a solitaire). The top half by
//! fitness are kept as elites and are the parents: each child is the
//! gene-wise average of two elites drawn at random, each gene moved by
//! δ ~ U(−step, step) with probability μ = μ₀ · (1 − g/G), and clamped to
//! the bounds. The best individual met in any generation is the result.
//!
//! Every draw comes from one seeded generator on the calling thread, and
//! fitness is deterministic, so a seed gives the same result on any number
//! of threads.

use super::{Greedy, Rng, Weights, play};
use crate::engine::state::State;
use crate::parallel;
use rand::{RngExt, SeedableRng};
use rayon::ThreadPool;

/// The genetic algorithm's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct TuneOptions {
    /// Individuals per generation (at least 2).
    pub population: usize,
    /// Generations.
    pub generations: usize,
    /// The mutation rate of the first generation, μ₀ (a probability per gene).
    pub mutation: f64,
    /// The largest change a mutation makes to a gene.
    pub step: f64,
    /// Every gene is kept within these bounds.
    pub bounds: (f64, f64),
    /// Where the first generation starts: this vector and mutations of it
    /// (each gene moved by up to 10 steps); `None` draws every gene
    /// uniformly within the bounds.
    pub start: Option<Weights>,
    /// The seed of every draw.
    pub seed: u64,
    /// Threads that measure fitness.
    pub threads: usize,
}

impl Default for TuneOptions {
    fn default() -> Self {
        TuneOptions {
            population: 40,
            generations: 30,
            mutation: 0.5,
            step: 0.25,
            bounds: (-10.0, 10.0),
            start: None,
            seed: 0,
            threads: 1,
        }
    }
}

/// What one generation was like.
#[derive(Clone, Debug, PartialEq)]
pub struct Generation {
    /// The generation, from 0.
    pub generation: usize,
    /// Its fittest individual.
    pub best: Weights,
    /// That individual's fitness.
    pub best_fitness: f64,
    /// The population's mean fitness.
    pub mean_fitness: f64,
    /// The mutation rate its children were made with.
    pub mutation: f64,
}

/// The result of a tuning.
#[derive(Clone, Debug, PartialEq)]
pub struct Tuned {
    /// The fittest individual met, the earliest on a tie.
    pub best: Weights,
    /// Its fitness on the training deals.
    pub fitness: f64,
    /// Each generation's figures.
    pub history: Vec<Generation>,
}

/// Whether the greedy agent with `weights` wins each of `deals`.
pub fn greedy_wins_each(weights: Weights, deals: &[State]) -> Vec<bool> {
    let mut agent = Greedy { weights };
    // Greedy never draws; the generator is only the trait's.
    let mut rng = Rng::seed_from_u64(0);
    deals
        .iter()
        .map(|d| play(&mut agent, d, &mut rng).won)
        .collect()
}

/// The share of `deals` the greedy agent wins with `weights` (0 for none).
pub fn fitness(weights: Weights, deals: &[State]) -> f64 {
    if deals.is_empty() {
        return 0.0;
    }
    let wins = greedy_wins_each(weights, deals)
        .into_iter()
        .filter(|&w| w)
        .count();
    wins as f64 / deals.len() as f64
}

/// The fitness of each of `population`, in order, on `pool`'s threads.
fn fitnesses(population: &[Weights], deals: &[State], pool: Option<&ThreadPool>) -> Vec<f64> {
    parallel::map(pool, population, |&w| fitness(w, deals))
}

/// A gene moved by U(−step, step) with probability `rate`, then clamped.
fn mutate(gene: f64, rate: f64, opts: &TuneOptions, rng: &mut Rng) -> f64 {
    let moved = if rng.random_bool(rate.clamp(0.0, 1.0)) {
        gene + rng.random_range(-opts.step..=opts.step)
    } else {
        gene
    };
    moved.clamp(opts.bounds.0, opts.bounds.1)
}

/// The first generation.
fn first_generation(opts: &TuneOptions, rng: &mut Rng) -> Vec<Weights> {
    let genes = Weights::GENES.len();
    (0..opts.population)
        .map(|i| {
            let v: Vec<f64> = match opts.start {
                // The start itself (within the bounds), then wide
                // mutations of it.
                Some(w) if i == 0 => w
                    .to_vec()
                    .into_iter()
                    .map(|g| g.clamp(opts.bounds.0, opts.bounds.1))
                    .collect(),
                Some(w) => w
                    .to_vec()
                    .into_iter()
                    .map(|g| {
                        let wide = TuneOptions {
                            step: opts.step * 10.0,
                            ..opts.clone()
                        };
                        mutate(g, 1.0, &wide, rng)
                    })
                    .collect(),
                None => (0..genes)
                    .map(|_| rng.random_range(opts.bounds.0..=opts.bounds.1))
                    .collect(),
            };
            Weights::from_slice(&v)
        })
        .collect()
}

/// Evolves greedy weights that win more of `deals`; `report` hears about
/// each generation as it ends.
pub fn tune(deals: &[State], opts: &TuneOptions, mut report: impl FnMut(&Generation)) -> Tuned {
    let mut rng = Rng::seed_from_u64(opts.seed);
    let size = opts.population.max(2);
    let opts = TuneOptions {
        population: size,
        bounds: (
            opts.bounds.0.min(opts.bounds.1),
            opts.bounds.0.max(opts.bounds.1),
        ),
        ..opts.clone()
    };
    let mut population = first_generation(&opts, &mut rng);
    let pool = parallel::pool(opts.threads);
    let mut best: Option<(f64, Weights)> = None;
    let mut history = Vec::with_capacity(opts.generations);
    for g in 0..opts.generations.max(1) {
        let rate = opts.mutation * (1.0 - g as f64 / opts.generations.max(1) as f64);
        let fit = fitnesses(&population, deals, pool.as_ref());
        // Fittest first; a stable sort keeps the earlier on a tie.
        let mut order: Vec<usize> = (0..size).collect();
        order.sort_by(|&a, &b| fit[b].total_cmp(&fit[a]));
        let top = order[0];
        if best.is_none_or(|(f, _)| fit[top] > f) {
            best = Some((fit[top], population[top]));
        }
        let generation = Generation {
            generation: g,
            best: population[top],
            best_fitness: fit[top],
            mean_fitness: fit.iter().sum::<f64>() / size as f64,
            mutation: rate,
        };
        report(&generation);
        history.push(generation);
        // The top half stay and are the parents of the rest.
        let elites: Vec<Weights> = order[..size.div_ceil(2)]
            .iter()
            .map(|&i| population[i])
            .collect();
        let mut next = elites.clone();
        while next.len() < size {
            let a = elites[rng.random_range(0..elites.len())].to_vec();
            let b = elites[rng.random_range(0..elites.len())].to_vec();
            let child: Vec<f64> = a
                .iter()
                .zip(&b)
                .map(|(x, y)| mutate((x + y) / 2.0, rate, &opts, &mut rng))
                .collect();
            next.push(Weights::from_slice(&child));
        }
        population = next;
    }
    let (fitness, best) = best.expect("at least one generation");
    Tuned {
        best,
        fitness,
        history,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::deal::deal;
    use crate::engine::solver::solve;

    fn solvable_deals(range: std::ops::Range<i32>) -> Vec<State> {
        range
            .map(deal)
            .filter(|d| solve(d).unwrap().is_solvable())
            .collect()
    }

    #[test]
    fn the_ga_improves_a_bad_weight_vector() {
        // Greedy that seeks positions with few moves: a deliberately bad
        // heuristic.
        let bad = Weights {
            score: 1.0,
            moves: -3.0,
            lost: 0.0,
        };
        let train = solvable_deals(0..150);
        let before = fitness(bad, &train);
        let opts = TuneOptions {
            population: 12,
            generations: 8,
            start: Some(bad),
            // Steps of 1: the first generation spreads up to 10 around the
            // bad vector, where greedy wins none of these deals.
            step: 1.0,
            seed: 3,
            threads: 2,
            ..TuneOptions::default()
        };
        let mut told = 0;
        let tuned = tune(&train, &opts, |g| {
            assert_eq!(g.generation, told);
            told += 1;
        });
        assert_eq!(told, 8);
        // The reported fitness is the agent's own, counted again.
        assert_eq!(tuned.fitness, fitness(tuned.best, &train));
        assert!(
            tuned.fitness > before + 0.03,
            "{before} → {} with {:?}",
            tuned.fitness,
            tuned.best
        );
        // It holds on deals it never saw.
        let test = solvable_deals(1000..1300);
        assert!(fitness(tuned.best, &test) > fitness(bad, &test));
        // The best never falls from one generation to the next: elites stay.
        for w in tuned.history.windows(2) {
            assert!(w[1].best_fitness >= w[0].best_fitness);
        }
    }

    #[test]
    fn a_seed_gives_the_same_tuning_on_any_number_of_threads() {
        let train = solvable_deals(0..40);
        let opts = TuneOptions {
            population: 6,
            generations: 3,
            seed: 9,
            ..TuneOptions::default()
        };
        let one = tune(
            &train,
            &TuneOptions {
                threads: 1,
                ..opts.clone()
            },
            |_| {},
        );
        let two = tune(&train, &TuneOptions { threads: 2, ..opts }, |_| {});
        assert_eq!(one, two);
        for g in &one.history {
            for x in g.best.to_vec() {
                assert!((-10.0..=10.0).contains(&x));
            }
        }
        // The mutation rate decays linearly to the last generation.
        let rates: Vec<f64> = one.history.iter().map(|g| g.mutation).collect();
        let want = [0.5, 0.5 * (1.0 - 1.0 / 3.0), 0.5 * (1.0 - 2.0 / 3.0)];
        for (r, w) in rates.iter().zip(want) {
            assert!((r - w).abs() < 1e-12, "{rates:?}");
        }
    }
}
