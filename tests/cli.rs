//! The command line, run as a user would.

#[path = "../src/core/tests/common/ols.rs"]
mod ols;
#[path = "../src/core/tests/common/temp.rs"]
mod temp;

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use temp::TempDir;

fn boaf(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // A command that does not read its input may exit first: a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn solve_prints_a_replayable_solution() {
    let out = boaf(&["solve", "--json", "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S"], "");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["solvable"], true);
    let moves: Vec<String> = v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    assert_eq!(moves.len(), 15);
    // Replay the printed names through the library.
    let mut s = boaf_core::engine::deal::deal(0);
    for m in &moves {
        let (a, b) = boaf_core::engine::notation::parse_move(m).unwrap();
        s = s.apply(s.move_between(a, b).unwrap()).unwrap();
    }
    assert!(s.is_solved());
}

#[test]
fn ten_is_read_as_t_and_one_move_is_singular() {
    // Deal 1 with its tens written as players write them.
    let tens = "10H5HKS10C6SAC10S6C6HQD4SJDJS3C5D3S";
    let a = boaf(&["solve", "--json", tens], "");
    let b = boaf(&["solve", "--json", "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S"], "");
    assert!(a.status.success(), "{}", text(&a.stderr));
    assert_eq!(text(&a.stdout), text(&b.stdout));
    let grid = "10H 5H\n-- --";
    let one = boaf(&["solve", "-"], grid);
    assert!(one.status.success(), "{}", text(&one.stderr));
    assert_eq!(text(&one.stdout), "solvable in 1 move\nTH-5H\n");
}

