//! Black-box realtime tests over raw HTTP: the PocketBase SSE handshake (`PB_CONNECT`), that
//! subscriptions need a token and well-formed topics (unknown collections are ignored, as in
//! PocketBase), that create/update/delete events reach a subscriber while other collections'
//! events do not, and the connection limits: the per-source cap (429 with a JSON problem body),
//! a dropped stream freeing its slot promptly, unauthenticated streams closed at the
//! `--realtime-auth-deadline-secs` deadline while authenticated ones stay, and a full server
//! (`--realtime-max-clients`) closing the oldest unauthenticated stream, never a signed-in one;
//! and that the data API and the gateway set `TCP_NODELAY` on what they accept.

use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{json, Value};
use support::hostile::{large_alert, stalled_stream};
use support::{client, sample, Relay};

struct SseReader {
    stream: futures_util::stream::BoxStream<'static, reqwest::Result<bytes::Bytes>>,
    buffer: String,
}

/// One parsed SSE event.
#[derive(Debug)]
struct Event {
    id: String,
    name: String,
    data: Value,
}

impl SseReader {
    async fn open(relay: &Relay) -> SseReader {
        let res = SseReader::try_open(relay).await;
        assert_eq!(res.status(), 200);
        SseReader::from_response(res)
    }

    async fn try_open(relay: &Relay) -> reqwest::Response {
        reqwest::Client::new().get(relay.url("/api/realtime")).send().await.unwrap()
    }

    fn from_response(res: reqwest::Response) -> SseReader {
        assert!(res.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
        SseReader { stream: res.bytes_stream().boxed(), buffer: String::new() }
    }

    /// Next event (skipping comments), or None after `timeout`.
    async fn next(&mut self, timeout: Duration) -> Option<Event> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let (mut id, mut name, mut data) = (String::new(), String::new(), String::new());
                for line in block.lines() {
                    if let Some(v) = line.strip_prefix("id:") {
                        id = v.to_string();
                    } else if let Some(v) = line.strip_prefix("event:") {
                        name = v.to_string();
                    } else if let Some(v) = line.strip_prefix("data:") {
                        data = v.to_string();
                    }
                }
                if !name.is_empty() {
                    return Some(Event { id, name, data: serde_json::from_str(&data).unwrap() });
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.stream.next()).await.ok()??.ok()?;
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Whether the server ends the stream within `timeout` (reading and discarding frames).
    async fn ends_within(&mut self, timeout: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            match tokio::time::timeout_at(deadline, self.stream.next()).await {
                Err(_) => return false,
                Ok(None) | Ok(Some(Err(_))) => return true,
                Ok(Some(Ok(_))) => {}
            }
        }
    }

    /// Reads `PB_CONNECT` and returns the client id.
    async fn client_id(&mut self) -> String {
        let hello = self.next(Duration::from_secs(5)).await.expect("PB_CONNECT");
        assert_eq!(hello.name, "PB_CONNECT");
        hello.data["clientId"].as_str().unwrap().to_string()
    }
}

/// The default per-source cap of `RealtimeLimits`.
const MAX_PER_SOURCE: usize = 32;

async fn subscribe(relay: &Relay, token: Option<&str>, client_id: &str, topics: &[&str]) -> reqwest::StatusCode {
    let mut req =
        client().post(relay.url("/api/realtime")).json(&json!({"clientId": client_id, "subscriptions": topics}));
    if let Some(t) = token {
        req = req.header("Authorization", t);
    }
    req.send().await.unwrap().status()
}

