//! The JSON API in process (tower's `oneshot` over the router, each request
//! from a given address): a full round from a study to its exported CSV,
//! every refusal, the admin secret, idempotent retries, the hand-out order,
//! the rate limits and a full disk.

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::connect_info::MockConnectInfo;
use axum::http::{Request, StatusCode, header};
use boaf_core::engine::deal::deal;
use boaf_core::engine::features::Features;
use boaf_core::engine::notation::to_compact;
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::engine::state::{Move, State};
use boaf_core::generator::pipeline::Candidate;
use boaf_core::study::ratings::{parse_ratings, ratings_csv};
use boaf_server::answers::NewStudy;
use boaf_server::http::{CSP, Limits, Net, Rate, Server, router};
use boaf_server::store::Store;
use serde_json::{Value, json};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tower::ServiceExt;

#[path = "../../core/tests/common/tmpfs.rs"]
mod tmpfs;

/// A solvable deal and a solution of it.
fn solvable(number: i32) -> Option<(State, Vec<Move>)> {
    let d = deal(number);
    match solve(&d) {
        Ok(Verdict::Solvable(path)) => Some((d, path)),
        _ => None,
    }
}

/// The first `count` solvable deals, with their solutions.
fn deals(count: usize) -> Vec<(State, Vec<Move>)> {
    (0..).filter_map(solvable).take(count).collect()
}

/// A candidate of a deal with made-up features, as a store holds it.
fn candidate(state: &State, k: usize) -> Candidate {
    let features = Features {
        n: 16,
        solvable: true,
        suit_diversity: 4,
        rank_diversity: 3 + k as u32,
        dominant_suit_ratio: 0.25,
        rank_clusters: 2,
        avg_flockability: 2.5,
        depth1_ratio: Some(0.5),
        depth2_ratio: Some(0.25),
        depth3_ratio: None,
        halfway_ratio: Some(k as f64 / 100.0),
        midgame_tension: None,
        playout_win_rate: Some(0.5),
        greedy_wins: Some(true),
        mcts_budget: Some(10),
    };
    Candidate::for_tests(state, features)
}

/// Makes the study "pilot" of the first `puzzles` solvable deals, which it
/// returns with their solutions.
fn pilot(store: &mut Store, puzzles: usize, per_rater: u32) -> Vec<(State, Vec<Move>)> {
    let deals = deals(puzzles);
    let cands: Vec<Candidate> = deals
        .iter()
        .enumerate()
        .map(|(k, d)| candidate(&d.0, k))
        .collect();
    let study = NewStudy {
        name: "pilot".into(),
        intro: "Play <b>each</b> puzzle & rate it.".into(),
        per_rater,
        completion_code: Some("C0DE42".into()),
    };
    store.create_study(&study, &cands).unwrap();
    deals
}

/// A test server: a temporary database with one study of `puzzles` deals.
struct Test {
    _dir: tempfile::TempDir,
    db: std::path::PathBuf,
    server: Arc<Server>,
    secret: String,
    deals: Vec<(State, Vec<Move>)>,
}

impl Test {
    fn new(puzzles: usize, per_rater: u32, limits: Limits) -> Test {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("ratings/studies.sqlite");
        let mut store = Store::open(&db).unwrap();
        assert_eq!(store.journal_mode().unwrap(), "wal");
        let deals = pilot(&mut store, puzzles, per_rater);
        let secret = store.new_admin_secret().unwrap();
        Test {
            _dir: dir,
            db,
            server: Server::new(store, limits, Some(7)),
            secret,
            deals,
        }
    }

    fn app(&self, from: &str) -> Router {
        let addr = SocketAddr::new(from.parse().unwrap(), 5000);
        router(self.server.clone()).layer(MockConnectInfo(addr))
    }

    /// One request from 127.0.0.1: the status, the Set-Cookie, the body as JSON
    /// (or as a string when it is not JSON).
    async fn call(
        &self,
        method: &str,
        uri: &str,
        cookie: Option<&str>,
        body: Option<&str>,
    ) -> Reply {
        self.call_from("127.0.0.1", method, uri, cookie, None, body)
            .await
    }

    async fn call_from(
        &self,
        from: &str,
        method: &str,
        uri: &str,
        cookie: Option<&str>,
        bearer: Option<&str>,
        body: Option<&str>,
    ) -> Reply {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(c) = cookie {
            req = req.header(header::COOKIE, c);
        }
        if let Some(b) = bearer {
            req = req.header(header::AUTHORIZATION, format!("Bearer {b}"));
        }
        let req = req
            .body(Body::from(body.unwrap_or("").to_string()))
            .unwrap();
        self.send(from, req).await
    }

    /// Sends a request from `from`: the reply.
    async fn send(&self, from: &str, req: Request<Body>) -> Reply {
        let res = self.app(from).oneshot(req).await.unwrap();
        let status = res.status();
        let headers = res.headers().clone();
        let bytes = to_bytes(res.into_body(), 1 << 20).await.unwrap();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        Reply {
            status,
            cookie: headers
                .get(header::SET_COOKIE)
                .map(|v| v.to_str().unwrap().to_string()),
            headers,
            json: serde_json::from_str(&text).unwrap_or(Value::String(text)),
        }
    }

    /// Joins the study; returns the cookie to send.
    async fn join(&self, query: &str, nickname: &str) -> (String, Value) {
        let body = json!({ "nickname": nickname }).to_string();
        let r = self
            .call(
                "POST",
                &format!("/api/s/pilot/join{query}"),
                None,
                Some(&body),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
        let set = r.cookie.expect("a cookie");
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Strict"),
            "{set}"
        );
        (set.split(';').next().unwrap().to_string(), r.json)
    }

    /// A new rater's cookie, first puzzle's id and its deal's index.
    async fn first_puzzle(&self, query: &str, nickname: &str) -> (String, i64, usize) {
        let (cookie, _) = self.join(query, nickname).await;
        let (id, k) = self.next(&cookie).await.expect("a puzzle");
        (cookie, id, k)
    }

    /// The next puzzle's id and its deal's index among the test's deals.
    async fn next(&self, cookie: &str) -> Option<(i64, usize)> {
        let r = self
            .call("GET", "/api/s/pilot/next", Some(cookie), None)
            .await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
        if r.json["status"] == "done" {
            return None;
        }
        let puzzle = r.json["puzzle"].as_str().unwrap();
        let k = self
            .deals
            .iter()
            .position(|d| to_compact(&d.0) == puzzle)
            .unwrap();
        // The cards as the app shows them, cell by cell.
        let faces: Vec<Value> = self.deals[k]
            .0
            .tops()
            .iter()
            .map(|c| c.map_or(Value::Null, |c| Value::String(c.face())))
            .collect();
        assert_eq!(r.json["cards"], Value::Array(faces));
        assert_eq!(
            (r.json["rows"].as_u64(), r.json["cols"].as_u64()),
            (Some(4), Some(4))
        );
        Some((r.json["id"].as_i64().unwrap(), k))
    }

    /// The body of a rating of puzzle `id` (the test's deal `k`) won by
    /// its solution.
    fn won(&self, submission_id: &str, id: i64, k: usize, rating: Value, notes: &str) -> String {
        submission(
            submission_id,
            id,
            winning_log(&self.deals[k].1),
            rating,
            notes,
        )
    }

    /// Sends a rating with the rater's cookie.
    async fn rate(&self, cookie: &str, body: &str) -> Reply {
        self.call("POST", "/api/s/pilot/ratings", Some(cookie), Some(body))
            .await
    }

    /// Skips a puzzle with the rater's cookie.
    async fn skip(&self, cookie: &str, puzzle: i64) -> Reply {
        let body = json!({ "puzzle": puzzle }).to_string();
        self.call("POST", "/api/s/pilot/skip", Some(cookie), Some(&body))
            .await
    }

