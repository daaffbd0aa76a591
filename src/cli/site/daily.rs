//! The daily puzzle's schedule, with no I/O: calendar days, a weekly
//! schedule of grades, and the plan that gives each day of a range one
//! puzzle of its grade, never repeated.
//!
//! The rule: the puzzles of each grade are shuffled once with the seed;
//! each day in order takes the first puzzle of its grade not yet taken.

use anyhow::{Result, anyhow, bail};
use boaf_core::agents::grade::Grade;
use boaf_core::generator::pipeline::{civil_from_days, unix_secs};
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use std::fmt;
use std::str::FromStr;

/// A calendar day (proleptic Gregorian), as days since 1970-01-01.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Day(i64);

/// The days of the week from Monday, as written in `--schedule`.
pub const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

impl Day {
    /// The day of a year (1–9999), month (1–12) and day of the month, if it exists.
    pub fn from_ymd(year: i64, month: i64, day: i64) -> Option<Day> {
        // Four-digit years only: the arithmetic below overflows for years
        // near i64's limits, and a date is printed as YYYY-MM-DD.
        if !(1..=9999).contains(&year) || !(1..=12).contains(&month) || !(1..=31).contains(&day) {
            return None;
        }
        // Howard Hinnant's days_from_civil: years from March, so the leap
        // day ends a year.
        let y = if month <= 2 { year - 1 } else { year };
        let era = y.div_euclid(400);
        let yoe = y - era * 400;
        let doy = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
        let d = Day(era * 146_097 + doe - 719_468);
        // 31 February comes back as another date: it does not exist.
        (d.ymd() == (year, month, day)).then_some(d)
    }

    /// The year, month (1–12) and day of the month.
    pub fn ymd(self) -> (i64, i64, i64) {
        civil_from_days(self.0)
    }

    /// The day of the week, 0 for Monday to 6 for Sunday.
    pub fn weekday(self) -> usize {
        // 1970-01-01 was a Thursday.
        (self.0 + 3).rem_euclid(7) as usize
    }

    /// The day `days` later.
    pub fn plus(self, days: i64) -> Day {
        Day(self.0 + days)
    }

    /// Days from `self` to `later`.
    pub fn until(self, later: Day) -> i64 {
        later.0 - self.0
    }

    /// Today in UTC (the command line has no time zone; pages use the visitor's).
    pub fn today_utc() -> Day {
        Day((unix_secs() / 86_400) as i64)
    }
}

/// The daily puzzle's first day by default, on UTC's day `today`: the day
/// before, since the pages count days by the visitor's local date, which
/// is UTC's or the day before or after (UTC−12 to UTC+14).
pub fn first_day(today: Day) -> Day {
    today.plus(-1)
}

impl fmt::Display for Day {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write!(f, "{y:04}-{m:02}-{d:02}")
    }
}

impl FromStr for Day {
    type Err = String;

    /// Reads `YYYY-MM-DD`.
    fn from_str(text: &str) -> Result<Day, String> {
        let bad = || format!("{text:?} is not a date like 2026-12-01");
        let parts: Vec<&str> = text.trim().split('-').collect();
        let [y, m, d] = parts[..] else {
            return Err(bad());
        };
        let num = |s: &str| s.parse::<i64>().map_err(|_| bad());
        Day::from_ymd(num(y)?, num(m)?, num(d)?).ok_or_else(bad)
    }
}

/// The grade of each day of the week, from Monday.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule(pub [Grade; 7]);

/// The default schedule: easy at the start of the week, expert on Sunday.
pub const DEFAULT_SCHEDULE: &str =
    "Mon=Easy,Tue=Easy,Wed=Medium,Thu=Medium,Fri=Hard,Sat=Hard,Sun=Expert";

impl FromStr for Schedule {
    type Err = anyhow::Error;

