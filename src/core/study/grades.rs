//! The grades checked against people: how puzzles spread over the grades,
//! the human solve rate and median active time per grade from play records
//! (a ratings file's rows, or a study's), whether both are monotone, and
//! the budget thresholds fitted to the people when they are not.
//!
//! A play record is a row of a ratings table with a play: `solved` reads
//! and the rater moved, spent time or solved. A play counts as solved when
//! the player solved it without asking for the solution. The time of a
//! grade is the median active seconds of its solved plays (the time to
//! solve; a give-up's time says when the player stopped, not how hard it
//! was).

use crate::agents::grade::{Grade, GradeRule, READS};
use crate::engine::feature::{Feature, LADDER};
use crate::engine::features::Features;
use crate::stats::spearman;
use crate::study::ratings::RatingsTable;

/// How the puzzles of a store spread over the grades.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Distribution {
    /// Puzzles of each grade, Easy first.
    pub counts: [usize; 4],
    /// Ungraded: the puzzle cannot be solved.
    pub unsolvable: usize,
    /// Ungraded: its difficulty features were not computed.
    pub missing: usize,
}

impl Distribution {
    /// The grades of `features` by `rule`.
    pub fn of<'a>(rule: &GradeRule, features: impl IntoIterator<Item = &'a Features>) -> Self {
        let mut d = Distribution::default();
        for f in features {
            match rule.grade(f) {
                Some(g) => d.counts[g.index()] += 1,
                None if !f.solvable => d.unsolvable += 1,
                None => d.missing += 1,
            }
        }
        d
    }

    /// Every puzzle counted, graded or not.
    pub fn total(&self) -> usize {
        self.counts.iter().sum::<usize>() + self.unsolvable + self.missing
    }
}

/// One person's play of one puzzle, with what its grade reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Play {
    /// The puzzle, as the ratings file writes it.
    pub puzzle: String,
    /// Who played it (a "synthetic" rater is not a person).
    pub rater: String,
    /// Whether the player solved it without being shown the solution.
    pub solved: bool,
    /// Seconds of active play (0 when the row has none: no time to count).
    pub seconds: f64,
    /// The values of the features a grade reads, in [`READS`]' order.
    pub reads: [Option<f64>; 5],
}

impl Play {
    /// A play of the puzzle with features `f` (for synthetic data and tests).
    pub fn new(rater: &str, solved: bool, seconds: f64, f: &Features) -> Play {
        Play {
            puzzle: String::new(),
            rater: rater.to_string(),
            solved,
            seconds,
            reads: READS.map(|r| f.get(r)),
        }
    }

    /// The puzzle's grade by `rule`.
    pub fn grade(&self, rule: &GradeRule) -> Option<Grade> {
        rule.grade_with(|f: Feature| {
            READS
                .iter()
                .position(|&r| r == f)
                .and_then(|i| self.reads[i])
        })
    }
}

/// The play records of a ratings table: rows whose `solved` reads and
/// whose player moved, spent time or solved (a rating given without
/// playing is no play). The second value counts the rows that are not.
pub fn plays(table: &RatingsTable) -> (Vec<Play>, usize) {
    let mut out = Vec::new();
    for row in 0..table.rows.len() {
        let number = |c: &str| table.number(row, c);
        let Some(solved) = number("solved").map(|s| s > 0.5) else {
            continue;
        };
        let seconds = number("seconds").unwrap_or(0.0);
        if !solved && seconds <= 0.0 && number("moves").unwrap_or(0.0) <= 0.0 {
            continue;
        }
        let shown = number("solution_shown").is_some_and(|s| s > 0.5);
        out.push(Play {
            puzzle: table.text(row, "puzzle").unwrap_or_default().to_string(),
            rater: table.text(row, "rater").unwrap_or_default().to_string(),
            solved: solved && !shown,
            seconds,
            reads: READS.map(|f| number(f.column())),
        });
    }
    let others = table.rows.len() - out.len();
    (out, others)
}

/// Whether a rater's name says the rows are made up, not played by a person.
pub fn is_synthetic(rater: &str) -> bool {
    rater.to_ascii_lowercase().contains("synthetic")
}

/// The raters of `plays` with their number of plays, in order of appearance.
pub fn raters(plays: &[Play]) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for p in plays {
        match out.iter_mut().find(|(r, _)| *r == p.rater) {
            Some((_, n)) => *n += 1,
            None => out.push((p.rater.clone(), 1)),
        }
    }
    out
}

/// People's figures for one grade.
#[derive(Clone, Debug, PartialEq)]
pub struct GradeFigures {
    /// The grade.
    pub grade: Grade,
    /// Plays of puzzles of this grade.
    pub plays: usize,
    /// Those solved without the solution shown.
    pub solved: usize,
    /// The median active seconds of the solved plays (`None`: no solve).
    pub median_seconds: Option<f64>,
}

impl GradeFigures {
    /// The share of plays solved (`None`: no play).
    pub fn solve_rate(&self) -> Option<f64> {
        (self.plays > 0).then(|| self.solved as f64 / self.plays as f64)
    }
}