    /// Ratings of each puzzle, as the admin's counts say.
    async fn rated_per_puzzle(&self) -> Vec<u64> {
        let url = "/api/admin/s/pilot/counts";
        let r = self
            .call_from("127.0.0.1", "GET", url, None, Some(&self.secret), None)
            .await;
        let puzzles = r.json["puzzles"].as_array().expect("counts per puzzle");
        puzzles
            .iter()
            .map(|p| p["rated"].as_u64().unwrap())
            .collect()
    }

    /// Ratings stored, counted in the database itself.
    fn stored(&self) -> i64 {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        conn.query_row("SELECT COUNT(*) FROM ratings", [], |r| r.get(0))
            .unwrap()
    }
}

struct Reply {
    status: StatusCode,
    cookie: Option<String>,
    headers: axum::http::HeaderMap,
    json: Value,
}

impl Reply {
    /// Checks a refusal: its status, and that its message says `says`.
    fn refused(&self, status: StatusCode, says: &str) {
        let message = self.json["error"]
            .as_str()
            .unwrap_or_else(|| panic!("no error message: {}", self.json));
        assert_eq!(self.status, status, "{message}");
        assert!(message.contains(says), "{message:?} lacks {says:?}");
    }
}

/// The log of a win by the solution, with one move undone and played again.
fn winning_log(path: &[Move]) -> Value {
    let mut events = vec![json!({"kind": "move", "from": path[0].from, "to": path[0].to})];
    events.push(json!({"kind": "undo"}));
    events.extend(
        path.iter()
            .map(|m| json!({"kind": "move", "from": m.from, "to": m.to})),
    );
    // Times within the slack of a hand-out just now (the tests play at once).
    json!({ "events": events, "active_ms": 1_500.0, "wall_ms": 2_000.0, "solved": true })
}

fn submission(id: &str, puzzle: i64, log: Value, rating: Value, notes: &str) -> String {
    json!({ "submission": id, "puzzle": puzzle, "log": log, "rating": rating, "notes": notes })
        .to_string()
}

/// Limits no test but the rate limit's reaches.
fn lenient() -> Limits {
    let many = Rate {
        burst: 1e9,
        per_second: 1e9,
    };
    Limits {
        per_token: many,
        per_address: many,
        joins_per_address: many,
        ..Limits::default()
    }
}

const NOTES: &str = "<script>alert(1)</script> =1+1, \"quoted\"";

#[tokio::test]
async fn a_full_round_from_a_study_to_its_exported_rows() {
    let t = Test::new(3, 2, lenient());
    // The rater's page is static (its script sets the intro as text), its
    // assets come from 'self' with their types, and every answer has the CSP.
    let page = t.call("GET", "/s/pilot", None, None).await;
    assert_eq!(page.status, StatusCode::OK);
    let html = page.json.as_str().unwrap();
    assert!(html.contains("src=\"/assets/web/study.js\""), "{html}");
    assert_eq!(
        page.headers[header::CONTENT_TYPE],
        "text/html; charset=utf-8"
    );
    for (file, kind) in [
        ("study.js", "text/javascript; charset=utf-8"),
        ("board.js", "text/javascript; charset=utf-8"),
        ("study.css", "text/css; charset=utf-8"),
    ] {
        let a = t
            .call("GET", &format!("/assets/web/{file}"), None, None)
            .await;
        assert_eq!(
            (a.status, &a.headers[header::CONTENT_TYPE]),
            (StatusCode::OK, &kind.parse().unwrap()),
            "{file}"
        );
        assert_eq!(a.headers[header::CONTENT_SECURITY_POLICY], CSP);
    }
    let none = t.call("GET", "/assets/web/secret.toml", None, None).await;
    assert_eq!(none.status, StatusCode::NOT_FOUND);
    let none = t.call("GET", "/s/no-such-study", None, None).await;
    none.refused(StatusCode::NOT_FOUND, "no-such-study");
    assert_eq!(page.headers[header::CONTENT_SECURITY_POLICY], CSP);
    // Cards read as in the app: a ten is `10`, suits are symbols.
    let all: String = t
        .deals
        .iter()
        .flat_map(|d| d.0.tops().to_vec())
        .flatten()
        .map(|c| c.face())
        .collect();
    assert!(
        all.contains("10") && all.contains('♥') && !all.contains('T'),
        "{all}"
    );
    let info = t.call("GET", "/api/s/pilot", None, None).await;
    assert_eq!(info.json["per_rater"], 2);

    let (ann, joined) = t.join("", "Ann").await;
    assert_eq!(
        (joined["rater"].as_str(), joined["nickname"].as_str()),
        (Some("r1"), Some("Ann"))
    );
    let (prolific, joined) = t.join("?pid=PROLIFIC5f3c", "").await;
    assert_eq!(joined["rater"], "PROLIFIC5f3c");
    // Joining again with the cookie resumes the same rater.
    // A participant id joins once: a second browser would rate twice under it.
    let twice = t
        .call("POST", "/api/s/pilot/join?pid=PROLIFIC5f3c", None, None)
        .await;
    twice.refused(StatusCode::CONFLICT, "joined this study already");
    let again = t.call("POST", "/api/s/pilot/join", Some(&ann), None).await;
    assert_eq!(
        (again.status, again.json["rater"].as_str()),
        (StatusCode::OK, Some("r1"))
    );

    let mut expected = Vec::new();
    for (who, cookie) in [("r1", &ann), ("PROLIFIC5f3c", &prolific)] {
        for round in 0..2 {
            let (id, k) = t.next(cookie).await.unwrap();
            // Asked again before rating: the same puzzle (a reload resumes).
            assert_eq!(t.next(cookie).await.unwrap().0, id);
            let path = &t.deals[k].1;
            let r = t
                .rate(
                    cookie,
                    &t.won(&format!("{who}-{round}"), id, k, json!(7), NOTES),
                )
                .await;
            assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
            // The record by hand: the first move, undone, then the solution.
            let moves = 1 + path.len() as u64;
            assert_eq!(
                r.json["record"],
                json!({"solved": true, "moves": moves, "undos": 1, "restarts": 0, "hints": 0,
                       "solution_shown": false, "seconds": 1.5})
            );
            expected.push((who, to_compact(&t.deals[k].0), moves, k));
        }
        let done = t.call("GET", "/api/s/pilot/next", Some(cookie), None).await;
        assert_eq!(
            done.json,
            json!({"status": "done", "completion_code": "C0DE42", "reason": "rated"})
        );
    }
    let p = t
        .call("GET", "/api/s/pilot/progress", Some(&ann), None)
        .await;
    assert_eq!(
        (
            p.json["rated"].as_u64(),
            p.json["ratings"].as_array().unwrap().len()
        ),
        (Some(2), 2)
    );
    assert_eq!(p.json["ratings"][0]["notes"], NOTES);

    // The export: today's ratings CSV, with every feature and the record.
    let store = Store::open(&t.db).unwrap();
    let csv = ratings_csv(&store.export("pilot").unwrap()).unwrap();
    let table = parse_ratings(&csv, "export.csv").unwrap();
    assert_eq!(table.rows.len(), 4);
    for (row, (who, puzzle, moves, k)) in expected.iter().enumerate() {
        assert_eq!(table.text(row, "rater"), Some(*who));
        assert_eq!(table.text(row, "puzzle"), Some(puzzle.as_str()));
        assert_eq!(table.number(row, "moves"), Some(*moves as f64));
        assert_eq!(table.text(row, "undos"), Some("1"));
        assert_eq!(table.text(row, "solved"), Some("true"));
        assert_eq!(table.text(row, "seconds"), Some("1.5"));
        assert_eq!(table.number(row, "rating"), Some(7.0));
        assert_eq!(table.number(row, "halfway_ratio"), Some(*k as f64 / 100.0));
        assert_eq!(table.text(row, "grid"), Some("4x4"));
        assert_eq!(table.notes(row).unwrap(), NOTES);
    }
    // The note does not start with a formula character, so it is stored as typed;
    // one that does is neutralised.
    let text = String::from_utf8(csv).unwrap();
    assert!(
        text.contains("\"<script>alert(1)</script> =1+1, \"\"quoted\"\"\""),
        "{text}"
    );
    assert_eq!(store.integrity_check().unwrap(), "ok");
}

