//! The HTTP server (axum on tokio): the JSON API raters' pages use, the
//! designer's admin endpoints behind a bearer secret, and the rater's page
//! with its assets ([`crate::page`]). Each request is bounded (body size,
//! rates per token, per address and of joins: `http/limit.rs`), each connection
//! too (timeouts on the headers and the whole request, caps on connections
//! in all and per address, a stop deadline: `http/run.rs`);
//! every refusal is a 4xx with a JSON `{"error": …}` that says what is
//! wrong, and nothing of it is stored.
//!
//! Routes (`{study}` is a study's name):
//! ```text
//! GET  /s/{study}                   the rater's page
//! GET  /assets/web/{file}           its script, board and styles
//! GET  /p/{id}                      the puzzle site's play page (`boaf site`)
//! GET  /api/s/{study}               the study's name, intro, puzzles per rater, open
//! POST /api/s/{study}/join[?pid=]   {"nickname"}: sets the rater's cookie (resumes one)
//! GET  /api/s/{study}/next          the puzzle to play, or done (with the completion code)
//! POST /api/s/{study}/ratings       {"submission", "puzzle", "log", "rating", "notes"}
//! POST /api/s/{study}/skip          {"puzzle"}
//! GET  /api/s/{study}/progress      the rater's own counts and ratings
//! GET  /api/admin/studies           every study (Authorization: Bearer SECRET)
//! GET  /api/admin/s/{study}/counts  live counts per puzzle and per rater (ditto)
//! ```

use crate::answers::{JoinBody, Next, Rater, SkipBody, Submission, cookie_name, cookie_token};
use crate::store::{Store, StoreError};
use crate::writer::{WriteError, Writer};
use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{DefaultBodyLimit, Extension, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use boaf_core::study::play_log::PlayEvent;
use rand::SeedableRng;
use rand::rngs::StdRng;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::json;
use std::sync::{Arc, Mutex};

mod limit;
mod run;

use limit::{Client, Limiter, rate_limit};
pub use limit::{Limits, Net, Rate};
pub use run::{Running, run_until_interrupted, serve, start};

/// The Content-Security-Policy of every response: nothing from elsewhere,
/// no inline script, no framing.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
    img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; \
    frame-ancestors 'none'";

/// The server's state: the store's writer (which owns the store and the
/// hand-out's random ties), the rate limiter's buckets.
pub struct Server {
    writer: Writer,
    limiter: Mutex<Limiter>,
    limits: Limits,
}

impl Server {
    /// A server over an open store; `seed` fixes the hand-out's ties (tests).
    pub fn new(store: Store, limits: Limits, seed: Option<u64>) -> Arc<Server> {
        let rng = match seed {
            Some(s) => StdRng::seed_from_u64(s),
            None => rand::make_rng(),
        };
        Arc::new(Server {
            writer: Writer::start(store, rng).expect("a thread for the study store"),
            limiter: Mutex::new(Limiter::new(&limits)),
            limits,
        })
    }

    /// The rate limiter's buckets kept: per address, per rater token, per
    /// address for joins (for the tests: each is bounded).
    #[doc(hidden)]
    pub fn bucket_sizes(&self) -> [usize; 3] {
        self.limiter
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .sizes()
    }

    /// Runs `f` on the store, in the writer's next batch (group commit):
    /// answered once the batch is on disk.
    async fn with_store<T: Send + 'static>(
        self: &Arc<Server>,
        f: impl FnOnce(&mut Store, &mut StdRng) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, ApiError> {
        self.writer.run(f).await.map_err(|e| match e {
            WriteError::Store(e) => ApiError::from(e),
            WriteError::Failed(detail) => ApiError::internal(detail),
        })
    }
}

/// A refusal or failure, as a status and a message.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            message: message.into(),
        }
    }

    fn internal(detail: String) -> ApiError {
        // The detail goes to the designer's terminal, not to the rater.
        eprintln!("boaf serve: {detail}");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "the server failed to do that; try again",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> ApiError {
        use StoreError as E;
        let status = match &e {
            E::Sql(_) | E::NewerSchema(_) | E::BadPuzzle(..) => {
                return ApiError::internal(e.to_string());
            }
            E::NoStudy(_) | E::UnknownPuzzle(_) => StatusCode::NOT_FOUND,
            E::UnknownRater => StatusCode::UNAUTHORIZED,
            E::Closed(_) | E::NotHanded(_) => StatusCode::FORBIDDEN,
            E::StudyExists(_)
            | E::PidTaken(_)
            | E::AlreadyRated(_)
            | E::WasSkipped(_)
            | E::SubmissionReused(_) => StatusCode::CONFLICT,
            E::BadStudy(_) | E::Invalid(_) | E::Log(_) => StatusCode::UNPROCESSABLE_ENTITY,
        };
        ApiError::new(status, e.to_string())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(json!({ "error": self.message }))).into_response()
    }
}

