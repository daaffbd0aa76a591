//! The memory cap and the cancel flag end an analysis cleanly.

use boaf::analysis::{AnalysisOptions, analyze};
use boaf::deal::deal;
use boaf::solver::{Limits, SearchError};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

#[test]
fn memory_cap_is_an_error_not_an_abort() {
    let opts = AnalysisOptions {
        max_depth: Some(8),
        limits: Limits {
            memory_cap: 8 << 20,
            cancel: None,
        },
        ..Default::default()
    };
    assert_eq!(
        analyze(&deal(1), &opts).unwrap_err(),
        SearchError::MemoryCap { cap: 8 << 20 }
    );
}

#[test]
fn cancel_stops_a_long_analysis() {
    let flag = Arc::new(AtomicBool::new(false));
    let opts = AnalysisOptions {
        threads: 2,
        limits: Limits {
            memory_cap: 8 << 30,
            cancel: Some(flag.clone()),
        },
        ..Default::default()
    };
    let raise = {
        let flag = flag.clone();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(100));
            flag.store(true, Ordering::Relaxed);
        })
    };
    // Deal 0 to the last depth takes seconds, far longer than the flag's 0.1 s.
    assert_eq!(
        analyze(&deal(0), &opts).unwrap_err(),
        SearchError::Cancelled
    );
    raise.join().unwrap();
    assert!(flag.load(Ordering::Relaxed));
}
