//! The rater's page and its assets (`assets/web/`), embedded in the binary
//! so `boaf serve` works from any directory. The page is static: its script
//! reads the study's name from the address and talks to the JSON API. Every
//! asset is a file from 'self', as the strict Content-Security-Policy asks.

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

/// The page's HTML (the same for every study).
pub const STUDY_HTML: &str = include_str!("../../assets/web/study.html");

/// The puzzle site's play page (`boaf site`'s play.html), served at `/p/<id>`.
pub const PLAY_HTML: &str = include_str!("../../assets/web/play.html");

/// The assets under `/assets/web/`: name, content type and text.
pub const ASSETS: [(&str, &str, &str); 6] = [
    (
        "board.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/web/board.js"),
    ),
    (
        "study.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/web/study.js"),
    ),
    (
        "study.css",
        "text/css; charset=utf-8",
        include_str!("../../assets/web/study.css"),
    ),
    (
        "play.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/web/play.js"),
    ),
    (
        "site.css",
        "text/css; charset=utf-8",
        include_str!("../../assets/web/site.css"),
    ),
    (
        "file-check.js",
        "text/javascript; charset=utf-8",
        include_str!("../../assets/web/file-check.js"),
    ),
];

/// The pages and all of their assets, in bytes (the budget is 200 KB).
pub fn total_bytes() -> usize {
    STUDY_HTML.len() + PLAY_HTML.len() + ASSETS.iter().map(|(_, _, text)| text.len()).sum::<usize>()
}

/// The page's HTML as a response.
pub fn study_page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        STUDY_HTML,
    )
        .into_response()
}

/// The play page as a response: the site's page, its assets (relative
/// there) read from `/assets/web/`; its script reads the id from the path.
pub fn play_page() -> Response {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        PLAY_HTML.replace("=\"./", "=\"/assets/web/"),
    )
        .into_response()
}

/// The asset of that name, or `None`.
pub fn asset(name: &str) -> Option<Response> {
    let (_, kind, text) = ASSETS.iter().find(|(n, _, _)| *n == name)?;
    Some(([(header::CONTENT_TYPE, *kind)], *text).into_response())
}

/// A 404 for an asset that is not one.
pub fn no_asset(name: &str) -> Response {
    (StatusCode::NOT_FOUND, format!("no asset {name}")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_and_its_assets_stay_within_the_budget() {
        assert!(total_bytes() < 200 * 1024, "{} bytes", total_bytes());
        // The page loads each asset from 'self', and has no inline script or style.
        for name in ["study.js", "study.css"] {
            assert!(
                STUDY_HTML.contains(&format!("/assets/web/{name}")),
                "{name}"
            );
        }
        assert!(!STUDY_HTML.contains("<style") && !STUDY_HTML.contains("style="));
        assert_eq!(STUDY_HTML.matches("<script").count(), 1);
        assert!(!STUDY_HTML.contains("http://") && !STUDY_HTML.contains("https://"));
    }
}
