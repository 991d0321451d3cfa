//! The fake upstream driven by a raw TCP client, so each script is checked byte by byte.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::*;

async fn raw(fake: &FakeUpstream, request: &str) -> String {
    let mut s = TcpStream::connect(fake.addr()).await.unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    // A reset after a refusal still leaves what was read in `out`.
    let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut out)).await.unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn routes_reply_and_requests_are_recorded() {
    let fake = FakeUpstream::start().await;
    fake.route("POST", "/api/x", Reply::json(r#"{"ok":true}"#).header("X-Extra", "1"));
    let got = raw(&fake, "POST /api/x?page=2 HTTP/1.1\r\nHost: a\r\nX-Token: t\r\nContent-Length: 3\r\n\r\nabc").await;
    assert!(got.starts_with("HTTP/1.1 200 OK\r\n"), "{got}");
    assert!(got.contains("Content-Type: application/json\r\n") && got.contains("X-Extra: 1\r\n"));
    assert!(got.contains("Content-Length: 11\r\n") && got.contains("Connection: close\r\n"));
    assert!(got.ends_with("\r\n\r\n{\"ok\":true}"));
    let reqs = fake.requests();
    assert_eq!(reqs.len(), 1);
    assert_eq!((reqs[0].method.as_str(), reqs[0].path(), reqs[0].query()), ("POST", "/api/x", Some("page=2")));
    assert_eq!(reqs[0].header("x-token"), Some("t"));
    assert_eq!(reqs[0].body, b"abc");
    let served = fake.wait_for_served(1).await;
    assert_eq!((served[0].status, served[0].body_bytes_sent, served[0].completed), (200, 11, true));
}

#[tokio::test]
async fn unrouted_is_404_and_sequences_repeat_their_last_reply() {
    let fake = FakeUpstream::start().await;
    assert!(raw(&fake, "GET /nope HTTP/1.1\r\n\r\n").await.starts_with("HTTP/1.1 404 "));
    fake.route_sequence("GET", "/s", vec![Reply::status(429), Reply::status(200)]);
    for want in ["429", "200", "200"] {
        assert!(raw(&fake, "GET /s HTTP/1.1\r\n\r\n").await.starts_with(&format!("HTTP/1.1 {want} ")));
    }
}

#[tokio::test]
async fn chunked_declared_and_omitted_lengths_are_sent_as_scripted() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/c", Reply::content("text/plain", "hello").chunked())
        .route("GET", "/d", Reply::content("text/plain", "hello").declared_length(99))
        .route("GET", "/o", Reply::content("text/plain", "hello").without_length());
    let chunked = raw(&fake, "GET /c HTTP/1.1\r\n\r\n").await;
    assert!(chunked.contains("Transfer-Encoding: chunked\r\n") && !chunked.contains("Content-Length"));
    assert!(chunked.ends_with("\r\n\r\n5\r\nhello\r\n0\r\n\r\n"), "{chunked}");
    let declared = raw(&fake, "GET /d HTTP/1.1\r\n\r\n").await;
    assert!(declared.contains("Content-Length: 99\r\n") && declared.ends_with("\r\n\r\nhello"));
    let omitted = raw(&fake, "GET /o HTTP/1.1\r\n\r\n").await;
    assert!(!omitted.contains("Content-Length") && omitted.ends_with("\r\n\r\nhello"));
}

#[tokio::test]
async fn an_oversized_body_is_streamed_and_an_early_hangup_is_recorded() {
    let fake = FakeUpstream::start().await;
    let len = 256 * 1024 * 1024;
    fake.route("GET", "/big", Reply::status(200).repeated_body(b'x', len).without_length());
    let mut s = TcpStream::connect(fake.addr()).await.unwrap();
    s.write_all(b"GET /big HTTP/1.1\r\n\r\n").await.unwrap();
    let mut first = vec![0u8; 64 * 1024];
    s.read_exact(&mut first).await.unwrap();
    drop(s);
    let served = fake.wait_for_served(1).await;
    assert!(!served[0].completed);
    assert!(served[0].body_bytes_sent < len);
}

#[tokio::test]
async fn a_stall_sends_headers_then_waits_for_the_hangup() {
    let fake = FakeUpstream::start().await;
    fake.route("GET", "/stall", Reply::json("{}").stall_after_headers());
    let mut s = TcpStream::connect(fake.addr()).await.unwrap();
    s.write_all(b"GET /stall HTTP/1.1\r\n\r\n").await.unwrap();
    let mut head = vec![0u8; 1024];
    let n = s.read(&mut head).await.unwrap();
    assert!(String::from_utf8_lossy(&head[..n]).ends_with("\r\n\r\n"));
    let more = tokio::time::timeout(Duration::from_millis(100), s.read(&mut head)).await;
    assert!(more.is_err(), "nothing may follow the headers");
    assert!(fake.served().is_empty());
    drop(s);
    let served = fake.wait_for_served(1).await;
    assert_eq!((served[0].body_bytes_sent, served[0].completed), (0, false));
}

#[tokio::test]
async fn a_stall_after_some_body_bytes_sends_exactly_those_then_waits() {
    let fake = FakeUpstream::start().await;
    fake.route(
        "GET",
        "/half",
        Reply::content("application/octet-stream", vec![7u8; 40_000]).stall_after_body_bytes(20_000),
    );
    let mut s = TcpStream::connect(fake.addr()).await.unwrap();
    s.write_all(b"GET /half HTTP/1.1\r\n\r\n").await.unwrap();
    let mut received = Vec::new();
    let mut buf = vec![0u8; 64 * 1024];
    while !received.windows(4).any(|w| w == b"\r\n\r\n") || body_len(&received) < 20_000 {
        let n = s.read(&mut buf).await.unwrap();
        assert!(n > 0, "the connection closed early");
        received.extend_from_slice(&buf[..n]);
    }
    assert!(String::from_utf8_lossy(&received).contains("Content-Length: 40000"));
    assert_eq!(body_len(&received), 20_000);
    let more = tokio::time::timeout(Duration::from_millis(100), s.read(&mut buf)).await;
    assert!(more.is_err(), "nothing may follow the first 20,000 bytes");
    drop(s);
    let served = fake.wait_for_served(1).await;
    assert_eq!((served[0].body_bytes_sent, served[0].completed), (20_000, false));
}

fn body_len(received: &[u8]) -> usize {
    received.windows(4).position(|w| w == b"\r\n\r\n").map_or(0, |at| received.len() - at - 4)
}

#[tokio::test]
async fn requests_over_the_size_limit_are_refused() {
    let limits = Limits { max_request_bytes: 1024, ..Limits::default() };
    let fake = FakeUpstream::start_with(limits).await;
    let long = format!("GET /x HTTP/1.1\r\nX-Pad: {}\r\n\r\n", "a".repeat(4096));
    assert!(raw(&fake, &long).await.starts_with("HTTP/1.1 431 "));
    let body = "GET /x HTTP/1.1\r\nContent-Length: 5000\r\n\r\n";
    assert!(raw(&fake, body).await.starts_with("HTTP/1.1 431 "));
    assert!(fake.requests().is_empty());
}

#[tokio::test]
async fn connections_beyond_the_total_limit_are_closed_unanswered() {
    let fake = FakeUpstream::start_with(Limits { max_total_connections: 1, ..Limits::default() }).await;
    assert!(raw(&fake, "GET /x HTTP/1.1\r\n\r\n").await.starts_with("HTTP/1.1 404 "));
    assert_eq!(raw(&fake, "GET /x HTTP/1.1\r\n\r\n").await, "");
    assert_eq!(fake.connections(), 2);
}

#[tokio::test]
async fn dropping_the_server_closes_the_port() {
    let fake = FakeUpstream::start().await;
    let addr = fake.addr();
    drop(fake);
    let mut refused = false;
    for _ in 0..100 {
        if TcpStream::connect(addr).await.is_err() {
            refused = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(refused, "the listener must close on drop");
}
