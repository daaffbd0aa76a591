//! The bounds on requests and the rate limiter: token buckets per client
//! address, per rater token (this study's well-formed token only) and, for
//! joins, per address again; each kind in a map of its own with its own
//! rate and a cap on its size. Behind a trusted reverse proxy the client's
//! address is the last `X-Forwarded-For` entry.

use super::{ApiError, Server, token};
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A token bucket's shape: `burst` requests at once, refilled at
/// `per_second`.
#[derive(Clone, Copy, Debug)]
pub struct Rate {
    /// Requests allowed at once (at least 1 is always allowed).
    pub burst: f64,
    /// Requests allowed per second, on average.
    pub per_second: f64,
}

impl Rate {
    /// `per_second` on average, in bursts of `seconds`' worth.
    pub fn over(per_second: f64, seconds: f64) -> Rate {
        Rate {
            burst: per_second * seconds,
            per_second,
        }
    }

    /// The bucket's size: a burst under 1 would refuse every request.
    fn size(self) -> f64 {
        self.burst.max(1.0)
    }
}

/// The bounds on requests and connections.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The largest request body, in bytes.
    pub body_bytes: usize,
    /// The rate per rater token.
    pub per_token: Rate,
    /// The rate per client address.
    pub per_address: Rate,
    /// The rate of joins per client address (each join makes a rater).
    pub joins_per_address: Rate,
    /// The most buckets kept of each kind (the least recently used go first).
    pub buckets: usize,
    /// Whether a loopback peer is a reverse proxy whose last
    /// `X-Forwarded-For` entry is the client (`boaf serve --trusted-proxy`).
    pub trusted_proxy: bool,
    /// The most connections served at once (more wait to be accepted).
    pub connections: usize,
    /// How long a client may take to send a request's headers.
    pub header_timeout: Duration,
    /// How long a stop waits for the requests under way.
    pub stop_deadline: Duration,
}

impl Limits {
    /// Limits of `per_address` and `per_token` requests a second on
    /// average, in bursts of 3 and 6 seconds' worth, 10 joins a minute per
    /// address in bursts of 30, a 64 KB body (a play log of a long play is a
    /// few kilobytes), 512 connections, 10 s for headers, 3 s to stop.
    pub fn with_rates(per_address: f64, per_token: f64) -> Limits {
        Limits {
            body_bytes: 64 * 1024,
            per_token: Rate::over(per_token, 6.0),
            per_address: Rate::over(per_address, 3.0),
            joins_per_address: Rate::over(10.0 / 60.0, 180.0),
            buckets: 50_000,
            trusted_proxy: false,
            connections: 512,
            header_timeout: Duration::from_secs(10),
            stop_deadline: Duration::from_secs(3),
        }
    }
}

impl Default for Limits {
    /// `boaf serve`'s defaults: 100 requests a second per address, 5 per rater.
    fn default() -> Limits {
        Limits::with_rates(100.0, 5.0)
    }
}

/// Token buckets of one kind by key: tokens left and when last counted.
struct Buckets<K> {
    rate: Rate,
    cap: usize,
    map: HashMap<K, (f64, Instant)>,
}

impl<K: Hash + Eq + Clone> Buckets<K> {
    fn new(rate: Rate, cap: usize) -> Buckets<K> {
        Buckets {
            rate,
            cap: cap.max(1),
            map: HashMap::new(),
        }
    }

    /// The tokens the key's bucket holds now (a new bucket is full).
    fn left(&self, key: &K, now: Instant) -> f64 {
        self.map.get(key).map_or(self.rate.size(), |&(left, at)| {
            (left + now.duration_since(at).as_secs_f64() * self.rate.per_second)
                .min(self.rate.size())
        })
    }

    /// The seconds until the key's bucket holds a request again.
    fn wait(&self, key: &K, now: Instant) -> u64 {
        let missing = 1.0 - self.left(key, now);
        (missing / self.rate.per_second).ceil().clamp(1.0, 3600.0) as u64
    }

