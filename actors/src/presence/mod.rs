//! Client presence. Clients heartbeat every 15 s (`POST /api/relay/presence/heartbeat`) with
//! their own tab id; the actor keys their `client_presence` row by the presence id, a digest of
//! the caller's logical session and that tab id (`domain::presence`), so a caller can only
//! ever touch rows of its own session, and what others read (`sessionId` in the presence list
//! and the collection) is that digest, never a tab id. It admits new rows within the registry's
//! bounds (8 per logical session, 32 per source address, 1,000 in all; an idle row gives its
//! place, deleted here), writes them with the server's clock (so client clock skew cannot fake
//! activity), recomputes who is active (seen within 45 s) every 5 s, and prunes rows not seen
//! for 10 minutes, publishing each removal as a realtime delete. The registry lives as long as
//! the process (a restart of the actor keeps it); rows from before a process restart are not
//! counted and are pruned by age. The name shown for a client is built here from what it
//! reports and the address the server sees it from (`client_hostname`): browsers report the
//! placeholder "browser" and are shown as `Web · Browser · <address>`, desktop windows as
//! `Desktop · <address>`.

use std::net::IpAddr;
use std::time::Duration;

use actix::prelude::*;
use serde::Serialize;
use serde_json::{json, Value};

use domain::filter::{CmpOp, Expr, Literal};
use domain::presence::{checked_tab_id, presence_id, PresenceLimit, PresenceLimits, PresenceRegistry};
use domain::problem::HttpProblem;
use domain::record::{RawListParams, RecordError};
use domain::time::{format_ms, parse_datetime};
use infra::token::LogicalSession;

use crate::kit::{Subsystem, SubsystemCtx};
use crate::store::{DeleteWhere, ListRecords, StoreActor, UpsertByKey};

pub const NAME: &str = "presence";
pub const MAX_HOSTNAME_LEN: usize = 255;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PresenceConfig {
    pub heartbeat_ms: i64,
    pub active_window_ms: i64,
    pub prune_after_ms: i64,
    pub tick: Duration,
    /// Rows per logical session, per source address and in all (idle after the active window).
    pub limits: PresenceLimits,
}

impl Default for PresenceConfig {
    fn default() -> Self {
        PresenceConfig {
            heartbeat_ms: 15_000,
            active_window_ms: 45_000,
            prune_after_ms: 600_000,
            tick: Duration::from_secs(5),
            limits: PresenceLimits::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveClient {
    /// The presence id (`domain::presence::presence_id`), on the wire as `sessionId`: opaque,
    /// and no use to anyone else as a tab id.
    #[serde(rename = "sessionId")]
    pub presence_id: String,
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

/// One heartbeat of one tab; resolves with its row (whose `sessionId` is the presence id).
#[derive(Message)]
#[rtype(result = "Result<Value, PresenceError>")]
pub struct Heartbeat {
    /// The caller's logical session, from its verified token: the owner of the row.
    pub session: LogicalSession,
    /// The client's own id for this tab or window (kept per tab). Never stored or shown.
    pub tab_id: String,
    /// What the client reports: a host name, or "browser" / "desktop" for renderers that cannot
    /// know one.
    pub hostname: String,
    /// The TCP peer address the server saw the heartbeat from (never a forwarded header).
    pub peer: Option<IpAddr>,
}

/// Why a heartbeat was not recorded.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PresenceError {
    #[error("Invalid tab id.")]
    InvalidTabId,
    /// A new tab over a bound while every row in that scope is active.
    #[error("{limit}")]
    TooManyClients { limit: PresenceLimit, retry_after_secs: u64 },
    #[error("{0}")]
    Store(RecordError),
}

impl HttpProblem for PresenceError {
    fn status(&self) -> u16 {
        match self {
            PresenceError::InvalidTabId => 400,
            PresenceError::TooManyClients { .. } => 429,
            PresenceError::Store(e) => e.status(),
        }
    }
    fn code(&self) -> &'static str {
        match self {
            PresenceError::InvalidTabId => "presence_invalid_tab_id",
            PresenceError::TooManyClients { .. } => "presence_limit",
            PresenceError::Store(e) => e.code(),
        }
    }
    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            PresenceError::TooManyClients { retry_after_secs, .. } => Some(*retry_after_secs),
            PresenceError::InvalidTabId => None,
            PresenceError::Store(e) => e.retry_after_secs(),
        }
    }
    fn data(&self) -> Value {
        match self {
            PresenceError::Store(e) => e.data(),
            _ => json!({ "code": self.code() }),
        }
    }
}