#[tokio::test]
async fn a_note_that_starts_a_formula_is_neutralised_in_the_export() {
    let t = Test::new(1, 1, lenient());
    let (c, id, k) = t.first_puzzle("", "").await;
    let body = t.won("s1", id, k, json!(3.5), "=1+1, \"x\"");
    assert_eq!(t.rate(&c, &body).await.status, StatusCode::CREATED);
    let store = Store::open(&t.db).unwrap();
    let csv = ratings_csv(&store.export("pilot").unwrap()).unwrap();
    let text = String::from_utf8(csv.clone()).unwrap();
    assert!(text.contains("\"'=1+1, \"\"x\"\"\""), "{text}");
    assert_eq!(
        parse_ratings(&csv, "e").unwrap().notes(0).unwrap(),
        "=1+1, \"x\""
    );
}

#[tokio::test]
async fn every_bad_request_is_refused_with_a_message_and_stores_nothing() {
    let t = Test::new(3, 3, lenient());
    let (c, id, k) = t.first_puzzle("", "Bo").await;
    let other = (1..=3).find(|&p| p != id).unwrap();
    let path = t.deals[k].1.clone();
    let good = winning_log(&path);
    let mut illegal = good.clone();
    illegal["events"][0] = json!({"kind": "move", "from": path[0].from, "to": path[0].from});
    let mut unsolved = good.clone();
    unsolved["events"].as_array_mut().unwrap().truncate(3);
    let mut slow = good.clone();
    slow["active_ms"] = json!(3_000.0);
    let mut negative = good.clone();
    negative["wall_ms"] = json!(-5);
    let long_notes = "x".repeat(2_001);
    // One submission of puzzle `id` with this log, rating and notes.
    let sub =
        |log: &Value, rating: Value, notes: &str| submission("a", id, log.clone(), rating, notes);
    let seven = sub(&good, json!(7), "");
    let (bad, unprocessable) = (StatusCode::BAD_REQUEST, StatusCode::UNPROCESSABLE_ENTITY);
    let cases: Vec<(String, StatusCode, &str)> = vec![
        ("{ not json".into(), bad, "the request body"),
        (
            r#"{"submission": 5, "puzzle": 1}"#.into(),
            unprocessable,
            "invalid type",
        ),
        (
            sub(&good, json!(11), ""),
            unprocessable,
            "from 0 to 10, not 11",
        ),
        (sub(&good, json!(-0.5), ""), unprocessable, "from 0 to 10"),
        (sub(&good, json!("7"), ""), unprocessable, "invalid type"),
        (
            seven.replace("\"rating\":7", "\"rating\":1e400"),
            bad,
            "number out of range",
        ),
        (
            seven.replace(
                &format!("\"puzzle\":{id}"),
                "\"puzzle\":99999999999999999999999",
            ),
            unprocessable,
            "request body",
        ),
        (
            submission("a", 999, good.clone(), json!(7), ""),
            StatusCode::NOT_FOUND,
            "no puzzle 999",
        ),
        (
            submission("a", other, good.clone(), json!(7), ""),
            StatusCode::FORBIDDEN,
            "not handed to you",
        ),
        (
            sub(&illegal, json!(7), ""),
            unprocessable,
            "event 0: the move",
        ),
        (sub(&unsolved, json!(7), ""), unprocessable, "do not solve"),
        (
            sub(&slow, json!(7), ""),
            unprocessable,
            "longer than the wall time",
        ),
        (
            sub(&negative, json!(7), ""),
            unprocessable,
            "impossible time",
        ),
        (
            sub(&good, json!(7), &long_notes),
            unprocessable,
            "at most 2000",
        ),
        (sub(&good, json!(7), "bell\u{7}"), unprocessable, "U+0007"),
        (
            submission("", id, good.clone(), json!(7), ""),
            unprocessable,
            "submission id",
        ),
        (
            seven.replace("\"notes\"", "\"extra\":1,\"notes\""),
            unprocessable,
            "unknown field",
        ),
        (
            "x".repeat(70_000),
            StatusCode::PAYLOAD_TOO_LARGE,
            "length limit",
        ),
    ];
    for (body, status, says) in &cases {
        t.rate(&c, body).await.refused(*status, says);
        assert_eq!(t.stored(), 0, "nothing stored for {says}");
    }
    // Who: no cookie, a forged one, an unknown study.
    let body = submission("a", id, good.clone(), json!(7), "");
    let r = t
        .call("POST", "/api/s/pilot/ratings", None, Some(&body))
        .await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = t
        .call(
            "POST",
            "/api/s/pilot/ratings",
            Some("boaf_pilot=0000"),
            Some(&body),
        )
        .await;
    r.refused(StatusCode::UNAUTHORIZED, "join first");
    let r = t.call("GET", "/api/s/nosuch/next", Some(&c), None).await;
    assert_eq!(
        r.status,
        StatusCode::UNAUTHORIZED,
        "no cookie for that study"
    );
    let r = t.call("POST", "/api/s/nosuch/join", None, None).await;
    r.refused(StatusCode::NOT_FOUND, "no study named \"nosuch\"");
    assert_eq!(
        t.call("GET", "/nowhere", None, None).await.status,
        StatusCode::NOT_FOUND
    );
    let r = t.call("GET", "/api/s/pilot/ratings", Some(&c), None).await;
    r.refused(StatusCode::METHOD_NOT_ALLOWED, "method");
    // Joining: a nickname too long or with control characters, a bad pid.
    let long = json!({"nickname": "n".repeat(41)}).to_string();
    for (query, body, says) in [
        ("", long.as_str(), "at most 40"),
        ("", r#"{"nickname": "a\u0000b"}"#, "control"),
        ("?pid=a%26b", "", "participant id"),
        ("", r#"{"nick": "x"}"#, "unknown field"),
    ] {
        let r = t
            .call(
                "POST",
                &format!("/api/s/pilot/join{query}"),
                None,
                Some(body),
            )
            .await;
        assert!(
            r.status.is_client_error() && r.json["error"].as_str().unwrap().contains(says),
            "{} {}",
            r.status,
            r.json
        );
    }
    // The server kept serving: the good rating goes in, once.
    let r = t.rate(&c, &body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert_eq!(t.stored(), 1);
    // A second rating of the same puzzle, and a skip of it, are refused.
    let second = submission("b", id, good.clone(), json!(5), "");
    let r = t.rate(&c, &second).await;
    r.refused(
        StatusCode::CONFLICT,
        &format!("you rated puzzle {id} already"),
    );
    t.skip(&c, id)
        .await
        .refused(StatusCode::CONFLICT, "rated puzzle");
    // A skipped puzzle cannot be rated, and is never handed out again.
    let (skipped, _) = t.next(&c).await.unwrap();
    let r = t.skip(&c, skipped).await;
    assert_eq!(r.json, json!({ "skipped": skipped }));
    let late = submission("c", skipped, good, json!(5), "");
    t.rate(&c, &late)
        .await
        .refused(StatusCode::CONFLICT, "you skipped");
    let (last, _) = t.next(&c).await.unwrap();
    assert!(last != skipped && last != id);
    // A closed study refuses raters.
    Store::open(&t.db)
        .unwrap()
        .set_open("pilot", false)
        .unwrap();
    let r = t.call("GET", "/api/s/pilot/next", Some(&c), None).await;
    r.refused(StatusCode::FORBIDDEN, "the study \"pilot\" is closed");
    assert_eq!(t.stored(), 1);
}

#[tokio::test]
async fn a_retry_with_the_same_submission_id_stores_once_and_answers_the_same_even_closed() {
    let t = Test::new(2, 2, lenient());
    let (c, id, k) = t.first_puzzle("", "").await;
    let body = t.won("retry-1", id, k, json!(6), "ok");
    let first = t.rate(&c, &body).await;
    let second = t.rate(&c, &body).await;
    assert_eq!(first.status, StatusCode::CREATED);
    assert_eq!((second.status, &second.json), (first.status, &first.json));
    assert_eq!(t.stored(), 1);
    // Another rater cannot use that id.
    let (d, id2, k2) = t.first_puzzle("", "").await;
    let theirs = t.won("retry-1", id2, k2, json!(6), "");
    let r = t.rate(&d, &theirs).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{}", r.json);
    assert_eq!(t.stored(), 1);
    // Once the study has closed, a retry still gets the stored answer (the
    // first try was taken), and a new rating is refused.
    Store::open(&t.db)
        .unwrap()
        .set_open("pilot", false)
        .unwrap();
    let late = t.rate(&c, &body).await;
    assert_eq!((late.status, &late.json), (first.status, &first.json));
    let new = t.won("after-close", id2, k2, json!(6), "");
    t.rate(&d, &new)
        .await
        .refused(StatusCode::FORBIDDEN, "is closed");
    assert_eq!(t.stored(), 1);
}

#[tokio::test]
async fn a_batch_that_cannot_begin_acknowledges_nothing_and_a_retry_stores_once() {
    let t = Test::new(2, 2, lenient());
    let (c, id, k) = t.first_puzzle("", "").await;
    let body = t.won("busy-1", id, k, json!(6), "ok");
    // Another writer (the CLI, the app's panel) holds the write lock past
    // the store's busy timeout: the batch cannot begin.
    let other = rusqlite::Connection::open(&t.db).unwrap();
    other.execute_batch("BEGIN IMMEDIATE").unwrap();
    let r = t.rate(&c, &body).await;
    assert!(r.status.is_server_error(), "{} {}", r.status, r.json);
    other.execute_batch("ROLLBACK").unwrap();
    drop(other);
    assert_eq!(t.stored(), 0, "nothing acknowledged, nothing stored");
    // The retry, once the lock is free, is stored once.
    let again = t.rate(&c, &body).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.json);
    assert_eq!(t.stored(), 1);
}

#[tokio::test]
async fn the_admin_endpoints_need_the_secret_and_count_per_puzzle_and_rater() {
    let t = Test::new(2, 1, lenient());
    let (c, id, k) = t.first_puzzle("?pid=P1", "").await;
    t.rate(&c, &t.won("s", id, k, json!(9), "")).await;
    let url = "/api/admin/s/pilot/counts";
    let none = t.call_from("127.0.0.1", "GET", url, None, None, None).await;
    assert_eq!(none.status, StatusCode::UNAUTHORIZED);
    let wrong = t
        .call_from("127.0.0.1", "GET", url, None, Some("guess"), None)
        .await;
    assert_eq!(wrong.status, StatusCode::FORBIDDEN);
    // A rater's cookie is not the secret.
    let rater = t
        .call_from("127.0.0.1", "GET", url, Some(&c), None, None)
        .await;
    assert_eq!(rater.status, StatusCode::UNAUTHORIZED);
    let r = t
        .call_from("127.0.0.1", "GET", url, None, Some(&t.secret), None)
        .await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    assert_eq!(t.rated_per_puzzle().await.iter().sum::<u64>(), 1);
    assert_eq!(r.json["puzzles"][(id - 1) as usize]["rated"], 1);
    assert_eq!(
        r.json["raters"],
        json!([{"rater": "P1", "nickname": "", "rated": 1, "skipped": 0}])
    );
    let list = t
        .call_from(
            "127.0.0.1",
            "GET",
            "/api/admin/studies",
            None,
            Some(&t.secret),
            None,
        )
        .await;
    assert_eq!(
        (
            list.json[0]["name"].as_str(),
            list.json[0]["ratings"].as_u64()
        ),
        (Some("pilot"), Some(1))
    );
    // Only the hash is stored.
    let conn = rusqlite::Connection::open(&t.db).unwrap();
    let stored: String = conn
        .query_row("SELECT secret_sha256 FROM admin", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, boaf_server::store::sha256_hex(&t.secret));
    assert_ne!(stored, t.secret);
}

#[tokio::test]
async fn puzzles_are_handed_out_least_rated_first_over_several_raters() {
    let t = Test::new(4, 2, lenient());
    let mut load = [0u32; 4];
    for rater in 0..6 {
        let (c, _) = t.join("", "").await;
        let mut mine = Vec::new();
        while let Some((id, k)) = t.next(&c).await {
            // Least rated first: no puzzle is more than one rating ahead.
            let least = *load.iter().min().unwrap();
            assert_eq!(
                load[k], least,
                "rater {rater} got puzzle {k} with loads {load:?}"
            );
            assert!(!mine.contains(&id), "never the same puzzle twice");
            mine.push(id);
            let body = t.won(&format!("{rater}-{id}"), id, k, json!(5), "");
            assert_eq!(t.rate(&c, &body).await.status, StatusCode::CREATED);
            load[k] += 1;
        }
        assert_eq!(mine.len(), 2, "puzzles per rater");
    }
    assert_eq!(load, [3, 3, 3, 3]);
    // A puzzle handed out and not yet rated counts: two raters at once get two puzzles.
    let (a, _) = t.join("", "").await;
    let (b, _) = t.join("", "").await;
    assert_ne!(t.next(&a).await.unwrap().0, t.next(&b).await.unwrap().0);
}

#[tokio::test]
async fn too_many_requests_get_a_429_per_token_and_per_address() {
    let limits = Limits {
        per_token: Rate {
            burst: 3.0,
            per_second: 0.001,
        },
        per_address: Rate {
            burst: 8.0,
            per_second: 0.001,
        },
        ..Limits::default()
    };
    let t = Test::new(1, 1, limits);
    let (c, _) = t.join("", "").await; // the address's first request
    for _ in 0..3 {
        assert_eq!(
            t.call("GET", "/api/s/pilot/progress", Some(&c), None)
                .await
                .status,
            StatusCode::OK
        );
    }
    let r = t.call("GET", "/api/s/pilot/progress", Some(&c), None).await;
    r.refused(StatusCode::TOO_MANY_REQUESTS, "rater token");
    // A request a thousand seconds: the next is that far off.
    assert_eq!(r.headers[header::RETRY_AFTER], "1000");
    // Without the token, the address still has room, until it has none:
    // the refused request took nothing from it (1 join + 3 + 4 = 8).
    for _ in 0..4 {
        assert_eq!(
            t.call("GET", "/api/s/pilot", None, None).await.status,
            StatusCode::OK
        );
    }
    let r = t.call("GET", "/api/s/pilot", None, None).await;
    r.refused(StatusCode::TOO_MANY_REQUESTS, "address");
    // Another address is served.
    let r = t
        .call_from("10.0.0.2", "GET", "/api/s/pilot", None, None, None)
        .await;
    assert_eq!(r.status, StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn raters_at_once_each_store_once_and_spread_over_the_puzzles() {
    let t = Arc::new(Test::new(4, 2, lenient()));
    let mut cookies = Vec::new();
    for _ in 0..16 {
        cookies.push(t.join("", "").await.0);
    }
    let mut tasks = Vec::new();
    for (n, c) in cookies.into_iter().enumerate() {
        let t = t.clone();
        tasks.push(tokio::spawn(async move {
            while let Some((id, k)) = t.next(&c).await {
                let body = t.won(&format!("{n}-{id}"), id, k, json!(n % 11), "");
                // Sent twice at once, as a retry racing the first try.
                let (a, b) = tokio::join!(t.rate(&c, &body), t.rate(&c, &body));
                assert_eq!(
                    (a.status, b.status),
                    (StatusCode::CREATED, StatusCode::CREATED)
                );
                assert_eq!(a.json, b.json);
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(t.stored(), 32);
    let rated = t.rated_per_puzzle().await;
    // Spread over every puzzle (the exact order is the sequential test's:
    // here a rater's own puzzle may be the least rated one, and is skipped).
    assert_eq!(rated.iter().sum::<u64>(), 32);
    assert!(rated.iter().all(|&r| r >= 4), "{rated:?}");
    assert_eq!(Store::open(&t.db).unwrap().integrity_check().unwrap(), "ok");
}

#[test]
fn a_batch_keeps_each_request_that_succeeded_and_undoes_each_that_failed() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studies.sqlite");
    let mut store = Store::open(&db).unwrap();
    pilot(&mut store, 2, 1);
    // Group commit: three requests in one transaction; the second wrote a
    // rater and then failed, so its savepoint is rolled back alone.
    store.begin_batch().unwrap();
    let ann = store.in_savepoint(|s| {
        let r = s.join("pilot", "Ann", None);
        (r.is_ok(), r)
    });
    store.in_savepoint(|s| {
        s.join("pilot", "Half", None).unwrap();
        (false, ())
    });
    let refused = store.in_savepoint(|s| {
        let r = s.join("pilot", &"x".repeat(41), None);
        (r.is_ok(), r)
    });
    let bo = store.in_savepoint(|s| {
        let r = s.join("pilot", "Bo", None);
        (r.is_ok(), r)
    });
    store.commit_batch().unwrap();
    drop(store);
    assert!(ann.is_ok() && bo.is_ok() && refused.is_err());
    let store = Store::open(&db).unwrap();
    let names: Vec<String> = store
        .counts("pilot")
        .unwrap()
        .raters
        .into_iter()
        .map(|r| r.nickname)
        .collect();
    assert_eq!(names, ["Ann", "Bo"]);
    // Outside a batch a write is its own transaction, as before.
    let mut store = store;
    store.join("pilot", "Cy", None).unwrap();
    assert_eq!(store.study("pilot").unwrap().raters, 3);
}

#[test]
fn a_database_from_a_newer_boaf_is_refused_and_the_schema_is_versioned() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studies.sqlite");
    drop(Store::open(&db).unwrap());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let v: i64 = conn
        .query_row("SELECT version FROM schema_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(v, boaf_server::store::SCHEMA_VERSION);
    conn.execute("UPDATE schema_version SET version = 99", [])
        .unwrap();
    drop(conn);
    let err = Store::open(&db).err().unwrap();
    assert_eq!(
        err.to_string(),
        "the study database has schema 99; this boaf reads schema 1"
    );
    assert!(!err.is_refusal());
}

#[tokio::test]
async fn the_puzzle_sites_play_page_is_served_at_p_and_its_id() {
    let t = Test::new(1, 1, lenient());
    let id = boaf_core::engine::notation::puzzle_id(&t.deals[0].0);
    // A 4×4 id, and another grid's id with its rows split by '/'.
    for path in [format!("/p/{id}"), "/p/AS2S/3H4H".to_string()] {
        let page = t.call("GET", &path, None, None).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert_eq!(page.headers[header::CONTENT_SECURITY_POLICY], CSP);
        assert_eq!(
            page.headers[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        let html = page.json.as_str().unwrap();
        assert!(html.contains("id=\"board\""), "{html}");
        // Its assets come from /assets/web/, whatever the path's depth.
        for file in ["play.js", "study.css", "site.css", "file-check.js"] {
            assert!(html.contains(&format!("\"/assets/web/{file}\"")), "{file}");
            let a = t
                .call("GET", &format!("/assets/web/{file}"), None, None)
                .await;
            assert_eq!(a.status, StatusCode::OK, "{file}");
        }
        assert!(!html.contains("\"./"), "no relative asset is left");
    }
}

impl Test {
    /// Moves the hand-out of every open assignment to `when` (as if the
    /// puzzles were handed out then).
    fn hand_out_at(&self, when: &str) {
        let conn = rusqlite::Connection::open(&self.db).unwrap();
        conn.execute(
            "UPDATE assignments SET handed = ?1 WHERE state = 'open'",
            [when],
        )
        .unwrap();
    }

    /// A join through the proxy (from 127.0.0.1) with these headers.
    async fn join_via(&self, headers: &[(&str, &str)]) -> Reply {
        self.with_headers("127.0.0.1", "POST", "/api/s/pilot/join", headers)
            .await
    }

    /// A request from `from` with these headers and no body.
    /// Sends `GET /api/s/pilot` from each peer with its `X-Forwarded-For`,
    /// in order, and checks each answer's status.
    async fn forwarded_answers(&self, cases: &[(&str, &str, StatusCode)]) {
        for &(peer, forwarded, status) in cases {
            let headers = [("x-forwarded-for", forwarded)];
            let r = self
                .with_headers(peer, "GET", "/api/s/pilot", &headers)
                .await;
            assert_eq!(r.status, status, "{peer} {forwarded}: {}", r.json);
        }
    }

    async fn with_headers(
        &self,
        from: &str,
        method: &str,
        uri: &str,
        headers: &[(&str, &str)],
    ) -> Reply {
        let mut req = Request::builder().method(method).uri(uri);
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        self.send(from, req.body(Body::empty()).unwrap()).await
    }
}

/// A log of the solution with these times.
fn timed_log(path: &[Move], active_ms: f64, wall_ms: f64) -> Value {
    let mut log = winning_log(path);
    log["active_ms"] = json!(active_ms);
    log["wall_ms"] = json!(wall_ms);
    log
}

#[tokio::test]
async fn only_this_studys_well_formed_token_is_charged_and_each_map_stays_bounded() {
    let limits = Limits {
        buckets: 8,
        per_token: Rate {
            burst: 2.0,
            per_second: 0.001,
        },
        ..lenient()
    };
    let t = Test::new(1, 1, limits);
    // Junk cookies, another study's token and a malformed one: no bucket.
    let junk = format!(
        "boaf_a=1; boaf_b=2; boaf_other={}; boaf_pilot=not-hex",
        "ab".repeat(32)
    );
    for _ in 0..20 {
        let r = t.call("GET", "/api/s/pilot", Some(&junk), None).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    }
    assert_eq!(t.server.bucket_sizes(), [1, 0, 0]);
    // Many made-up well-formed tokens: the map keeps at most 8.
    for k in 0..100u32 {
        let cookie = format!("boaf_pilot={k:064x}");
        t.call("GET", "/api/s/pilot/progress", Some(&cookie), None)
            .await;
        assert!(
            t.server.bucket_sizes()[1] <= 8,
            "{:?}",
            t.server.bucket_sizes()
        );
    }
    // A real rater's token is charged (and refused past its burst) all the same.
    let (c, _) = t.join("", "").await;
    assert_eq!(t.server.bucket_sizes()[2], 1, "one join bucket");
    for _ in 0..2 {
        let r = t.call("GET", "/api/s/pilot/progress", Some(&c), None).await;
        assert_eq!(r.status, StatusCode::OK);
    }
    let r = t.call("GET", "/api/s/pilot/progress", Some(&c), None).await;
    r.refused(StatusCode::TOO_MANY_REQUESTS, "rater token");
}

#[tokio::test]
async fn a_rate_under_one_request_in_its_burst_still_lets_one_through() {
    // 0.1 a second in bursts of 3 s' worth: a burst of 0.3, raised to 1.
    let t = Test::new(1, 1, Limits::with_rates(0.1, 0.1));
    let first = t.call("GET", "/api/s/pilot", None, None).await;
    assert_eq!(first.status, StatusCode::OK, "{}", first.json);
    let second = t.call("GET", "/api/s/pilot", None, None).await;
    second.refused(StatusCode::TOO_MANY_REQUESTS, "retry in 10 s");
    assert_eq!(second.headers[header::RETRY_AFTER], "10");
}

#[tokio::test]
async fn behind_a_trusted_proxy_each_forwarded_client_is_limited_alone() {
    let two = Rate {
        burst: 2.0,
        per_second: 0.001,
    };
    let one = Rate {
        burst: 1.0,
        per_second: 0.001,
    };
    let proxied = Limits {
        per_address: two,
        joins_per_address: one,
        trusted_proxies: Net::loopback(),
        ..lenient()
    };
    let t = Test::new(1, 1, proxied.clone());
    let (ok, slow_down) = (StatusCode::OK, StatusCode::TOO_MANY_REQUESTS);
    // The peer, its X-Forwarded-For, and the answer, in order: Caddy
    // appends the client, so the last entry is the one believed; a peer that
    // is not this machine's proxy is its own address, whatever it says.
    t.forwarded_answers(&[
        ("127.0.0.1", "9.9.9.9, 1.1.1.1", ok),
        ("127.0.0.1", "9.9.9.9, 1.1.1.1", ok),
        ("127.0.0.1", "1.1.1.1", slow_down),
        ("127.0.0.1", "9.9.9.9", ok),
        ("10.0.0.5", "2.2.2.2", ok),
        ("10.0.0.5", "2.2.2.2", ok),
        ("10.0.0.5", "3.3.3.3", slow_down),
        // A dual-stack socket's IPv4-mapped loopback is this machine too.
        ("::ffff:127.0.0.1", "7.7.7.7", ok),
        ("::ffff:127.0.0.1", "7.7.7.7", ok),
        ("127.0.0.1", "7.7.7.7", slow_down),
    ])
    .await;
    // Joins: one per client address, and the cookie is Secure over HTTPS.
    let https = [
        ("x-forwarded-for", "4.4.4.4"),
        ("x-forwarded-proto", "https"),
    ];
    let r = t.join_via(&https).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    let cookie = r.cookie.unwrap();
    assert!(cookie.ends_with("; Secure"), "{cookie}");
    let r = t.join_via(&https).await;
    r.refused(
        StatusCode::TOO_MANY_REQUESTS,
        "too many joins from your address",
    );
    let plain = [
        ("x-forwarded-for", "5.5.5.5"),
        ("x-forwarded-proto", "http"),
    ];
    let r = t.join_via(&plain).await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert!(!r.cookie.unwrap().contains("Secure"));

    // Without --trusted-proxy the headers are ignored: every request
    // through the proxy is 127.0.0.1, and no cookie is marked Secure.
    let t = Test::new(
        1,
        1,
        Limits {
            trusted_proxies: Vec::new(),
            ..proxied.clone()
        },
    );
    let r = t.join_via(&https).await;
    assert_eq!(r.status, StatusCode::CREATED);
    assert!(!r.cookie.unwrap().contains("Secure"));
    let other = [("x-forwarded-for", "6.6.6.6")];
    let r = t.join_via(&other).await;
    r.refused(StatusCode::TOO_MANY_REQUESTS, "too many joins");

    // A proxy on another host is trusted by its address (`--trusted-proxy
    // 10.0.0.0/8`), and this machine is then not.
    let t = Test::new(
        1,
        1,
        Limits {
            trusted_proxies: vec!["10.0.0.0/8".parse().unwrap()],
            ..proxied
        },
    );
    t.forwarded_answers(&[
        ("10.9.8.7", "1.1.1.1", ok),
        ("10.9.8.7", "1.1.1.1", ok),
        ("10.1.1.1", "1.1.1.1", slow_down),
        ("10.1.1.1", "2.2.2.2", ok),
        ("127.0.0.1", "3.3.3.3", ok),
        ("127.0.0.1", "4.4.4.4", ok),
        ("127.0.0.1", "5.5.5.5", slow_down),
    ])
    .await;
}

#[tokio::test]
async fn a_percent_encoded_study_name_is_refused_before_it_can_dodge_the_rater_limit() {
    let limits = Limits {
        per_token: Rate {
            burst: 2.0,
            per_second: 0.001,
        },
        ..lenient()
    };
    let t = Test::new(1, 1, limits);
    let (c, _) = t.join("", "").await;
    // The router would decode `%70ilot` to `pilot`; the limiter would look
    // for the cookie `boaf_%70ilot` and charge no rater.
    for path in [
        "/api/s/%70ilot/next",
        "/api/s/%70ilot/progress",
        "/s/%70ilot",
        "/api/s/pil%20ot",
    ] {
        let r = t.call("GET", path, Some(&c), None).await;
        r.refused(StatusCode::NOT_FOUND, "no study");
    }
    // The plain name is the rater's, limited to its burst of 2.
    for _ in 0..2 {
        let r = t.call("GET", "/api/s/pilot/progress", Some(&c), None).await;
        assert_eq!(r.status, StatusCode::OK, "{}", r.json);
    }
    let r = t
        .call("GET", "/api/s/%70ilot/progress", Some(&c), None)
        .await;
    r.refused(StatusCode::NOT_FOUND, "no study");
    let r = t.call("GET", "/api/s/pilot/progress", Some(&c), None).await;
    r.refused(StatusCode::TOO_MANY_REQUESTS, "rater token");
}

#[tokio::test]
async fn the_web_page_cannot_log_hints_or_the_solution() {
    let t = Test::new(1, 1, lenient());
    let (c, id, k) = t.first_puzzle("", "").await;
    for (kind, says) in [
        ("hint", "event 1 is a hint"),
        ("solution", "event 1 is the solution shown"),
    ] {
        let mut log = winning_log(&t.deals[k].1);
        log["events"]
            .as_array_mut()
            .unwrap()
            .insert(1, json!({ "kind": kind }));
        let r = t.rate(&c, &submission("h", id, log, json!(5), "")).await;
        r.refused(StatusCode::UNPROCESSABLE_ENTITY, says);
        assert_eq!(t.stored(), 0);
    }
}

#[tokio::test]
async fn a_log_is_held_to_the_time_since_its_hand_out_and_a_long_one_is_clipped() {
    let t = Test::new(2, 2, lenient());
    let (c, id, k) = t.first_puzzle("", "").await;
    let path = t.deals[k].1.clone();
    // A minute of play, just after the hand-out: refused, saying why.
    let r = t
        .rate(
            &c,
            &submission("m", id, timed_log(&path, 60_000.0, 61_000.0), json!(5), ""),
        )
        .await;
    r.refused(
        StatusCode::UNPROCESSABLE_ENTITY,
        "active_ms 60000 is more than the",
    );
    assert!(
        r.json["error"]
            .as_str()
            .unwrap()
            .contains("since the puzzle was handed out")
    );
    assert_eq!(t.stored(), 0);
    // Handed out two days ago, the tab left open: over a day of wall and
    // active time is no dead end, but stored as a day of active time.
    t.hand_out_at("2000-01-01T00:00:00Z");
    let two_days = 2.0 * 86_400_000.0;
    let r = t
        .rate(
            &c,
            &submission(
                "d",
                id,
                timed_log(&path, 1.5 * 86_400_000.0, two_days),
                json!(5),
                "",
            ),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{}", r.json);
    assert_eq!(r.json["record"]["seconds"], 86_400.0);
    assert_eq!(t.stored(), 1);
}

#[tokio::test]
async fn an_assignment_left_open_stops_counting_after_a_while() {
    let t = Test::new(2, 2, lenient());
    // One rating of puzzle X.
    let (r1, x, kx) = t.first_puzzle("", "").await;
    assert_eq!(
        t.rate(&r1, &t.won("x", x, kx, json!(5), "")).await.status,
        StatusCode::CREATED
    );
    let y = 3 - x;
    // Two raters hold puzzle Y open (one skips X to get it).
    for _ in 0..2 {
        let (c, _) = t.join("", "").await;
        let (mut got, _) = t.next(&c).await.unwrap();
        if got != y {
            assert_eq!(t.skip(&c, got).await.status, StatusCode::OK);
            got = t.next(&c).await.unwrap().0;
        }
        assert_eq!(got, y);
    }
    // Now: X rated once, Y taken twice: the next rater gets X.
    let (fresh, _) = t.join("", "").await;
    assert_eq!(t.next(&fresh).await.unwrap().0, x);
    assert_eq!(t.skip(&fresh, x).await.status, StatusCode::OK); // a skip counts for nobody
    // Those two raters left hours ago: Y counts as nobody's, and is next.
    t.hand_out_at("2000-01-01T00:00:00Z");
    let (late, _) = t.join("", "").await;
    assert_eq!(t.next(&late).await.unwrap().0, y);
    assert_eq!(boaf_server::store::STALE_AFTER_SECONDS, 7_200);
}

#[tokio::test]
async fn the_completion_code_needs_one_rated_puzzle() {
    let t = Test::new(2, 2, lenient());
    // Skipping every puzzle: done, no code.
    let (c, _) = t.join("", "").await;
    while let Some((id, _)) = t.next(&c).await {
        assert_eq!(t.skip(&c, id).await.status, StatusCode::OK);
    }
    let done = t.call("GET", "/api/s/pilot/next", Some(&c), None).await;
    assert_eq!(
        done.json,
        json!({"status": "done", "completion_code": null, "reason": "no_rating"})
    );
    // One rated and one skipped: the code.
    let (d, id, k) = t.first_puzzle("", "").await;
    assert_eq!(
        t.rate(&d, &t.won("one", id, k, json!(5), "")).await.status,
        StatusCode::CREATED
    );
    let (other, _) = t.next(&d).await.unwrap();
    t.skip(&d, other).await;
    let done = t.call("GET", "/api/s/pilot/next", Some(&d), None).await;
    assert_eq!(
        done.json,
        json!({"status": "done", "completion_code": "C0DE42", "reason": "rated"})
    );
}

#[tokio::test]
async fn skips_do_not_count_up_to_per_rater_and_a_rating_without_a_move_earns_no_code() {
    let t = Test::new(6, 2, lenient());
    let position = |r: &Reply| r.json["position"].as_u64();
    // One skipped, then two rated: three puzzles, numbered 1, 1, 2.
    let (a, first, _) = t.first_puzzle("", "").await;
    t.skip(&a, first).await;
    let r = t.call("GET", "/api/s/pilot/next", Some(&a), None).await;
    assert_eq!(position(&r), Some(1), "{}", r.json);
    for n in 1..=2 {
        let (id, k) = t.next(&a).await.expect("another puzzle after a skip");
        let body = t.won(&format!("a{n}"), id, k, json!(5), "");
        assert_eq!(t.rate(&a, &body).await.status, StatusCode::CREATED);
    }
    let done = t.call("GET", "/api/s/pilot/next", Some(&a), None).await;
    assert_eq!(
        done.json,
        json!({"status": "done", "completion_code": "C0DE42", "reason": "rated"})
    );
    let p = t.call("GET", "/api/s/pilot/progress", Some(&a), None).await;
    assert_eq!(
        (p.json["rated"].as_u64(), p.json["skipped"].as_u64()),
        (Some(2), Some(1))
    );
    // Skipping per_rater puzzles is the cap, though four remain: done,
    // and told why there is no code.
    let (b, _) = t.join("", "").await;
    for _ in 0..2 {
        let (id, _) = t.next(&b).await.expect("a puzzle");
        assert_eq!(t.skip(&b, id).await.status, StatusCode::OK);
    }
    let done = t.call("GET", "/api/s/pilot/next", Some(&b), None).await;
    assert_eq!(
        done.json,
        json!({"status": "done", "completion_code": null, "reason": "no_rating"})
    );
    // Ratings of puzzles without a move played (an empty log) are stored
    // but earn no code.
    let (c, _) = t.join("", "").await;
    for n in 1..=2 {
        let (id, _) = t.next(&c).await.expect("a puzzle");
        let empty = json!({ "events": [], "active_ms": 0.0, "wall_ms": 0.0, "solved": false });
        let body = submission(&format!("c{n}"), id, empty, json!(7), "");
        assert_eq!(t.rate(&c, &body).await.status, StatusCode::CREATED);
    }
    let done = t.call("GET", "/api/s/pilot/next", Some(&c), None).await;
    assert_eq!(
        done.json,
        json!({"status": "done", "completion_code": null, "reason": "no_rating"})
    );
    // One move played is enough.
    let (d, _) = t.join("", "").await;
    let (id, k) = t.next(&d).await.unwrap();
    let m = t.deals[k].1[0];
    let one = json!({ "events": [{"kind": "move", "from": m.from, "to": m.to}],
        "active_ms": 100.0, "wall_ms": 100.0, "solved": false });
    let body = submission("d1", id, one, json!(3), "");
    assert_eq!(t.rate(&d, &body).await.status, StatusCode::CREATED);
    let (id, _) = t.next(&d).await.unwrap();
    t.skip(&d, id).await;
    let (id, _) = t.next(&d).await.unwrap();
    t.skip(&d, id).await;
    let done = t.call("GET", "/api/s/pilot/next", Some(&d), None).await;
    assert_eq!(done.json["completion_code"], "C0DE42");
}

#[tokio::test]
async fn an_extractors_refusal_is_json_like_every_other() {
    let t = Test::new(1, 1, lenient());
    // A path that is not UTF-8, a query of the wrong shape, a missing asset.
    for (method, uri, status, says) in [
        ("GET", "/assets/web/%FF", StatusCode::BAD_REQUEST, "UTF-8"),
        (
            "POST",
            "/api/s/pilot/join?pid=a&pid=b",
            StatusCode::BAD_REQUEST,
            "pid",
        ),
        (
            "GET",
            "/assets/web/secret.toml",
            StatusCode::NOT_FOUND,
            "no asset secret.toml",
        ),
    ] {
        let r = t.call(method, uri, None, None).await;
        assert_eq!(r.headers[header::CONTENT_TYPE], "application/json", "{uri}");
        r.refused(status, says);
    }
}

#[tokio::test]
async fn a_puzzle_stored_in_grid_notation_is_handed_out_compact() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("studies.sqlite");
    let mut store = Store::open(&db).unwrap();
    let deal = deals(1).remove(0).0;
    let compact = to_compact(&deal);
    // The same puzzle, one row a line and cells split by spaces.
    let cells: Vec<String> = compact
        .as_bytes()
        .chunks(2)
        .map(|c| String::from_utf8(c.to_vec()).unwrap())
        .collect();
    let grid: Vec<String> = cells.chunks(4).map(|row| row.join(" ")).collect();
    let mut c = candidate(&deal, 0);
    c.puzzle = grid.join("\n");
    let study = NewStudy {
        name: "pilot".into(),
        intro: String::new(),
        per_rater: 1,
        completion_code: None,
    };
    store.create_study(&study, &[c]).unwrap();
    let server = Server::new(store, lenient(), Some(1));
    let app = router(server).layer(MockConnectInfo(
        "127.0.0.1:1".parse::<SocketAddr>().unwrap(),
    ));
    let join = Request::post("/api/s/pilot/join")
        .body(Body::empty())
        .unwrap();
    let res = app.clone().oneshot(join).await.unwrap();
    let cookie = res.headers()[header::SET_COOKIE].to_str().unwrap();
    let cookie = cookie.split(';').next().unwrap().to_string();
    let next = Request::get("/api/s/pilot/next")
        .header(header::COOKIE, cookie)
        .body(Body::empty())
        .unwrap();
    let res = app.oneshot(next).await.unwrap();
    let json: Value =
        serde_json::from_slice(&to_bytes(res.into_body(), 1 << 20).await.unwrap()).unwrap();
    assert_ne!(grid.join("\n"), compact);
    assert_eq!(json["puzzle"], compact);
}

/// A server of `limits` serving on a free loopback port, on its own thread.
fn running(limits: Limits) -> (boaf_server::http::Running, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("studies.sqlite")).unwrap();
    pilot(&mut store, 1, 1);
    let server = Server::new(store, limits, Some(1));
    let running = boaf_server::http::start("127.0.0.1:0".parse().unwrap(), server).unwrap();
    (running, dir)
}

/// Reads what the server sends until it closes the connection (or `wait`
/// passes, a failure): the bytes, and how long it took.
fn read_until_closed(stream: &mut std::net::TcpStream, wait: Duration) -> (String, Duration) {
    use std::io::Read;
    let start = Instant::now();
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("still open after {:?}: {e}", start.elapsed()),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), start.elapsed())
}

const HALF_A_HEADER: &[u8] = b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\n";

#[test]
fn a_client_that_sends_half_a_header_is_dropped_after_the_header_timeout() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        header_timeout: Duration::from_secs(1),
        ..lenient()
    });
    let mut slow = std::net::TcpStream::connect(server.addr()).unwrap();
    slow.write_all(HALF_A_HEADER).unwrap();
    let (_, took) = read_until_closed(&mut slow, Duration::from_secs(5));
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
    // A whole request is still answered.
    let mut ok = std::net::TcpStream::connect(server.addr()).unwrap();
    ok.write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (reply, _) = read_until_closed(&mut ok, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    server.stop().unwrap();
}

#[test]
fn a_stop_does_not_wait_past_its_deadline_for_a_connection_held_open() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        header_timeout: Duration::from_secs(60),
        stop_deadline: Duration::from_secs(1),
        ..lenient()
    });
    let mut held = std::net::TcpStream::connect(server.addr()).unwrap();
    held.write_all(HALF_A_HEADER).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    let (done, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(server.stop().is_ok()));
    assert_eq!(stopped.recv_timeout(Duration::from_secs(3)), Ok(true));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
    // The held connection was dropped.
    let (_, after) = read_until_closed(&mut held, Duration::from_secs(2));
    assert!(after < Duration::from_secs(1), "{after:?}");
}

#[test]
fn a_body_trickled_in_is_cut_off_after_the_request_timeout() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        request_timeout: Duration::from_secs(1),
        ..lenient()
    });
    let mut slow = std::net::TcpStream::connect(server.addr()).unwrap();
    slow.write_all(
        b"POST /api/s/pilot/join HTTP/1.1\r\nHost: boaf\r\n\
          Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n{",
    )
    .unwrap();
    // A byte every 100 ms: the headers are in, the body never ends.
    let trickle = slow.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut trickle = trickle;
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(100));
            if trickle.write_all(b" ").is_err() {
                break;
            }
        }
    });
    let (reply, took) = read_until_closed(&mut slow, Duration::from_secs(5));
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("the request took over 1s"), "{reply}");
    server.stop().unwrap();
}