/// A JSON body read by hand, so each problem gets a message: too large
/// (413), not JSON (400), or the wrong shape or types (422).
fn read_json<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    let bytes = body.map_err(|r| ApiError::new(r.status(), r.body_text()))?;
    serde_json::from_slice(&bytes).map_err(|e| {
        let status = match e.classify() {
            serde_json::error::Category::Data => StatusCode::UNPROCESSABLE_ENTITY,
            _ => StatusCode::BAD_REQUEST,
        };
        ApiError::new(status, format!("the request body: {e}"))
    })
}

/// The rater token the request's cookie carries for this study, if any.
fn token(headers: &HeaderMap, study: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find_map(|v| cookie_token(v, study))
        .map(str::to_string)
}

/// The rater whose cookie this is, or 401.
async fn rater(server: &Arc<Server>, headers: &HeaderMap, study: &str) -> Result<Rater, ApiError> {
    let token = token(headers, study).ok_or_else(|| {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "no rater cookie: join the study first",
        )
    })?;
    let study = study.to_string();
    server.with_store(move |s, _| s.rater(&study, &token)).await
}

/// Refuses a request without the admin secret as a bearer token.
async fn admin(server: &Arc<Server>, headers: &HeaderMap) -> Result<(), ApiError> {
    let secret = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string)
        .ok_or_else(|| {
            ApiError::new(
                StatusCode::UNAUTHORIZED,
                "the admin secret is needed: Authorization: Bearer SECRET",
            )
        })?;
    if server
        .with_store(move |s, _| s.is_admin_secret(&secret))
        .await?
    {
        Ok(())
    } else {
        Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "that is not the admin secret",
        ))
    }
}

async fn page(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
) -> Result<Response, ApiError> {
    // An unknown study is a 404 here, not a page that fails later.
    server.with_store(move |s, _| s.study(&study)).await?;
    Ok(crate::page::study_page())
}

async fn play() -> Response {
    crate::page::play_page()
}

async fn web_asset(Path(name): Path<String>) -> Response {
    crate::page::asset(&name).unwrap_or_else(|| crate::page::no_asset(&name))
}

async fn study_info(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
) -> Result<Response, ApiError> {
    let s = server.with_store(move |s, _| s.study(&study)).await?;
    Ok(Json(json!({
        "name": s.name, "intro": s.intro, "per_rater": s.per_rater, "open": s.open,
    }))
    .into_response())
}

#[derive(Deserialize)]
struct JoinQuery {
    pid: Option<String>,
}

async fn join(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
    Query(query): Query<JoinQuery>,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let body: JoinBody = match &body {
        Ok(b) if b.iter().all(u8::is_ascii_whitespace) => JoinBody::default(),
        _ => read_json(body)?,
    };
    // A rater who joined already resumes (unless the link names another pid).
    if let Ok(r) = rater(&server, &headers, &study).await
        && query.pid.as_ref().is_none_or(|p| *p == r.rater)
    {
        return Ok(Json(&r).into_response());
    }
    let name = study.clone();
    let (r, token) = server
        .with_store(move |s, _| s.join(&name, &body.nickname, query.pid.as_deref()))
        .await?;
    // Secure when the trusted proxy says the rater came over HTTPS: a
    // browser then never sends the token in clear.
    let secure = if client.https { "; Secure" } else { "" };
    let cookie = format!(
        "{}={token}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000{secure}",
        cookie_name(&study)
    );
    let mut response = (StatusCode::CREATED, Json(&r)).into_response();
    response.headers_mut().insert(
        header::SET_COOKIE,
        HeaderValue::from_str(&cookie).expect("a cookie of plain characters"),
    );
    Ok(response)
}

async fn next(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
    headers: HeaderMap,
) -> Result<Json<Next>, ApiError> {
    let r = rater(&server, &headers, &study).await?;
    Ok(Json(
        server
            .with_store(move |s, rng| s.next(&study, &r, rng))
            .await?,
    ))
}

