//! The command line, run as a user would.

#[path = "../src/core/tests/common/ols.rs"]
mod ols;
#[path = "../src/core/tests/common/temp.rs"]
mod temp;
// The longer families of commands, each in a file of its own.
#[path = "cli/grades.rs"]
mod grades;
#[path = "cli/players.rs"]
mod players;
#[path = "cli/study.rs"]
mod study;

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