    /// Reads `Mon=Easy,Tue=Medium,…`: every day once (a day's first three
    /// letters or its whole name, in any case), each with a grade.
    fn from_str(text: &str) -> Result<Schedule> {
        let mut grades: [Option<Grade>; 7] = [None; 7];
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (day, grade) = part.split_once('=').ok_or_else(|| {
                anyhow!("bad --schedule: {part:?} is not DAY=GRADE, like Mon=Easy")
            })?;
            let day = day.trim();
            let at = WEEKDAYS
                .iter()
                .position(|w| {
                    day.len() >= 3
                        && w.len() >= day.len()
                        && w[..day.len()].eq_ignore_ascii_case(day)
                })
                .ok_or_else(|| {
                    anyhow!("bad --schedule: {day:?} is not a day of the week (Mon … Sun)")
                })?;
            let grade: Grade = grade.parse().map_err(|e| anyhow!("bad --schedule: {e}"))?;
            if grades[at].replace(grade).is_some() {
                bail!("bad --schedule: {} is given twice", WEEKDAYS[at]);
            }
        }
        let mut week = [Grade::Easy; 7];
        for (i, g) in grades.iter().enumerate() {
            week[i] = g.ok_or_else(|| {
                anyhow!(
                    "bad --schedule: no grade for {} (give all seven days)",
                    WEEKDAYS[i]
                )
            })?;
        }
        Ok(Schedule(week))
    }
}

/// One day's puzzle: the day and the puzzle's place in the list planned from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Daily {
    /// The day.
    pub day: Day,
    /// The puzzle's index in the list given to [`plan`].
    pub puzzle: usize,
}

