//! Realtime fan-out in PocketBase's SSE protocol. A connecting client gets a random client id
//! and a bounded channel; its first frame is `PB_CONNECT`. Authenticated clients set their
//! topics (`contacts/*`, `contacts/<id>`, optionally with `?options=...`); record events are
//! delivered as `{action, record}` frames named after the matching subscription. Delivery never
//! waits: a subscriber whose buffer is full is dropped, so a slow reader cannot block writers.

mod topics;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use actix::prelude::*;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::mpsc::{self, error::TrySendError};

use domain::record::{Action, RecordError};

use crate::kit::{Subsystem, SubsystemCtx};
pub use topics::{parse_subscriptions, Subscription, MAX_SUBSCRIPTIONS};

pub const NAME: &str = "realtime";
/// Frames buffered per subscriber before it is considered too slow and dropped.
pub const SUBSCRIBER_BUFFER: usize = 256;
/// Most simultaneous realtime connections.
pub const MAX_CLIENTS: usize = 2048;
/// Keep-alive comment interval; a write is also how a vanished peer is noticed.
const PING_INTERVAL: Duration = Duration::from_secs(15);

/// Registers a new SSE connection; returns its client id.
#[derive(Message)]
#[rtype(result = "Result<String, RecordError>")]
pub struct Connect {
    pub frames: mpsc::Sender<Bytes>,
}

/// Replaces a client's subscriptions. The caller has already authenticated the request.
#[derive(Message)]
#[rtype(result = "Result<(), RecordError>")]
pub struct SetSubscriptions {
    pub client_id: String,
    pub subscriptions: Vec<String>,
}

#[derive(Message)]
#[rtype(result = "()")]
pub struct Disconnect {
    pub client_id: String,
}

/// A committed record change.
#[derive(Message, Clone)]
#[rtype(result = "()")]
pub struct Publish {
    pub collection: &'static str,
    pub action: Action,
    pub record: Arc<Value>,
}

#[derive(Message)]
#[rtype(result = "RealtimeStats")]
pub struct GetStats;

/// Ends every stream (server shutdown), so open SSE connections do not hold up a graceful stop.
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
    frames: mpsc::Sender<Bytes>,
    subscriptions: Vec<Subscription>,
}

pub struct RealtimeActor {
    subsystem: SubsystemCtx,
    clients: HashMap<String, Client>,
    dropped_slow: u64,
    buffer_capacity: usize,
}

/// Formats one SSE frame.
pub fn frame(client_id: &str, event: &str, data: &str) -> Bytes {
    Bytes::from(format!("id:{client_id}\nevent:{event}\ndata:{data}\n\n"))
}

impl RealtimeActor {
    pub fn new(subsystem: SubsystemCtx) -> RealtimeActor {
        RealtimeActor { subsystem, clients: HashMap::new(), dropped_slow: 0, buffer_capacity: SUBSCRIBER_BUFFER }
    }

    /// Channel capacity the web layer should use for new connections.
    pub fn buffer_capacity(&self) -> usize {
        self.buffer_capacity
    }

    fn queued_frames(&self) -> usize {
        self.clients.values().map(|c| c.frames.max_capacity() - c.frames.capacity()).sum()
    }

    /// Sends without waiting; drops the client when its buffer is full or it went away.
    fn deliver(&mut self, client_id: &str, bytes: Bytes) {
        let Some(client) = self.clients.get(client_id) else {
            return;
        };
        match client.frames.try_send(bytes) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped_slow += 1;
                tracing::warn!(client = %&client_id[..8.min(client_id.len())], "dropping slow realtime subscriber");
                self.clients.remove(client_id);
            }
            Err(TrySendError::Closed(_)) => {
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
                act.deliver(&id, Bytes::from_static(b":ping\n\n"));
            }
        });
    }
}

crate::subsystem_actor!(RealtimeActor);

impl Handler<Connect> for RealtimeActor {
    type Result = Result<String, RecordError>;
    fn handle(&mut self, msg: Connect, _: &mut Context<Self>) -> Self::Result {
        self.clients.retain(|_, c| !c.frames.is_closed());
        if self.clients.len() >= MAX_CLIENTS {
            return Err(RecordError::Unavailable);
        }
        let client_id = infra::ids::client_id();
        let hello = frame(&client_id, "PB_CONNECT", &serde_json::json!({ "clientId": client_id }).to_string());
        msg.frames.try_send(hello).map_err(|_| RecordError::Unavailable)?;
        self.clients.insert(client_id.clone(), Client { frames: msg.frames, subscriptions: Vec::new() });
        Ok(client_id)
    }
}

impl Handler<SetSubscriptions> for RealtimeActor {
    type Result = Result<(), RecordError>;
    fn handle(&mut self, msg: SetSubscriptions, _: &mut Context<Self>) -> Self::Result {
        let subscriptions = parse_subscriptions(&msg.subscriptions)?;
        let client = self.clients.get_mut(&msg.client_id).ok_or(RecordError::NotFound)?;
        client.subscriptions = subscriptions;
        Ok(())
    }
}

impl Handler<Disconnect> for RealtimeActor {
    type Result = ();
    fn handle(&mut self, msg: Disconnect, _: &mut Context<Self>) {
        self.clients.remove(&msg.client_id);
    }
}

impl Handler<Publish> for RealtimeActor {
    type Result = ();
    fn handle(&mut self, msg: Publish, _: &mut Context<Self>) {
        let id = msg.record.get("id").and_then(Value::as_str).unwrap_or_default();
        let data = serde_json::json!({ "action": msg.action, "record": &*msg.record }).to_string();
        let mut deliveries = Vec::new();
        for (client_id, client) in &self.clients {
            for sub in client.subscriptions.iter().filter(|s| s.matches(msg.collection, id)) {
                deliveries.push((client_id.clone(), frame(client_id, &sub.raw, &data)));
            }
        }
        for (client_id, bytes) in deliveries {
            self.deliver(&client_id, bytes);
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
