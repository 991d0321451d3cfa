//! The metrics subsystem: the one place Relay's Prometheus metrics live. The HTTP layer's
//! middleware tells it about every answered request with `do_send` ([`RecordRequest`]: surface,
//! method, the matched route *pattern*, status class, latency), so no lock is shared between
//! web workers. [`RenderMetrics`] (`GET /api/relay/metrics`) asks the health actor, realtime and
//! the store for their current numbers, folds them in and encodes the registry in the
//! Prometheus text exposition format (0.0.4) with the official `prometheus-client` crate. It
//! never sees a raw path, an id, a token or a record; route labels are bounded (see
//! [`MetricsConfig::max_routes`]). Each subsystem's state is a gauge per state name (six fixed
//! values, degraded included), its condition a gauge per condition code (a fixed set) with the
//! failing and total units where it counts them; the free-text reason is never a label (it is in
//! `GET /api/relay/health`). Who may read the output is decided by the web layer (loopback only,
//! `docs/security.md`).

use std::collections::HashSet;
use std::time::Duration;

use actix::prelude::*;
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::health::{ActorHealth, ActorState, GetHealth, HealthSnapshot};
use crate::kit::{Subsystem, SubsystemCtx};
use crate::realtime::{GetStats, RealtimeActor, RealtimeStats};
use crate::store::{DatabaseSize, StoreActor};
use domain::work_condition::ConditionCode;

pub const NAME: &str = "metrics";

/// `Content-Type` of the rendered text (Prometheus text format 0.0.4).
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Route label of a request that matched no registered route (404s, probes for random paths).
pub const UNMATCHED_ROUTE: &str = "unmatched";
/// Route label once [`MetricsConfig::max_routes`] distinct patterns have been seen.
pub const OTHER_ROUTE: &str = "other";

/// Request latency buckets, in seconds.
pub const LATENCY_BUCKETS: [f64; 12] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0];

/// Limits of the metrics subsystem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricsConfig {
    /// Distinct route patterns labelled by name; later ones are counted as [`OTHER_ROUTE`].
    /// Relay registers about 30, so the default of 64 only bounds a future mistake.
    pub max_routes: usize,
}

impl Default for MetricsConfig {
    fn default() -> Self {
        MetricsConfig { max_routes: 64 }
    }
}

/// Which listener answered the request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Surface {
    /// The data API (`relay serve`'s main port, the desktop's in-process server).
    DataApi,
    /// The Relay Web gateway.
    Gateway,
}

impl Surface {
    pub fn label(self) -> &'static str {
        match self {
            Surface::DataApi => "data-api",
            Surface::Gateway => "gateway",
        }
    }
}

/// Sent (`do_send`) by the web layer's metrics middleware after every response.
#[derive(Debug, Clone, Message)]
#[rtype(result = "()")]
pub struct RecordRequest {
    pub surface: Surface,
    pub method: String,
    /// actix's `match_pattern()` (e.g. `/api/collections/{collection}/records/{id}`); `None`
    /// when no route matched. Never the raw path.
    pub route: Option<String>,
    pub status: u16,
    /// Until the response head was ready (a stream's body is not included).
    pub latency: Duration,
}

/// `GET /api/relay/metrics`: the whole registry as Prometheus text.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<String, MetricsError>")]
pub struct RenderMetrics;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetricsError {
    #[error("a subsystem the metrics are read from did not answer")]
    Unavailable,
    #[error("internal error")]
    Internal,
}

impl MetricsError {
    pub fn code(&self) -> &'static str {
        match self {
            MetricsError::Unavailable => "unavailable",
            MetricsError::Internal => "internal",
        }
    }
}

/// `1xx` … `5xx` (anything else is `other`).
pub fn status_class(status: u16) -> &'static str {
    match status {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        500..=599 => "5xx",
        _ => "other",
    }
}

/// The method label: the standard methods by name, anything else as `OTHER` (a client can send
/// any token as a method, which must not create series).
pub fn method_label(method: &str) -> &'static str {
    const KNOWN: [&str; 9] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "CONNECT", "TRACE"];
    KNOWN.iter().copied().find(|m| *m == method).unwrap_or("OTHER")
}

