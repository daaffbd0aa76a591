//! The seeds no file in the repository holds, made by boaf itself: puzzle
//! store lines (a generated and an entered candidate), ratings CSV written by
//! the ratings writer, and study submissions whose logs replay (solutions of
//! real deals). Ignored: run it to write them again, then minimise
//! (README.md here):
//! `cargo test --manifest-path tests/fuzz/Cargo.toml --test seeds -- --ignored`

use boaf_core::engine::deal::deal;
use boaf_core::engine::features::features;
use boaf_core::engine::limits::Limits;
use boaf_core::engine::notation::parse_state;
use boaf_core::engine::solver::{Verdict, solve};
use boaf_core::generator::energy::builtin;
use boaf_core::generator::pipeline::{Candidate, entered_candidate};
use boaf_core::study::ratings::{PlayRecord, Rating, ratings_csv};
use serde_json::json;
use std::path::Path;

fn write(target: &str, name: &str, bytes: &[u8]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), bytes).unwrap();
}

#[test]
#[ignore = "writes the generated seeds into tests/fuzz/corpus"]
fn write_generated_seeds() {
    let e5 = builtin().get("E5").unwrap().clone();
    let states = [
        "AS 2S 3H 4H / 5D 6D 7C 8C",
        "-- -- KH -- / 2S -- JD QC / -- -- TS JS / -- -- 3C --",
        "AS 2S 3S / 4H 5H 6H",
    ];
    let mut store = String::new();
    let mut rows = Vec::new();
    for (k, text) in states.iter().enumerate() {
        let s = parse_state(text, None).unwrap();
        let c = entered_candidate(&s, &e5, false, Limits::default()).unwrap();
        let mut generated = Candidate::for_tests(&s, c.features.clone());
        generated.trace = vec![12.5, 3.0, -4.25];
        for c in [&c, &generated] {
            store += &serde_json::to_string(c).unwrap();
            store.push('\n');
        }
        rows.push(Rating {
            puzzle: c.puzzle.clone(),
            grid: format!("{}x{}", c.rows, c.cols),
            energy_id: c.energy_id.clone(),
            features: features(&s, &Default::default()).unwrap().0,
            rating: k as f64 * 3.5,
            notes: ["", "=1+1, \"quoted\"\nsecond line", "plain"][k].into(),
            play: PlayRecord {
                solved: k == 1,
                moves: k as u32 * 4,
                undos: 1,
                restarts: 0,
                hints: 2,
                solution_shown: k == 2,
                seconds: 12.5,
            },
            rater: format!("r{k}"),
            timestamp: "2025-01-02T03:04:05Z".into(),
        });
    }
    write("store", "generated.jsonl", store.as_bytes());
    // A torn last line, as a kill leaves it.
    write("store", "torn.jsonl", &store.as_bytes()[..store.len() - 40]);
    write("ratings", "written.csv", &ratings_csv(&rows).unwrap());
    // Solutions of real deals, with an undo and a redo, as the page sends them.
    let mut made = 0;
    for number in 0.. {
        let Ok(Verdict::Solvable(path)) = solve(&deal(number)) else {
            continue;
        };
        let mut events = vec![json!({"kind": "move", "from": path[0].from, "to": path[0].to})];
        events.push(json!({"kind": "undo"}));
        events.push(json!({"kind": "redo"}));
        events.extend(
            path[1..]
                .iter()
                .map(|m| json!({"kind": "move", "from": m.from, "to": m.to})),
        );
        let body = json!({
            "submission": format!("s-{number}"),
            "puzzle": number,
            "log": { "events": events, "active_ms": 1500.0, "wall_ms": 2000.0, "solved": true },
            "rating": 6.5,
            "notes": "liked it\n\tthe last move",
        });
        write(
            "server_body",
            &format!("deal{number}.json"),
            body.to_string().as_bytes(),
        );
        made += 1;
        if made == 3 {
            break;
        }
    }
}