    /// Takes one request from the key's bucket, making room for it first.
    fn charge(&mut self, key: &K, now: Instant) {
        let left = self.left(key, now) - 1.0;
        if !self.map.contains_key(key) && self.map.len() >= self.cap {
            self.make_room(now);
        }
        self.map.insert(key.clone(), (left, now));
    }

    /// Forgets the buckets that have refilled (they are as new ones), then,
    /// if still full, the least recently used half: amortized, no scan per
    /// request.
    fn make_room(&mut self, now: Instant) {
        let (rate, size) = (self.rate.per_second, self.rate.size());
        self.map
            .retain(|_, (left, at)| *left + now.duration_since(*at).as_secs_f64() * rate < size);
        if self.map.len() >= self.cap {
            let mut times: Vec<Instant> = self.map.values().map(|v| v.1).collect();
            let middle = times.len() / 2;
            let (_, &mut cut, _) = times.select_nth_unstable(middle);
            self.map.retain(|_, (_, at)| *at > cut);
        }
    }
}

/// The buckets of every kind.
pub(super) struct Limiter {
    address: Buckets<IpAddr>,
    token: Buckets<String>,
    join: Buckets<IpAddr>,
}

impl Limiter {
    /// Empty buckets of the limits' rates.
    pub(super) fn new(limits: &Limits) -> Limiter {
        Limiter {
            address: Buckets::new(limits.per_address, limits.buckets),
            token: Buckets::new(limits.per_token, limits.buckets),
            join: Buckets::new(limits.joins_per_address, limits.buckets),
        }
    }

    /// The buckets kept: per address, per token, per address for joins.
    pub(super) fn sizes(&self) -> [usize; 3] {
        [
            self.address.map.len(),
            self.token.map.len(),
            self.join.map.len(),
        ]
    }

    /// Takes one request from each bucket that applies, or none of them
    /// when one is empty: the refusal and the seconds to wait.
    fn take(
        &mut self,
        ip: IpAddr,
        token: Option<&String>,
        join: bool,
        now: Instant,
    ) -> Result<(), (&'static str, u64)> {
        if self.address.left(&ip, now) < 1.0 {
            return Err((
                "too many requests from your address",
                self.address.wait(&ip, now),
            ));
        }
        if let Some(t) = token
            && self.token.left(t, now) < 1.0
        {
            return Err((
                "too many requests from your rater token",
                self.token.wait(t, now),
            ));
        }
        if join && self.join.left(&ip, now) < 1.0 {
            return Err(("too many joins from your address", self.join.wait(&ip, now)));
        }
        self.address.charge(&ip, now);
        if let Some(t) = token {
            self.token.charge(t, now);
        }
        if join {
            self.join.charge(&ip, now);
        }
        Ok(())
    }
}

/// Who sent a request: its address, and whether it reached the proxy over
/// HTTPS (only ever true through a trusted proxy).
#[derive(Clone, Copy, Debug)]
pub(super) struct Client {
    /// The client's address.
    pub ip: IpAddr,
    /// Whether the trusted proxy says the request came over HTTPS.
    pub https: bool,
}

/// The client of a request from `peer`: the peer itself, unless the proxy
/// is trusted and the peer is loopback (the proxy on this machine), when
/// the last `X-Forwarded-For` entry (the one the proxy added) is the client.
fn client(peer: SocketAddr, headers: &HeaderMap, trusted_proxy: bool) -> Client {
    let direct = Client {
        ip: peer.ip(),
        https: false,
    };
    if !trusted_proxy || !peer.ip().is_loopback() {
        return direct;
    }
    let forwarded = headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.rsplit(',').next())
        .and_then(|ip| ip.trim().parse().ok());
    let https = headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|p| p.trim().eq_ignore_ascii_case("https"));
    Client {
        ip: forwarded.unwrap_or(direct.ip),
        https,
    }
}

/// The study a path is about (`/s/NAME…` or `/api/s/NAME/…`), and whether
/// it is a join.
fn study_of<'a>(method: &Method, path: &'a str) -> (Option<&'a str>, bool) {
    let rest = path
        .strip_prefix("/api/s/")
        .or_else(|| path.strip_prefix("/s/"));
    let Some(rest) = rest else {
        return (None, false);
    };
    let (study, tail) = rest.split_once('/').unwrap_or((rest, ""));
    (Some(study), *method == Method::POST && tail == "join")
}

