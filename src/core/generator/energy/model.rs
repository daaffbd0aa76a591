//! The energy model: an energy is a value (a sum of terms, each a number
//! times features) plus bonuses (conditions on features that add a constant
//! when they hold), and a penalty for an unsolvable puzzle. Evaluating one,
//! its canonical text, and its id.

use crate::agents::grade::GradeRule;
use crate::engine::feature::{Feature, FeatureSet};
use crate::engine::features::Features;
use std::fmt;

/// The penalty of an unsolvable puzzle unless an energy sets its own.
pub const DEFAULT_PENALTY: f64 = 1000.0;

/// A product of features times a coefficient (no features: a constant).
#[derive(Clone, Debug, PartialEq)]
pub struct Term {
    /// The coefficient.
    pub coef: f64,
    /// Features multiplied together.
    pub features: Vec<Feature>,
}

/// One side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A number.
    Number(f64),
    /// A feature.
    Feature(Feature),
    /// The puzzle's grade by the default rule, 0 (Easy) to 3 (Expert);
    /// the grades' names read as those numbers.
    Grade,
}

impl Operand {
    /// Whether the operand's value depends on `feature`.
    fn reads(&self, feature: Feature) -> bool {
        match self {
            Operand::Number(_) => false,
            Operand::Feature(f) => *f == feature,
            Operand::Grade => crate::agents::grade::READS.contains(&feature),
        }
    }
}

/// A comparison operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Cmp {
    /// `<`
    Lt,
    /// `<=` or `≤`
    Le,
    /// `>`
    Gt,
    /// `>=` or `≥`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
}

impl Cmp {
    /// Whether `a op b` holds.
    pub fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
            Cmp::Eq => a == b,
            Cmp::Ne => a != b,
        }
    }

    /// The operator as written in canonical form.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Eq => "==",
            Cmp::Ne => "!=",
        }
    }
}

/// A chain of comparisons such as `2 <= avg_flockability <= 4`.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    /// The first operand.
    pub first: Operand,
    /// Each operator with the operand after it.
    pub rest: Vec<(Cmp, Operand)>,
}

/// A constant added when every comparison holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Bonus {
    /// Comparisons joined by `and`.
    pub when: Vec<Chain>,
    /// Added to the energy when they all hold (negative rewards).
    pub add: f64,
}

/// One energy function.
#[derive(Clone, Debug, PartialEq)]
pub struct Energy {
    /// Its name, e.g. `E5`.
    pub name: String,
    /// A sentence on what it rewards.
    pub about: String,
    /// Summed for a solvable puzzle.
    pub value: Vec<Term>,
    /// Conditional constants.
    pub bonuses: Vec<Bonus>,
    /// The energy of an unsolvable puzzle.
    pub penalty: f64,
    /// The values each feature took in the ratings a fitted energy was fitted
    /// on (empty: no rated range, never a warning). Outside it the energy
    /// extrapolates. Not part of the definition or the id: it changes no value.
    pub range: Vec<RatedRange>,
}

/// The values of one feature the ratings behind a fitted energy covered.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedRange {
    /// The feature.
    pub feature: Feature,
    /// Its smallest rated value.
    pub min: f64,
    /// Its largest rated value.
    pub max: f64,
}

/// A feature of a candidate outside its energy's rated range: there the
/// energy (a predicted rating) is an extrapolation.
#[derive(Clone, Debug, PartialEq)]
pub struct RangeExcursion {
    /// The feature.
    pub feature: Feature,
    /// The candidate's value.
    pub value: f64,
    /// The smallest rated value.
    pub min: f64,
    /// The largest rated value.
    pub max: f64,
}

/// A number as short as it reads: `6`, `0.65`, `0.1235`.
fn short(x: f64) -> String {
    let s = crate::format::number(Some(x));
    if s.contains('.') && !s.contains('e') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// A number to four significant figures, trailing zeros dropped: `1000`,
/// `0.1235`, `12.35`. For display only.
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return short(x);
    }
    let decimals = (3 - x.abs().log10().floor() as i32).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

impl fmt::Display for RangeExcursion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} outside the rated {}–{}",
            self.feature,
            short(self.value),
            short(self.min),
            short(self.max)
        )
    }
}