/// One puzzle a day from `from` for `days` days, of the schedule's grade
/// that day, never repeated: `grades` is each puzzle's grade (ungraded ones
/// are never scheduled). An error says which day and grade ran out, or
/// that the range is longer than the graded puzzles.
pub fn plan(
    grades: &[Option<Grade>],
    from: Day,
    days: usize,
    schedule: &Schedule,
    seed: u64,
) -> Result<Vec<Daily>> {
    let graded = grades.iter().flatten().count();
    if days > graded {
        bail!(
            "the range {from} to {} is {days} days, but only {graded} of the {} puzzles have a \
             grade, and a daily puzzle is never repeated: shorten the range or add puzzles",
            from.plus(days as i64 - 1),
            grades.len(),
        );
    }
    let mut rng = StdRng::seed_from_u64(seed);
    let mut queues: Vec<Vec<usize>> = Grade::ALL
        .iter()
        .map(|&g| {
            let mut of: Vec<usize> = (0..grades.len())
                .filter(|&i| grades[i] == Some(g))
                .collect();
            of.shuffle(&mut rng);
            // Taken from the end: reverse, so the shuffle's first comes first.
            of.reverse();
            of
        })
        .collect();
    (0..days)
        .map(|k| {
            let day = from.plus(k as i64);
            let grade = schedule.0[day.weekday()];
            let queue = &mut queues[grade.index()];
            let puzzle = queue.pop().ok_or_else(|| {
                let total = grades.iter().filter(|&&g| g == Some(grade)).count();
                anyhow!(
                    "{day} ({}) needs a{} {grade} puzzle, but the selection's {total} {grade} \
                     puzzles are all used by then: add {grade} puzzles, or change the schedule \
                     or the range",
                    WEEKDAYS[day.weekday()],
                    if grade == Grade::Easy || grade == Grade::Expert {
                        "n"
                    } else {
                        ""
                    },
                )
            })?;
            Ok(Daily { day, puzzle })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_round_trip_and_know_their_weekday() {
        let d: Day = "2026-12-01".parse().unwrap();
        assert_eq!(d.to_string(), "2026-12-01");
        assert_eq!(WEEKDAYS[d.weekday()], "Tuesday");
        assert_eq!("1970-01-01".parse::<Day>().unwrap(), Day(0));
        assert_eq!(Day(0).weekday(), 3);
        assert_eq!(
            "2024-02-28".parse::<Day>().unwrap().plus(1).to_string(),
            "2024-02-29"
        );
        assert_eq!(
            "2023-02-28".parse::<Day>().unwrap().plus(1).to_string(),
            "2023-03-01"
        );
        assert!("2023-02-29".parse::<Day>().is_err());
        assert!("2023-13-01".parse::<Day>().is_err());
        assert!("tomorrow".parse::<Day>().is_err());
        // Years past four digits are refused, not overflowed (a panic in
        // debug builds before).
        assert!("25000000000000000-01-01".parse::<Day>().is_err());
        assert!(format!("{}-01-01", i64::MAX).parse::<Day>().is_err());
        assert!("0000-01-01".parse::<Day>().is_err());
        assert_eq!(
            "9999-12-31".parse::<Day>().unwrap().to_string(),
            "9999-12-31"
        );
        let first = "0001-01-01".parse::<Day>().unwrap();
        assert_eq!(first, Day(-719_162));
        let (y, m, dd) = first.plus(-1).ymd();
        assert_eq!(Day::from_ymd(y, m, dd), None, "year 0 is out of range");
        for n in first.0..800_000 {
            let d = Day(n);
            let (y, m, dd) = d.ymd();
            assert_eq!(Day::from_ymd(y, m, dd), Some(d));
        }
    }

    #[test]
    fn the_default_first_day_is_on_or_before_every_time_zones_today() {
        let today = "2026-11-25".parse::<Day>().unwrap();
        let first = first_day(today);
        assert_eq!(first.to_string(), "2026-11-24");
        // Every hour of UTC's day, in every zone from UTC−12 to UTC+14: the
        // visitor's local date is in the range that starts at `first`.
        let mut earliest = i64::MAX;
        for hour in 0..24 {
            for zone in -12..=14 {
                let secs = today.0 * 86_400 + (hour + zone) * 3_600;
                let local = Day(secs.div_euclid(86_400));
                assert!(local >= first, "UTC{zone:+} at {hour}h");
                earliest = earliest.min(local.0);
            }
        }
        // And no earlier than needed: UTC−12 at midnight is yesterday.
        assert_eq!(Day(earliest), first);
    }

    #[test]
    fn a_schedule_names_every_day_once_with_a_known_grade() {
        let s: Schedule = DEFAULT_SCHEDULE.parse().unwrap();
        assert_eq!(s.0[0], Grade::Easy);
        assert_eq!(s.0[6], Grade::Expert);
        let long = "monday=easy, tuesday=Easy,Wed=medium,thu=Medium,fri=hard,sat=Hard,SUN=expert";
        assert_eq!(long.parse::<Schedule>().unwrap(), s);
        let err = |t: &str| t.parse::<Schedule>().unwrap_err().to_string();
        assert!(err("Mon=Easy,Tue=Hardest").contains("unknown grade \"Hardest\""));
        assert!(err("Mon=Easy").contains("no grade for Tuesday"));
        assert!(err("Mon=Easy,Monday=Hard").contains("Monday is given twice"));
        assert!(err("Mo=Easy").contains("not a day of the week"));
        assert!(err("Mon:Easy").contains("DAY=GRADE"));
    }

    #[test]
    fn each_day_gets_an_unused_puzzle_of_its_grade_or_a_clear_error() {
        use Grade::*;
        let grades = [
            Some(Easy),
            Some(Hard),
            None,
            Some(Easy),
            Some(Easy),
            Some(Hard),
        ];
        let all_easy: Schedule = "Mon=Easy,Tue=Easy,Wed=Easy,Thu=Easy,Fri=Easy,Sat=Easy,Sun=Easy"
            .parse()
            .unwrap();
        let monday: Day = "2026-11-30".parse().unwrap();
        let plan3 = plan(&grades, monday, 3, &all_easy, 7).unwrap();
        let mut taken: Vec<usize> = plan3.iter().map(|d| d.puzzle).collect();
        assert_eq!(plan3[2].day.to_string(), "2026-12-02");
        taken.sort();
        assert_eq!(taken, [0, 3, 4]);
        // Deterministic: the same seed, the same plan.
        assert_eq!(plan(&grades, monday, 3, &all_easy, 7).unwrap(), plan3);
        let e = plan(&grades, monday, 4, &all_easy, 7)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("2026-12-03 (Thursday) needs an Easy puzzle, but the selection's 3 Easy"),
            "{e}"
        );
        let e = plan(&grades, monday, 6, &all_easy, 7)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("the range 2026-11-30 to 2026-12-05 is 6 days, but only 5 of the 6"),
            "{e}"
        );
    }
}
