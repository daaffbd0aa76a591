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
// The longer groups of tests, each in a file of its own.
#[path = "api/connections.rs"]
mod connections;
#[path = "api/held.rs"]
mod held;
#[path = "api/refusals.rs"]
mod refusals;

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
