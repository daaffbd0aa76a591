//! Every bad request refused with a message, and nothing stored.

use super::*;

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
