//! The memory cap and the cancel switch end an analysis cleanly.

use boaf_core::engine::analysis::{AnalysisOptions, Depth, Progress, analyze};
use boaf_core::engine::deal::deal;
use boaf_core::engine::limits::{Cancel, Limits, SearchError};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

#[test]
fn memory_cap_is_an_error_not_an_abort() {
    let opts = AnalysisOptions {
        depth: Depth::To(8),
        limits: Limits::with_cap(8 << 20),
        ..Default::default()
    };
    assert_eq!(
        analyze(&deal(1), &opts).unwrap_err(),
        SearchError::MemoryCap { cap: 8 << 20 }
    );
}

#[test]
fn a_switch_thrown_from_another_thread_stops_a_running_analysis() {
    // The analysis tells a second thread when its third layer is done; that
    // thread throws the switch. The full analysis of deal 0 reports 31
    // layers (15 forward, 16 backward) over seconds: it must stop long
    // before, with Cancelled, and only after it had started.
    let cancel = Cancel::new();
    let reported = Arc::new(AtomicUsize::new(0));
    let (started, wait) = mpsc::channel();
    let hook = {
        let reported = reported.clone();
        let started = std::sync::Mutex::new(started);
        Arc::new(move |p: Progress| {
            reported.store(p.done, Ordering::SeqCst);
            if p.done == 3 {
                let _ = started.lock().unwrap().send(());
            }
        })
    };
    let opts = AnalysisOptions {
        threads: 2,
        limits: Limits::with_cap(8 << 30).cancelled_by(&cancel),
        progress: Some(hook),
        ..Default::default()
    };
    let thrower = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            wait.recv().expect("the analysis reaches its third layer");
            cancel.cancel();
        })
    };
    assert_eq!(
        analyze(&deal(0), &opts).unwrap_err(),
        SearchError::Cancelled
    );
    thrower.join().unwrap();
    let done = reported.load(Ordering::SeqCst);
    assert!((3..31).contains(&done), "stopped after {done} of 31 layers");
}

#[test]
fn a_switch_thrown_before_the_start_stops_at_once() {
    let cancel = Cancel::new();
    cancel.cancel();
    let opts = AnalysisOptions {
        limits: Limits::default().cancelled_by(&cancel),
        ..Default::default()
    };
    assert_eq!(
        analyze(&deal(0), &opts).unwrap_err(),
        SearchError::Cancelled
    );
}

#[test]
fn the_fast_halfway_count_on_threads_stops_cleanly_at_the_cap_and_the_switch() {
    use boaf_core::engine::halfway::halfway_on_threads;
    use boaf_core::engine::notation::parse_state;
    use std::time::{Duration, Instant};
    // Deal 0's walk back holds about 100 MB at its widest.
    let cap = 32 << 20;
    for threads in [1, 2, 3] {
        assert_eq!(
            halfway_on_threads(&deal(0), false, threads, &Limits::with_cap(cap)).unwrap_err(),
            SearchError::MemoryCap { cap },
            "{threads} threads"
        );
    }
    // The README's flocking puzzle takes 14 s on two threads (release); a
    // switch thrown after a fifth of a second stops every thread.
    let flocking = parse_state("4S6S6C9H4DTH8C9S7D5H5C7H7C5STC8S", None).unwrap();
    let cancel = Cancel::new();
    let limits = Limits::with_cap(8 << 30).cancelled_by(&cancel);
    let thrower = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            cancel.cancel();
        })
    };
    let started = Instant::now();
    assert_eq!(
        halfway_on_threads(&flocking, false, 2, &limits).unwrap_err(),
        SearchError::Cancelled
    );
    thrower.join().unwrap();
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "stopped after {took:?}");
}
