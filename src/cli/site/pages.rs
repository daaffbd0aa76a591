//! The site's files as name → bytes, with no I/O: the index (the puzzles by
//! grade), the play and daily pages, the data file, and the web assets,
//! which are the very files `boaf serve` embeds (assets/web/).

use super::daily::Daily;
use boaf_core::agents::grade::Grade;
use serde_json::json;

/// The play page, shared with `boaf serve`'s `/p/<id>`.
pub const PLAY_HTML: &str = include_str!("../../../assets/web/play.html");

/// The assets the pages load, by name.
pub const ASSETS: [(&str, &str); 5] = [
    ("board.js", include_str!("../../../assets/web/board.js")),
    ("play.js", include_str!("../../../assets/web/play.js")),
    ("study.css", include_str!("../../../assets/web/study.css")),
    ("site.css", include_str!("../../../assets/web/site.css")),
    (
        "file-check.js",
        include_str!("../../../assets/web/file-check.js"),
    ),
];

/// The data file's name (a module play.js imports; no fetch, so a page
/// works wherever its files are).
pub const DATA: &str = "puzzles.js";

/// A puzzle of the site.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Its number on the site, from 1 in the selection's order.
    pub number: usize,
    /// Its id ([`boaf_core::engine::notation::puzzle_id`]), as in its link.
    pub id: String,
    /// Its grade, if it has one.
    pub grade: Option<Grade>,
    /// Its cards.
    pub n: usize,
}

/// Text safe in HTML.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The data file: the title, every puzzle, and the daily plan.
pub fn data_file(title: &str, entries: &[Entry], daily: &[Daily]) -> String {
    let puzzles: Vec<_> = entries
        .iter()
        .map(|e| json!({"number": e.number, "id": e.id, "grade": e.grade.map(Grade::name), "n": e.n}))
        .collect();
    let days: Vec<_> = daily
        .iter()
        .map(|d| json!({"date": d.day.to_string(), "id": entries[d.puzzle].id}))
        .collect();
    let site = json!({"title": title, "puzzles": puzzles, "daily": days});
    format!("// The puzzle site's data, written by boaf site.\nexport const SITE = {site};\n")
}

/// The index: today's puzzle, and every puzzle by grade (ungraded last).
pub fn index_html(title: &str, entries: &[Entry], daily: &[Daily]) -> String {
    let title = escape(title);
    let mut sections = String::new();
    let groups = Grade::ALL.map(Some).into_iter().chain([None]);
    for grade in groups {
        let of: Vec<&Entry> = entries.iter().filter(|e| e.grade == grade).collect();
        if of.is_empty() {
            continue;
        }
        let name = grade.map_or("Ungraded", Grade::name);
        sections += &format!(
            "<section data-grade=\"{name}\">\n<h2>{name} ({})</h2>\n<ol>\n",
            of.len()
        );
        for e in of {
            // Ids are letters, digits, '-' and '/': safe in a link as they are.
            sections += &format!(
                "<li value=\"{0}\"><a href=\"play.html#{1}\">Puzzle {0}</a> <span class=\"muted\">{2} cards</span></li>\n",
                e.number, e.id, e.n
            );
        }
        sections += "</ol>\n</section>\n";
    }
    let today = match (daily.first(), daily.last()) {
        (Some(a), Some(b)) => format!(
            "<p class=\"today\"><a id=\"daily\" href=\"daily.html\">Today's puzzle</a></p>\n\
             <p class=\"muted\">A daily puzzle from {} to {}.</p>\n",
            a.day, b.day
        ),
        _ => String::new(),
    };
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"./study.css\">\n\
         <link rel=\"stylesheet\" href=\"./site.css\">\n</head>\n<body data-page=\"index\">\n<main>\n\
         <h1>{title}</h1>\n{today}<p>{} puzzles of <em>Birds of a Feather</em> solitaire, by grade. \
         Each link holds its puzzle: share it.</p>\n<div class=\"grades\">\n{sections}</div>\n</main>\n</body>\n</html>\n",
        entries.len()
    )
}

/// Every file of the site, name and bytes.
pub fn pages(title: &str, entries: &[Entry], daily: &[Daily]) -> Vec<(String, Vec<u8>)> {
    let daily_html = PLAY_HTML.replacen("data-page=\"play\"", "data-page=\"daily\"", 1);
    let mut files = vec![
        (
            "index.html".to_string(),
            index_html(title, entries, daily).into_bytes(),
        ),
        ("play.html".to_string(), PLAY_HTML.as_bytes().to_vec()),
        ("daily.html".to_string(), daily_html.into_bytes()),
        (
            DATA.to_string(),
            data_file(title, entries, daily).into_bytes(),
        ),
    ];
    files.extend(
        ASSETS
            .iter()
            .map(|(n, t)| (n.to_string(), t.as_bytes().to_vec())),
    );
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::site::daily::Day;

    fn entries() -> Vec<Entry> {
        vec![
            Entry {
                number: 1,
                id: "AS2S/".into(),
                grade: Some(Grade::Hard),
                n: 2,
            },
            Entry {
                number: 2,
                id: "ASTD/2S--".into(),
                grade: None,
                n: 3,
            },
            Entry {
                number: 3,
                id: "3H4H/".into(),
                grade: Some(Grade::Easy),
                n: 2,
            },
        ]
    }

    #[test]
    fn the_index_lists_puzzles_by_grade_and_links_today() {
        let day: Day = "2026-12-01".parse().unwrap();
        let daily = [Daily { day, puzzle: 2 }];
        let html = index_html("A <b> site", &entries(), &daily);
        assert!(html.contains("<h1>A &lt;b&gt; site</h1>"));
        let easy = html.find("<h2>Easy (1)</h2>").unwrap();
        let hard = html.find("<h2>Hard (1)</h2>").unwrap();
        let ungraded = html.find("<h2>Ungraded (1)</h2>").unwrap();
        assert!(easy < hard && hard < ungraded);
        assert!(html.contains("<a href=\"play.html#3H4H/\">Puzzle 3</a>"));
        assert!(html.contains("href=\"daily.html\""));
        assert!(!html.contains("<script") && !html.contains("://"));
        let data = data_file("t", &entries(), &daily);
        assert!(
            data.contains(r#""daily":[{"date":"2026-12-01","id":"3H4H/"}]"#),
            "{data}"
        );
    }

    #[test]
    fn the_pages_load_only_their_own_files_and_stay_within_the_budget() {
        let files = pages("t", &entries(), &[]);
        let names: Vec<&str> = files.iter().map(|(n, _)| n.as_str()).collect();
        for html in ["play.html", "daily.html"] {
            let page = &files.iter().find(|(n, _)| n == html).unwrap().1;
            let page = String::from_utf8_lossy(page);
            assert!(page.contains("Content-Security-Policy"));
            assert!(!page.contains("http://") && !page.contains("https://"));
            for (name, _) in ASSETS.iter().filter(|(n, _)| *n != "board.js") {
                assert!(
                    page.contains(&format!("\"./{name}\"")),
                    "{html} loads {name}"
                );
                assert!(names.contains(name));
            }
        }
        let bytes: usize = PLAY_HTML.len() + ASSETS.iter().map(|(_, t)| t.len()).sum::<usize>();
        assert!(bytes < 200 * 1024, "{bytes} bytes");
    }
}