#[test]
fn a_deal_number_is_read_as_a_state() {
    let by_number = boaf(&["solve", "--json", "0"], "");
    let by_deal = boaf(&["solve", "--json", "--deal", "0"], "");
    assert!(by_number.status.success(), "{}", text(&by_number.stderr));
    assert_eq!(text(&by_number.stdout), text(&by_deal.stdout));
    let bad = boaf(&["solve", "2147483648"], "");
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("bad state: line 1, column 1: deal numbers are whole numbers"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn states_that_start_with_dashes() {
    for args in [
        vec!["solve", "----KH--2S--JDQC----TSJS----3C--"],
        vec!["solve", "--", "----KH--2S--JDQC----TSJS----3C--"],
        vec!["solve", "....KH..2S..JDQC....TSJS....3C.."],
        vec!["solve", "-"],
    ] {
        let out = boaf(
            &args,
            "-- -- KH --\n2S -- JD QC\n-- -- TS JS\n-- -- 3C --\n",
        );
        assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
        assert!(
            text(&out.stdout).starts_with("solvable in 6 moves"),
            "{args:?}"
        );
    }
}

#[test]
fn unsolvable_class_is_reported() {
    let out = boaf(&["solve", "--deal", "10"], "");
    assert_eq!(text(&out.stdout).trim(), "unsolvable: separated flock");
}

#[test]
fn batch_ignores_labels_and_reports_bad_lines() {
    let input = "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S,1\n\n5S5H6H6S5D4D2HJHKD2SQD2DAS9C3SJD,0\n  TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3X\n/\n";
    let out = boaf(&["solve", "--batch", "-"], input);
    assert_eq!(
        text(&out.stdout),
        "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3S,1\n5S5H6H6S5D4D2HJHKD2SQD2DAS9C3SJD,0\n"
    );
    assert!(!out.status.success());
    let stderr = text(&out.stderr);
    assert!(stderr.contains("-:4:34: unknown suit 'X'"), "{stderr}");
    assert!(stderr.contains("-:5:1: the state has no cards"), "{stderr}");
    // Compact states of another grid need --grid.
    let out = boaf(&["solve", "--batch", "-", "--grid", "2x2"], "AS2S3S..\n");
    assert_eq!(text(&out.stdout), "AS2S3S--,1\n");
}

#[test]
fn halfway_prints_each_ratio_with_its_numerator_and_denominator() {
    // Deal 1's counts at depth 8 come from an independent slow search (the
    // perft tests); the puzzle after it has 2 solvable of 193 162.
    let dir = TempDir::new("halfway");
    let batch = dir.join("puzzles.txt");
    std::fs::write(
        &batch,
        "# two puzzles and a typo\n9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH,label\n\n9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKX\n",
    )
    .unwrap();
    let out = boaf(
        &[
            "halfway",
            "--json",
            "--deal",
            "1",
            "--batch",
            batch.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a bad line fails the run at its end"
    );
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["state"], "JD2D9HJC5D7H7C5HKDKC9S5SADQCKH3H");
    assert_eq!(
        (lines[0]["solvable"].as_u64(), lines[0]["states"].as_u64()),
        (Some(37461), Some(3216593))
    );
    assert_eq!(
        lines[0]["halfway_ratio"].as_f64(),
        Some(37461.0 / 3216593.0)
    );
    assert_eq!(lines[0]["depth"], 8);
    assert!(lines[0].get("midgame_tension").is_none(), "not asked for");
    assert_eq!(
        (lines[1]["solvable"].as_u64(), lines[1]["states"].as_u64()),
        (Some(2), Some(193162))
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("puzzles.txt:4: bad state: column 32: unknown suit 'X'"),
        "{err}"
    );
    // Plain text: the ratio, then numerator / denominator with separators.
    let out = boaf(&["halfway", "9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH"], "");
    assert!(out.status.success());
    assert!(
        text(&out.stdout).contains("= 2 / 193,162 (depth 8)  0."),
        "{}",
        text(&out.stdout)
    );
    // The tension when asked for, as the full analysis has it.
    let puzzle = "9D3H2HKC6S4DJC7SAC3C9SQC4H7DADKH";
    let out = boaf(&["halfway", "--json", "--tension", puzzle], "");
    let fast: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let out = boaf(&["analyze", "--json", puzzle], "");
    let full: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tension = fast["midgame_tension"].as_f64().unwrap();
    assert_eq!(Some(tension), full["features"]["midgame_tension"].as_f64());
    let out = boaf(&["halfway", "--tension", puzzle], "");
    assert!(
        text(&out.stdout).contains(&format!("(depth 8)  tension {tension:.4}")),
        "{}",
        text(&out.stdout)
    );
    // Nothing to do is an error that says what to give.
    let out = boaf(&["halfway"], "");
    assert!(!out.status.success());
    assert!(text(&out.stderr).contains("give STATEs, --deal N or --batch FILE"));
}

#[test]
fn halfway_reports_a_puzzle_over_the_memory_cap_and_goes_on() {
    // Four cards of one suit in a row: any stack can move onto any other,
    // so two moves deep there are 3·2·2 = 12 states of two pairs and
    // 4·3·2 = 24 of a stack of three beside a card, all solvable. Deal 1's
    // table of 2^16 sets alone is 2 MiB, over a cap of 1 MiB.
    let out = boaf(
        &[
            "halfway",
            "--memory-cap",
            "1M",
            "--deal",
            "1",
            "AS2S3S4S------------------------",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(1), "a capped puzzle fails the run");
    assert!(
        text(&out.stdout)
            .starts_with("AS2S3S4S------------------------  halfway ratio 1 = 36 / 36 (depth 2)"),
        "{}",
        text(&out.stdout)
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("deal 1: the search needs more than the memory cap of 1 MiB"),
        "{err}"
    );
    assert!(err.contains("1 puzzle met the memory cap"), "{err}");
    assert!(err.contains("--memory-cap SIZE"), "{err}");
    // A single analysis says the same.
    let out = boaf(&["analyze", "--deal", "1", "--memory-cap", "1M"], "");
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.contains("memory cap of 1 MiB\n  give it more with --memory-cap"),
        "{err}"
    );
}

#[test]
fn deals_lists_unsolvable_numbers_then_a_summary() {
    let out = boaf(&["deals", "0..400", "--threads", "2"], "");
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[..3], ["10", "190", "397"]);
    assert!(
        lines[3].starts_with("deals 0..400: 397 solvable, 3 unsolvable; per deal mean"),
        "{}",
        lines[3]
    );
    let out = boaf(&["deals", "-3..2", "--json"], "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["solvable"].as_u64().unwrap() + v["unsolvable"].as_array().unwrap().len() as u64,
        5
    );
}

#[test]
fn analyze_json_has_the_documented_shape() {
    let out = boaf(
        &[
            "analyze",
            "--json",
            "-- -- 5D -- / 4D -- 5H -- / -- KD 5C -- / 9S 9C 4C --",
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let depths = v["depths"].as_array().unwrap();
    assert_eq!(depths.len(), 8);
    assert_eq!(depths[0]["depth"], 0);
    assert_eq!(depths[0]["states"], 1);
    assert_eq!(depths[0]["solvable"], 1);
    let half = &depths[4];
    let ratio = half["solvable"].as_f64().unwrap() / half["states"].as_f64().unwrap();
    assert_eq!(v["halfway_ratio"].as_f64().unwrap(), ratio);
    assert_eq!(v["features"]["n"], 8);
    assert_eq!(v["features"]["rank_clusters"], 3);
}

#[test]
fn bad_input_says_what_and_where() {
    let cases: [(&[&str], &str); 8] = [
        (
            &["solve", "TH5HKSTC6SACTS6C6HQD4SJDJS3C5D3X"],
            "line 1, column 32: unknown suit 'X'",
        ),
        (
            &["solve", "TH5H"],
            "a 4x4 state needs 32 characters (2 per cell, 3 for a 10 like 10H), found 4",
        ),
        (
            &["solve", "TH 5H / TH 4C"],
            "line 1, column 9: TH appears twice (first at line 1, column 1)",
        ),
        (
            &["analyze", "--grid", "5x5", "TH"],
            "a grid is written RxC with 1 to 16 cells",
        ),
        (&["deals", "5..2"], "the range 5..2 is empty"),
        (&["solve", "/"], "the state has no cards"),
        (
            &["solve", "--grid", "4611686018427387905x4", "AS"],
            "a grid is written RxC",
        ),
        (
            &["analyze", "--memory-cap", "lots", "--deal", "1"],
            "'lots' is not a size",
        ),
    ];
    for (args, want) in cases {
        let out = boaf(args, "");
        assert!(!out.status.success(), "{args:?}");
        assert!(
            text(&out.stderr).contains(want),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
}

#[test]
fn generate_and_list_puzzles() {
    let dir = TempDir::new("cli-gen");
    let file = dir.join("n6.jsonl");
    let f = file.to_str().unwrap();
    let gen_args = small_batch(f);
    let out = boaf(&gen_args, "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).contains("seed 11"));
    let first = std::fs::read_to_string(&file).unwrap();
    let (cands, skipped) = boaf_core::generator::store::parse_store(&first);
    assert!(skipped.is_empty());
    assert!(!cands.is_empty() && cands.len() <= 4);
    assert!(
        cands
            .iter()
            .all(|c| c.n == 6 && c.energy_name == "E2" && c.features.solvable)
    );
    // The same batch again: every puzzle is already stored, so nothing is added.
    let out = boaf(&gen_args, "");
    assert!(out.status.success());
    assert!(
        text(&out.stderr).contains("0 new puzzles"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), first);

    // Listing with a filter and a sort.
    let out = boaf(&["puzzles", f, "--where", "n == 6 and energy_x < 1"], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("column 12") && err.contains("unknown feature 'energy_x'"),
        "{err}"
    );
    let out = boaf(&["puzzles", f, "--sort", "avg_flockability", "--json"], "");
    assert!(out.status.success());
    let listed: Vec<f64> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<boaf_core::generator::pipeline::Candidate>(l).unwrap())
        .map(|c| c.features.avg_flockability)
        .collect();
    assert_eq!(listed.len(), cands.len());
    assert!(listed.windows(2).all(|w| w[0] <= w[1]));
    let out = boaf(&["puzzles", f, "--where", "avg_flockability > 100"], "");
    assert!(text(&out.stdout).ends_with("0 puzzles\n"));
}

#[test]
fn generate_reports_bad_energy_files_and_names() {
    let dir = TempDir::new("cli-energy");
    let bad = dir.join("mine.toml");
    std::fs::write(
        &bad,
        "[[energy]]\nname = \"mine\"\nvalue = \"n * halfway_ration\"\n",
    )
    .unwrap();
    let out = boaf(
        &[
            "generate",
            "-n",
            "5",
            "--energies",
            bad.to_str().unwrap(),
            "--energy",
            "mine",
        ],
        "",
    );
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("mine.toml:3:14: unknown feature 'halfway_ration'"),
        "{err}"
    );
    let out = boaf(&["generate", "-n", "5", "--energy", "E9"], "");
    assert!(text(&out.stderr).contains("no energy named 'E9' (there are E0, E1, E2, E3, E4, E5)"));
    let out = boaf(&["generate", "-n", "17"], "");
    assert!(
        text(&out.stderr).contains("n must be 1 to 16"),
        "{}",
        text(&out.stderr)
    );
    let out = boaf(&["generate", "-n", "5", "--shard", "3/3"], "");
    assert!(text(&out.stderr).contains("not a shard"));
}

#[test]
fn store_order_does_not_depend_on_the_workers() {
    let dir = TempDir::new("cli-order");
    let mut files = Vec::new();
    for workers in ["1", "2"] {
        let file = dir.join(format!("w{workers}.jsonl"));
        let out = boaf(
            &[
                "generate",
                "-n",
                "7",
                "--count",
                "6",
                "--energy",
                "E3",
                "--seed",
                "21",
                "--iterations",
                "150",
                "--workers",
                workers,
                "--out",
                file.to_str().unwrap(),
            ],
            "",
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        let (cands, _) = boaf_core::generator::store::read_store(&file).unwrap();
        files.push(
            cands
                .iter()
                .map(|c| (c.index, c.puzzle.clone(), c.energy.to_bits()))
                .collect::<Vec<_>>(),
        );
    }
    assert!(!files[0].is_empty());
    assert_eq!(files[0], files[1]);
    assert!(
        files[0].windows(2).all(|w| w[0].0 < w[1].0),
        "stored in batch order"
    );
}

#[test]
fn with_no_display_the_app_points_to_the_cli_and_fails() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_boaf"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("no display"), "{err}");
    assert!(err.contains("boaf generate"), "{err}");
}

#[test]
fn energies_come_from_the_working_folder_too() {
    let dir = TempDir::new("cli-folder");
    std::fs::create_dir_all(dir.join("energies")).unwrap();
    std::fs::create_dir_all(dir.join("assets")).unwrap();
    std::fs::write(
        dir.join("energies/a.toml"),
        "[[energy]]\nname = \"mine\"\nvalue = \"2 * n\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("assets/fitted-energies.toml"),
        "[[energy]]\nname = \"fitted\"\nvalue = \"1 - 0.5 * rank_clusters\"\n",
    )
    .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_boaf"))
        .arg("energies")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let listing = text(&out.stdout);
    let names: Vec<&str> = listing
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter_map(|id| id.split('-').next())
        .collect();
    assert!(
        names.contains(&"mine") && names.contains(&"fitted"),
        "{listing}"
    );
}

#[test]
fn puzzles_warns_when_a_candidate_leaves_its_energys_rated_range() {
    let dir = TempDir::new("cli-range");
    std::fs::create_dir_all(dir.join("energies")).unwrap();
    // Rated on rank_clusters 100 to 200: no 6-card puzzle is inside.
    std::fs::write(
        dir.join("energies/a.toml"),
        "[[energy]]\nname = \"ranged\"\nvalue = \"n - rank_clusters\"\n\
         range = { rank_clusters = [100, 200] }\n\n\
         [[energy]]\nname = \"plain\"\nvalue = \"n - rank_clusters\"\n",
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_boaf"))
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        out
    };
    let gen_args = |energy: &'static str| {
        [
            "generate",
            "-n",
            "6",
            "--count",
            "1",
            "--seed",
            "3",
            "--iterations",
            "20",
            "--workers",
            "1",
            "--energy",
            energy,
            "--out",
        ]
    };
    run(&[&gen_args("ranged")[..], &["ranged.jsonl"]].concat());
    run(&[&gen_args("plain")[..], &["plain.jsonl"]].concat());
    let ranged = text(&run(&["puzzles", "ranged.jsonl"]).stderr);
    let store = std::fs::read_to_string(dir.join("ranged.jsonl")).unwrap();
    let (cands, _) = boaf_core::generator::store::parse_store(&store);
    let clusters = cands[0].features.rank_clusters;
    assert!(
        ranged.contains(&format!(
            "warning: puzzle {} ({}): extrapolated: rank_clusters {clusters} outside the rated 100–200",
            cands[0].index, cands[0].energy_id
        )),
        "{ranged}"
    );
    // The same energy without a range warns of nothing.
    let plain = run(&["puzzles", "plain.jsonl"]);
    assert!(
        !text(&plain.stderr).contains("warning"),
        "{}",
        text(&plain.stderr)
    );
    let plain = text(&plain.stdout);
    assert!(plain.ends_with("1 puzzle\n"), "{plain}");
}

#[test]
fn boaf_regress_prints_the_table_of_the_example_ratings() {
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("ratings/example.csv");
    let features = ["halfway_ratio", "rank_clusters"];
    let file = example.to_str().unwrap();
    let out = boaf(
        &["regress", file, "--features", &features.join(","), "--json"],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let (x, y) = ols::csv_columns(&example, &features, "rating");
    let (beta, se) = ols::normal_equations_zscored(&x, &y);
    assert_eq!(v["fit"]["n"].as_u64(), Some(y.len() as u64));
    let coefs = v["fit"]["coefs"].as_array().unwrap();
    for j in 0..2 {
        assert!((coefs[j]["estimate"].as_f64().unwrap() - beta[j + 1]).abs() < 1e-6);
        assert!((coefs[j]["std_error"].as_f64().unwrap() - se[j + 1]).abs() < 1e-6);
    }
    // The text table, and clear errors for what cannot be fitted.
    let table = text(&boaf(&["regress", file], "").stdout);
    assert!(table.starts_with("Feature"), "{table}");
    assert!(table.contains(&format!(
        "{:.4}",
        v["fit"]["intercept"]["estimate"].as_f64().unwrap()
    )));
    let out = boaf(&["regress", file, "--features", "n"], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("'n' has the same value in every rating"),
        "{err}"
    );
    // A name that is no feature is refused before the file is read, with
    // the features listed; spaces around a name do not matter.
    let out = boaf(&["regress", file, "--features", "flock"], "");
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    assert!(
        err.contains("unknown feature 'flock'") && err.contains("avg_flockability"),
        "{err}"
    );
    let spaced = boaf(
        &[
            "regress",
            file,
            "--features",
            "halfway_ratio, rank_clusters",
            "--json",
        ],
        "",
    );
    assert!(spaced.status.success(), "{}", text(&spaced.stderr));
}

#[test]
fn boaf_regress_names_the_line_column_and_text_of_each_value_that_does_not_read() {
    let dir = TempDir::new("cli-regress-values");
    let path = dir.join("edited.csv");
    // Line 4 is the second line of B's notes.
    std::fs::write(
        &path,
        "puzzle,rating,depth1_ratio,halfway_ratio,notes\n\
         A,5,0.5,0.1,fine\n\
         B,6,0.6,0.2,\"two\n\
         lines\"\n\
         C,seven,0.7,0.3,x\n\
         D,4,abc,,y\n\
         E,3,0.2\n\
         F,2,0.3,,z\n\
         G,8,0.9,0.4,w\n\
         H,1,0.1,0.5,v\n",
    )
    .unwrap();
    let file = path.to_str().unwrap();
    let out = boaf(
        &["regress", file, "--features", "depth1_ratio,halfway_ratio"],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stderr),
        format!(
            "boaf: {file}: line 7: skipped: 3 fields where the header has 5\n\
             boaf: {file}: line 5, column rating: 'seven' is not a number\n\
             boaf: {file}: line 6, column depth1_ratio: 'abc' is not a number\n"
        )
    );
    let table = text(&out.stdout);
    assert!(table.contains("n = 4 "), "{table}");
    assert!(
        table.contains(
            "3 rows left out: 1 row with no value for the rating or a chosen feature, \
             2 rows with a value that is not a number"
        ),
        "{table}"
    );
    let out = boaf(
        &[
            "regress",
            file,
            "-f",
            "depth1_ratio,halfway_ratio",
            "--json",
        ],
        "",
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["left_out"], 3);
    assert_eq!(v["missing"], 1);
    assert_eq!(v["unreadable"], 2);
    assert_eq!(
        v["value_problems"][0],
        serde_json::json!({"line": 5, "column": "rating", "text": "seven"})
    );
}

#[test]
fn boaf_regress_refuses_a_file_that_is_not_ratings_and_says_an_os_error_once() {
    let dir = TempDir::new("cli-regress-files");
    for (name, content, want) in [
        ("empty.csv", "", "is not a ratings file: it is empty"),
        (
            "garbage.csv",
            "hello world\nfoo\n",
            "is not a ratings file: its header has no 'puzzle' and 'rating' columns \
             (first line: \"hello world\")",
        ),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, content).unwrap();
        let out = boaf(&["regress", path.to_str().unwrap()], "");
        assert!(!out.status.success());
        assert_eq!(
            text(&out.stderr),
            format!("boaf: {} {want}\n", path.display())
        );
    }
    let missing = dir.join("missing.csv");
    let os = std::fs::read(&missing).unwrap_err().to_string();
    let out = boaf(&["regress", missing.to_str().unwrap()], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert_eq!(err.matches(&os).count(), 1, "{err}");
    assert_eq!(err, format!("boaf: {}: {os}\n", missing.display()));
}

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

#[test]
fn features_print_the_readme_table_and_every_help_lists_them() {
    // One definition of each feature: `boaf features` prints it, the README
    // holds the same table, and the commands that take features list them.
    let out = boaf(&["features"], "");
    assert!(out.status.success());
    let table = text(&out.stdout);
    assert_eq!(table.lines().count(), 2 + 15, "{table}");
    assert!(table.contains(
        "| `mcts_budget` | MCTS budget | The smallest budget of the ladder 1, 2, 5 … 10 000 \
         iterations at which MCTS wins 4 of 5 seeded games"
    ));
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    assert!(
        readme.contains(&table),
        "the README's feature table differs from `boaf features`; paste its output:\n{table}"
    );
    for command in ["generate", "puzzles", "regress"] {
        let help = text(&boaf(&[command, "--help"], "").stdout);
        assert!(
            help.contains("  halfway_ratio: The share of the distinct states at the halfway depth")
                && help.contains("  mcts_budget: "),
            "{command} --help:\n{help}"
        );
    }
}

/// `boaf generate`'s arguments for a quick batch of 6-card puzzles into `out`.
fn small_batch(out: &str) -> [&str; 15] {
    [
        "generate",
        "-n",
        "6",
        "--count",
        "4",
        "--energy",
        "E2",
        "--seed",
        "11",
        "--iterations",
        "200",
        "--workers",
        "2",
        "--out",
        out,
    ]
}

/// A study made from a generated store: its database, and the store.
fn study_folder(dir: &TempDir) -> (String, String) {
    let store = dir.join("n6.jsonl");
    let s = store.to_str().unwrap();
    let out = boaf(&small_batch(s), "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    std::fs::write(dir.join("intro.txt"), "Play, then rate <b>each</b>.").unwrap();
    let db = dir.join("ratings/studies.sqlite");
    (s.to_string(), db.to_str().unwrap().to_string())
}

#[test]
fn study_create_list_close_and_export() {
    use boaf_core::engine::solver::{Verdict, solve};
    use boaf_core::study::play_log::PlayLog;
    use boaf_server::answers::{Next, Submission};
    use boaf_server::store::Store;

    let dir = TempDir::new("cli-study");
    let (store, db) = study_folder(&dir);
    let intro = dir.join("intro.txt");
    let intro = intro.to_str().unwrap();
    let create = |name: &str, filter: &str| {
        boaf(
            &[
                "study",
                "create",
                name,
                "--from",
                &store,
                "--where",
                filter,
                "--per-rater",
                "2",
                "--intro",
                intro,
                "--db",
                &db,
            ],
            "",
        )
    };
    let out = create("pilot", "n == 6");
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stderr).is_empty(), "{}", text(&out.stderr));
    let puzzles = boaf_core::generator::store::read_store(Path::new(&store))
        .unwrap()
        .0;
    assert!(
        text(&out.stdout).contains(&format!(
            "pilot  open    {} puzzles, 2 per rater",
            puzzles.len()
        )),
        "{}",
        text(&out.stdout)
    );
    // A filter nothing passes, a bad filter, a name taken, a bad name.
    let out = create("empty", "n > 6");
    assert!(
        !out.status.success() && text(&out.stderr).contains("no puzzle of"),
        "{}",
        text(&out.stderr)
    );
    let out = create("bad", "n >> 6");
    assert!(
        text(&out.stderr).contains("bad --where: column"),
        "{}",
        text(&out.stderr)
    );
    let out = create("pilot", "n == 6");
    assert!(text(&out.stderr).contains("a study named \"pilot\" exists already"));
    let out = create("a b", "n == 6");
    assert!(
        text(&out.stderr).contains("a study name is"),
        "{}",
        text(&out.stderr)
    );

    // Two ratings through the store, as the server stores them.
    let mut s = Store::open(Path::new(&db)).unwrap();
    let (rater, _) = s.join("pilot", "Ann", Some("P7")).unwrap();
    let mut rng = <rand::rngs::StdRng as rand::SeedableRng>::seed_from_u64(3);
    let mut expected_moves = Vec::new();
    for i in 0..2 {
        let Next::Puzzle(h) = s.next("pilot", &rater, &mut rng).unwrap() else {
            panic!("a puzzle")
        };
        let c = puzzles.iter().find(|c| c.puzzle == h.puzzle).unwrap();
        let Ok(Verdict::Solvable(path)) = solve(&c.state().unwrap()) else {
            panic!("solvable")
        };
        let log = PlayLog::of_moves(&path, 3_000.0, 4_000.0, true);
        let sub = Submission {
            id: format!("s{i}"),
            puzzle: h.id,
            log,
            rating: 4.0 + i as f64,
            notes: "=1+1, \"<script>\"".into(),
        };
        s.submit("pilot", &rater, &sub).unwrap();
        expected_moves.push(path.len());
    }
    drop(s);

    let out = boaf(&["study", "close", "pilot", "--db", &db], "");
    assert!(
        text(&out.stdout).contains("pilot  closed"),
        "{}",
        text(&out.stdout)
    );
    let out = boaf(&["study", "list", "--db", &db], "");
    assert!(
        text(&out.stdout).contains("pilot  closed")
            && text(&out.stdout).contains("1 raters  2 ratings"),
        "{}",
        text(&out.stdout)
    );
    let csv = dir.join("pilot.csv");
    let out = boaf(
        &[
            "study",
            "export",
            "pilot",
            "--db",
            &db,
            "-o",
            csv.to_str().unwrap(),
        ],
        "",
    );
    assert!(
        text(&out.stdout).contains("2 ratings written to"),
        "{}",
        text(&out.stderr)
    );
    let table = boaf_core::study::ratings::read_ratings(&csv).unwrap();
    assert_eq!(table.headers, boaf_core::study::ratings::header());
    for (row, moves) in expected_moves.iter().enumerate() {
        assert_eq!(table.text(row, "rater"), Some("P7"));
        assert_eq!(table.number(row, "moves"), Some(*moves as f64));
        assert_eq!(table.text(row, "seconds"), Some("3.0"));
        assert_eq!(table.number(row, "rating"), Some(4.0 + row as f64));
        assert_eq!(table.notes(row).unwrap(), "=1+1, \"<script>\"");
        assert!(table.number(row, "avg_flockability").is_some());
        // The grade column: the puzzle's grade by the default rule.
        let c = puzzles
            .iter()
            .find(|c| table.text(row, "puzzle") == Some(c.puzzle.as_str()))
            .unwrap();
        assert!(c.grade().is_some(), "generate computes the difficulty");
        assert_eq!(table.text(row, "grade"), c.grade().map(|g| g.name()));
    }
    // The study's rows are play records that `boaf grades` checks.
    let out = boaf(&["grades", "--study", "pilot", "--db", &db], "");
    assert!(
        text(&out.stdout).contains("study pilot: 2 play records of 2 rows (0 without a play)")
            && text(&out.stdout).contains("raters: P7 2"),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        std::fs::read_to_string(&csv)
            .unwrap()
            .contains("\"'=1+1, \"\"<script>\"\"\"")
    );
    let out = boaf(&["study", "export", "nosuch", "--db", &db], "");
    assert!(text(&out.stderr).contains("no study named \"nosuch\""));
}

#[test]
fn serve_prints_the_link_and_the_secret_answers_and_stops_on_sigint() {
    use std::io::{BufRead, BufReader, Read};
    use std::time::{Duration, Instant};

    let dir = TempDir::new("cli-serve");
    let (store, db) = study_folder(&dir);
    let intro = dir.join("intro.txt");
    let out = boaf(
        &[
            "study",
            "create",
            "pilot",
            "--from",
            &store,
            "--per-rater",
            "99",
            "--intro",
            intro.to_str().unwrap(),
            "--db",
            &db,
        ],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("fewer than --per-rater 99"),
        "{}",
        text(&out.stderr)
    );
    let out = boaf(&["serve", "--per-rater", "0", "--db", &db], "");
    assert!(
        text(&out.stderr).contains("--per-rater is a number of requests above 0"),
        "{}",
        text(&out.stderr)
    );
    let out = boaf(
        &[
            "serve",
            "--trusted-proxy",
            "10.0.0.0/8,10.0.0.0/33",
            "--db",
            &db,
        ],
        "",
    );
    assert!(
        text(&out.stderr).contains(
            "--trusted-proxy: \"10.0.0.0/33\" is not an address nor a network (10.0.0.0/8, 192.168.1.5, ::1)"
        ),
        "{}",
        text(&out.stderr)
    );
    let help = text(&boaf(&["serve", "--help"], "").stdout);
    assert!(
        help.contains("--trusted-proxy") && help.contains("X-Forwarded-For"),
        "{help}"
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_boaf"))
        .args([
            "serve",
            "--port",
            "0",
            "--per-address",
            "500",
            "--trusted-proxy",
        ])
        .args(["--db", &db])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut seen = Vec::new();
    let (mut link, mut secret) = (None, None);
    while secret.is_none() {
        let line = lines
            .next()
            .expect("boaf serve printed its secret")
            .unwrap();
        if let Some(l) = line.strip_prefix("raters' link for pilot: ") {
            link = Some(l.to_string());
        }
        if let Some(s) = line.strip_prefix("admin secret (shown once; only its hash is kept): ") {
            secret = Some(s.to_string());
        }
        seen.push(line);
    }
    let link = link.unwrap_or_else(|| panic!("no link in {seen:?}"));
    assert!(
        link.starts_with("http://127.0.0.1:") && link.ends_with("/s/pilot"),
        "{link}"
    );
    assert_eq!(secret.unwrap().len(), 64);
    // It answers on that address.
    let host = link
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    // One request (its first line and headers) on a connection of its own: the reply.
    let ask = |head: &str| {
        let mut conn = std::net::TcpStream::connect(&host).unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        write!(conn, "{head}\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
        let mut reply = String::new();
        conn.read_to_string(&mut reply).unwrap();
        reply
    };
    let reply = ask("GET /api/s/pilot HTTP/1.1");
    assert!(
        reply.starts_with("HTTP/1.1 200") && reply.contains("rate <b>each</b>"),
        "{reply}"
    );
    // Through the trusted proxy over HTTPS, the rater's cookie is Secure.
    let reply = ask(
        "POST /api/s/pilot/join HTTP/1.1\r\nX-Forwarded-For: 203.0.113.9\r\n\
         X-Forwarded-Proto: https\r\nContent-Length: 0",
    );
    assert!(
        reply.starts_with("HTTP/1.1 201") && reply.contains("; Secure\r\n"),
        "{reply}"
    );
    // A client holding a connection open, half a request sent, does not
    // keep a stop from finishing.
    let mut held = std::net::TcpStream::connect(&host).unwrap();
    write!(held, "GET /api/s/pilot HTTP/1.1\r\nHost: {host}\r\n").unwrap();
    std::thread::sleep(Duration::from_millis(200));
    // SIGINT stops it cleanly, within a bounded wait.
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(8) {
            let _ = child.kill();
            panic!("boaf serve did not stop on SIGINT within its 3 s deadline");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    assert!(rest.iter().any(|l| l == "boaf serve: stopped"), "{rest:?}");
    drop(held);
}

#[test]
fn regress_reads_a_study_from_the_database_as_its_export() {
    use boaf_core::engine::limits::Limits;
    use boaf_core::engine::solver::{Verdict, solve};
    use boaf_core::engine::state::Grid;
    use boaf_core::generator::descent::random_puzzle;
    use boaf_core::generator::pipeline::entered_candidate;
    use boaf_core::study::play_log::PlayLog;
    use boaf_server::answers::{NewStudy, Next, Submission};
    use boaf_server::store::Store;
    use rand::{RngExt, SeedableRng};

    let dir = TempDir::new("cli-regress-study");
    let db = dir.join("ratings/studies.sqlite");
    let db = db.to_str().unwrap();
    // Ten solvable 6-card puzzles, each rated by two raters.
    let mut rng = rand::rngs::StdRng::seed_from_u64(5);
    let energy = boaf_core::generator::energy::builtin()
        .get("E5")
        .unwrap()
        .clone();
    let grid = Grid::new(4, 4).unwrap();
    let mut puzzles = Vec::new();
    while puzzles.len() < 10 {
        let state = random_puzzle(6, grid, &mut rng);
        if let Ok(Verdict::Solvable(path)) = solve(&state) {
            let c = entered_candidate(&state, &energy, false, Limits::default()).unwrap();
            puzzles.push((c, path));
        }
    }
    let cands: Vec<_> = puzzles.iter().map(|p| p.0.clone()).collect();
    let mut s = Store::open(Path::new(db)).unwrap();
    let new = NewStudy {
        name: "pilot".into(),
        intro: "Rate.".into(),
        per_rater: 10,
        completion_code: None,
    };
    s.create_study(&new, &cands).unwrap();
    for (k, name) in ["Ann", "Bo"].iter().enumerate() {
        let (rater, _) = s.join("pilot", name, None).unwrap();
        while let Next::Puzzle(h) = s.next("pilot", &rater, &mut rng).unwrap() {
            let (c, path) = puzzles.iter().find(|p| p.0.puzzle == h.puzzle).unwrap();
            let log = PlayLog::of_moves(path, 3_000.0, 4_000.0, true);
            let halfway = c.features.halfway_ratio.unwrap_or(0.0);
            let rating = (10.0 * halfway + 2.0 * k as f64 + rng.random_range(0.0..3.0)).min(10.0);
            let sub = Submission {
                id: format!("{name}-{}", h.id),
                puzzle: h.id,
                log,
                rating,
                notes: String::new(),
            };
            s.submit("pilot", &rater, &sub).unwrap();
        }
    }
    drop(s);

    let csv = dir.join("pilot.csv");
    let csv = csv.to_str().unwrap();
    let out = boaf(&["study", "export", "pilot", "--db", db, "-o", csv], "");
    assert!(
        text(&out.stdout).contains("20 ratings written"),
        "{}",
        text(&out.stderr)
    );
    let features = ["--features", "halfway_ratio,avg_flockability"];
    let from_csv = boaf(&[&["regress", csv][..], &features].concat(), "");
    let from_db = boaf(
        &[&["regress", "--study", "pilot", "--db", db][..], &features].concat(),
        "",
    );
    assert!(from_db.status.success(), "{}", text(&from_db.stderr));
    let table = text(&from_db.stdout);
    assert!(
        table.starts_with("Model: ") && table.contains("halfway_ratio"),
        "{table}"
    );
    assert_eq!(table, text(&from_csv.stdout));
    assert_eq!(text(&from_db.stderr), text(&from_csv.stderr));

    // A file and a study at once, or neither, is refused; so is a study not there.
    let both = boaf(&["regress", csv, "--study", "pilot", "--db", db], "");
    assert!(
        text(&both.stderr).contains("cannot be used with"),
        "{}",
        text(&both.stderr)
    );
    let neither = boaf(&["regress"], "");
    assert!(!neither.status.success());
    let missing = boaf(&["regress", "--study", "nosuch", "--db", db], "");
    assert!(
        text(&missing.stderr).contains("no study named \"nosuch\""),
        "{}",
        text(&missing.stderr)
    );
}

/// The lines of `boaf bench serve`'s report that say what was lost.
fn bench_serve(args: &[&str]) -> String {
    let out = boaf(&[&["bench", "serve"][..], args].concat(), "");
    let report = text(&out.stdout);
    assert!(out.status.success(), "{report}\n{}", text(&out.stderr));
    report
}

#[test]
fn bench_serve_loses_and_duplicates_no_rating_under_load_or_kill_9() {
    let started = std::time::Instant::now();
    let small = [
        "--raters",
        "20",
        "--per-rater",
        "4",
        "--concurrency",
        "8",
        "--puzzles",
        "10",
        "--max-seconds",
        "20",
    ];
    let report = bench_serve(&small);
    assert!(
        report.contains("80 sent for, 80 acknowledged, 80 stored, 0 lost, 0 duplicated"),
        "{report}"
    );
    assert!(
        report.contains("database: integrity ok, 0 half-written rows"),
        "{report}"
    );
    let report = bench_serve(&[&small[..], &["--kill-runs", "2", "--seed", "3"]].concat());
    let runs: Vec<&str> = report.lines().filter(|l| l.starts_with("run ")).collect();
    assert_eq!(runs.len(), 2, "{report}");
    for run in runs {
        assert!(
            run.contains(
                " 0 lost, 0 duplicated, integrity ok, 0 half-written, restarted and serving"
            ),
            "{run}"
        );
    }
    assert!(
        report.contains("kill runs: 2,") && report.contains("all passed"),
        "{report}"
    );
    assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
}

#[test]
fn grades_print_the_rule_and_spread_and_filter_puzzles_by_grade() {
    use boaf_core::agents::grade::Grade;
    let dir = TempDir::new("cli-grades");
    let file = dir.join("n6.jsonl");
    let f = file.to_str().unwrap();
    let mut gen_args = small_batch(f);
    gen_args[4] = "6";
    let out = boaf(&gen_args, "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let cands = boaf_core::generator::store::read_store(&file).unwrap().0;
    let count = |g: Grade| cands.iter().filter(|c| c.grade() == Some(g)).count();
    assert!(cands.iter().all(|c| c.grade().is_some()), "all graded");

    let out = boaf(&["grades", f], "");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains("Medium  MCTS needs a budget of at most 50"),
        "{shown}"
    );
    assert!(
        shown.contains(&format!("{} puzzles in {f}:", cands.len())),
        "{shown}"
    );
    for g in Grade::ALL {
        let n = count(g);
        let share = 100.0 * n as f64 / cands.len() as f64;
        let line = format!("  {:<8} {n:>7}  {:>6}", g.name(), format!("{share:.1}%"));
        assert!(shown.contains(&line), "{line:?} in\n{shown}");
    }
    assert!(shown.contains("  ungraded       0    0.0%  (0 unsolvable, 0 without"));

    // The grade in `puzzles`: a column, a JSON field, and in --where.
    let out = boaf(&["puzzles", f], "");
    let table = text(&out.stdout);
    assert!(
        table.lines().next().unwrap().contains("  grade "),
        "{table}"
    );
    for c in &cands {
        let row = table.lines().find(|l| l.ends_with(&c.puzzle)).unwrap();
        assert!(
            row.contains(&format!("  {:<6}  ", c.grade().unwrap())),
            "{row}"
        );
    }
    let out = boaf(&["puzzles", f, "--json", "--sort", "grade"], "");
    let listed: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let grades: Vec<Grade> = listed
        .iter()
        .map(|v| v["grade"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(grades.len(), cands.len());
    assert!(grades.windows(2).all(|w| w[0] <= w[1]), "{grades:?}");
    // Each condition lists exactly the puzzles of its grades.
    let lists = |condition: &str, want: usize| {
        let out = boaf(&["puzzles", f, "--where", condition], "");
        assert!(out.status.success(), "{}", text(&out.stderr));
        let last = text(&out.stdout).lines().last().unwrap().to_string();
        assert_eq!(
            last,
            boaf_core::format::plural(want, "puzzle"),
            "{condition}"
        );
    };
    let harder = cands.len() - count(Grade::Easy);
    lists("grade >= Medium", harder);
    lists("grade == easy", count(Grade::Easy));
    lists(
        "grade != Hard and grade < 3",
        cands.len() - count(Grade::Hard) - count(Grade::Expert),
    );
    // In `grades` too (through the same selection): no Easy puzzle left.
    if harder > 0 {
        let out = boaf(&["grades", f, "--where", "grade >= Medium"], "");
        assert!(text(&out.stdout).contains("  Easy           0    0.0%"));
    }
    // An unknown grade is pointed at.
    let out = boaf(&["puzzles", f, "--where", "grade >= Tricky"], "");
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains(
            "bad --where: column 10: unknown grade \"Tricky\": use Easy, Medium, Hard or Expert"
        ) && err.contains("\n  grade >= Tricky\n           ^"),
        "{err}"
    );
}

#[test]
fn grades_check_people_and_fit_the_budgets_where_they_disagree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ratings");
    let csv = |name: &str| root.join(name).to_str().unwrap().to_string();
    // Built to be monotone: both figures in order, no fit needed.
    let out = boaf(
        &["grades", "--ratings", &csv("synthetic-grades-monotone.csv")],
        "",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    for line in [
        "32 play records of 32 rows (0 without a play)",
        "raters: synthetic-0 8, synthetic-1 8, synthetic-2 8, synthetic-3 8",
        "32 play records by synthetic raters: made up, not played by people",
        "  Easy         8       8      100.0%       10.0",
        "  Medium       8       6       75.0%       50.0",
        "  Hard         8       4       50.0%      100.0",
        "  Expert       8       2       25.0%      200.0",
        "solve rate monotone (never rises): yes; time monotone (never falls): yes",
    ] {
        assert!(shown.contains(line), "{line:?} in\n{shown}");
    }
    assert!(!shown.contains("not monotone"));
    // One rater of the four made a person: only their 8 plays are checked,
    // the synthetic ones are left out and said to be.
    let dir = TempDir::new("grades-mixed");
    let mixed = dir.join("mixed.csv");
    let rows = std::fs::read_to_string(csv("synthetic-grades-monotone.csv")).unwrap();
    std::fs::write(&mixed, rows.replace(",synthetic-0,", ",ann,")).unwrap();
    let shown = text(&boaf(&["grades", "--ratings", mixed.to_str().unwrap()], "").stdout);
    assert!(
        shown.contains("the 24 play records by synthetic raters are left out below"),
        "{shown}"
    );
    // The plays column of the four grade lines under the check's header.
    let header = shown.find("grade    plays").expect("the check's table");
    let checked: usize = shown[header..]
        .lines()
        .skip(1)
        .take(4)
        .map(|l| {
            l.split_whitespace()
                .nth(1)
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(checked, 8, "{shown}");
    // Built not to be: Hard is solved more often than Medium; --fit finds
    // the budgets that put it right.
    let bad = csv("synthetic-grades-not-monotone.csv");
    let shown = text(&boaf(&["grades", "--ratings", &bad], "").stdout);
    assert!(
        shown.contains("  Medium      16      10       62.5%       50.0"),
        "{shown}"
    );
    assert!(
        shown.contains("solve rate monotone (never rises): no; time monotone (never falls): yes")
    );
    assert!(shown.contains("not monotone: --fit fits the budgets"));
    let shown = text(&boaf(&["grades", "--ratings", &bad, "--fit"], "").stdout);
    assert!(
        shown.contains("fitted: budgets 10, 50, 500 (default 5, 50, 500)"),
        "{shown}"
    );
    let fitted = shown.split("fitted:").nth(1).unwrap();
    assert!(
        fitted.contains("  Easy        16      12       75.0%       10.0"),
        "{fitted}"
    );
    assert!(
        fitted.contains("solve rate monotone (never rises): yes; time monotone (never falls): yes")
    );
    // The example ratings are synthetic and hold no play: said so. They
    // have no grade column (written before it) and still read.
    let shown = text(&boaf(&["grades", "--ratings", &csv("example.csv")], "").stdout);
    assert!(
        shown.contains("0 play records of 60 rows (60 without a play)"),
        "{shown}"
    );
    assert!(shown.contains("no play records: no human check"));
    let out = boaf(&["grades"], "");
    assert!(text(&out.stderr).contains("give store files, --ratings CSV or --study NAME"));
}

#[test]
fn every_command_that_takes_a_state_takes_its_id() {
    use boaf_core::engine::notation::{parse_puzzle, puzzle_id, to_compact};
    // A 2×3 puzzle's id: rows compact, split by '/'; the shape is the grid.
    let id = "AH2S3H/4D5C6S";
    let state = parse_puzzle(id).unwrap();
    assert_eq!((state.grid().rows(), state.grid().cols()), (2, 3));
    assert_eq!(puzzle_id(&state), id);
    for command in ["solve", "analyze", "halfway"] {
        let out = boaf(&[command, "--json", id], "");
        assert!(out.status.success(), "{command}: {}", text(&out.stderr));
        let v: serde_json::Value =
            serde_json::from_str(text(&out.stdout).lines().next().unwrap()).unwrap();
        assert!(v["state"].as_str().is_some(), "{command}: {v}");
    }
    let out = boaf(&["solve", "--json", id], "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["state"], to_compact(&state));
    // A batch reads ids and deal numbers as a STATE argument does.
    let out = boaf(&["solve", "--batch", "-"], &format!("{id}\n617\n"));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lines: Vec<String> = text(&out.stdout).lines().map(str::to_string).collect();
    let deal = to_compact(&boaf_core::engine::deal::deal(617));
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with(&format!("{},", to_compact(&state))));
    assert!(lines[1].starts_with(&format!("{deal},")), "{lines:?}");
}
