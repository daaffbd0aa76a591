//! The per-depth table by the faster of two exact ways (a module above both,
//! as the halfway counts use the analysis's types): the layers (the
//! reference, [`analyze`]) or the sets of pairs and the walk back from one
//! stack ([`Merges::depth_table`]), which list no layer. Both give the same
//! table, tension to the bit; only `peak_bytes`, each one's own estimate of
//! what it held, differs.

use crate::engine::analysis::{Analysis, AnalysisOptions, Progress, analyze};
use crate::engine::halfway::Merges;
use crate::engine::limits::SearchError;
use crate::engine::state::State;

/// Mergeable sets up to which the sets of pairs are the faster way. Deal 1
/// (6 051 sets, 16 M states) is 2× faster so; deals 3 and 4 (20 700 and
/// 15 223) come out about even; deals 2 and 6 (135 M and 205 M states),
/// whose count one by one costs more per state than the layers do, are
/// slower so (issue 27's measurements).
const MERGES_UP_TO: usize = 12_000;

/// The table by sets of pairs and the walk back, as deep as `opts` asks, on
/// its threads; the progress hook hears each depth of the walk back, then
/// the count.
pub fn analyze_by_merges(state: &State, opts: &AnalysisOptions) -> Result<Analysis, SearchError> {
    by_merges(&Merges::new(state, &opts.limits)?, opts)
}

/// The table by whichever way is faster for this state, by how many sets of
/// its cards can become one stack (the table of merges costs milliseconds).
pub fn analyze_fast(state: &State, opts: &AnalysisOptions) -> Result<Analysis, SearchError> {
    let merges = Merges::new(state, &opts.limits)?;
    if merges.mergeable_sets() <= MERGES_UP_TO {
        by_merges(&merges, opts)
    } else {
        drop(merges);
        analyze(state, opts)
    }
}

/// [`analyze_by_merges`] from the table of merges.
fn by_merges(merges: &Merges, opts: &AnalysisOptions) -> Result<Analysis, SearchError> {
    let stacks = merges.cards();
    let deepest = opts.depth.deepest(stacks);
    let of = stacks.saturating_sub(1) + 2;
    let mut done = 0;
    let (depths, peak_bytes) =
        merges.depth_table(deepest, opts.threads, &opts.limits, |states| {
            done += 1;
            if let Some(hook) = &opts.progress {
                hook(Progress { done, of, states });
            }
        })?;
    Ok(Analysis {
        stacks,
        depths,
        peak_bytes,
    })
}