#[test]
fn connections_from_one_address_over_its_cap_are_refused() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        connections_per_address: 2,
        ..lenient()
    });
    let idle: Vec<std::net::TcpStream> = (0..2)
        .map(|_| std::net::TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // The third from 127.0.0.1 is told so and closed at once.
    let mut third = std::net::TcpStream::connect(server.addr()).unwrap();
    let (reply, took) = read_until_closed(&mut third, Duration::from_secs(2));
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(reply.starts_with("HTTP/1.1 429"), "{reply}");
    assert!(
        reply.ends_with("{\"error\":\"too many connections from your address at once\"}\n"),
        "{reply}"
    );
    // One closed, one more is served.
    drop(idle);
    std::thread::sleep(Duration::from_millis(200));
    let mut ok = std::net::TcpStream::connect(server.addr()).unwrap();
    ok.write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (reply, _) = read_until_closed(&mut ok, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // Behind a trusted proxy on this machine, its connections are not capped.
    server.stop().unwrap();
    let (server, _dir) = running(Limits {
        connections_per_address: 2,
        trusted_proxies: Net::loopback(),
        ..lenient()
    });
    let idle: Vec<std::net::TcpStream> = (0..3)
        .map(|_| std::net::TcpStream::connect(server.addr()).unwrap())
        .collect();
    let mut fourth = std::net::TcpStream::connect(server.addr()).unwrap();
    fourth
        .write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (reply, _) = read_until_closed(&mut fourth, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    drop(idle);
    server.stop().unwrap();
}

#[test]
fn connections_over_the_cap_wait_for_a_free_one() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        connections: 2,
        header_timeout: Duration::from_secs(30),
        ..lenient()
    });
    let idle: Vec<std::net::TcpStream> = (0..2)
        .map(|_| std::net::TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // The third is in the backlog: its request is not read while two are open.
    let mut third = std::net::TcpStream::connect(server.addr()).unwrap();
    third
        .write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 16];
    let waited = std::io::Read::read(&mut third, &mut buf);
    assert!(
        matches!(&waited, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
        "{waited:?}"
    );
    drop(idle);
    let (reply, _) = read_until_closed(&mut third, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    server.stop().unwrap();
}

/// On a full disk (the database on a small tmpfs filled to the last byte) a
/// rating is answered with a server error and not acknowledged; the
/// database stays whole with every acknowledged rating, and the same
/// request stores once space is freed. Needs root (see `tmpfs`).
#[tokio::test]
async fn a_full_disk_answers_a_rating_with_a_server_error_and_keeps_the_database_whole() {
    let dir = tempfile::tempdir().unwrap();
    let Some(disk) = tmpfs::Tmpfs::mount(&dir.path().join("disk"), "1m", "full-disk study") else {
        return;
    };
    let db = disk.join("studies.sqlite");
    let mut store = Store::open(&db).unwrap();
    let deals = pilot(&mut store, 2, 2);
    let secret = store.new_admin_secret().unwrap();
    // The file the server's message names when a batch fails.
    assert_eq!(Some(store.file()), db.to_str());
    let t = Test {
        _dir: tempfile::tempdir().unwrap(),
        db,
        server: Server::new(store, lenient(), Some(7)),
        secret,
        deals,
    };
    let (c, id, k) = t.first_puzzle("", "").await;
    let first = t
        .rate(&c, &t.won("full-1", id, k, json!(7), "before"))
        .await;
    assert_eq!(first.status, StatusCode::CREATED, "{}", first.json);
    let (id2, k2) = t.next(&c).await.expect("a second puzzle");
    let filler = disk.fill();
    let body = t.won("full-2", id2, k2, json!(3), "on a full disk");
    let r = t.rate(&c, &body).await;
    assert_eq!(r.status, StatusCode::INTERNAL_SERVER_ERROR, "{}", r.json);
    assert_eq!(r.json["error"], "the server failed to do that; try again");
    // Whole, readable, and with the acknowledged rating only.
    let check = Store::open(&t.db).unwrap().integrity_check().unwrap();
    assert_eq!(check, "ok");
    assert_eq!(t.stored(), 1);
    let rows = Store::open(&t.db).unwrap().export("pilot").unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].rating, rows[0].notes.as_str()), (7.0, "before"));
    // Space freed: the retry of the same request stores it, once.
    disk.free(&filler);
    let again = t.rate(&c, &body).await;
    assert_eq!(again.status, StatusCode::CREATED, "{}", again.json);
    assert_eq!(t.rate(&c, &body).await.json, again.json);
    assert_eq!(t.stored(), 2);
    assert_eq!(Store::open(&t.db).unwrap().integrity_check().unwrap(), "ok");
}
