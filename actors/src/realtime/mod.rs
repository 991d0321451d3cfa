//! Realtime fan-out in PocketBase's SSE protocol. A connecting client gets a random client id
//! and a bounded frame queue; its first frame is `PB_CONNECT`. Authenticated clients set their
//! topics (`contacts/*`, `contacts/<id>`, optionally with `?options=...`); record events are
//! delivered as `{action, record}` frames named after the matching subscription, after the
//! collection's read rule is applied to each event ([`visible_event`]).
//!
//! What it refuses ([`RealtimeLimits`]): more streams than the global cap (when full, the oldest
//! stream that never authenticated is evicted; authenticated streams are never evicted to make
//! room), more streams from one source address than the per-source cap (429), and streams that
//! have not set subscriptions with a valid token within the deadline (closed by [`Sweep`], on
//! the injected clock). Each event's data is rendered once and shared by every subscriber; only
//! the short `id:`/`event:` head is per client. Delivery never waits: a subscriber whose queue
//! would exceed its frame or byte bound is dropped, so a slow reader cannot block writers or
//! grow memory. Closed streams are forgotten at the next sweep (about a second) or sooner.

mod queue;
mod topics;

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc::{self, error::TrySendError};

use domain::record::{Action, RecordError};

use crate::kit::{Subsystem, SubsystemCtx};
pub use queue::FrameReceiver;
use queue::PendingBytes;
pub use topics::{parse_subscriptions, ParsedSubscriptions, Subscription, MAX_SUBSCRIPTIONS};

pub const NAME: &str = "realtime";
/// Keep-alive comment interval; a write is also how a vanished peer is noticed.
const PING_INTERVAL: Duration = Duration::from_secs(15);
/// Floor for `RealtimeLimits::sweep_interval`, so a zero in a configuration cannot spin.
const MIN_SWEEP_INTERVAL: Duration = Duration::from_millis(50);

/// Realtime connection and buffer limits. `Default` gives the documented production values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RealtimeLimits {
    /// Most simultaneous streams (default 2,048, the legacy `MAX_CLIENTS`).
    pub max_clients: usize,
    /// Most simultaneous streams from one source address, the TCP peer (default 32).
    pub max_per_source: usize,
    /// How long a stream may stay without an authenticated `POST /api/realtime` before it is
    /// closed (default 10 s; the SDK subscribes right after `PB_CONNECT`).
    pub auth_deadline_ms: i64,
    /// Frames queued per subscriber before it counts as slow and is dropped (default 256).
    pub buffer_frames: usize,
    /// Bytes queued per subscriber before it counts as slow and is dropped (default 4 MiB:
    /// room for a maximal 512 KiB record on several subscriptions). Counted per frame as written
    /// to the wire, although the data part is shared between subscribers, and including the
    /// frame its writer holds until the writer asks for the next ([`queue`]).
    pub buffer_bytes: usize,
    /// How often closed streams are forgotten and the deadline is checked (default 1 s).
    pub sweep_interval: Duration,
}

impl Default for RealtimeLimits {
    fn default() -> Self {
        RealtimeLimits {
            max_clients: 2048,
            max_per_source: 32,
            auth_deadline_ms: 10_000,
            buffer_frames: 256,
            buffer_bytes: 4 * 1024 * 1024,
            sweep_interval: Duration::from_secs(1),
        }
    }
}

/// One SSE frame: a per-client head (`id:`/`event:` lines and `data:`) and a body shared by
/// every subscriber of the same event (the JSON and the blank line).
#[derive(Debug, Clone)]
pub struct Frame {
    pub head: Bytes,
    pub body: Bytes,
}

impl Frame {
    pub(crate) fn len(&self) -> usize {
        self.head.len() + self.body.len()
    }

    /// The frame as one contiguous buffer (tests and small frames).
    pub fn to_vec(&self) -> Vec<u8> {
        [&self.head[..], &self.body[..]].concat()
    }
}

/// `GET /api/realtime`: registers a new SSE stream from `source` (the TCP peer).
#[derive(Message)]
#[rtype(result = "Result<Connected, RecordError>")]
pub struct Connect {
    pub source: IpAddr,
}

/// A registered stream: its client id and its frame queue (the first frame is `PB_CONNECT`).
pub struct Connected {
    pub client_id: String,
    pub frames: FrameReceiver,
}

/// `POST /api/realtime`: replaces a client's subscriptions. The caller has already
/// authenticated the request, so the stream counts as authenticated from now on.
#[derive(Message)]
#[rtype(result = "Result<(), RecordError>")]
pub struct SetSubscriptions {
    pub client_id: String,
    pub subscriptions: Vec<String>,
}

/// The web layer: the SSE response stream was dropped (the peer went away).
#[derive(Message)]
#[rtype(result = "()")]
pub struct Disconnect {
    pub client_id: String,
}

/// The store writer: a committed record change.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct Publish {
    pub collection: &'static str,
    pub action: Action,
    pub record: Arc<Value>,
}

