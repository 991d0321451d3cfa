//! LAN discovery over mDNS (`_relay._tcp`). `DiscoveryActor` owns one `mdns_sd::ServiceDaemon`,
//! restricted to private and loopback IPv4 interfaces, and speaks typed messages only:
//! `Advertise { port }` registers this host as `Relay on <hostname>` (idempotent; another port
//! replaces the registration), `StopAdvertising` unregisters it (reconfiguration), `Browse`
//! collects resolved services for a bounded time and count and returns them through the
//! `domain::discovery` filter, and `Shutdown` (or the actor stopping) unregisters, then shuts the
//! daemon down. It is not part of `system::start`: the desktop shell starts it only when it
//! advertises a LAN-bound server or browses, so `relay serve` never sends multicast. Logs carry
//! instance names and ports, never URLs.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::time::Duration;

use actix::prelude::*;
use mdns_sd::{IfKind, IfPredicate, ResolvedService, ScopedIp, ServiceDaemon, ServiceEvent, ServiceInfo};

use domain::discovery::{
    filter_discovered, instance_name, is_lan_ipv4, mdns_host_name, DiscoveredService, RelayServer, MIN_SERVER_PORT,
    SERVICE_TYPE,
};

use crate::health::{HealthActor, Report};
use crate::kit::report_periodically;

#[cfg(test)]
mod tests;

pub const NAME: &str = "discovery";
/// The standard mDNS port; other ports are for tests only.
pub const MDNS_PORT: u16 = 5353;
/// Longest browse a caller can ask for.
pub const MAX_BROWSE_WINDOW: Duration = Duration::from_secs(10);
/// Most distinct services one browse keeps (only ones the domain filter would show count).
pub const MAX_BROWSE_RESULTS: usize = 64;
/// Most daemon events one browse reads, whatever they are.
pub const MAX_BROWSE_EVENTS: usize = 1024;
/// Most addresses kept per resolved service.
pub const MAX_ADDRESSES_PER_SERVICE: usize = 16;
/// The only TXT entry advertised: the discovery record version. Nothing else (no URL, no
/// passphrase, no token) is published.
pub const TXT_PROPERTIES: &[(&str, &str)] = &[("v", "1")];
/// How long `StopAdvertising` / `Shutdown` wait for the daemon to confirm.
const CONFIRM_WAIT: Duration = Duration::from_secs(2);
/// Pause between withdrawing one port and registering another (the daemon resends goodbyes
/// after 120 ms).
const REPLACE_SETTLE: Duration = Duration::from_millis(500);

/// Daemon settings. Production uses the default (port 5353).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MdnsConfig {
    /// UDP port of the mDNS daemon; a non-standard port is for tests only.
    pub port: u16,
}