#[tokio::test]
async fn subscribers_receive_record_events() {
    let relay = Relay::start();
    let token = relay.token().await;
    let mut sse = SseReader::open(&relay).await;
    let hello = sse.next(Duration::from_secs(5)).await.expect("PB_CONNECT");
    assert_eq!(hello.name, "PB_CONNECT");
    let client_id = hello.data["clientId"].as_str().unwrap().to_string();
    assert_eq!(hello.id, client_id);

    assert_eq!(subscribe(&relay, None, &client_id, &["contacts/*"]).await, 401);
    assert_eq!(subscribe(&relay, Some(&token), &client_id, &["contacts/*", "contacts/../x"]).await, 400);
    assert_eq!(subscribe(&relay, Some(&token), "unknown-client", &["contacts/*"]).await, 404);
    let with_unknown = ["contacts/*", "nosuch/*", "users/*", "contacts/*"];
    assert_eq!(subscribe(&relay, Some(&token), &client_id, &with_unknown).await, 204, "unknown topics ignored");

    let http = client();
    relay.create(&token, "servers", &sample("servers")).await;
    let base = relay.url("/api/collections/contacts/records");
    let created = relay.create(&token, "contacts", &sample("contacts")).await;
    let id = created["id"].as_str().unwrap();
    http.patch(format!("{base}/{id}"))
        .header("Authorization", &token)
        .json(&json!({"title": "Lead"}))
        .send()
        .await
        .unwrap();
    let event = sse.next(Duration::from_secs(5)).await.expect("create event");
    assert_eq!(event.name, "contacts/*", "servers events are not delivered to a contacts subscriber");
    assert_eq!(event.data["action"], "create");
    assert_eq!(event.data["record"], created);
    let event = sse.next(Duration::from_secs(5)).await.expect("update event");
    assert_eq!(event.data["action"], "update", "the repeated topic was kept once: no second create frame");
    assert_eq!((event.data["action"].as_str(), event.data["record"]["title"].as_str()), (Some("update"), Some("Lead")));

    http.delete(format!("{base}/{id}")).header("Authorization", &token).send().await.unwrap();
    let event = sse.next(Duration::from_secs(5)).await.expect("delete event");
    assert_eq!((event.data["action"].as_str(), event.data["record"]["id"].as_str()), (Some("delete"), Some(id)));
}

#[tokio::test]
async fn unauthenticated_streams_receive_no_data() {
    let relay = Relay::start();
    let token = relay.token().await;
    let mut sse = SseReader::open(&relay).await;
    let hello = sse.next(Duration::from_secs(5)).await.expect("PB_CONNECT");
    assert_eq!(hello.name, "PB_CONNECT");
    client()
        .post(relay.url("/api/collections/contacts/records"))
        .header("Authorization", &token)
        .json(&sample("contacts"))
        .send()
        .await
        .unwrap();
    assert!(sse.next(Duration::from_millis(700)).await.is_none(), "no subscription, no events");
}

#[tokio::test]
async fn record_topic_receives_only_that_record() {
    let relay = Relay::start();
    let token = relay.token().await;
    let http = client();
    let base = relay.url("/api/collections/contacts/records");
    let a = relay.create(&token, "contacts", &json!({"name": "A"})).await;
    let b = relay.create(&token, "contacts", &json!({"name": "B"})).await;
    let mut sse = SseReader::open(&relay).await;
    let hello = sse.next(Duration::from_secs(5)).await.unwrap();
    let topic = format!("contacts/{}", b["id"].as_str().unwrap());
    assert_eq!(subscribe(&relay, Some(&token), hello.data["clientId"].as_str().unwrap(), &[&topic]).await, 204);
    for rec in [&a, &b] {
        http.patch(format!("{base}/{}", rec["id"].as_str().unwrap()))
            .header("Authorization", &token)
            .json(&json!({"title": "x"}))
            .send()
            .await
            .unwrap();
    }
    let event = sse.next(Duration::from_secs(5)).await.unwrap();
    assert_eq!(event.name, topic);
    assert_eq!(event.data["record"]["id"], b["id"]);
    assert!(sse.next(Duration::from_millis(500)).await.is_none());
}