/// The human check of a rule: per-grade figures and whether they are monotone.
#[derive(Clone, Debug, PartialEq)]
pub struct HumanCheck {
    /// Figures for each grade, Easy first.
    pub grades: [GradeFigures; 4],
    /// Plays of puzzles the rule does not grade.
    pub ungraded: usize,
    /// The solve rate never rises from a grade to the next harder one
    /// (over the grades that have plays).
    pub solve_rate_monotone: bool,
    /// The median time never falls from a grade to the next harder one
    /// (over the grades that have solves).
    pub time_monotone: bool,
    /// Spearman's correlation of grade with the seconds of solved plays.
    pub correlation: Option<f64>,
}

impl HumanCheck {
    /// Both figures monotone.
    pub fn monotone(&self) -> bool {
        self.solve_rate_monotone && self.time_monotone
    }

    /// Adjacent pairs of grades, of both figures, in the right order (at
    /// most 6); a pair with a figure missing is not.
    pub fn monotone_pairs(&self) -> usize {
        self.grades
            .windows(2)
            .map(|w| {
                let rate = matches!((w[0].solve_rate(), w[1].solve_rate()), (Some(a), Some(b)) if b <= a);
                let time = matches!((w[0].median_seconds, w[1].median_seconds), (Some(a), Some(b)) if b >= a);
                usize::from(rate) + usize::from(time)
            })
            .sum()
    }
}

/// The median of some numbers (`None` for none).
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

/// Whether each value is in order with the one before (`ok(before, next)`).
fn in_order(values: impl Iterator<Item = f64>, ok: impl Fn(f64, f64) -> bool) -> bool {
    let v: Vec<f64> = values.collect();
    v.windows(2).all(|w| ok(w[0], w[1]))
}

/// People's figures per grade of `rule`, and whether they are monotone.
pub fn check(plays: &[Play], rule: &GradeRule) -> HumanCheck {
    let mut seconds: [Vec<f64>; 4] = Default::default();
    let mut grades = Grade::ALL.map(|grade| GradeFigures {
        grade,
        plays: 0,
        solved: 0,
        median_seconds: None,
    });
    let mut ungraded = 0;
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for p in plays {
        let Some(g) = p.grade(rule) else {
            ungraded += 1;
            continue;
        };
        let figures = &mut grades[g.index()];
        figures.plays += 1;
        if p.solved {
            figures.solved += 1;
            // A solve with no recorded time says nothing of the time.
            if p.seconds > 0.0 {
                seconds[g.index()].push(p.seconds);
                xs.push(g.index() as f64);
                ys.push(p.seconds);
            }
        }
    }
    for (figures, s) in grades.iter_mut().zip(seconds) {
        figures.median_seconds = median(s);
    }
    let solve_rate_monotone = in_order(grades.iter().filter_map(|g| g.solve_rate()), |a, b| b <= a);
    let time_monotone = in_order(grades.iter().filter_map(|g| g.median_seconds), |a, b| {
        b >= a
    });
    let correlation = Some(spearman(&xs, &ys)).filter(|r| r.is_finite());
    HumanCheck {
        grades,
        ungraded,
        solve_rate_monotone,
        time_monotone,
        correlation,
    }
}

/// Budget thresholds fitted to people, with their figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Fitted {
    /// The rule with the fitted budgets (the rest as given).
    pub rule: GradeRule,
    /// Its human check.
    pub check: HumanCheck,
    /// Increasing triples of ladder budgets tried.
    pub tried: usize,
    /// Of [`Fitted::tried`], those with at least the minimum plays per grade.
    pub eligible: usize,
}

/// Every increasing triple of [`LADDER`] budgets, smallest first.
fn ladder_triples() -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    for (i, &a) in LADDER.iter().enumerate() {
        for (j, &b) in LADDER.iter().enumerate().skip(i + 1) {
            out.extend(LADDER[j + 1..].iter().map(|&c| [a, b, c]));
        }
    }
    out
}

/// Fits the three budget thresholds of `base` to people's plays: every
/// increasing triple of [`LADDER`] budgets whose four grades each have at
/// least `min_plays` plays is tried, and the best kept: the most monotone
/// adjacent pairs ([`HumanCheck::monotone_pairs`], of 6), then the highest
/// rank correlation of grade with time to solve, then the fewest ladder rungs
/// away from `base`'s budgets. `None` when no triple has the plays.
pub fn fit(plays: &[Play], base: &GradeRule, min_plays: usize) -> Option<Fitted> {
    let rung = |b: u32| LADDER.iter().position(|&x| x >= b).unwrap_or(LADDER.len()) as i64;
    let distance = |r: &GradeRule| -> i64 {
        (0..3)
            .map(|i| (rung(r.budgets[i]) - rung(base.budgets[i])).abs())
            .sum()
    };
    let mut best: Option<(GradeRule, HumanCheck)> = None;
    let (mut tried, mut eligible) = (0, 0);
    for budgets in ladder_triples() {
        tried += 1;
        let rule = GradeRule {
            budgets,
            ..base.clone()
        };
        let c = check(plays, &rule);
        if c.grades.iter().any(|g| g.plays < min_plays) {
            continue;
        }
        eligible += 1;
        let better = best.as_ref().is_none_or(|(r, b)| {
            let key = |c: &HumanCheck| (c.monotone_pairs(), c.correlation.unwrap_or(-1.0));
            let (new, old) = (key(&c), key(b));
            new.0 > old.0
                || (new.0 == old.0 && new.1 > old.1)
                || (new == old && distance(&rule) < distance(r))
        });
        if better {
            best = Some((rule, c));
        }
    }
    best.map(|(rule, check)| Fitted {
        rule,
        check,
        tried,
        eligible,
    })
}
