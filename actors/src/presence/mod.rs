//! Client presence. Clients heartbeat every 15 s (`POST /api/relay/presence/heartbeat`); the
//! actor upserts their `client_presence` row with the server's clock (so client clock skew
//! cannot fake activity), recomputes who is active (seen within 45 s) every 5 s, and prunes
//! rows not seen for 10 minutes, publishing each removal as a realtime delete. The name shown
//! for a client is built here from what it reports and the address the server sees it from
//! (`client_hostname`): browsers report the placeholder "browser" and are shown as
//! `Web · Browser · <address>`, desktop windows as `Desktop · <address>`.

use std::net::IpAddr;
use std::time::Duration;

use actix::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};

use domain::filter::{CmpOp, Expr, Literal};
use domain::record::{RawListParams, RecordError};
use domain::time::{format_ms, parse_datetime};

use crate::kit::{Subsystem, SubsystemCtx};
use crate::store::{DeleteWhere, ListRecords, StoreActor, UpsertByKey};

pub const NAME: &str = "presence";
pub const MAX_SESSION_ID_LEN: usize = 200;
pub const MAX_HOSTNAME_LEN: usize = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresenceConfig {
    pub heartbeat_ms: i64,
    pub active_window_ms: i64,
    pub prune_after_ms: i64,
    pub tick: Duration,
}

