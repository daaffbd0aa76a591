//! Serving: the accept loop (a cap on connections at once, and on those of
//! one client address; a timeout on a request's headers, and on the whole
//! request), the graceful stop with a deadline, and [`Running`], a server
//! on a thread of its own for `boaf serve` and the app.

use super::limit::{client_key, is_trusted};
use super::{ApiError, Server, router};
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use std::collections::HashMap;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tower::Service;

/// The connections open per client address (its bucket key).
type Open = Arc<Mutex<HashMap<IpAddr, usize>>>;

/// One connection counted in [`Open`], uncounted when dropped.
struct Counted {
    open: Open,
    key: IpAddr,
}

impl Counted {
    /// Counts a connection from `key`, or none when it has `cap` open.
    fn new(open: &Open, key: IpAddr, cap: usize) -> Option<Counted> {
        let mut map = open.lock().unwrap_or_else(|p| p.into_inner());
        let n = map.entry(key).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(Counted {
            open: open.clone(),
            key,
        })
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        let mut map = self.open.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = map.get_mut(&self.key) {
            *n -= 1;
            if *n == 0 {
                map.remove(&self.key);
            }
        }
    }
}

/// What a connection over its address's cap is told before it is closed.
const TOO_MANY_CONNECTIONS: &[u8] = b"HTTP/1.1 429 Too Many Requests\r\n\
content-type: application/json\r\nconnection: close\r\ncontent-length: 59\r\n\r\n\
{\"error\":\"too many connections from your address at once\"}\n";

/// Serves until `shutdown` completes, then finishes the requests under way
/// (graceful shutdown) for at most the limits' stop deadline, and drops the
/// connections still open. At most the limits' connections are served at
/// once, and the limits' connections per address from a client that is not
/// a trusted proxy (more are refused); a client that takes longer than the
/// header timeout to send a request's headers is dropped (slowloris), one
/// whose request takes longer than the request timeout (a body trickled
/// in) is answered 408 and dropped.
pub async fn serve(
    listener: tokio::net::TcpListener,
    server: Arc<Server>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let limits = server.limits.clone();
    let app = router(server);
    let open: Open = Arc::default();
    let slots = Arc::new(Semaphore::new(limits.connections.max(1)));
    let (stopping, stop) = watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            // A slot first, so a connection over the cap waits in the backlog.
            accepted = async {
                let slot = slots.clone().acquire_owned().await.expect("the slots stay open");
                (slot, listener.accept().await)
            } => accepted,
        };
        // Finished connections are reaped as we go.
        while connections.try_join_next().is_some() {}
        let (slot, (stream, peer)) = match accepted {
            (slot, Ok(c)) => (slot, c),
            (_, Err(e)) => {
                // Out of file descriptors and the like: wait, then go on.
                eprintln!("boaf serve: accepting a connection: {e}");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let counted = if is_trusted(peer.ip(), &limits.trusted_proxies) {
            None
        } else {
            let key = client_key(peer.ip());
            match Counted::new(&open, key, limits.connections_per_address) {
                Some(c) => Some(c),
                None => {
                    // Told once without waiting for a client that reads slowly.
                    let _ = stream.try_write(TOO_MANY_CONNECTIONS);
                    continue;
                }
            }
        };
        let app = app.clone();
        let request_timeout = limits.request_timeout;
        let service = hyper::service::service_fn(move |request: hyper::Request<Incoming>| {
            let mut request = request.map(Body::new);
            request.extensions_mut().insert(ConnectInfo(peer));
            let answer = app.clone().call(request);
            async move {
                match tokio::time::timeout(request_timeout, answer).await {
                    Ok(answer) => answer,
                    Err(_) => {
                        let mut r = ApiError::new(
                            StatusCode::REQUEST_TIMEOUT,
                            format!("the request took over {request_timeout:?}: send it whole"),
                        )
                        .into_response();
                        r.headers_mut().insert(
                            axum::http::header::CONNECTION,
                            axum::http::HeaderValue::from_static("close"),
                        );
                        Ok(r)
                    }
                }
            }
        });
        let mut stop = stop.clone();
        let header_timeout = limits.header_timeout;
        connections.spawn(async move {
            let _slot = slot;
            let _counted = counted;
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_timeout)
                .serve_connection(TokioIo::new(stream), service);
            tokio::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => return,
                _ = stop.wait_for(|&s| s) => {}
            }
            connection.as_mut().graceful_shutdown();
            let _ = connection.await;
        });
    }
    drop(listener);
    let _ = stopping.send(true);
    let finished = async { while connections.join_next().await.is_some() {} };
    if tokio::time::timeout(limits.stop_deadline, finished)
        .await
        .is_err()
    {
        eprintln!(
            "boaf serve: {} connection(s) still open after {:?}: dropped",
            connections.len(),
            limits.stop_deadline
        );
    }
    // Dropping the set aborts what is left.
    Ok(())
}

/// A server serving on a thread of its own (with its own tokio runtime)
/// until stopped: what `boaf serve` and the app's Study panel run.
pub struct Running {
    addr: SocketAddr,
    shutdown: Arc<tokio::sync::Notify>,
    runtime: tokio::runtime::Handle,
    thread: Option<std::thread::JoinHandle<std::io::Result<()>>>,
}

impl Running {
    /// The address bound (its port when 0 was asked).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Stops taking connections, finishes the requests under way, and
    /// waits for the server's thread: a new connection is refused after.
    pub fn stop(self) -> std::io::Result<()> {
        self.shutdown.notify_one();
        self.wait()
    }

    /// Waits until the server stops (from [`Running::stop`]'s switch).
    fn wait(mut self) -> std::io::Result<()> {
        match self.thread.take().map(|t| t.join()) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(std::io::Error::other("the server's thread panicked")),
            None => Ok(()),
        }
    }
}

impl Drop for Running {
    /// A server no longer held stops (without waiting for it).
    fn drop(&mut self) {
        self.shutdown.notify_one();
    }
}

/// Binds `addr` and serves on a new runtime in a thread of its own until
/// [`Running::stop`]; fails when the address cannot be bound.
pub fn start(addr: SocketAddr, server: Arc<Server>) -> std::io::Result<Running> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let listener = runtime.block_on(tokio::net::TcpListener::bind(addr))?;
    let addr = listener.local_addr()?;
    let shutdown = Arc::new(tokio::sync::Notify::new());
    let handle = runtime.handle().clone();
    let switch = shutdown.clone();
    let thread = std::thread::Builder::new()
        .name("boaf-serve".into())
        .spawn(move || {
            // A stored permit: a stop before the server waits still counts.
            runtime.block_on(serve(
                listener,
                server,
                async move { switch.notified().await },
            ))
        })?;
    Ok(Running {
        addr,
        shutdown,
        runtime: handle,
        thread: Some(thread),
    })
}

/// Binds `addr`, calls `ready` with the address bound (its port when 0 was
/// asked), and serves (see [`start`]) until Ctrl+C (SIGINT) or SIGTERM.
pub fn run_until_interrupted(
    addr: SocketAddr,
    server: Arc<Server>,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let running = start(addr, server)?;
    ready(running.addr());
    let switch = running.shutdown.clone();
    running.runtime.spawn(async move {
        interrupted().await;
        switch.notify_one();
    });
    running.wait()
}

/// Completes at Ctrl+C (SIGINT), or SIGTERM on Unix.
async fn interrupted() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut term) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = term.recv() => {}
                }
            }
            Err(_) => ctrl_c.await,
        }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}
