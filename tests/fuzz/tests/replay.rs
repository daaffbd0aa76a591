//! Every committed input of every target, corpus and regressions, through
//! the target's body uninstrumented: what the fuzzer kept and what once
//! broke a parser still parse (or are refused) without a panic, and the
//! invariants hold. Runs in a plain `cargo test --manifest-path
//! tests/fuzz/Cargo.toml`.

use std::path::Path;

/// The inputs under `dir/<target>/`, sorted (none when it does not exist).
fn inputs(dir: &str, target: &str) -> Vec<std::path::PathBuf> {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir).join(target);
    let Ok(entries) = std::fs::read_dir(&folder) else {
        return Vec::new();
    };
    let mut files: Vec<_> = entries
        .map(|e| e.expect("a readable folder").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_and_regression_input_passes_its_target() {
    let mut counts = Vec::new();
    for (name, body) in boaf_fuzz::TARGETS {
        let corpus = inputs("corpus", name);
        // A target without seeds would fuzz from nothing in CI.
        assert!(!corpus.is_empty(), "tests/fuzz/corpus/{name} has no inputs");
        let regressions = inputs("regressions", name);
        for file in corpus.iter().chain(&regressions) {
            let data = std::fs::read(file).expect("a readable input");
            let run = std::panic::catch_unwind(|| body(&data));
            assert!(run.is_ok(), "{name}: {} fails", file.display());
        }
        counts.push((name, corpus.len(), regressions.len()));
    }
    eprintln!("replayed (target, corpus, regressions): {counts:?}");
}

#[test]
fn every_target_has_a_binary_and_the_run_script_knows_it() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let run = std::fs::read_to_string(dir.join("run")).expect("tests/fuzz/run");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).expect("Cargo.toml");
    for (name, _) in boaf_fuzz::TARGETS {
        assert!(
            dir.join("fuzz_targets")
                .join(format!("{name}.rs"))
                .is_file(),
            "{name}"
        );
        assert!(manifest.contains(&format!("name = \"{name}\"")), "{name}");
        let all = run
            .lines()
            .find(|l| l.starts_with("all="))
            .expect("run lists all targets");
        assert!(
            all.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                .any(|w| w == name),
            "{name} is not in run's list"
        );
    }
}