impl Default for PresenceConfig {
    fn default() -> Self {
        PresenceConfig {
            heartbeat_ms: 15_000,
            active_window_ms: 45_000,
            prune_after_ms: 600_000,
            tick: Duration::from_secs(5),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveClient {
    pub session_id: String,
    pub hostname: String,
    pub last_seen: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PresenceSnapshot {
    pub active_count: usize,
    pub active: Vec<ActiveClient>,
    pub heartbeat_interval_ms: i64,
    pub computed_at: String,
}

#[derive(Message)]
#[rtype(result = "Result<Value, RecordError>")]
pub struct Heartbeat {
    pub session_id: String,
    /// What the client reports: a host name, or "browser" / "desktop" for renderers that cannot
    /// know one.
    pub hostname: String,
    /// The TCP peer address the server saw the heartbeat from (never a forwarded header).
    pub peer: Option<IpAddr>,
}

#[derive(Message)]
#[rtype(result = "PresenceSnapshot")]
pub struct GetPresence;

/// Runs one recompute-and-prune cycle now (the timer does this every tick).
#[derive(Message)]
#[rtype(result = "Result<usize, RecordError>")]
pub struct Sweep;

/// The name the presence list shows for a client that reported `reported` from `peer`. Every
/// browser reports "browser" (a web page cannot learn its host name), so the address tells them
/// apart: `Web · Browser · 10.0.0.7`. An empty report stays "unknown-client"; a real host name
/// is kept as reported.
pub fn client_hostname(reported: &str, peer: Option<IpAddr>) -> String {
    let address = peer.map(|ip| ip.to_canonical().to_string()).unwrap_or_else(|| "unknown address".into());
    match reported.trim() {
        "" => "unknown-client".into(),
        r if r.eq_ignore_ascii_case("browser") => format!("Web · Browser · {address}"),
        r if r.eq_ignore_ascii_case("desktop") => format!("Desktop · {address}"),
        r => r.to_string(),
    }
}

/// Which rows are active at `now_ms`, most recent first per hostname order.
pub fn active_clients(rows: &[Value], now_ms: i64, window_ms: i64) -> Vec<ActiveClient> {
    let mut out: Vec<ActiveClient> = rows
        .iter()
        .filter(|r| r["mode"] == "client")
        .filter_map(|r| {
            let seen = parse_datetime(r["lastSeen"].as_str()?).ok()?;
            (now_ms - seen <= window_ms && seen <= now_ms + window_ms).then(|| ActiveClient {
                session_id: r["sessionId"].as_str().unwrap_or_default().to_string(),
                hostname: r["hostname"].as_str().unwrap_or_default().to_string(),
                last_seen: r["lastSeen"].as_str().unwrap_or_default().to_string(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.hostname.cmp(&b.hostname).then(b.last_seen.cmp(&a.last_seen)));
    out
}

pub struct PresenceActor {
    config: PresenceConfig,
    store: Addr<StoreActor>,
    subsystem: SubsystemCtx,
    snapshot: PresenceSnapshot,
}

impl PresenceActor {
    pub fn new(subsystem: SubsystemCtx, config: PresenceConfig, store: Addr<StoreActor>) -> Self {
        let snapshot = Self::empty_snapshot(&config);
        PresenceActor { config, store, subsystem, snapshot }
    }

    fn empty_snapshot(config: &PresenceConfig) -> PresenceSnapshot {
        PresenceSnapshot { heartbeat_interval_ms: config.heartbeat_ms, ..Default::default() }
    }

    fn sweep(&mut self) -> ResponseActFuture<Self, Result<usize, RecordError>> {
        let now = self.subsystem.now_ms();
        let cutoff = Expr::Cmp {
            field: "lastSeen".into(),
            op: CmpOp::Lt,
            value: Literal::Str(format_ms(now - self.config.prune_after_ms)),
        };
        let store = self.store.clone();
        let work = async move {
            let pruned = store.send(DeleteWhere { collection: "client_presence", filter: cutoff, limit: 1000 }).await;
            let pruned = pruned.map_err(|_| RecordError::Unavailable)??;
            let params = RawListParams {
                per_page: Some("1000".into()),
                sort: Some("hostname,-lastSeen".into()),
                skip_total: Some("1".into()),
                ..Default::default()
            };
            let page = store.send(ListRecords { collection: "client_presence".into(), params }).await;
            Ok::<_, RecordError>((pruned, page.map_err(|_| RecordError::Unavailable)??.items))
        };
        Box::pin(work.into_actor(self).map(move |result, act, _| match result {
            Ok((pruned, rows)) => {
                let active = active_clients(&rows, now, act.config.active_window_ms);
                act.snapshot = PresenceSnapshot {
                    active_count: active.len(),
                    active,
                    heartbeat_interval_ms: act.config.heartbeat_ms,
                    computed_at: format_ms(now),
                };
                if pruned > 0 {
                    tracing::info!(pruned, "pruned stale presence rows");
                }
                Ok(pruned)
            }
            Err(e) => {
                act.subsystem.report_failure(NAME, format!("presence sweep failed: {e}"));
                Err(e)
            }
        }))
    }
}

impl Subsystem for PresenceActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn reset(&mut self) {
        self.snapshot = Self::empty_snapshot(&self.config);
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        ctx.spawn(self.sweep().map(|_, _, _| ()));
        ctx.run_interval(self.config.tick, |act, ctx| {
            ctx.spawn(act.sweep().map(|_, _, _| ()));
        });
    }
}

crate::subsystem_actor!(PresenceActor);

impl Handler<Heartbeat> for PresenceActor {
    type Result = ResponseFuture<Result<Value, RecordError>>;
    fn handle(&mut self, msg: Heartbeat, _: &mut Context<Self>) -> Self::Result {
        let store = self.store.clone();
        let now = format_ms(self.subsystem.now_ms());
        Box::pin(async move {
            let session = msg.session_id.trim().to_string();
            let hostname = client_hostname(&msg.hostname, msg.peer);
            if session.is_empty() || session.len() > MAX_SESSION_ID_LEN || session.chars().any(char::is_control) {
                return Err(RecordError::field("sessionId", "validation_invalid_value", "Invalid session id."));
            }
            let body = json!({ "sessionId": session, "hostname": hostname, "mode": "client", "lastSeen": now });
            let upsert =
                UpsertByKey { collection: "client_presence", key_field: "sessionId", key_value: session, body };
            store.send(upsert).await.map_err(|_| RecordError::Unavailable)?
        })
    }
}

impl Handler<GetPresence> for PresenceActor {
    type Result = MessageResult<GetPresence>;
    fn handle(&mut self, _: GetPresence, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.snapshot.clone())
    }
}

impl Handler<Sweep> for PresenceActor {
    type Result = ResponseActFuture<Self, Result<usize, RecordError>>;
    fn handle(&mut self, _: Sweep, _: &mut Context<Self>) -> Self::Result {
        self.sweep()
    }
}

#[cfg(test)]
mod tests;
