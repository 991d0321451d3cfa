//! `GET /api/relay/access` on the data API: how a browser on this port should use Relay. A
//! browser here keeps its sign-in in page memory only (the security model), so a reload or a new
//! window asks for the passphrase again; Relay Web, the browser gateway, keeps a session across
//! both. The answer says whether this server runs Relay Web, on which port and by which name its
//! Host allowlist accepts (`<hostname>.local`, the name mDNS already announces), so the sign-in
//! screen can send the operator there. Public (before sign-in, like `/api/health`): the port is
//! what a port scan finds and the name what mDNS announces; nothing else is said.

use crate::route_table::{Endpoint, RouteTable, Verb};
use actix_web::{web, HttpResponse};
use serde_json::json;

/// Where this server runs Relay Web (`relay serve --web`): its port and a host name its Host
/// allowlist accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelayWebAccess {
    pub port: u16,
    pub host: String,
}

async fn access(relay_web: Option<web::Data<Option<RelayWebAccess>>>) -> HttpResponse {
    let relay_web = match relay_web.as_ref().and_then(|data| data.get_ref().as_ref()) {
        Some(RelayWebAccess { port, host }) => json!({ "port": port, "host": host }),
        _ => serde_json::Value::Null,
    };
    HttpResponse::Ok().json(json!({ "relayWeb": relay_web }))
}

pub(crate) const ROUTES: RouteTable =
    RouteTable::new(&[Endpoint::new("/relay/access", &[(Verb::Get, |r| r.to(access))])]);
