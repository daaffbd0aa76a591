//! `boaf grades`: the rule, its spread, the filter by grade, and the check
//! against people's ratings.

use super::*;

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
