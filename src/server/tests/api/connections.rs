//! The server on a real loopback port: slow and held connections, and the
//! caps on connections.

use super::*;

/// A server of `limits` serving on a free loopback port, on its own thread.
fn running(limits: Limits) -> (boaf_server::http::Running, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("studies.sqlite")).unwrap();
    pilot(&mut store, 1, 1);
    let server = Server::new(store, limits, Some(1));
    let running = boaf_server::http::start("127.0.0.1:0".parse().unwrap(), server).unwrap();
    (running, dir)
}

/// Reads what the server sends until it closes the connection (or `wait`
/// passes, a failure): the bytes, and how long it took.
fn read_until_closed(stream: &mut std::net::TcpStream, wait: Duration) -> (String, Duration) {
    use std::io::Read;
    let start = Instant::now();
    stream.set_read_timeout(Some(wait)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("still open after {:?}: {e}", start.elapsed()),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), start.elapsed())
}

const HALF_A_HEADER: &[u8] = b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\n";

#[test]
fn a_client_that_sends_half_a_header_is_dropped_after_the_header_timeout() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        header_timeout: Duration::from_secs(1),
        ..lenient()
    });
    let mut slow = std::net::TcpStream::connect(server.addr()).unwrap();
    slow.write_all(HALF_A_HEADER).unwrap();
    let (_, took) = read_until_closed(&mut slow, Duration::from_secs(5));
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
    // A whole request is still answered.
    let mut ok = std::net::TcpStream::connect(server.addr()).unwrap();
    ok.write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (reply, _) = read_until_closed(&mut ok, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    server.stop().unwrap();
}

#[test]
fn a_stop_does_not_wait_past_its_deadline_for_a_connection_held_open() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        header_timeout: Duration::from_secs(60),
        stop_deadline: Duration::from_secs(1),
        ..lenient()
    });
    let mut held = std::net::TcpStream::connect(server.addr()).unwrap();
    held.write_all(HALF_A_HEADER).unwrap();
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    let (done, stopped) = std::sync::mpsc::channel();
    std::thread::spawn(move || done.send(server.stop().is_ok()));
    assert_eq!(stopped.recv_timeout(Duration::from_secs(3)), Ok(true));
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
    // The held connection was dropped.
    let (_, after) = read_until_closed(&mut held, Duration::from_secs(2));
    assert!(after < Duration::from_secs(1), "{after:?}");
}

#[test]
fn a_body_trickled_in_is_cut_off_after_the_request_timeout() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        request_timeout: Duration::from_secs(1),
        ..lenient()
    });
    let mut slow = std::net::TcpStream::connect(server.addr()).unwrap();
    slow.write_all(
        b"POST /api/s/pilot/join HTTP/1.1\r\nHost: boaf\r\n\
          Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n{",
    )
    .unwrap();
    // A byte every 100 ms: the headers are in, the body never ends.
    let trickle = slow.try_clone().unwrap();
    std::thread::spawn(move || {
        let mut trickle = trickle;
        for _ in 0..100 {
            std::thread::sleep(Duration::from_millis(100));
            if trickle.write_all(b" ").is_err() {
                break;
            }
        }
    });
    let (reply, took) = read_until_closed(&mut slow, Duration::from_secs(5));
    assert!(
        took >= Duration::from_millis(900) && took < Duration::from_secs(3),
        "{took:?}"
    );
    assert!(reply.starts_with("HTTP/1.1 408"), "{reply}");
    assert!(reply.contains("the request took over 1s"), "{reply}");
    server.stop().unwrap();
}

#[test]
fn connections_from_one_address_over_its_cap_are_refused() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        connections_per_address: 2,
        ..lenient()
    });
    let idle: Vec<std::net::TcpStream> = (0..2)
        .map(|_| std::net::TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // The third from 127.0.0.1 is told so and closed at once.
    let mut third = std::net::TcpStream::connect(server.addr()).unwrap();
    let (reply, took) = read_until_closed(&mut third, Duration::from_secs(2));
    assert!(took < Duration::from_secs(1), "{took:?}");
    assert!(reply.starts_with("HTTP/1.1 429"), "{reply}");
    assert!(
        reply.ends_with("{\"error\":\"too many connections from your address at once\"}\n"),
        "{reply}"
    );
    // One closed, one more is served.
    drop(idle);
    std::thread::sleep(Duration::from_millis(200));
    let mut ok = std::net::TcpStream::connect(server.addr()).unwrap();
    ok.write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (reply, _) = read_until_closed(&mut ok, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    // Behind a trusted proxy on this machine, its connections are not capped.
    server.stop().unwrap();
    let (server, _dir) = running(Limits {
        connections_per_address: 2,
        trusted_proxies: Net::loopback(),
        ..lenient()
    });
    let idle: Vec<std::net::TcpStream> = (0..3)
        .map(|_| std::net::TcpStream::connect(server.addr()).unwrap())
        .collect();
    let mut fourth = std::net::TcpStream::connect(server.addr()).unwrap();
    fourth
        .write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    let (reply, _) = read_until_closed(&mut fourth, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    drop(idle);
    server.stop().unwrap();
}

#[test]
fn connections_over_the_cap_wait_for_a_free_one() {
    use std::io::Write;
    let (server, _dir) = running(Limits {
        connections: 2,
        header_timeout: Duration::from_secs(30),
        ..lenient()
    });
    let idle: Vec<std::net::TcpStream> = (0..2)
        .map(|_| std::net::TcpStream::connect(server.addr()).unwrap())
        .collect();
    std::thread::sleep(Duration::from_millis(200));
    // The third is in the backlog: its request is not read while two are open.
    let mut third = std::net::TcpStream::connect(server.addr()).unwrap();
    third
        .write_all(b"GET /api/s/pilot HTTP/1.1\r\nHost: boaf\r\nConnection: close\r\n\r\n")
        .unwrap();
    third
        .set_read_timeout(Some(Duration::from_millis(500)))
        .unwrap();
    let mut buf = [0u8; 16];
    let waited = std::io::Read::read(&mut third, &mut buf);
    assert!(
        matches!(&waited, Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut)),
        "{waited:?}"
    );
    drop(idle);
    let (reply, _) = read_until_closed(&mut third, Duration::from_secs(5));
    assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
    server.stop().unwrap();
}