/// `GET /api/relay/health` and the metrics actor: connection counts.
#[derive(Message)]
#[rtype(result = "RealtimeStats")]
pub struct GetStats;

/// The actor's own timer (every `sweep_interval`) and tests: forgets closed streams and closes
/// streams past the authentication deadline on the injected clock.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Sweep;

/// Server shutdown: ends every stream, so open SSE connections do not hold up a graceful stop.
#[derive(Message)]
#[rtype(result = "()")]
pub struct CloseAll;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RealtimeStats {
    pub clients: usize,
    pub dropped_slow: u64,
}

struct Client {
    frames: mpsc::Sender<Frame>,
    pending: PendingBytes,
    source: IpAddr,
    connected_at_ms: i64,
    authenticated: bool,
    subscriptions: Vec<Subscription>,
}

pub struct RealtimeActor {
    subsystem: SubsystemCtx,
    limits: RealtimeLimits,
    clients: HashMap<String, Client>,
    dropped_slow: u64,
}

/// Formats one SSE frame whose data is `data` (for frames sent to one client only).
pub fn frame(client_id: &str, event: &str, data: &str) -> Frame {
    Frame { head: frame_head(client_id, event), body: frame_body(data) }
}

/// The per-client part of a frame.
fn frame_head(client_id: &str, event: &str) -> Bytes {
    Bytes::from(format!("id:{client_id}\nevent:{event}\ndata:"))
}

/// The shareable part of a frame.
fn frame_body(data: &str) -> Bytes {
    let mut body = String::with_capacity(data.len() + 2);
    body.push_str(data);
    body.push_str("\n\n");
    Bytes::from(body)
}

/// Clients that never authenticated and connected at or before `now_ms - deadline_ms`.
fn past_deadline<'a>(
    clients: impl Iterator<Item = (&'a String, &'a Client)>,
    now_ms: i64,
    deadline_ms: i64,
) -> Vec<String> {
    clients
        .filter(|(_, c)| !c.authenticated && now_ms - c.connected_at_ms >= deadline_ms)
        .map(|(id, _)| id.clone())
        .collect()
}

fn short(client_id: &str) -> &str {
    &client_id[..8.min(client_id.len())]
}

impl RealtimeActor {
    pub fn new(subsystem: SubsystemCtx, limits: RealtimeLimits) -> RealtimeActor {
        RealtimeActor { subsystem, limits, clients: HashMap::new(), dropped_slow: 0 }
    }

    fn queued_frames(&self) -> usize {
        self.clients.values().map(|c| c.frames.max_capacity() - c.frames.capacity()).sum()
    }

    fn forget_closed(&mut self) {
        self.clients.retain(|_, c| !c.frames.is_closed());
    }

    /// Makes room for one more stream: refuses a source at its cap, and when the global cap is
    /// reached evicts the oldest unauthenticated stream (never an authenticated one).
    fn admit(&mut self, source: IpAddr) -> Result<(), RecordError> {
        self.forget_closed();
        if self.clients.values().filter(|c| c.source == source).count() >= self.limits.max_per_source {
            let retry_after_secs = (self.limits.auth_deadline_ms / 1000).max(1) as u64;
            return Err(RecordError::RateLimited { retry_after_secs });
        }
        if self.clients.len() < self.limits.max_clients {
            return Ok(());
        }
        let oldest = self
            .clients
            .iter()
            .filter(|(_, c)| !c.authenticated)
            .min_by_key(|(_, c)| c.connected_at_ms)
            .map(|(id, _)| id.clone());
        match oldest {
            Some(id) => {
                tracing::info!(client = %short(&id), "realtime full; closing the oldest unauthenticated stream");
                self.clients.remove(&id);
                Ok(())
            }
            None => Err(RecordError::Unavailable),
        }
    }

    /// Queues without waiting; drops the client when its frame or byte bound (queued plus the
    /// frame its writer holds, [`queue`]) would be exceeded, or when it went away.
    fn deliver(&mut self, client_id: &str, frame: Frame) {
        let Some(client) = self.clients.get(client_id) else {
            return;
        };
        let len = frame.len();
        let pending = client.pending.clone();
        let queued = pending.add(len);
        let result = if queued + len > self.limits.buffer_bytes {
            Err(TrySendError::Full(frame))
        } else {
            client.frames.try_send(frame)
        };
        match result {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                pending.release(len);
                self.dropped_slow += 1;
                tracing::warn!(client = %short(client_id), "dropping slow realtime subscriber");
                self.clients.remove(client_id);
            }
            Err(TrySendError::Closed(_)) => {
                pending.release(len);
                self.clients.remove(client_id);
            }
        }
    }
}

impl Subsystem for RealtimeActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.queued_frames()
    }
    fn reset(&mut self) {
        self.clients.clear();
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.run_interval(PING_INTERVAL, |act, _| {
            let ids: Vec<String> = act.clients.keys().cloned().collect();
            for id in ids {
                act.deliver(&id, Frame { head: Bytes::from_static(b":ping\n\n"), body: Bytes::new() });
            }
        });
        ctx.run_interval(self.limits.sweep_interval.max(MIN_SWEEP_INTERVAL), |act, ctx| {
            <Self as Handler<Sweep>>::handle(act, Sweep, ctx);
        });
    }
}

