//! What the study store takes and answers: a new study, a rater's
//! submission, and the studies, hand-outs, stored ratings, progress and
//! counts it gives back (serialized as the HTTP API's JSON).

use boaf_core::study::play_log::PlayLog;
use boaf_core::study::ratings::PlayRecord;
use serde::{Deserialize, Serialize};

/// What a new study is.
#[derive(Clone, Debug)]
pub struct NewStudy {
    /// Its name: letters, digits, `-` and `_`, as it goes in links.
    pub name: String,
    /// The text raters read first.
    pub intro: String,
    /// Puzzles each rater gets.
    pub per_rater: u32,
    /// The code shown at the end (for crowdsourcing sites), if any.
    pub completion_code: Option<String>,
}

/// A study as stored.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Study {
    /// Its row id.
    pub id: i64,
    /// Its name.
    pub name: String,
    /// The text raters read first.
    pub intro: String,
    /// Puzzles each rater gets.
    pub per_rater: u32,
    /// Whether raters may join and rate.
    pub open: bool,
    /// The code shown at the end, if any.
    pub completion_code: Option<String>,
    /// Its puzzles.
    pub puzzles: u32,
    /// Its raters.
    pub raters: u32,
    /// Its ratings.
    pub ratings: u32,
}

/// A rater of a study.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Rater {
    /// Its row id.
    pub id: i64,
    /// The study's row id.
    #[serde(skip)]
    pub study: i64,
    /// The rater's id in exports: the external pid, or `r<row id>`.
    pub rater: String,
    /// The nickname (may be empty).
    pub nickname: String,
}

/// A puzzle handed to a rater.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Handed {
    /// The puzzle's id in the study.
    pub id: i64,
    /// The puzzle in compact notation.
    pub puzzle: String,
    /// Grid rows.
    pub rows: u32,
    /// Grid columns.
    pub cols: u32,
    /// Which of the rater's `per_rater` puzzles it is, from 1 (the
    /// skipped do not count).
    pub position: u32,
    /// Each cell's card as the app shows it (`10♥`), row by row; `null`
    /// for an empty cell.
    pub cards: Vec<Option<String>>,
}

/// What a rater gets next.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Next {
    /// A puzzle to play (the one in progress, or a new one).
    Puzzle(Handed),
    /// Nothing left: the rater is done.
    Done {
        /// The completion code, if the study has one and the rater earned it.
        completion_code: Option<String>,
        /// Whether the rater rated a puzzle played (and so earned the code).
        reason: DoneReason,
    },
}

/// Why a rater is done, as the page explains it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DoneReason {
    /// The rater rated at least one puzzle with a move played.
    Rated,
    /// The rater skipped every puzzle (or rated only without a move): no
    /// completion code.
    NoRating,
}

/// A rating as a rater submits it (the JSON body of a submission).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submission {
    /// The client-made id that makes a retry store once.
    #[serde(rename = "submission")]
    pub id: String,
    /// The puzzle's id in the study.
    pub puzzle: i64,
    /// The play, to be replayed.
    pub log: PlayLog,
    /// The rating, 0 to 10.
    pub rating: f64,
    /// The notes as typed.
    #[serde(default)]
    pub notes: String,
}

/// A rater's join (the JSON body of `POST /api/s/{study}/join`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinBody {
    /// The nickname as typed (checked by the store; empty for none).
    #[serde(default)]
    pub nickname: String,
}

/// A rater's skip of a puzzle (the JSON body of `POST /api/s/{study}/skip`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SkipBody {
    /// The puzzle's id in the study.
    pub puzzle: i64,
}

/// The name of a study's rater cookie.
pub fn cookie_name(study: &str) -> String {
    format!("boaf_{study}")
}

/// The rater token in one `Cookie` header's value for this study, if any
/// (`a=1; boaf_STUDY=TOKEN; b=2`).
pub fn cookie_token<'a>(cookies: &'a str, study: &str) -> Option<&'a str> {
    let name = cookie_name(study);
    cookies
        .split(';')
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// What a stored rating answers (the same again for a retry).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Stored {
    /// The rating's row id.
    pub rating_id: i64,
    /// The puzzle's id in the study.
    pub puzzle: i64,
    /// The play record the replay derived.
    pub record: PlayRecord,
}

/// A rater's own progress.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Progress {
    /// Puzzles each rater gets.
    pub per_rater: u32,
    /// Puzzles rated.
    pub rated: u32,
    /// Puzzles skipped.
    pub skipped: u32,
    /// The rater's ratings, in the order made.
    pub ratings: Vec<OwnRating>,
}

/// One of the rater's own ratings.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OwnRating {
    /// The puzzle's id in the study.
    pub puzzle: i64,
    /// The rating.
    pub rating: f64,
    /// The notes as typed.
    pub notes: String,
}

/// A study's live counts, for the designer.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Counts {
    /// Per puzzle.
    pub puzzles: Vec<PuzzleCount>,
    /// Per rater.
    pub raters: Vec<RaterCount>,
}

/// One puzzle's counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PuzzleCount {
    /// The puzzle's id in the study.
    pub id: i64,
    /// The puzzle in compact notation.
    pub puzzle: String,
    /// Ratings of it.
    pub rated: u32,
    /// Raters who skipped it.
    pub skipped: u32,
    /// Raters playing it now (handed out, not rated or skipped).
    pub open: u32,
}

/// One rater's counts.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RaterCount {
    /// The rater's id in exports.
    pub rater: String,
    /// The nickname.
    pub nickname: String,
    /// Puzzles rated.
    pub rated: u32,
    /// Puzzles skipped.
    pub skipped: u32,
}

/// A study's stored ratings as an audit sees them (after a crash, say).
#[derive(Clone, Debug, PartialEq)]
pub struct Audit {
    /// Each rating's submission id, rater row id and puzzle id, in the order stored.
    pub ratings: Vec<(String, i64, i64)>,
    /// Half-written rows: ratings without their record, log or rated
    /// assignment, and rated assignments without their rating.
    pub half_written: u32,
    /// What `PRAGMA integrity_check` says (`ok` when the file is whole).
    pub integrity: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_is_the_value_of_the_study_s_own_cookie() {
        assert_eq!(
            cookie_token("a=1; boaf_s1=tok; boaf_s2=x", "s1"),
            Some("tok")
        );
        assert_eq!(cookie_token("a=1; boaf_s1=tok; boaf_s2=x", "s2"), Some("x"));
        // Another study whose name starts with this one's is not it.
        assert_eq!(cookie_token("boaf_s10=tok", "s1"), None);
        assert_eq!(cookie_token("  boaf_s1=a=b ;x=1", "s1"), Some("a=b"));
        assert_eq!(cookie_token("boaf_s1", "s1"), None);
        let join: JoinBody = serde_json::from_str("{}").unwrap();
        assert_eq!(join.nickname, "");
        assert!(serde_json::from_str::<SkipBody>(r#"{"puzzle": 3, "x": 1}"#).is_err());
    }
}
