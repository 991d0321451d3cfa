//! Relay's HTTP surface on actix-web: the PocketBase-compatible record API, app-user auth,
//! realtime SSE, the operator health and presence endpoints, loopback-only Prometheus metrics
//! (`metrics`, whose middleware counts every request on both listeners), and the built UI served
//! same-origin, and the access log (`access_log`: server errors always, every request at debug).
//! Handlers only translate HTTP into actor messages and actor replies into HTTP;
//! every rule lives in the actors and the domain. Every error answer, including extractor
//! refusals, goes out through `error::Problem`. Every route is registered from its module's table
//! (`route_table`), which the `route_coverage` test holds to `docs/openapi.json`.

mod access;
mod access_log;
mod auth;
mod branding;
mod error;
pub mod gateway;
mod headers;
mod import;
mod metrics;
mod offline;
mod privileged;
mod radar;
mod realtime;
mod records;
mod refusal_log;
mod relay;
#[cfg(test)]
mod route_coverage;
mod route_table;
mod static_ui;
mod status_feeds;
mod wiki;

use std::net::SocketAddr;
use std::path::PathBuf;

use actix_web::dev::{Server, Service};
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};

pub use error::{ApiError, Problem};

/// Largest accepted JSON request body.
pub const MAX_JSON_BODY: usize = 512 * 1024;
/// Largest accepted record create/update body: an alert's HTML body of up to 750,000 characters
/// (inline images) plus its other fields.
pub const MAX_RECORD_BODY: usize = 1024 * 1024;
/// Largest accepted import body (a 25 MB file plus JSON overhead).
pub const MAX_IMPORT_BODY: usize = domain::import::MAX_IMPORT_BODY_BYTES;

#[derive(Debug, Clone)]
pub struct WebConfig {
    pub bind: String,
    pub port: u16,
    /// Folder holding the built UI (`ui/dist`); a placeholder page is served when absent.
    pub ui_dir: Option<PathBuf>,
    pub workers: usize,
    /// Where Relay Web runs when this server runs it (`GET /api/relay/access` tells browsers).
    pub relay_web: Option<RelayWebAccess>,
}
pub use access::RelayWebAccess;

/// The peer address rate limits are keyed by (never a forwarded-for header, which a client could
/// forge).
pub(crate) fn source_ip(req: &actix_web::HttpRequest) -> std::net::IpAddr {
    req.peer_addr().map(|a| a.ip()).unwrap_or(std::net::IpAddr::V4(std::net::Ipv4Addr::UNSPECIFIED))
}

/// The data API's routes: every module's table, mounted under `/api` in this order (the
/// `route_coverage` test reads the same list).
pub(crate) const DATA_API: route_table::Mount = route_table::Mount {
    prefix: "/api",
    tables: &[
        &auth::ROUTES,
        &records::ROUTES,
        &realtime::ROUTES,
        &relay::ROUTES,
        &access::ROUTES,
        &status_feeds::ROUTES,
        &radar::ROUTES,
        &branding::ROUTES,
        &wiki::ROUTES,
        &wiki::UPLOAD_ROUTES,
        &metrics::ROUTES,
        &import::ROUTES,
        &offline::REPLAY_ROUTES,
        &offline::SYNC_ROUTES,
        &privileged::ROUTES,
    ],
};

/// Registers every route on an actix `App` (shared by the server and in-process tests).
pub fn configure(cfg: &mut web::ServiceConfig, ui_dir: Option<PathBuf>) {
    cfg.app_data(error::json_config(MAX_JSON_BODY))
        .app_data(error::query_config())
        .app_data(error::path_config())
        .service(
            web::scope(DATA_API.prefix)
                .wrap(actix_web::middleware::DefaultHeaders::new().add(("Cache-Control", "no-store")))
                .configure(|c| DATA_API.register(c))
                .default_service(web::to(error::not_found)),
        )
        // Relay Web's own endpoints exist only on the gateway listener.
        .service(web::scope("/web/api").default_service(web::to(error::not_found)))
        .configure(|c| static_ui::routes(c, ui_dir));
}

/// Builds and binds the HTTP server; returns it (not yet awaited) and its bound addresses.
pub fn build_server(handles: actors::Handles, config: WebConfig) -> std::io::Result<(Server, Vec<SocketAddr>)> {
    let listener = bind_listener(&config.bind, config.port)?;
    build_server_on(handles, listener, config)
}

/// Binds the data API's listening socket (address reuse on, backlog 1024 as actix-web's own
/// bind). A host that restarts its server in-process (a backup restore) binds once and hands
/// each start a clone, so clients find the server on the same port afterwards.
pub fn bind_listener(bind: &str, port: u16) -> std::io::Result<std::net::TcpListener> {
    use socket2::{Domain, Protocol, Socket, Type};
    let ip: std::net::IpAddr = bind
        .parse()
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, "bind must be an IP address"))?;
    let addr = SocketAddr::new(ip, port);
    let socket = Socket::new(Domain::for_address(addr), Type::STREAM, Some(Protocol::TCP))?;
    socket.set_reuse_address(true)?;
    socket.bind(&addr.into())?;
    socket.listen(1024)?;
    Ok(socket.into())
}

/// Builds the HTTP server on an already bound listener (`config.bind`/`port` are not used).
pub fn build_server_on(
    handles: actors::Handles,
    listener: std::net::TcpListener,
    config: WebConfig,
) -> std::io::Result<(Server, Vec<SocketAddr>)> {
    let ui_dir = config.ui_dir.clone();
    let relay_web = web::Data::new(config.relay_web.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(handles.clone()))
            .app_data(relay_web.clone())
            .wrap(headers::desktop_cors())
            .wrap(headers::security_headers())
            .wrap(from_fn(headers::opener_policy))
            .wrap_fn(|req, srv| {
                let method = req.method().clone();
                let path = req.path().to_owned();
                let started = std::time::Instant::now();
                let fut = srv.call(req);
                async move {
                    let res = fut.await?;
                    access_log::record(&method, &path, res.status().as_u16(), started.elapsed().as_micros() as u64);
                    Ok(res)
                }
            })
            .wrap(from_fn(metrics::record_data_api))
            .configure(|c| configure(c, ui_dir.clone()))
    })
    .workers(config.workers.max(1))
    // Realtime frames and responses go out as soon as they are written: with Nagle's algorithm
    // (the OS default actix keeps) a small SSE frame could wait for the ACK of the previous one.
    .tcp_nodelay(true)
    .disable_signals()
    .shutdown_timeout(5)
    .listen(listener)?;
    let addrs = server.addrs();
    Ok((server.run(), addrs))
}