/// Whether a token is as the store makes them: 64 lowercase hex digits.
fn well_formed(token: &str) -> bool {
    token.len() == 64
        && token
            .bytes()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// Takes one request from the client address's bucket, the rater token's
/// (this study's, when well-formed) and, for a join, the address's joins;
/// or answers 429 with when to retry. Puts the [`Client`] in the request.
pub(super) async fn rate_limit(
    State(server): State<Arc<Server>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    mut request: Request,
    next: Next,
) -> Response {
    let now = Instant::now();
    let who = client(peer, request.headers(), server.limits.trusted_proxy);
    let (study, join) = study_of(request.method(), request.uri().path());
    let rater = study
        .and_then(|s| token(request.headers(), s))
        .filter(|t| well_formed(t));
    let taken = server
        .limiter
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .take(who.ip, rater.as_ref(), join, now);
    match taken {
        Err((why, wait)) => {
            let mut r = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("{why}: slow down and retry in {wait} s"),
            )
            .into_response();
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(wait));
            r
        }
        Ok(()) => {
            request.extensions_mut().insert(who);
            next.run(request).await
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_map_forgets_the_refilled_then_the_least_recently_used_half() {
        let rate = Rate {
            burst: 2.0,
            per_second: 1.0,
        };
        let t0 = Instant::now();
        let full = || {
            let mut b: Buckets<u32> = Buckets::new(rate, 4);
            for k in 0..4 {
                b.charge(&k, t0 + Duration::from_millis(k as u64));
            }
            assert_eq!(b.map.len(), 4);
            b
        };
        // Two seconds on, every bucket has refilled: all are forgotten.
        let mut b = full();
        b.charge(&9, t0 + Duration::from_secs(2));
        assert_eq!(b.map.keys().collect::<Vec<_>>(), [&9]);
        // None refilled: the least recently used half goes.
        let mut b = full();
        b.charge(&7, t0 + Duration::from_millis(10));
        let mut kept: Vec<u32> = b.map.keys().copied().collect();
        kept.sort();
        assert_eq!(kept, [3, 7]);
        // The kept bucket is still charged: its next request finds 0 left.
        b.charge(&7, t0 + Duration::from_millis(11));
        assert!(b.left(&7, t0 + Duration::from_millis(12)) < 1.0);
    }

    #[test]
    fn the_client_is_the_proxys_last_entry_only_from_a_trusted_loopback_peer() {
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", "6.6.6.6, 10.1.2.3".parse().unwrap());
        h.append("x-forwarded-proto", "https".parse().unwrap());
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let far: SocketAddr = "192.0.2.7:5000".parse().unwrap();
        let c = client(local, &h, true);
        assert_eq!((c.ip.to_string(), c.https), ("10.1.2.3".into(), true));
        // Not trusted, or not from this machine: the header is ignored.
        let c = client(local, &h, false);
        assert_eq!((c.ip.to_string(), c.https), ("127.0.0.1".into(), false));
        let c = client(far, &h, true);
        assert_eq!((c.ip.to_string(), c.https), ("192.0.2.7".into(), false));
    }

    #[test]
    fn only_a_studys_join_and_well_formed_tokens_count() {
        assert_eq!(
            study_of(&Method::POST, "/api/s/pilot/join"),
            (Some("pilot"), true)
        );
        assert_eq!(
            study_of(&Method::GET, "/api/s/pilot/join"),
            (Some("pilot"), false)
        );
        assert_eq!(study_of(&Method::GET, "/s/pilot"), (Some("pilot"), false));
        assert_eq!(
            study_of(&Method::GET, "/api/s/pilot"),
            (Some("pilot"), false)
        );
        assert_eq!(study_of(&Method::GET, "/api/admin/studies"), (None, false));
        assert!(well_formed(&"ab".repeat(32)));
        assert!(!well_formed(&"AB".repeat(32)) && !well_formed("abc"));
    }
}