fn fmt_number(x: f64) -> String {
    // `{:?}` keeps a float's shortest round-trip form, so the text (and the
    // id hashed from it) is stable.
    format!("{x:?}")
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Number(x) => f.write_str(&fmt_number(*x)),
            Operand::Feature(feature) => f.write_str(feature.column()),
            Operand::Grade => f.write_str("grade"),
        }
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.first)?;
        for (cmp, operand) in &self.rest {
            write!(f, " {} {operand}", cmp.symbol())?;
        }
        Ok(())
    }
}

impl Energy {
    /// The value expression in canonical form, e.g. `1000.0 * n * halfway_ratio`.
    pub fn value_text(&self) -> String {
        if self.value.is_empty() {
            return "0.0".into();
        }
        let terms: Vec<String> = self
            .value
            .iter()
            .map(|t| {
                std::iter::once(fmt_number(t.coef))
                    .chain(t.features.iter().map(|f| f.column().to_string()))
                    .collect::<Vec<_>>()
                    .join(" * ")
            })
            .collect();
        terms.join(" + ")
    }

    /// Each bonus as `+5 if a < b and c > d`.
    pub fn bonus_texts(&self) -> Vec<String> {
        self.bonuses
            .iter()
            .map(|b| {
                let when: Vec<String> = b.when.iter().map(|c| c.to_string()).collect();
                format!("{:+} if {}", b.add, when.join(" and "))
            })
            .collect()
    }

    /// The definition as lines, for listings: the value, each bonus, and
    /// the penalty, e.g. `value 1.0 * halfway_ratio`, `unsolvable 1000`.
    pub fn definition(&self) -> Vec<String> {
        std::iter::once(format!("value {}", self.value_text()))
            .chain(self.bonus_texts())
            .chain(std::iter::once(format!("unsolvable {}", self.penalty)))
            .collect()
    }

    /// The rated range as one line, e.g. `rated rank_clusters 2–5,
    /// halfway_ratio 0.1–0.6` (`None` without one). Shown beside the
    /// definition, not in it: two energies that differ only here score
    /// every puzzle the same.
    pub fn range_text(&self) -> Option<String> {
        (!self.range.is_empty()).then(|| {
            let parts: Vec<String> = self
                .range
                .iter()
                .map(|r| format!("{} {}–{}", r.feature, short(r.min), short(r.max)))
                .collect();
            format!("rated {}", parts.join(", "))
        })
    }

    /// The definition as people read it: the value with each coefficient
    /// to four significant figures (the file keeps them exact), what a
    /// fitted energy's value is, each bonus, the penalty and the rated range.
    pub fn shown(&self) -> Vec<String> {
        let mut value = String::new();
        for t in &self.value {
            let coef = significant(t.coef.abs());
            let sign = if t.coef < 0.0 { "-" } else { "+" };
            value += &match (value.is_empty(), sign) {
                (true, "+") => coef,
                (true, _) => format!("-{coef}"),
                (false, _) => format!(" {sign} {coef}"),
            };
            for f in &t.features {
                value += &format!(" * {f}");
            }
        }
        if value.is_empty() {
            value.push('0');
        }
        let mut lines = vec![format!("value {value}")];
        if !self.range.is_empty() {
            // Only a fit from ratings records a rated range.
            lines
                .push("  (minus the predicted rating: the best-rated puzzles score lowest)".into());
        }
        lines.extend(self.bonus_texts());
        lines.push(format!("unsolvable {}", short(self.penalty)));
        lines.extend(self.range_text());
        lines
    }

