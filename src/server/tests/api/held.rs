//! What a study holds a rater to: the rate limits per token, address and
//! forwarded client, the logs the page may send, the times of a log, open
//! assignments, completion codes and the puzzles as handed out.

use super::*;

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
