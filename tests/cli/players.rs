//! `boaf agents`, `boaf bench best-first` and `boaf tune`: the players
//! from the command line.

use super::*;

#[test]
fn agents_report_win_rates_and_a_paired_test() {
    // Deals 8..12 hold deal 10, which is unsolvable and skipped.
    let out = boaf(
        &[
            "agents",
            "--agent",
            "greedy",
            "--compare",
            "random",
            "--deals",
            "8..12",
            "--games",
            "3",
            "--threads",
            "2",
            "--json",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["solvable_deals"], 3);
    assert_eq!(v["skipped_unsolvable"], serde_json::json!([10]));
    let agents = v["agents"].as_array().unwrap();
    assert_eq!(agents[0]["agent"], "greedy");
    for a in agents {
        assert_eq!(a["games"], 9);
        let (wins, rate) = (a["wins"].as_f64().unwrap(), a["win_rate"].as_f64().unwrap());
        assert_eq!(rate, wins / 9.0, "a fraction");
        assert!(a["wilson_low"].as_f64().unwrap() <= rate);
        assert!(a["wilson_high"].as_f64().unwrap() >= rate);
    }
    // Greedy is deterministic: its three games of a deal agree.
    let greedy_wins = agents[0]["wins"].as_u64().unwrap();
    assert_eq!(greedy_wins % 3, 0);
    let c = &v["compare"];
    assert!(c["test"].as_str().unwrap().starts_with("McNemar exact"));
    assert!(c["p_value"].as_f64().unwrap() <= 1.0);
    // The same experiment on one thread gives the same games.
    let one = boaf(
        &[
            "agents",
            "--agent",
            "greedy",
            "--compare",
            "random",
            "--deals",
            "8..12",
            "--games",
            "3",
            "--threads",
            "1",
            "--json",
        ],
        "",
    );
    let w: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    assert_eq!(w["agents"][1]["wins"], agents[1]["wins"]);
    assert_eq!(w["compare"]["only_first"], c["only_first"]);
}

#[test]
fn agents_explain_a_bad_agent_or_weights_file() {
    let out = boaf(&["agents", "--agent", "uct", "--deals", "0..2"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("unknown agent 'uct'"));
    let dir = TempDir::new("agents-weights");
    let path = dir.path().join("w.toml");
    std::fs::write(&path, "score = 1.0\nmoves = two\n").unwrap();
    let out = boaf(
        &[
            "agents",
            "--agent",
            "greedy",
            "--weights",
            path.to_str().unwrap(),
            "--deals",
            "0..2",
        ],
        "",
    );
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("not a weights file") && err.contains("line 2"),
        "{err}"
    );
}

#[test]
fn best_first_bench_counts_nodes_next_to_the_paper() {
    let out = boaf(
        &[
            "bench",
            "best-first",
            "--deals",
            "0..5",
            "--moves-weights",
            "2.5",
            "--threads",
            "1",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let t = text(&out.stdout);
    assert!(t.contains("deals 0..5: 5 solvable"), "{t}");
    let row = t
        .lines()
        .find(|l| l.starts_with("best-first, moves weight 2.5"))
        .unwrap();
    // The paper's figure sits at the end of its row.
    assert!(row.trim_end().ends_with("102.85"), "{row}");
    assert!(
        t.lines()
            .any(|l| l.starts_with("depth-first") && l.trim_end().ends_with("5274.23"))
    );
}

#[test]
fn tune_saves_weights_that_beat_a_bad_start_and_that_agents_read() {
    let dir = TempDir::new("tune");
    let bad = dir.join("bad.toml");
    // Greedy that seeks positions with few moves wins no deal of 0..60.
    std::fs::write(&bad, "score = 1.0\nmoves = -3.0\n").unwrap();
    let out_path = dir.join("tuned.toml");
    let args = [
        "tune",
        "--train",
        "0..60",
        "--test",
        "60..160",
        "--population",
        "8",
        "--generations",
        "4",
        "--step",
        "1",
        "--start",
        bad.to_str().unwrap(),
        "--out",
        out_path.to_str().unwrap(),
        "--threads",
        "2",
        "--json",
    ];
    let out = boaf(&args, "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["history"].as_array().unwrap().len(), 4);
    let tuned = &v["tuned"];
    assert!(v["test"].as_str().unwrap().starts_with("McNemar exact"));
    let p = v["p_value"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
    // The saved file holds the reported weights, and `agents` plays them:
    // its greedy win rate on the held-out deals is the one reported.
    let saved = std::fs::read_to_string(&out_path).unwrap();
    assert!(saved.contains(&format!(
        "moves = {:?}",
        tuned["weights"]["moves"].as_f64().unwrap()
    )));
    let played = boaf(
        &[
            "agents",
            "--agent",
            "greedy",
            "--weights",
            out_path.to_str().unwrap(),
            "--deals",
            "60..160",
            "--json",
        ],
        "",
    );
    assert!(played.status.success(), "{}", text(&played.stderr));
    let a: serde_json::Value = serde_json::from_slice(&played.stdout).unwrap();
    assert_eq!(a["agents"][0]["win_rate"], tuned["test_win_rate"]);
    assert_eq!(a["solvable_deals"], v["test_deals"]);
    // The bad start wins no training deal; the tuned weights win some.
    let start = boaf(
        &[
            "agents",
            "--agent",
            "greedy",
            "--weights",
            bad.to_str().unwrap(),
            "--deals",
            "0..60",
            "--json",
        ],
        "",
    );
    let s: serde_json::Value = serde_json::from_slice(&start.stdout).unwrap();
    assert_eq!(s["agents"][0]["wins"], 0);
    assert!(tuned["train_win_rate"].as_f64().unwrap() > 0.0);
    // Two weight files face each other on the same games, each agent named
    // by its file.
    let both = boaf(
        &[
            "agents",
            "--agent",
            "greedy",
            "--weights",
            out_path.to_str().unwrap(),
            "--compare",
            "greedy",
            "--compare-weights",
            bad.to_str().unwrap(),
            "--deals",
            "0..60",
            "--json",
        ],
        "",
    );
    let b: serde_json::Value = serde_json::from_slice(&both.stdout).unwrap();
    assert_eq!(b["agents"][0]["agent"], "greedy [tuned]");
    assert_eq!(b["agents"][1]["agent"], "greedy [bad]");
    assert_eq!(b["agents"][1]["wins"], 0);
    assert_eq!(b["compare"]["only_second"], 0);
    let train_wins =
        (tuned["train_win_rate"].as_f64().unwrap() * v["train_deals"].as_f64().unwrap()).round();
    assert_eq!(b["agents"][0]["wins"].as_f64().unwrap(), train_wins);
    // Bad settings are refused with a reason.
    let out = boaf(&["tune", "--population", "1"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("--population must be at least 2"));
}
