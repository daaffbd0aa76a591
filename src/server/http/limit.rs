//! The bounds on requests and the rate limiter: token buckets per client
//! address, per rater token (this study's well-formed token only) and, for
//! joins, per address again; each kind in a map of its own with its own
//! rate and a cap on its size. Behind a trusted reverse proxy the client's
//! address is the last `X-Forwarded-For` entry. An IPv6 client is keyed by
//! its /64 (one host's usual share), an IPv4-mapped one as IPv4.

use super::{ApiError, Server, token};
use crate::limits::check_study_name;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::collections::HashMap;
use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::str::FromStr;
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

/// A network of addresses (`10.0.0.0/8`, `192.168.1.5`, `::1/128`): a
/// trusted proxy's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Net {
    addr: IpAddr,
    prefix: u8,
}

impl Net {
    /// This machine: `127.0.0.0/8` and `::1`.
    pub fn loopback() -> Vec<Net> {
        vec![
            Net {
                addr: IpAddr::from([127, 0, 0, 0]),
                prefix: 8,
            },
            Net {
                addr: IpAddr::from(Ipv6Addr::LOCALHOST),
                prefix: 128,
            },
        ]
    }

    /// Whether `ip` (canonical: an IPv4-mapped address is IPv4) is in it.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, ip.to_canonical()) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                masked(u32::from(n).into(), self.prefix, 32)
                    == masked(u32::from(a).into(), self.prefix, 32)
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                masked(n.into(), self.prefix, 128) == masked(a.into(), self.prefix, 128)
            }
            _ => false,
        }
    }
}

/// The first `prefix` of an address's `bits` bits, the rest zero.
fn masked(addr: u128, prefix: u8, bits: u8) -> u128 {
    match u32::from(prefix) {
        0 => 0,
        p => addr & (u128::MAX << (u32::from(bits) - p.min(u32::from(bits)))),
    }
}

impl FromStr for Net {
    type Err = String;

    /// An address, or an address and a prefix length after `/`.
    fn from_str(text: &str) -> Result<Net, String> {
        let bad =
            || format!("{text:?} is not an address nor a network (10.0.0.0/8, 192.168.1.5, ::1)");
        let (addr, prefix) = match text.trim().split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (text.trim(), None),
        };
        let addr: IpAddr = addr.parse().map_err(|_| bad())?;
        let addr = addr.to_canonical();
        let bits = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            None => bits,
            Some(p) => p
                .parse::<u8>()
                .ok()
                .filter(|&p| p <= bits)
                .ok_or_else(bad)?,
        };
        Ok(Net { addr, prefix })
    }
}

/// The bucket key of a client address: IPv4 as it is (an IPv4-mapped IPv6
/// address too), IPv6 its /64, which one host usually has whole.
pub(super) fn client_key(ip: IpAddr) -> IpAddr {
    match ip.to_canonical() {
        IpAddr::V6(v6) => IpAddr::V6((masked(v6.into(), 64, 128)).into()),
        v4 => v4,
    }
}

/// The bounds on requests and connections.
#[derive(Clone, Debug)]
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
    /// The peers that are a reverse proxy whose last `X-Forwarded-For`
    /// entry is the client (`boaf serve --trusted-proxy`); none when empty.
    pub trusted_proxies: Vec<Net>,
    /// The most connections served at once (more wait to be accepted).
    pub connections: usize,
    /// The most connections open at once from one client address (not a
    /// trusted proxy); more are refused.
    pub connections_per_address: usize,
    /// How long a client may take to send a request's headers.
    pub header_timeout: Duration,
    /// How long a request may take whole, its body read and its answer
    /// made (a body trickled in is cut off).
    pub request_timeout: Duration,
    /// How long a stop waits for the requests under way.
    pub stop_deadline: Duration,
}

