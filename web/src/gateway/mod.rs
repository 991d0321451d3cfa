//! The Relay Web gateway: the LAN-browser path in server mode. It listens on its own port and
//! serves the shared renderer plus a bounded same-origin API: web sign-in, session refresh and
//! logout, the app-user connection for the renderer, browser log ingestion, the server-mediated
//! protected sign-in (`/web/api/protected`, `protected`), and the ordinary
//! record/realtime/presence and branding routes, every one behind a live web session (CSRF on
//! writes).
//! Every request first passes Host and Origin validation. Privileged, backup/restore,
//! filesystem, reconfiguration, offline-queue and metrics endpoints are deliberately not
//! mounted (its requests are still counted, labelled `surface="gateway"`).

pub(crate) mod guard;
mod protected;
mod session;

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{web, App, HttpServer};
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;

use domain::web_origin::AllowedHosts;

use crate::route_table::Mount;

pub use session::SESSION_COOKIE;

/// The server-mediated protected sign-in, behind a live web session.
const PROTECTED: Mount = Mount { prefix: "/web/api/protected", tables: &[&protected::ROUTES] };
/// Web sign-in, session, connection and browser logs; mounted after [`PROTECTED`], which it
/// would otherwise take.
const SESSION: Mount = Mount { prefix: "/web/api", tables: &[&session::ROUTES] };
/// The ordinary data routes Relay Web mounts, behind a live web session.
const API: Mount = Mount {
    prefix: "/api",
    tables: &[
        &crate::records::ROUTES,
        &crate::realtime::ROUTES,
        &crate::relay::ROUTES,
        &crate::status_feeds::ROUTES,
        &crate::radar::ROUTES,
        &crate::branding::ROUTES,
        &crate::wiki::ROUTES,
        &crate::import::ROUTES,
        &crate::offline::SYNC_ROUTES,
    ],
};
/// Every mount of the gateway (the `route_coverage` test reads this list).
#[cfg(test)]
pub(crate) const MOUNTS: [&Mount; 3] = [&PROTECTED, &SESSION, &API];

#[derive(Debug, Clone)]
pub struct GatewayConfig {
    pub hostname: String,
    pub interface_addresses: Vec<std::net::IpAddr>,
    pub ui_dir: Option<PathBuf>,
    pub workers: usize,
}

/// Binds the gateway on `listener` and returns the server (not yet awaited) and its address.
pub fn build_gateway(
    handles: actors::Handles,
    listener: TcpListener,
    config: GatewayConfig,
) -> std::io::Result<(Server, SocketAddr)> {
    let addr = listener.local_addr()?;
    let allowed = web::Data::new(AllowedHosts::new(&config.hostname, &config.interface_addresses, addr.port()));
    let ui_dir = config.ui_dir.clone();
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(handles.clone()))
            .app_data(allowed.clone())
            .app_data(crate::error::json_config(crate::MAX_JSON_BODY))
            .app_data(crate::error::query_config())
            .app_data(crate::error::path_config())
            .wrap(from_fn(guard::host_and_origin))
            .wrap(crate::headers::security_headers())
            .wrap(from_fn(crate::headers::opener_policy))
            .wrap(from_fn(crate::metrics::record_gateway))
            .service(
                // Before `/web/api`, which would otherwise take these paths.
                web::scope(PROTECTED.prefix)
                    .wrap(from_fn(session::require_web_session))
                    .wrap(actix_web::middleware::DefaultHeaders::new().add(("Cache-Control", "no-store")))
                    .configure(|c| PROTECTED.register(c))
                    .default_service(web::to(crate::error::not_found)),
            )
            .service(
                web::scope(SESSION.prefix)
                    .wrap(actix_web::middleware::DefaultHeaders::new().add(("Cache-Control", "no-store")))
                    .configure(|c| SESSION.register(c)),
            )
            .service(
                web::scope(API.prefix)
                    // Outermost last: refusals of the session check get `Cache-Control` too.
                    .wrap(from_fn(session::require_web_session))
                    .wrap(actix_web::middleware::DefaultHeaders::new().add(("Cache-Control", "no-store")))
                    .configure(|c| API.register(c))
                    .default_service(web::to(crate::error::not_found)),
            )
            .configure(|c| crate::static_ui::routes(c, ui_dir.clone()))
    })
    .workers(config.workers.max(1))
    // As on the data API: no Nagle delay for realtime frames and responses.
    .tcp_nodelay(true)
    .disable_signals()
    .shutdown_timeout(5)
    .listen(listener)?;
    Ok((server.run(), addr))
}