/// The clients active now (one per logical session) and the heartbeat interval they keep.
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
                presence_id: r["sessionId"].as_str().unwrap_or_default().to_string(),
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
    /// Who owns each row heartbeated since the process started, for the bounds.
    registry: PresenceRegistry,
}

/// The filter for the one row keyed `presence_id`.
fn row_of(presence_id: &str) -> Expr {
    Expr::Cmp { field: "sessionId".into(), op: CmpOp::Eq, value: Literal::Str(presence_id.to_string()) }
}

impl PresenceActor {
    pub fn new(subsystem: SubsystemCtx, config: PresenceConfig, store: Addr<StoreActor>) -> Self {
        let snapshot = Self::empty_snapshot(&config);
        let registry = PresenceRegistry::new(config.limits);
        PresenceActor { config, store, subsystem, snapshot, registry }
    }

    fn empty_snapshot(config: &PresenceConfig) -> PresenceSnapshot {
        PresenceSnapshot { heartbeat_interval_ms: config.heartbeat_ms, ..Default::default() }
    }

    fn sweep(&mut self) -> ResponseActFuture<Self, Result<usize, RecordError>> {
        let now = self.subsystem.now_ms();
        self.registry.forget_unseen_since(now - self.config.prune_after_ms);
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

impl PresenceActor {
    /// Admits the heartbeat's row (answers the rows that gave their place) or refuses it.
    fn admit(&mut self, msg: &Heartbeat, presence_id: &str, now_ms: i64) -> Result<Vec<String>, PresenceError> {
        let admitted = self.registry.admit(presence_id, msg.session.as_str(), msg.peer, now_ms);
        admitted.map_err(|limit| {
            let retry_after_secs = (self.config.limits.idle_after_ms.max(1_000) / 1_000) as u64;
            PresenceError::TooManyClients { limit, retry_after_secs }
        })
    }
}

impl Handler<Heartbeat> for PresenceActor {
    type Result = ResponseFuture<Result<Value, PresenceError>>;
    fn handle(&mut self, msg: Heartbeat, _: &mut Context<Self>) -> Self::Result {
        let Some(tab_id) = checked_tab_id(&msg.tab_id) else {
            return Box::pin(async { Err(PresenceError::InvalidTabId) });
        };
        let presence_id = presence_id(msg.session.as_str(), tab_id);
        let now_ms = self.subsystem.now_ms();
        let evicted = match self.admit(&msg, &presence_id, now_ms) {
            Ok(evicted) => evicted,
            Err(refused) => return Box::pin(async move { Err(refused) }),
        };
        let store = self.store.clone();
        let hostname = client_hostname(&msg.hostname, msg.peer);
        Box::pin(async move {
            let unavailable = |_| PresenceError::Store(RecordError::Unavailable);
            for idle in evicted {
                let delete = DeleteWhere { collection: "client_presence", filter: row_of(&idle), limit: 1 };
                store.send(delete).await.map_err(unavailable)?.map_err(PresenceError::Store)?;
            }
            let body = json!({ "sessionId": presence_id, "hostname": hostname, "mode": "client", "lastSeen": format_ms(now_ms) });
            let upsert =
                UpsertByKey { collection: "client_presence", key_field: "sessionId", key_value: presence_id, body };
            store.send(upsert).await.map_err(unavailable)?.map_err(PresenceError::Store)
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