/// The rater a request comes from and its JSON body.
async fn rater_and_body<T: DeserializeOwned>(
    server: &Arc<Server>,
    headers: &HeaderMap,
    study: &str,
    body: Result<Bytes, BytesRejection>,
) -> Result<(Rater, T), ApiError> {
    let r = rater(server, headers, study).await?;
    Ok((r, read_json(body)?))
}

async fn submit(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (r, sub): (Rater, Submission) = rater_and_body(&server, &headers, &study, body).await?;
    // The rater's page has no hint or solution button: such an event is forged.
    if let Some((n, e)) = sub
        .log
        .events
        .iter()
        .enumerate()
        .find(|(_, e)| matches!(e, PlayEvent::Hint | PlayEvent::Solution))
    {
        let what = if *e == PlayEvent::Hint {
            "a hint"
        } else {
            "the solution shown"
        };
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            format!("the play log: event {n} is {what}, which the rater's page does not offer"),
        ));
    }
    let stored = server
        .with_store(move |s, _| s.submit(&study, &r, &sub))
        .await?;
    // A retry gets the first answer, status and all.
    Ok((StatusCode::CREATED, Json(stored)).into_response())
}

async fn skip(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<Response, ApiError> {
    let (r, b): (Rater, SkipBody) = rater_and_body(&server, &headers, &study, body).await?;
    server
        .with_store(move |s, _| s.skip(&study, &r, b.puzzle))
        .await?;
    Ok(Json(json!({ "skipped": b.puzzle })).into_response())
}

async fn progress(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let r = rater(&server, &headers, &study).await?;
    let p = server
        .with_store(move |s, _| s.progress(&study, &r))
        .await?;
    Ok(Json(p).into_response())
}

async fn studies(
    State(server): State<Arc<Server>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    admin(&server, &headers).await?;
    let list = server.with_store(|s, _| s.studies()).await?;
    Ok(Json(list).into_response())
}

async fn counts(
    State(server): State<Arc<Server>>,
    Path(study): Path<String>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    admin(&server, &headers).await?;
    let c = server.with_store(move |s, _| s.counts(&study)).await?;
    Ok(Json(c).into_response())
}

async fn home() -> Html<&'static str> {
    Html(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>boaf</title>\
         </head><body><h1>boaf rating studies</h1><p>Open your study's link \
         (/s/NAME).</p></body></html>",
    )
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "no such page or endpoint")
}

async fn wrong_method() -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "this endpoint does not take that method (GET reads, POST sends)",
    )
}

/// Answers a refusal that is not JSON (an extractor's plain-text
/// rejection: a bad path or query, a body too large) as every other one:
/// `{"error": the text}` with its status.
async fn json_errors(response: Response) -> Response {
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if !response.status().is_client_error() || is_json {
        return response;
    }
    let status = response.status();
    let text = axum::body::to_bytes(response.into_body(), 64 * 1024)
        .await
        .map(|b| String::from_utf8_lossy(&b).trim().to_string())
        .unwrap_or_default();
    let text = if text.is_empty() {
        status
            .canonical_reason()
            .unwrap_or("refused")
            .to_lowercase()
    } else {
        text
    };
    ApiError::new(status, text).into_response()
}

/// Adds the security headers to every response.
async fn secure(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The routes, limits and headers over a server's state. Connections must
/// carry their address (`into_make_service_with_connect_info`, or
/// `MockConnectInfo` in tests) for the per-address limit.
pub fn router(server: Arc<Server>) -> Router {
    let api = Router::new()
        .route("/", get(home))
        .route("/s/{study}", get(page))
        .route("/assets/web/{file}", get(web_asset))
        .route("/p/{*id}", get(play))
        .route("/api/s/{study}", get(study_info))
        .route("/api/s/{study}/join", post(join))
        .route("/api/s/{study}/next", get(next))
        .route("/api/s/{study}/ratings", post(submit))
        .route("/api/s/{study}/skip", post(skip))
        .route("/api/s/{study}/progress", get(progress))
        .route("/api/admin/studies", get(studies))
        .route("/api/admin/s/{study}/counts", get(counts))
        .fallback(not_found)
        .method_not_allowed_fallback(wrong_method);
    api.layer(middleware::from_fn_with_state(server.clone(), rate_limit))
        .layer(DefaultBodyLimit::max(server.limits.body_bytes))
        .layer(middleware::map_response(json_errors))
        .layer(middleware::map_response(secure))
        .with_state(server)
}
