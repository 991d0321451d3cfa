//! A scripted loopback HTTP/1.1 server for tests of Relay's outbound HTTP: the updater's GitHub
//! release JSON, Dynatrace, status feeds (RSS/Atom/JSON) and Radar. It owns byte-level control
//! of each response (so it can lie about `Content-Length`, stall after the headers, stream a body
//! far larger than memory or chain redirects) and it records every request it received and what
//! it actually managed to write back. It refuses to be anything but a test tool: it binds only
//! `127.0.0.1:0`, serves one request per connection (`Connection: close`), bounds connections,
//! request sizes, read time and stalls, and shuts down when dropped.
//!
//! ```
//! use fake_upstream::{FakeUpstream, Reply};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let fake = FakeUpstream::start().await;
//! fake.route("GET", "/repos/o/r/releases/latest", Reply::json(r#"{"tag_name":"v1.2.3"}"#))
//!     .route("GET", "/old", Reply::redirect(302, "/repos/o/r/releases/latest"))
//!     .route("GET", "/huge", Reply::status(200).repeated_body(b'x', 1 << 30).without_length());
//! let url = fake.url("/old?page=1"); // http://127.0.0.1:<port>/old?page=1
//! // … point the client under test at `url` …
//! # let _ = url;
//! assert!(fake.requests().is_empty());
//! # }
//! ```
//!
//! Unrouted requests get `404` with an empty body. [`FakeUpstream::served`] tells whether each
//! script was written completely, which is how a test proves a client hung up early.

mod conn;
mod reply;

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

pub use reply::{Body, Length, Reply};

/// Bounds that keep a misbehaving test from running away.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once; further ones are closed at once.
    pub max_connections: usize,
    /// Connections accepted over the server's life; further ones are closed at once.
    pub max_total_connections: usize,
    /// Largest request (head and body) read; larger ones get `431`.
    pub max_request_bytes: usize,
    /// Time allowed to receive one whole request.
    pub read_deadline: Duration,
    /// Longest a [`Reply::stall_after_headers`] script waits for the client to hang up.
    pub max_stall: Duration,
}

impl Default for Limits {
    /// 32 at once, 1024 in all, 64 KiB requests, 5 s to send one, stalls of at most 30 s.
    fn default() -> Self {
        Limits {
            max_connections: 32,
            max_total_connections: 1024,
            max_request_bytes: 64 * 1024,
            read_deadline: Duration::from_secs(5),
            max_stall: Duration::from_secs(30),
        }
    }
}

/// A request as the server received it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    pub method: String,
    /// Path and query, as sent (`/a/b?x=1`).
    pub target: String,
    /// Header names lowercased, values trimmed, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl RecordedRequest {
    /// The path without the query.
    pub fn path(&self) -> &str {
        self.target.split('?').next().unwrap_or_default()
    }

    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }

    /// The first value of a header (name compared case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// What the server wrote back for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Served {
    pub method: String,
    pub path: String,
    pub status: u16,
    /// Body payload bytes written (chunk framing not counted).
    pub body_bytes_sent: u64,
    /// False when the client hung up (or the script stalled) before the whole reply was written.
    pub completed: bool,
}

struct Route {
    queued: VecDeque<Reply>,
    last: Reply,
}

pub(crate) struct Shared {
    limits: Limits,
    routes: Mutex<HashMap<(String, String), Route>>,
    requests: Mutex<Vec<RecordedRequest>>,
    served: Mutex<Vec<Served>>,
    accepted: AtomicUsize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Shared {
    pub(crate) fn record(&self, request: RecordedRequest) {
        lock(&self.requests).push(request);
    }

    pub(crate) fn served(&self, served: Served) {
        lock(&self.served).push(served);
    }

    pub(crate) fn next_reply(&self, method: &str, path: &str) -> Reply {
        let mut routes = lock(&self.routes);
        match routes.get_mut(&(method.to_ascii_uppercase(), path.to_string())) {
            Some(route) => route.queued.pop_front().unwrap_or_else(|| route.last.clone()),
            None => Reply::status(404),
        }
    }
}

/// The running server. Dropping it stops accepting and ends every open connection.
pub struct FakeUpstream {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: CancellationToken,
}

impl FakeUpstream {
    /// Starts a server with the default [`Limits`] on `127.0.0.1:0`. Must be called inside a
    /// Tokio runtime; panics if the loopback port cannot be bound.
    pub async fn start() -> FakeUpstream {
        FakeUpstream::start_with(Limits::default()).await
    }

    /// Starts a server with these limits.
    pub async fn start_with(limits: Limits) -> FakeUpstream {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("fake upstream: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("fake upstream: local address");
        let shared = Arc::new(Shared {
            limits,
            routes: Mutex::new(HashMap::new()),
            requests: Mutex::new(Vec::new()),
            served: Mutex::new(Vec::new()),
            accepted: AtomicUsize::new(0),
        });
        let shutdown = CancellationToken::new();
        tokio::spawn(accept_loop(listener, shared.clone(), shutdown.clone()));
        FakeUpstream { addr, shared, shutdown }
    }

    /// Answers every `method path` request (query ignored) with `reply`.
    pub fn route(&self, method: &str, path: &str, reply: Reply) -> &FakeUpstream {
        self.route_sequence(method, path, vec![reply])
    }

    /// Answers successive `method path` requests with `replies` in order, repeating the last one.
    /// An empty list removes the route.
    pub fn route_sequence(&self, method: &str, path: &str, replies: Vec<Reply>) -> &FakeUpstream {
        let key = (method.to_ascii_uppercase(), path.to_string());
        let mut queued: VecDeque<Reply> = replies.into();
        let mut routes = lock(&self.shared.routes);
        match queued.pop_back() {
            Some(last) => routes.insert(key, Route { queued, last }),
            None => routes.remove(&key),
        };
        self
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:<port>`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL followed by `path_and_query` (which should start with `/`).
    pub fn url(&self, path_and_query: &str) -> String {
        format!("{}{path_and_query}", self.base_url())
    }

    /// Every request received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.requests).clone()
    }

    /// What was written for each request whose reply has ended, in completion order.
    pub fn served(&self) -> Vec<Served> {
        lock(&self.shared.served).clone()
    }

    /// Connections accepted so far (including ones refused by the limits).
    pub fn connections(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// Waits until at least `count` replies have ended and returns them. Panics after 5 s, so
    /// a test waiting for a reply that never ends fails instead of hanging.
    pub async fn wait_for_served(&self, count: usize) -> Vec<Served> {
        let waited = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                let served = self.served();
                if served.len() >= count {
                    return served;
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        })
        .await;
        waited.unwrap_or_else(|_| panic!("fake upstream: fewer than {count} replies ended within 5 s"))
    }
}

impl Drop for FakeUpstream {
    fn drop(&mut self) {
        self.shutdown.cancel();
    }
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>, shutdown: CancellationToken) {
    let permits = Arc::new(Semaphore::new(shared.limits.max_connections));
    loop {
        let accepted = tokio::select! {
            _ = shutdown.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, _)) = accepted else {
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let n = shared.accepted.fetch_add(1, Ordering::SeqCst) + 1;
        if n > shared.limits.max_total_connections {
            continue;
        }
        let Ok(permit) = permits.clone().try_acquire_owned() else {
            continue;
        };
        let (shared, shutdown) = (shared.clone(), shutdown.clone());
        tokio::spawn(async move {
            let _permit = permit;
            tokio::select! {
                _ = shutdown.cancelled() => {}
                _ = conn::serve(stream, shared) => {}
            }
        });
    }
}

#[cfg(test)]
mod tests;