crate::subsystem_actor!(RealtimeActor);

impl Handler<Connect> for RealtimeActor {
    type Result = Result<Connected, RecordError>;
    fn handle(&mut self, msg: Connect, _: &mut Context<Self>) -> Self::Result {
        self.admit(msg.source)?;
        let (tx, rx) = mpsc::channel(self.limits.buffer_frames.max(1));
        let pending = PendingBytes::default();
        let client_id = infra::ids::client_id();
        let client = Client {
            frames: tx,
            pending: pending.clone(),
            source: msg.source,
            connected_at_ms: self.subsystem.now_ms(),
            authenticated: false,
            subscriptions: Vec::new(),
        };
        self.clients.insert(client_id.clone(), client);
        let hello = frame(&client_id, "PB_CONNECT", &serde_json::json!({ "clientId": client_id }).to_string());
        self.deliver(&client_id, hello);
        Ok(Connected { client_id, frames: FrameReceiver::new(rx, pending) })
    }
}

impl Handler<SetSubscriptions> for RealtimeActor {
    type Result = Result<(), RecordError>;
    fn handle(&mut self, msg: SetSubscriptions, _: &mut Context<Self>) -> Self::Result {
        let parsed = parse_subscriptions(&msg.subscriptions)?;
        let client = self.clients.get_mut(&msg.client_id).ok_or(RecordError::NotFound)?;
        if parsed.ignored_unknown > 0 {
            tracing::info!(
                client = %short(&msg.client_id),
                ignored = parsed.ignored_unknown,
                kept = parsed.subscriptions.len(),
                "ignoring realtime topics of unknown collections"
            );
        }
        client.subscriptions = parsed.subscriptions;
        client.authenticated = true;
        Ok(())
    }
}

impl Handler<Disconnect> for RealtimeActor {
    type Result = ();
    fn handle(&mut self, msg: Disconnect, _: &mut Context<Self>) {
        self.clients.remove(&msg.client_id);
    }
}

impl Handler<Sweep> for RealtimeActor {
    type Result = ();
    fn handle(&mut self, _: Sweep, _: &mut Context<Self>) {
        self.forget_closed();
        let expired = past_deadline(self.clients.iter(), self.subsystem.now_ms(), self.limits.auth_deadline_ms);
        if !expired.is_empty() {
            tracing::info!(count = expired.len(), "closing realtime streams that did not authenticate in time");
        }
        for id in expired {
            self.clients.remove(&id);
        }
    }
}

/// The event subscribers may see of a change (the collection's read rule applied per event, not
/// only at subscribe time): a record clients may not read (a trashed Wiki document) is
/// delivered as a deletion carrying only its id and collection, so it leaves every open list and
/// none of its fields leak.
pub fn visible_event(collection: &str, action: Action, record: &Arc<Value>) -> (Action, Arc<Value>) {
    let reads = domain::collections::collection(collection).map(|spec| spec.reads);
    if reads.is_none_or(|reads| reads.admits(record) || action == Action::Reload) {
        return (action, Arc::clone(record));
    }
    let mut hidden = serde_json::Map::new();
    for key in ["id", "collectionId", "collectionName"] {
        if let Some(value) = record.get(key) {
            hidden.insert(key.to_string(), value.clone());
        }
    }
    (Action::Delete, Arc::new(Value::Object(hidden)))
}

impl Handler<Publish> for RealtimeActor {
    type Result = ();
    fn handle(&mut self, msg: Publish, _: &mut Context<Self>) {
        let id = msg.record.get("id").and_then(Value::as_str).unwrap_or_default();
        let (action, record) = visible_event(msg.collection, msg.action, &msg.record);
        let mut body: Option<Bytes> = None;
        let mut deliveries = Vec::new();
        for (client_id, client) in &self.clients {
            for sub in client.subscriptions.iter().filter(|s| s.matches(msg.collection, id)) {
                let body = body
                    .get_or_insert_with(|| {
                        let data = serde_json::json!({ "action": action, "record": &*record });
                        frame_body(&data.to_string())
                    })
                    .clone();
                deliveries.push((client_id.clone(), Frame { head: frame_head(client_id, &sub.raw), body }));
            }
        }
        for (client_id, frame) in deliveries {
            self.deliver(&client_id, frame);
        }
    }
}

impl Handler<CloseAll> for RealtimeActor {
    type Result = ();
    fn handle(&mut self, _: CloseAll, _: &mut Context<Self>) {
        self.clients.clear();
    }
}

impl Handler<GetStats> for RealtimeActor {
    type Result = MessageResult<GetStats>;
    fn handle(&mut self, _: GetStats, _: &mut Context<Self>) -> Self::Result {
        MessageResult(RealtimeStats { clients: self.clients.len(), dropped_slow: self.dropped_slow })
    }
}

#[cfg(test)]
mod tests;