    /// What the energy rewards, then its definition as [`Energy::shown`]
    /// gives it, bonuses included: an energy's tooltip.
    pub fn explain(&self) -> String {
        std::iter::once(self.about.clone())
            .filter(|a| !a.is_empty())
            .chain(self.shown())
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Everything that decides the energy's values, in one canonical line.
    /// The rated range is left out on purpose: it decides no value, so the
    /// id (and the puzzles stored under it) stays that of the definition.
    fn canonical(&self) -> String {
        let mut s = format!(
            "value {}; penalty {}",
            self.value_text(),
            fmt_number(self.penalty)
        );
        for b in &self.bonuses {
            let when: Vec<String> = b.when.iter().map(Chain::to_string).collect();
            s += &format!("; if {} add {}", when.join(" and "), fmt_number(b.add));
        }
        s
    }

    /// A stable id: the name and a hash of the definition, e.g. `E5-1f0c93a2`.
    /// Two energies with the same id score every puzzle the same.
    pub fn id(&self) -> String {
        // FNV-1a: fixed by its definition, so ids never change between builds.
        let h = crate::hash::fnv1a(self.canonical().as_bytes());
        format!("{}-{:08x}", self.name, (h >> 32) as u32 ^ h as u32)
    }

    /// The features the energy reads, in the order it first reads them.
    pub fn features(&self) -> Vec<Feature> {
        let mut read: Vec<Feature> = Vec::new();
        let mut add = |f: Feature| {
            if !read.contains(&f) {
                read.push(f);
            }
        };
        for t in &self.value {
            t.features.iter().for_each(|&f| add(f));
        }
        for b in &self.bonuses {
            for c in &b.when {
                for op in std::iter::once(&c.first).chain(c.rest.iter().map(|(_, o)| o)) {
                    match op {
                        Operand::Feature(f) => add(*f),
                        Operand::Grade => {
                            crate::agents::grade::READS.into_iter().for_each(&mut add)
                        }
                        Operand::Number(_) => {}
                    }
                }
            }
        }
        read
    }

    /// The features the energy reads, as a set: scoring computes those and
    /// no more (solvability is always computed, for the penalty).
    pub fn reads(&self) -> FeatureSet {
        self.features().into_iter().collect()
    }

    /// Whether, for a solvable puzzle, the energy can only rise as `feature`
    /// rises and the others stay put: every term with it has a coefficient
    /// ≥ 0 (features are never negative) and no bonus reads it. The search
    /// may then judge a step on a lower bound of that feature.
    pub fn rises_with(&self, feature: Feature) -> bool {
        let reads = |o: &Operand| o.reads(feature);
        self.value
            .iter()
            .all(|t| t.coef >= 0.0 || !t.features.contains(&feature))
            && !self
                .bonuses
                .iter()
                .flat_map(|b| &b.when)
                .any(|c| reads(&c.first) || c.rest.iter().any(|(_, o)| reads(o)))
    }

    /// The energy of a puzzle. A feature the puzzle does not have (the
    /// depth-3 ratio of a 3-card puzzle, the tension of a puzzle with no
    /// solvable midgame) counts as 0 in a term and makes a comparison false.
    pub fn eval(&self, f: &Features) -> f64 {
        self.eval_with(f.solvable, |feature| f.get(feature))
    }

    /// [`Energy::eval`] over any source of feature values (`None`: missing).
    pub fn eval_with(&self, solvable: bool, value: impl Fn(Feature) -> Option<f64>) -> f64 {
        if !solvable {
            return self.penalty;
        }
        let mut e: f64 = self
            .value
            .iter()
            .map(|t| {
                t.features
                    .iter()
                    .fold(t.coef, |acc, &f| acc * value(f).unwrap_or(0.0))
            })
            .sum();
        for b in &self.bonuses {
            if holds(&b.when, &value) {
                e += b.add;
            }
        }
        e
    }

    /// The rated range of each feature (empty for an energy not fitted from
    /// ratings).
    pub fn rated_range(&self) -> &[RatedRange] {
        &self.range
    }

    /// The features of a puzzle outside the rated range, where the energy
    /// extrapolates. An unsolvable puzzle scores the penalty, so it never
    /// leaves the range; nor does a feature the puzzle does not have.
    pub fn outside_range(&self, f: &Features) -> Vec<RangeExcursion> {
        self.outside_range_with(f.solvable, |feature| f.get(feature))
    }

    /// [`Energy::outside_range`] over any source of feature values.
    pub fn outside_range_with(
        &self,
        solvable: bool,
        value: impl Fn(Feature) -> Option<f64>,
    ) -> Vec<RangeExcursion> {
        if !solvable {
            return Vec::new();
        }
        self.range
            .iter()
            .filter_map(|r| {
                let v = value(r.feature)?;
                (v < r.min || v > r.max).then_some(RangeExcursion {
                    feature: r.feature,
                    value: v,
                    min: r.min,
                    max: r.max,
                })
            })
            .collect()
    }

    /// A warning for a candidate the energy extrapolates to, e.g.
    /// `extrapolated: rank_clusters 6 outside the rated 2–5`; `None` inside
    /// the rated range or without one.
    pub fn extrapolation_note(&self, f: &Features) -> Option<String> {
        let out = self.outside_range(f);
        (!out.is_empty()).then(|| {
            let parts: Vec<String> = out.iter().map(RangeExcursion::to_string).collect();
            format!("extrapolated: {}", parts.join("; "))
        })
    }
}

/// Whether every chain of comparisons holds (a missing feature makes its
/// comparisons false).
pub fn holds(when: &[Chain], value: impl Fn(Feature) -> Option<f64>) -> bool {
    let operand = |o: &Operand| match o {
        Operand::Number(x) => Some(*x),
        Operand::Feature(f) => value(*f),
        Operand::Grade => GradeRule::default()
            .grade_with(&value)
            .map(|g| g.index() as f64),
    };
    when.iter().all(|c| {
        let mut left = operand(&c.first);
        c.rest.iter().all(|(cmp, o)| {
            let right = operand(o);
            let ok = matches!((left, right), (Some(a), Some(b)) if cmp.holds(a, b));
            left = right;
            ok
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::analysis::AnalysisOptions;
    use crate::engine::features::features;
    use crate::engine::notation::parse_state;
    use crate::generator::energy::file::{EnergyBook, builtin};

    fn feats(s: &str) -> Features {
        features(&parse_state(s, None).unwrap(), &AnalysisOptions::default())
            .unwrap()
            .0
    }

    #[test]
    fn an_energy_explains_itself_bonuses_included() {
        // E2's value is 0: all it rewards is in its bonuses.
        let book = builtin();
        let e2 = book.get("E2").unwrap().explain();
        assert!(e2.starts_with(&book.get("E2").unwrap().about), "{e2}");
        assert!(e2.contains("value 0\n"), "{e2}");
        assert!(e2.contains("-10 if rank_clusters > 1.0"), "{e2}");
        assert!(e2.ends_with("unsolvable 1000"), "{e2}");
        // A fit's 16-digit coefficients read to four figures; its value says
        // what it is; the id keeps the exact numbers.
        let fit = EnergyBook::parse(
            "[[energy]]\nname = \"fit\"\nvalue = \"-6.123456789012345 + 0.012345678901234 * n              - 1234.5678 * halfway_ratio\"\nrange = { n = [4, 16] }\n",
            "fit",
        )
        .unwrap();
        let fit = &fit.energies()[0];
        assert_eq!(
            fit.shown(),
            [
                "value -6.123 + 0.01235 * n - 1235 * halfway_ratio",
                "  (minus the predicted rating: the best-rated puzzles score lowest)",
                "unsolvable 1000",
                "rated n 4–16",
            ]
        );
        assert!(fit.value_text().contains("6.123456789012345"));
    }

    #[test]
    fn seed_001_six_card_puzzle() {
        // Five diamonds and 2C: 2 suits, ranks A–5 in one cluster; flock edges:
        // the 10 diamond pairs, and 2C with 2D, AD, 3D: 13 ÷ 6.
        let f = feats("4D -- -- --\n-- 5D 2C 2D\n3D -- AD --\n-- -- -- --");
        assert!(f.solvable);
        assert_eq!(f.avg_flockability, 13.0 / 6.0);
        let book = builtin();
        let e = |name: &str| book.get(name).unwrap().eval(&f);
        assert_eq!(e("E0"), 0.0);
        assert_eq!(e("E1"), -20.0); // 1 < 2 suits < 6, and 5 ranks
        assert_eq!(e("E2"), 0.0); // dominant 5/6, one cluster
        let d1 = f.depth1_ratio.unwrap();
        assert_eq!(e("E3"), 6.0 * d1 - 5.0); // only the flockability bonus
        let h = f.halfway_ratio.unwrap();
        assert_eq!(e("E4"), 1000.0 * 6.0 * h - 10.0);
        assert_eq!(e("E5"), h);
    }

    #[test]
    fn seed_001_seven_card_puzzle() {
        // 2 rank clusters, dominant suit ratio 3/7, 4 suits, 6 ranks,
        // average flockability 10/7 (outside 2..4).
        let f = feats("-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --");
        let book = builtin();
        let e = |name: &str| book.get(name).unwrap().eval(&f);
        assert_eq!(e("E1"), -20.0);
        assert_eq!(e("E2"), -20.0);
        assert_eq!(e("E3"), 7.0 * f.depth1_ratio.unwrap() - 5.0);
        assert_eq!(e("E4"), 7000.0 * f.halfway_ratio.unwrap() - 10.0);
    }

    #[test]
    fn unsolvable_scores_the_penalty() {
        // Two cards that do not flock.
        let f = feats("AS -- / -- 7D");
        assert!(!f.solvable);
        let book = EnergyBook::parse(
            "penalty = 500\n[[energy]]\nname = \"A\"\nvalue = \"halfway_ratio\"\n\
             [[energy]]\nname = \"B\"\npenalty = 7\n",
            "t.toml",
        )
        .unwrap();
        assert_eq!(book.get("A").unwrap().eval(&f), 500.0);
        assert_eq!(book.get("B").unwrap().eval(&f), 7.0);
        assert_eq!(builtin().get("E0").unwrap().eval(&f), 1000.0);
    }

    #[test]
    fn which_energies_rise_with_the_halfway_ratio() {
        let book = builtin();
        let rises = |name: &str| book.get(name).unwrap().rises_with(Feature::HalfwayRatio);
        // E0–E3 do not read it; E4 and E5 grow with it.
        assert!(
            ["E0", "E1", "E2", "E3", "E4", "E5"]
                .iter()
                .all(|e| rises(e))
        );
        let own = EnergyBook::parse(
            "[[energy]]\nname = \"down\"\nvalue = \"n - 3 * halfway_ratio\"\n\
             [[energy]]\nname = \"cut\"\nvalue = \"halfway_ratio\"\n\
             bonus = [{ when = \"halfway_ratio < 0.01\", add = 1 }]\n\
             [[energy]]\nname = \"up\"\nvalue = \"2 * n * halfway_ratio - depth1_ratio\"\n",
            "own.toml",
        )
        .unwrap();
        assert!(!own.get("down").unwrap().rises_with(Feature::HalfwayRatio));
        assert!(!own.get("cut").unwrap().rises_with(Feature::HalfwayRatio));
        assert!(own.get("up").unwrap().rises_with(Feature::HalfwayRatio));
        assert!(!own.get("up").unwrap().rises_with(Feature::Depth1Ratio));
    }

    #[test]
    fn expressions_evaluate_as_written() {
        let text = r#"
[[energy]]
name = "mix"
value = "2 * n - 0.5 * avg_flockability * n + 3 - depth3_ratio"
bonus = [
  { when = "n >= 4 and rank_clusters == 1", add = 1.5 },
  { when = "0 < dominant_suit_ratio ≤ 0.5", add = -2 },
  { when = "depth3_ratio > -1", add = 100 },
]
"#;
        let book = EnergyBook::parse(text, "mix.toml").unwrap();
        let e = book.get("mix").unwrap();
        // A 2-card puzzle has no depth-3 ratio: 0 in the term, false in the condition.
        let f = feats("AS 2S");
        let want = 2.0 * 2.0 - 0.5 * f.avg_flockability * 2.0 + 3.0;
        assert_eq!(f.avg_flockability, 0.5);
        assert_eq!(e.eval(&f), want); // n < 4; dominant ratio 1
        let f7 = feats("-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --");
        let want7 = 14.0 - 0.5 * (10.0 / 7.0) * 7.0 + 3.0 - f7.depth3_ratio.unwrap() - 2.0 + 100.0;
        assert!((e.eval(&f7) - want7).abs() < 1e-12);
    }

    #[test]
    fn ids_follow_the_definition_not_its_spelling() {
        let a = EnergyBook::parse(
            "[[energy]]\nname = \"X\"\nvalue = \"2*n\"\nbonus = [{ when = \"n<3\", add = -1 }]",
            "a",
        )
        .unwrap();
        let b = EnergyBook::parse(
            "[[energy]]\nname = \"X\"\nabout = \"same\"\nvalue = \" 2 * n \"\nbonus = [{ when = \"n < 3\", add = -1.0 }]",
            "b",
        )
        .unwrap();
        let c = EnergyBook::parse(
            "[[energy]]\nname = \"X\"\nvalue = \"2*n\"\nbonus = [{ when = \"n<=3\", add = -1 }]",
            "c",
        )
        .unwrap();
        let id = |book: &EnergyBook| book.get("X").unwrap().id();
        assert_eq!(id(&a), id(&b));
        assert_ne!(id(&a), id(&c));
    }
}