/// The route label for `pattern`: the pattern itself while fewer than `max` distinct ones have
/// been seen (remembered in `seen`), [`OTHER_ROUTE`] after that, [`UNMATCHED_ROUTE`] for none.
pub fn route_label(pattern: Option<&str>, seen: &mut HashSet<String>, max: usize) -> String {
    match pattern {
        None | Some("") => UNMATCHED_ROUTE.to_string(),
        Some(p) if seen.contains(p) => p.to_string(),
        Some(p) if seen.len() < max => {
            seen.insert(p.to_string());
            p.to_string()
        }
        Some(_) => OTHER_ROUTE.to_string(),
    }
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RequestLabels {
    surface: &'static str,
    method: &'static str,
    route: String,
    status: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteLabels {
    surface: &'static str,
    method: &'static str,
    route: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ActorLabels {
    actor: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ActorStateLabels {
    actor: String,
    state: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ActorConditionLabels {
    actor: String,
    code: &'static str,
}

fn latency_histogram() -> Histogram {
    Histogram::new(LATENCY_BUCKETS)
}

/// The registered metric handles (cheap `Arc` clones of what the registry encodes).
struct Metrics {
    requests: Family<RequestLabels, Counter>,
    latency: Family<RouteLabels, Histogram, fn() -> Histogram>,
    realtime_clients: Gauge,
    queue_depth: Family<ActorLabels, Gauge>,
    restarts: Family<ActorLabels, Counter>,
    running: Family<ActorLabels, Gauge>,
    state: Family<ActorStateLabels, Gauge>,
    condition: Family<ActorConditionLabels, Gauge>,
    failing_units: Family<ActorLabels, Gauge>,
    units: Family<ActorLabels, Gauge>,
    database_bytes: Gauge,
    uptime: Gauge,
}

fn build_registry() -> (Registry, Metrics) {
    let mut registry = Registry::with_prefix("relay");
    let m = Metrics {
        requests: Family::default(),
        latency: Family::new_with_constructor(latency_histogram as fn() -> Histogram),
        realtime_clients: Gauge::default(),
        queue_depth: Family::default(),
        restarts: Family::default(),
        running: Family::default(),
        state: Family::default(),
        condition: Family::default(),
        failing_units: Family::default(),
        units: Family::default(),
        database_bytes: Gauge::default(),
        uptime: Gauge::default(),
    };
    let r = &mut registry;
    r.register("http_requests", "HTTP requests answered, by route pattern and status class", m.requests.clone());
    r.register("http_request_duration_seconds", "Time until the response head, by route pattern", m.latency.clone());
    r.register("realtime_clients", "Connected realtime (SSE) clients", m.realtime_clients.clone());
    r.register("actor_queue_depth", "Work queued in each subsystem actor (last report)", m.queue_depth.clone());
    r.register("actor_restarts", "Supervisor restarts of each subsystem actor", m.restarts.clone());
    r.register("actor_running", "1 when the subsystem actor reports running, else 0", m.running.clone());
    r.register("actor_state", "1 for the subsystem's current state (degraded: its work is failing)", m.state.clone());
    r.register(
        "actor_condition",
        "1 for the subsystem's current condition code, 0 for the others",
        m.condition.clone(),
    );
    r.register(
        "actor_failing_units",
        "Units of the subsystem's work failing (status feeds: feeds)",
        m.failing_units.clone(),
    );
    r.register("actor_units", "Units of work the failing count is out of (status feeds: feeds)", m.units.clone());
    r.register("database_size_bytes", "SQLite database pages plus write-ahead log", m.database_bytes.clone());
    r.register("uptime_seconds", "Seconds since the server started", m.uptime.clone());
    (registry, m)
}

pub struct MetricsActor {
    subsystem: SubsystemCtx,
    config: MetricsConfig,
    realtime: Addr<RealtimeActor>,
    store: Addr<StoreActor>,
    registry: Registry,
    metrics: Metrics,
    routes: HashSet<String>,
    /// Subsystems that have ever reported a condition: only they get condition and unit series.
    conditioned: HashSet<String>,
    rendering: usize,
}

impl MetricsActor {
    pub fn new(
        subsystem: SubsystemCtx,
        config: MetricsConfig,
        realtime: Addr<RealtimeActor>,
        store: Addr<StoreActor>,
    ) -> MetricsActor {
        let (registry, metrics) = build_registry();
        MetricsActor {
            subsystem,
            config,
            realtime,
            store,
            registry,
            metrics,
            routes: HashSet::new(),
            conditioned: HashSet::new(),
            rendering: 0,
        }
    }

    fn record(&mut self, msg: RecordRequest) {
        let route = route_label(msg.route.as_deref(), &mut self.routes, self.config.max_routes);
        let (surface, method) = (msg.surface.label(), method_label(&msg.method));
        let labels = RequestLabels { surface, method, route: route.clone(), status: status_class(msg.status) };
        self.metrics.requests.get_or_create(&labels).inc();
        self.metrics.latency.get_or_create(&RouteLabels { surface, method, route }).observe(msg.latency.as_secs_f64());
    }

    /// Folds the other subsystems' current numbers into the gauges and counters.
    fn observe(&mut self, health: &HealthSnapshot, realtime: &RealtimeStats, db_bytes: Option<u64>) {
        let m = &self.metrics;
        m.realtime_clients.set(realtime.clients as i64);
        m.uptime.set(health.uptime_secs);
        for (name, actor) in &health.actors {
            let labels = ActorLabels { actor: (*name).to_string() };
            m.queue_depth.get_or_create(&labels).set(actor.queue_depth as i64);
            m.running.get_or_create(&labels).set(i64::from(actor.state == ActorState::Running));
            for state in ActorState::ALL {
                let series = ActorStateLabels { actor: labels.actor.clone(), state: state.as_str() };
                m.state.get_or_create(&series).set(i64::from(actor.state == state));
            }
            // The health actor's count only grows; the counter catches up to it.
            let restarts = m.restarts.get_or_create(&labels);
            let seen = restarts.get();
            if u64::from(actor.restarts) > seen {
                restarts.inc_by(u64::from(actor.restarts) - seen);
            }
        }
        for (name, actor) in &health.actors {
            self.observe_condition(name, actor);
        }
        let m = &self.metrics;
        if let Some(bytes) = db_bytes {
            m.database_bytes.set(i64::try_from(bytes).unwrap_or(i64::MAX));
        }
    }

    /// The condition gauges of one subsystem, from its first condition on (a recovered one keeps
    /// its series at 0).
    fn observe_condition(&mut self, name: &str, actor: &ActorHealth) {
        let current = actor.condition.as_ref().map(|c| &c.condition);
        if current.is_none() && !self.conditioned.contains(name) {
            return;
        }
        self.conditioned.insert(name.to_string());
        let m = &self.metrics;
        for code in ConditionCode::ALL {
            let series = ActorConditionLabels { actor: name.to_string(), code: code.as_str() };
            m.condition.get_or_create(&series).set(i64::from(current.is_some_and(|c| c.code == code)));
        }
        let labels = ActorLabels { actor: name.to_string() };
        m.failing_units.get_or_create(&labels).set(current.and_then(|c| c.failing).map_or(0, i64::from));
        m.units.get_or_create(&labels).set(current.and_then(|c| c.total).map_or(0, i64::from));
    }

    fn encode(&self) -> Result<String, MetricsError> {
        let mut out = String::new();
        prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)
            .map_err(|_| MetricsError::Internal)?;
        Ok(out)
    }
}

impl Subsystem for MetricsActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.rendering
    }
    fn reset(&mut self) {
        self.rendering = 0;
    }
}

crate::subsystem_actor!(MetricsActor);

impl Handler<RecordRequest> for MetricsActor {
    type Result = ();
    fn handle(&mut self, msg: RecordRequest, _: &mut Context<Self>) {
        self.record(msg);
    }
}

impl Handler<RenderMetrics> for MetricsActor {
    type Result = ResponseActFuture<Self, Result<String, MetricsError>>;
    fn handle(&mut self, _: RenderMetrics, _: &mut Context<Self>) -> Self::Result {
        self.rendering += 1;
        let health = self.subsystem.health.send(GetHealth);
        let realtime = self.realtime.send(GetStats);
        let store = self.store.send(DatabaseSize);
        let gather = async move { (health.await, realtime.await, store.await) };
        Box::pin(gather.into_actor(self).map(|(health, realtime, store), act, _| {
            act.rendering -= 1;
            let (Ok(health), Ok(realtime)) = (health, realtime) else {
                return Err(MetricsError::Unavailable);
            };
            let db_bytes = match store {
                Ok(Ok(size)) => Some(size.total_bytes()),
                _ => {
                    act.subsystem.report_failure(NAME, "database size unavailable for metrics");
                    None
                }
            };
            act.observe(&health, &realtime, db_bytes);
            act.encode()
        }))
    }
}

#[cfg(test)]
mod tests;