impl Limits {
    /// Limits of `per_address` and `per_token` requests a second on
    /// average, in bursts of 3 and 6 seconds' worth, 10 joins a minute per
    /// address in bursts of 30, a 64 KB body (a play log of a long play is a
    /// few kilobytes), 512 connections (32 per address), 10 s for headers,
    /// 30 s for a whole request, 3 s to stop.
    pub fn with_rates(per_address: f64, per_token: f64) -> Limits {
        Limits {
            body_bytes: 64 * 1024,
            per_token: Rate::over(per_token, 6.0),
            per_address: Rate::over(per_address, 3.0),
            joins_per_address: Rate::over(10.0 / 60.0, 180.0),
            buckets: 50_000,
            trusted_proxies: Vec::new(),
            connections: 512,
            connections_per_address: CONNECTIONS_PER_ADDRESS,
            header_timeout: Duration::from_secs(10),
            request_timeout: REQUEST_TIMEOUT,
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

/// The most connections open at once from one client address by default:
/// a browser opens six or so.
pub const CONNECTIONS_PER_ADDRESS: usize = 32;

/// How long a whole request may take by default: a rater's request is a
/// few kilobytes, sent in well under a second.
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

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

    /// Forgets the buckets that have refilled (they are as new ones), then
    /// the least recently used until at most half the cap is left: the next
    /// scan is half a cap of new keys away (amortized, no scan per request).
    fn make_room(&mut self, now: Instant) {
        let (rate, size) = (self.rate.per_second, self.rate.size());
        self.map
            .retain(|_, (left, at)| *left + now.duration_since(*at).as_secs_f64() * rate < size);
        let keep = self.cap / 2;
        if self.map.len() > keep {
            let mut times: Vec<Instant> = self.map.values().map(|v| v.1).collect();
            // The newest `keep` are after the (keep+1)-th newest.
            let (_, &mut cut, _) = times.select_nth_unstable_by(keep, |a, b| b.cmp(a));
            self.map.retain(|_, (_, at)| *at > cut);
        }
    }
}

/// The buckets of every kind.
pub(super) struct Limiter {
    address: Buckets<IpAddr>,
    token: Buckets<String>,
    join: Buckets<IpAddr>,
    /// Whether an untrusted peer's `X-Forwarded-For` was warned about.
    warned: bool,
}

impl Limiter {
    /// Empty buckets of the limits' rates.
    pub(super) fn new(limits: &Limits) -> Limiter {
        Limiter {
            address: Buckets::new(limits.per_address, limits.buckets),
            token: Buckets::new(limits.per_token, limits.buckets),
            join: Buckets::new(limits.joins_per_address, limits.buckets),
            warned: false,
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
        let ip = client_key(ip);
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

/// Whether `peer` is one of the trusted proxies.
pub(super) fn is_trusted(peer: IpAddr, proxies: &[Net]) -> bool {
    proxies.iter().any(|n| n.contains(peer))
}

/// The client of a request from `peer`: the peer itself, unless the peer
/// is a trusted proxy, when the last `X-Forwarded-For` entry (the one the
/// proxy added) is the client.
fn client(peer: SocketAddr, headers: &HeaderMap, proxies: &[Net]) -> Client {
    let direct = Client {
        ip: peer.ip().to_canonical(),
        https: false,
    };
    if !is_trusted(peer.ip(), proxies) {
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
        ip: forwarded.map_or(direct.ip, |ip: IpAddr| ip.to_canonical()),
        https,
    }
}

/// Whether a request from `peer` carries an `X-Forwarded-For` that is not
/// taken (the peer is no trusted proxy): a proxy not yet trusted, whose
/// clients all share its address's limits, or a client's own header.
fn forwarded_untrusted(peer: SocketAddr, headers: &HeaderMap, proxies: &[Net]) -> bool {
    headers.contains_key("x-forwarded-for") && !is_trusted(peer.ip(), proxies)
}

/// The study a path is about (`/s/NAME…` or `/api/s/NAME/…`), as the path
/// spells it (percent-encoded or not: see [`rate_limit`]), and whether it
/// is a join.
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
    let proxies = &server.limits.trusted_proxies;
    let who = client(peer, request.headers(), proxies);
    let (study, join) = study_of(request.method(), request.uri().path());
    // The router decodes `%70ilot` to `pilot`, but the limiter would look
    // for the cookie `boaf_%70ilot` and charge no rater: a study segment
    // that is not a plain name (as every stored one is) is refused first.
    if let Some(s) = study
        && check_study_name(s).is_err()
    {
        return ApiError::new(StatusCode::NOT_FOUND, format!("no study {s:?}")).into_response();
    }
    let rater = study
        .and_then(|s| token(request.headers(), s))
        .filter(|t| well_formed(t));
    let untrusted = forwarded_untrusted(peer, request.headers(), proxies);
    let (warn, taken) = {
        let mut limiter = server.limiter.lock().unwrap_or_else(|p| p.into_inner());
        let warn = untrusted && !std::mem::replace(&mut limiter.warned, true);
        (warn, limiter.take(who.ip, rater.as_ref(), join, now))
    };
    if warn {
        eprintln!(
            "boaf serve: a request from {} carries X-Forwarded-For, but that peer is not a \
             trusted proxy: its clients share its address's limits (see --trusted-proxy); \
             said once",
            peer.ip()
        );
    }
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
        assert_eq!(kept, [2, 3, 7]);
        // The kept bucket is still charged: its next request finds 0 left.
        b.charge(&7, t0 + Duration::from_millis(11));
        assert!(b.left(&7, t0 + Duration::from_millis(12)) < 1.0);
    }

    #[test]
    fn a_map_filled_past_its_cap_stays_bounded_and_evicts_to_about_half() {
        let rate = Rate {
            burst: 10.0,
            per_second: 0.001,
        };
        let t0 = Instant::now();
        let mut b: Buckets<u32> = Buckets::new(rate, 100);
        let mut scans = 0;
        for k in 0..1000u32 {
            let before = b.map.len();
            b.charge(&k, t0 + Duration::from_millis(u64::from(k)));
            assert!(b.map.len() <= 100, "{} kept", b.map.len());
            if b.map.len() < before {
                scans += 1;
                // Down to half the cap, then the new key.
                assert_eq!(b.map.len(), 51);
                assert!(b.map.contains_key(&k) && b.map.contains_key(&(k - 1)));
            }
        }
        // One scan per half a cap of new keys, not one per key.
        assert!((18..=20).contains(&scans), "{scans} scans");
    }

    #[test]
    fn an_ipv6_client_is_keyed_by_its_64_and_a_mapped_ipv4_as_ipv4() {
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        assert_eq!(
            client_key(ip("2001:db8:1:2:aaaa::1")),
            client_key(ip("2001:db8:1:2:ffff:1:2:3"))
        );
        assert_ne!(
            client_key(ip("2001:db8:1:2::1")),
            client_key(ip("2001:db8:1:3::1"))
        );
        assert_eq!(client_key(ip("::ffff:1.2.3.4")), ip("1.2.3.4"));
        assert_eq!(client_key(ip("1.2.3.4")), ip("1.2.3.4"));
        // They share one bucket: a burst of 1 is spent by either.
        let limits = Limits {
            per_address: Rate {
                burst: 1.0,
                per_second: 0.001,
            },
            ..Limits::default()
        };
        let now = Instant::now();
        let mut l = Limiter::new(&limits);
        assert!(l.take(ip("2001:db8::1"), None, false, now).is_ok());
        assert!(l.take(ip("2001:db8::9:9"), None, false, now).is_err());
        assert!(l.take(ip("::ffff:1.2.3.4"), None, false, now).is_ok());
        assert!(l.take(ip("1.2.3.4"), None, false, now).is_err());
        assert!(l.take(ip("2001:db8:0:1::1"), None, false, now).is_ok());
        assert_eq!(l.sizes()[0], 3);
    }

    #[test]
    fn a_trusted_proxy_is_an_address_or_a_network() {
        let net = |s: &str| s.parse::<Net>();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let n = net("10.0.0.0/8").unwrap();
        assert!(n.contains(ip("10.200.3.4")) && n.contains(ip("::ffff:10.0.0.1")));
        assert!(!n.contains(ip("11.0.0.1")) && !n.contains(ip("::1")));
        let one = net("192.168.1.5").unwrap();
        assert!(one.contains(ip("192.168.1.5")) && !one.contains(ip("192.168.1.6")));
        let v6 = net("2001:db8::/32").unwrap();
        assert!(v6.contains(ip("2001:db8:ffff::1")) && !v6.contains(ip("2001:db9::1")));
        assert!(net("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        for bad in [
            "10.0.0.0/33",
            "localhost",
            "10.0.0.0/",
            "::1/129",
            "1.2.3.4/x",
        ] {
            assert!(net(bad).unwrap_err().contains("is not an address"), "{bad}");
        }
        let loopback = Net::loopback();
        assert!(is_trusted(ip("127.0.0.1"), &loopback));
        assert!(is_trusted(ip("::ffff:127.0.0.1"), &loopback));
        assert!(is_trusted(ip("::1"), &loopback));
        assert!(!is_trusted(ip("192.0.2.1"), &loopback));
    }

    #[test]
    fn the_client_is_the_proxys_last_entry_only_from_a_trusted_peer() {
        let mut h = HeaderMap::new();
        h.append("x-forwarded-for", "6.6.6.6, 10.1.2.3".parse().unwrap());
        h.append("x-forwarded-proto", "https".parse().unwrap());
        let local: SocketAddr = "127.0.0.1:5000".parse().unwrap();
        let mapped: SocketAddr = "[::ffff:127.0.0.1]:5000".parse().unwrap();
        let far: SocketAddr = "192.0.2.7:5000".parse().unwrap();
        let loopback = Net::loopback();
        let c = client(local, &h, &loopback);
        assert_eq!((c.ip.to_string(), c.https), ("10.1.2.3".into(), true));
        // An IPv4-mapped loopback peer (a dual-stack socket) is loopback.
        let c = client(mapped, &h, &loopback);
        assert_eq!((c.ip.to_string(), c.https), ("10.1.2.3".into(), true));
        // Not trusted, or not from a trusted peer: the header is ignored.
        let c = client(local, &h, &[]);
        assert_eq!((c.ip.to_string(), c.https), ("127.0.0.1".into(), false));
        let c = client(mapped, &h, &[]);
        assert_eq!((c.ip.to_string(), c.https), ("127.0.0.1".into(), false));
        let c = client(far, &h, &loopback);
        assert_eq!((c.ip.to_string(), c.https), ("192.0.2.7".into(), false));
        assert!(forwarded_untrusted(far, &h, &loopback));
        assert!(!forwarded_untrusted(local, &h, &loopback));
        assert!(!forwarded_untrusted(far, &HeaderMap::new(), &loopback));
        // A proxy on another host, trusted by its network.
        let lan = vec!["192.0.2.0/24".parse().unwrap()];
        let c = client(far, &h, &lan);
        assert_eq!((c.ip.to_string(), c.https), ("10.1.2.3".into(), true));
        assert!(!forwarded_untrusted(far, &h, &lan));
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