impl Default for MdnsConfig {
    fn default() -> Self {
        MdnsConfig { port: MDNS_PORT }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DiscoveryError {
    #[error("the mDNS daemon could not start: {0}")]
    Start(String),
    #[error("the mDNS daemon refused the request: {0}")]
    Daemon(String),
    #[error("invalid advertisement: {0}")]
    Invalid(String),
    #[error("the mDNS daemon is shut down")]
    ShutDown,
    #[error("a browse is already running")]
    Busy,
}

fn daemon_error(e: mdns_sd::Error) -> DiscoveryError {
    match e {
        mdns_sd::Error::DaemonShutdown => DiscoveryError::ShutDown,
        other => DiscoveryError::Daemon(other.to_string()),
    }
}

/// Registers this host on `SERVICE_TYPE` for `port` (idempotent for the same port).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Message)]
#[rtype(result = "Result<(), DiscoveryError>")]
pub struct Advertise {
    pub port: u16,
}

/// Withdraws the advertisement (sends the mDNS goodbye); a no-op when none is active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Message)]
#[rtype(result = "Result<(), DiscoveryError>")]
pub struct StopAdvertising;

/// Browses for `window` (at most `MAX_BROWSE_WINDOW`) and returns the filtered servers. One
/// browse runs at a time; another one sent meanwhile is refused with `Busy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Message)]
#[rtype(result = "Result<Vec<RelayServer>, DiscoveryError>")]
pub struct Browse {
    pub window: Duration,
}

/// Unregisters, shuts the daemon down and stops the actor (quit).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Message)]
#[rtype(result = "()")]
pub struct Shutdown;

/// Whether the daemon may use an interface address: private or loopback IPv4 only, so nothing
/// is sent over IPv6, link-local or public addresses.
pub fn is_lan_interface(ip: IpAddr) -> bool {
    matches!(ip, IpAddr::V4(v4) if is_lan_ipv4(v4))
}

fn lan_interfaces() -> IfKind {
    IfKind::Predicate(IfPredicate::new(|intf| is_lan_interface(intf.ip())))
}

/// The advertisement for `port`: `instance` on `SERVICE_TYPE`, SRV target `host`, addresses
/// filled in by the daemon from the LAN interfaces only, and `TXT_PROPERTIES` as the TXT record.
pub fn service_info(instance: &str, host: &str, port: u16) -> Result<ServiceInfo, DiscoveryError> {
    if port < MIN_SERVER_PORT {
        return Err(DiscoveryError::Invalid(format!("port {port} is below {MIN_SERVER_PORT}")));
    }
    let mut info = ServiceInfo::new(SERVICE_TYPE, instance, host, (), port, TXT_PROPERTIES)
        .map_err(|e| DiscoveryError::Invalid(e.to_string()))?
        .enable_addr_auto();
    info.set_interfaces(vec![lan_interfaces()]);
    Ok(info)
}

/// The instance part of a service full name (`<instance>._relay._tcp.local.`), or `None` when
/// the name is not of Relay's service type.
pub fn instance_of(fullname: &str) -> Option<&str> {
    let suffix_len = SERVICE_TYPE.len() + 1;
    let split = fullname.len().checked_sub(suffix_len).filter(|s| *s > 0)?;
    let (instance, suffix) = (fullname.get(..split)?, fullname.get(split..)?);
    (suffix.starts_with('.') && suffix[1..].eq_ignore_ascii_case(SERVICE_TYPE)).then_some(instance)
}

/// A resolved browse result as the domain filter's input. Addresses are sorted (the daemon
/// reports a set) and capped at `MAX_ADDRESSES_PER_SERVICE`.
pub fn discovered_from(resolved: &ResolvedService) -> Option<DiscoveredService> {
    let name = instance_of(resolved.get_fullname())?;
    let mut addresses: Vec<IpAddr> = resolved.get_addresses().iter().map(ScopedIp::to_ip_addr).collect();
    addresses.sort();
    addresses.dedup();
    addresses.truncate(MAX_ADDRESSES_PER_SERVICE);
    Some(DiscoveredService {
        name: name.to_string(),
        host: resolved.get_hostname().to_string(),
        addresses,
        port: resolved.get_port(),
    })
}

/// The requested browse time, capped at `MAX_BROWSE_WINDOW`.
pub fn browse_window(requested: Duration) -> Duration {
    requested.min(MAX_BROWSE_WINDOW)
}

/// Collects one browse: keeps the latest resolution per full name, forgets removed services,
/// and stops after `MAX_BROWSE_RESULTS` services the domain filter accepts or
/// `MAX_BROWSE_EVENTS` events of any kind.
#[derive(Debug, Default)]
pub struct BrowseCollector {
    found: BTreeMap<String, DiscoveredService>,
    events: usize,
}

impl BrowseCollector {
    pub fn new() -> BrowseCollector {
        BrowseCollector::default()
    }

    /// Takes one daemon event; returns whether more are wanted.
    pub fn push(&mut self, event: ServiceEvent) -> bool {
        self.events += 1;
        match event {
            ServiceEvent::ServiceResolved(resolved) => {
                let key = resolved.get_fullname().to_ascii_lowercase();
                let accepted =
                    discovered_from(&resolved).filter(|s| !filter_discovered(std::slice::from_ref(s)).is_empty());
                match accepted {
                    Some(s) if self.found.len() < MAX_BROWSE_RESULTS || self.found.contains_key(&key) => {
                        self.found.insert(key, s);
                    }
                    Some(_) => {}
                    None => {
                        self.found.remove(&key);
                    }
                }
            }
            ServiceEvent::ServiceRemoved(_, fullname) => {
                self.found.remove(&fullname.to_ascii_lowercase());
            }
            _ => {}
        }
        self.wants_more()
    }

    pub fn wants_more(&self) -> bool {
        self.found.len() < MAX_BROWSE_RESULTS && self.events < MAX_BROWSE_EVENTS
    }

    pub fn len(&self) -> usize {
        self.found.len()
    }

    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The servers to show: the domain filter over everything kept (deduplicated, sorted).
    pub fn finish(self) -> Vec<RelayServer> {
        let found: Vec<DiscoveredService> = self.found.into_values().collect();
        filter_discovered(&found)
    }
}

async fn collect(events: mdns_sd::Receiver<ServiceEvent>, window: Duration) -> Vec<RelayServer> {
    let deadline = tokio::time::Instant::now() + window;
    let mut collector = BrowseCollector::new();
    while collector.wants_more() {
        match tokio::time::timeout_at(deadline, events.recv_async()).await {
            Ok(Ok(event)) => {
                collector.push(event);
            }
            // The window is over, or the daemon dropped the subscription.
            Ok(Err(_)) | Err(_) => break,
        }
    }
    collector.finish()
}

/// Starts a daemon on `config.port` limited to private and loopback IPv4 interfaces.
fn start_daemon(config: MdnsConfig) -> Result<ServiceDaemon, DiscoveryError> {
    let daemon = ServiceDaemon::new_with_port(config.port).map_err(|e| DiscoveryError::Start(e.to_string()))?;
    let limited = daemon.disable_interface(IfKind::All).and_then(|()| daemon.enable_interface(lan_interfaces()));
    if let Err(e) = limited {
        let _ = daemon.shutdown();
        return Err(DiscoveryError::Start(e.to_string()));
    }
    Ok(daemon)
}

async fn wait_confirm<T>(rx: mdns_sd::Receiver<T>) -> Option<T> {
    tokio::time::timeout(CONFIRM_WAIT, rx.recv_async()).await.ok()?.ok()
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Advertised {
    fullname: String,
    port: u16,
}

pub struct DiscoveryActor {
    daemon: Option<ServiceDaemon>,
    instance: String,
    host: String,
    advertised: Option<Advertised>,
    browsing: bool,
    health: Option<Addr<HealthActor>>,
}

impl DiscoveryActor {
    /// Starts the mDNS daemon for this machine's hostname. `health`, when given, watches it.
    pub fn new(config: MdnsConfig, health: Option<Addr<HealthActor>>) -> Result<DiscoveryActor, DiscoveryError> {
        let hostname = hostname::get().ok().and_then(|h| h.into_string().ok()).unwrap_or_default();
        Self::with_hostname(config, &hostname, health)
    }

    pub fn with_hostname(
        config: MdnsConfig,
        hostname: &str,
        health: Option<Addr<HealthActor>>,
    ) -> Result<DiscoveryActor, DiscoveryError> {
        let daemon = start_daemon(config)?;
        Ok(DiscoveryActor {
            daemon: Some(daemon),
            instance: instance_name(hostname),
            host: mdns_host_name(hostname),
            advertised: None,
            browsing: false,
            health,
        })
    }

    /// The advertised instance name (`Relay on <hostname>`).
    pub fn instance(&self) -> &str {
        &self.instance
    }

    fn daemon(&self) -> Result<&ServiceDaemon, DiscoveryError> {
        self.daemon.as_ref().ok_or(DiscoveryError::ShutDown)
    }

    fn report_failure(&self, what: &str, e: &DiscoveryError) {
        tracing::warn!(error = %e, "mDNS {what} failed");
        if let Some(h) = &self.health {
            h.do_send(Report::failure(NAME, format!("mDNS {what} failed: {e}")));
        }
    }

    /// Registers `info` (built for `port`) with the daemon.
    fn register(&mut self, info: ServiceInfo, port: u16) -> Result<(), DiscoveryError> {
        let fullname = info.get_fullname().to_string();
        self.daemon()?.register(info).map_err(daemon_error)?;
        tracing::info!(instance = %self.instance, service = SERVICE_TYPE, port, "advertising on mDNS");
        self.advertised = Some(Advertised { fullname, port });
        Ok(())
    }

    /// Queues the unregister of the current advertisement; the receiver confirms it.
    fn withdraw(&mut self) -> Result<Option<mdns_sd::Receiver<mdns_sd::UnregisterStatus>>, DiscoveryError> {
        let Some(old) = self.advertised.take() else {
            return Ok(None);
        };
        let rx = self.daemon()?.unregister(&old.fullname).map_err(daemon_error)?;
        tracing::info!(instance = %self.instance, port = old.port, "stopped advertising on mDNS");
        Ok(Some(rx))
    }
}

impl Actor for DiscoveryActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        if let Some(health) = self.health.clone() {
            report_periodically(ctx, NAME, health, |_| 0);
        }
    }

    fn stopped(&mut self, _: &mut Context<Self>) {
        // Quit without `Shutdown`: still say goodbye and end the daemon thread (no waiting).
        let _ = self.withdraw();
        if let Some(daemon) = self.daemon.take() {
            let _ = daemon.shutdown();
            tracing::info!("mDNS daemon shut down");
        }
    }
}

impl Handler<Advertise> for DiscoveryActor {
    type Result = AtomicResponse<Self, Result<(), DiscoveryError>>;
    fn handle(&mut self, msg: Advertise, _: &mut Context<Self>) -> Self::Result {
        let port = msg.port;
        if self.advertised.as_ref().is_some_and(|a| a.port == port) {
            return AtomicResponse::new(Box::pin(fut::ready(Ok(()))));
        }
        let prepared = service_info(&self.instance, &self.host, port).and_then(|info| Ok((info, self.withdraw()?)));
        let (info, replaced) = match prepared {
            Ok(p) => p,
            Err(e) => {
                self.report_failure("advertising", &e);
                return AtomicResponse::new(Box::pin(fut::ready(Err(e))));
            }
        };
        // Replacing another port: let the old goodbye (and its resend) go out first, or the
        // daemon takes its own goodbye for a name conflict while probing the new record.
        let settle = async move {
            if let Some(rx) = replaced {
                let _ = wait_confirm(rx).await;
                tokio::time::sleep(REPLACE_SETTLE).await;
            }
        };
        AtomicResponse::new(Box::pin(
            settle
                .into_actor(self)
                .map(move |(), act, _| act.register(info, port).inspect_err(|e| act.report_failure("advertising", e))),
        ))
    }
}

impl Handler<StopAdvertising> for DiscoveryActor {
    type Result = ResponseFuture<Result<(), DiscoveryError>>;
    fn handle(&mut self, _: StopAdvertising, _: &mut Context<Self>) -> Self::Result {
        let pending = self.withdraw().inspect_err(|e| self.report_failure("unregister", e));
        Box::pin(async move {
            if let Some(rx) = pending? {
                if wait_confirm(rx).await.is_none() {
                    tracing::warn!("mDNS unregister was not confirmed in time");
                }
            }
            Ok(())
        })
    }
}

impl Handler<Browse> for DiscoveryActor {
    type Result = ResponseActFuture<Self, Result<Vec<RelayServer>, DiscoveryError>>;
    fn handle(&mut self, msg: Browse, _: &mut Context<Self>) -> Self::Result {
        if self.browsing {
            return Box::pin(fut::ready(Err(DiscoveryError::Busy)));
        }
        let window = browse_window(msg.window);
        let started = self.daemon().cloned().and_then(|d| {
            let events = d.browse(SERVICE_TYPE).map_err(daemon_error)?;
            Ok((d, events))
        });
        self.browsing = started.is_ok();
        let work = async move {
            let (daemon, events) = started?;
            let servers = collect(events, window).await;
            let _ = daemon.stop_browse(SERVICE_TYPE);
            Ok(servers)
        };
        Box::pin(work.into_actor(self).map(|result, act, _| {
            act.browsing = false;
            match &result {
                Ok(servers) => tracing::info!(found = servers.len(), "mDNS browse finished"),
                Err(e) => act.report_failure("browse", e),
            }
            result
        }))
    }
}

impl Handler<Shutdown> for DiscoveryActor {
    type Result = ResponseActFuture<Self, ()>;
    fn handle(&mut self, _: Shutdown, _: &mut Context<Self>) -> Self::Result {
        let unregistered = self.withdraw().ok().flatten();
        let daemon = self.daemon.take();
        let work = async move {
            if let Some(rx) = unregistered {
                let _ = wait_confirm(rx).await;
            }
            if let Some(rx) = daemon.and_then(|d| d.shutdown().ok()) {
                if wait_confirm(rx).await.is_none() {
                    tracing::warn!("mDNS daemon shutdown was not confirmed in time");
                }
            }
        };
        Box::pin(work.into_actor(self).map(|(), _, ctx| {
            tracing::info!("mDNS daemon shut down");
            ctx.stop();
        }))
    }
}