#[tokio::test]
async fn streams_per_source_are_capped_and_a_dropped_stream_frees_its_slot() {
    let relay = Relay::start();
    let mut open = Vec::new();
    for _ in 0..MAX_PER_SOURCE {
        let mut sse = SseReader::open(&relay).await;
        sse.client_id().await;
        open.push(sse);
    }
    let refused = SseReader::try_open(&relay).await;
    assert_eq!(refused.status(), 429);
    assert!(refused.headers().contains_key("retry-after"));
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["status"], 429, "{body}");
    assert!(body["message"].is_string(), "{body}");

    drop(open.pop());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    loop {
        let res = SseReader::try_open(&relay).await;
        if res.status() == 200 {
            SseReader::from_response(res).client_id().await;
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "slot not released after disconnect: {}", res.status());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn unauthenticated_streams_are_closed_at_the_deadline_and_authenticated_ones_stay() {
    let relay = Relay::start_with(&["--realtime-auth-deadline-secs", "1"]);
    let token = relay.token().await;
    let mut idle = SseReader::open(&relay).await;
    idle.client_id().await;
    let mut signed_in = SseReader::open(&relay).await;
    let client_id = signed_in.client_id().await;
    assert_eq!(subscribe(&relay, None, &client_id, &["contacts/*"]).await, 401, "a refused request does not count");
    assert_eq!(subscribe(&relay, Some(&token), &client_id, &["contacts/*"]).await, 204);

    assert!(idle.ends_within(Duration::from_secs(5)).await, "the unauthenticated stream was closed");
    // A stream opened after the signed-in one closes at its own, later deadline: once it has, the
    // signed-in stream's deadline has passed as well.
    let mut witness = SseReader::open(&relay).await;
    witness.client_id().await;
    assert!(witness.ends_within(Duration::from_secs(5)).await, "a later unauthenticated stream was closed");
    let created = relay.create(&token, "contacts", &sample("contacts")).await;
    let event = signed_in.next(Duration::from_secs(5)).await.expect("the authenticated stream still delivers");
    assert_eq!(event.data["record"]["id"], created["id"]);
}

#[tokio::test]
async fn a_full_server_makes_room_by_closing_unauthenticated_streams_never_signed_in_ones() {
    let relay = Relay::start_with(&["--realtime-max-clients", "3"]);
    let token = relay.token().await;
    let mut signed_in = SseReader::open(&relay).await;
    let client_id = signed_in.client_id().await;
    assert_eq!(subscribe(&relay, Some(&token), &client_id, &["contacts/*"]).await, 204);
    let mut oldest_idle = SseReader::open(&relay).await;
    oldest_idle.client_id().await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut idle = SseReader::open(&relay).await;
    idle.client_id().await;

    let mut newcomer = SseReader::open(&relay).await;
    let newcomer_id = newcomer.client_id().await;
    assert!(oldest_idle.ends_within(Duration::from_secs(5)).await, "the oldest unauthenticated stream made room");
    assert_eq!(subscribe(&relay, Some(&token), &newcomer_id, &["contacts/*"]).await, 204);
    let mut last = SseReader::open(&relay).await;
    let last_id = last.client_id().await;
    assert!(idle.ends_within(Duration::from_secs(5)).await);
    assert_eq!(subscribe(&relay, Some(&token), &last_id, &[]).await, 204);

    let refused = SseReader::try_open(&relay).await;
    assert_eq!(refused.status(), 503, "every stream is signed in: none is closed for a newcomer");
    let body: Value = refused.json().await.unwrap();
    assert_eq!(body["status"], 503, "{body}");
    let created = relay.create(&token, "contacts", &sample("contacts")).await;
    let event = signed_in.next(Duration::from_secs(5)).await.expect("the first signed-in stream still delivers");
    assert_eq!(event.data["record"]["id"], created["id"]);
}

/// Whether the server process `pid` holds the other end of `client`'s connection with
/// `TCP_NODELAY` set, read from the server's own socket (a copy taken with `pidfd_getfd`);
/// `None` when no socket of the server has `client` as its peer.
fn server_end_nodelay(pid: u32, client: &std::net::TcpStream) -> Option<bool> {
    use std::os::fd::FromRawFd;
    let client_addr = client.local_addr().unwrap();
    // SAFETY: pidfd_open of our own child; the result is checked.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::c_int, 0) } as libc::c_int;
    assert!(pidfd >= 0, "pidfd_open: {}", std::io::Error::last_os_error());
    let mut found = None;
    for entry in std::fs::read_dir(format!("/proc/{pid}/fd")).unwrap().flatten() {
        let is_socket = std::fs::read_link(entry.path()).is_ok_and(|t| t.to_string_lossy().starts_with("socket:"));
        let Some(fd) = entry.file_name().to_str().and_then(|n| n.parse::<libc::c_int>().ok()) else { continue };
        if !is_socket {
            continue;
        }
        // SAFETY: pidfd_getfd duplicates the server's descriptor into this process; checked.
        let copy = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd, fd, 0) } as libc::c_int;
        if copy < 0 {
            continue;
        }
        // SAFETY: `copy` is a fresh descriptor this process owns; the stream closes it.
        let socket = unsafe { std::net::TcpStream::from_raw_fd(copy) };
        if socket.peer_addr().ok() == Some(client_addr) {
            found = Some(socket.nodelay().unwrap());
            break;
        }
    }
    // SAFETY: closing the pidfd this function opened.
    unsafe { libc::close(pidfd) };
    found
}

#[test]
fn the_data_api_and_the_gateway_send_without_nagle_delay() {
    use std::io::{Read, Write};
    let relay = Relay::start_web();
    let pid = relay.pid().expect("running");
    for base in [relay.base.clone(), relay.web.clone().unwrap()] {
        let authority = base.trim_start_matches("http://").trim_end_matches('/').to_string();
        let port = authority.rsplit(':').next().unwrap();
        let mut client = std::net::TcpStream::connect(("127.0.0.1", port.parse::<u16>().unwrap())).unwrap();
        client.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        // One answered request: the server has accepted (and configured) the connection.
        write!(client, "GET /api/health HTTP/1.1\r\nHost: {authority}\r\n\r\n").unwrap();
        let mut first = [0u8; 12];
        client.read_exact(&mut first).unwrap();
        assert!(first.starts_with(b"HTTP/1.1"), "{}", String::from_utf8_lossy(&first));
        assert_eq!(server_end_nodelay(pid, &client), Some(true), "TCP_NODELAY on the server's end for {base}");
    }
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = status.lines().find_map(|l| l.strip_prefix("VmRSS:")).unwrap();
    field.split_whitespace().next().unwrap().parse().unwrap()
}

/// Issue #39.4, the review's scenario at a third of its size: 288 streams (9 sources x 32) that
/// read `PB_CONNECT`, subscribe and then never read again, and 5 alert bodies of ~700 KB. Each
/// writer used to copy every frame whole (896 streams: 69 -> 756 MB); frames now go out in
/// 16 KiB slices of the one shared copy, and a stream holding a frame it cannot write counts it
/// against its byte bound. The server's resident memory may grow by at most 64 MiB, and a
/// subscriber that reads still gets every event.
#[tokio::test]
async fn stalled_streams_cannot_grow_memory_with_large_records() {
    let relay = Relay::start();
    let token = relay.token().await;
    let pid = relay.pid().unwrap();
    let server: std::net::SocketAddr = relay.url("").trim_start_matches("http://").parse().unwrap();
    let mut stalled = Vec::new();
    for host in 2..11u8 {
        for _ in 0..MAX_PER_SOURCE {
            let (stream, id) = stalled_stream(server, host).await;
            assert_eq!(subscribe(&relay, Some(&token), &id, &["alert_history/*"]).await, 204);
            stalled.push(stream);
        }
    }
    let mut reader = SseReader::open(&relay).await;
    let reader_id = reader.client_id().await;
    assert_eq!(subscribe(&relay, Some(&token), &reader_id, &["alert_history/*"]).await, 204);
    let before = rss_kib(pid);
    for n in 0..5 {
        let record = large_alert(&format!("Large {n}"), 690_000);
        let res = client()
            .post(relay.url("/api/collections/alert_history/records"))
            .header("Authorization", &token)
            .json(&record)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let event = reader.next(Duration::from_secs(20)).await.expect("the reading subscriber gets the event");
        assert_eq!(event.data["record"]["subject"], format!("Large {n}"));
    }
    // Every write and delivery above has been answered; the writers have done what they can.
    let after = rss_kib(pid);
    let grown_mib = after.saturating_sub(before) / 1024;
    assert!(grown_mib <= 64, "resident memory grew by {grown_mib} MiB ({before} -> {after} KiB)");
    drop(stalled);
}
