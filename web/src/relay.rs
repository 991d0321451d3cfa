//! Relay-specific endpoints: the public liveness probe `GET /api/health` (PocketBase's shape,
//! no details), the authenticated operator health dashboard `GET /api/relay/health` (actor
//! states and queue history, uptime, realtime clients, and the database size the store reports),
//! and presence (`GET /api/relay/presence`, `POST /api/relay/presence/heartbeat`: the caller's
//! tab id and its logical session go to the presence actor, which owns the rows).

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::json;

use actors::health::GetHealth;
use actors::presence::{GetPresence, Heartbeat, PresenceError};
use actors::realtime::GetStats;
use actors::store::DatabaseSize;
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::{ApiResult, Problem};
use crate::route_table::{Endpoint, RouteTable, Verb};
use domain::record::RecordError;

async fn liveness() -> HttpResponse {
    HttpResponse::Ok().json(json!({ "code": 200, "message": "API is healthy.", "data": {} }))
}

async fn dashboard(_: Authenticated, handles: web::Data<Handles>) -> ApiResult<HttpResponse> {
    let health = handles.health.send(GetHealth).await?;
    let realtime = handles.realtime.send(GetStats).await?;
    let database = handles.store.send(DatabaseSize).await??;
    let mut body = serde_json::to_value(health).unwrap_or_default();
    body["realtime"] = serde_json::to_value(realtime).unwrap_or_default();
    body["database"] = json!({
        "sizeBytes": database.total_bytes(),
        "pagesBytes": database.pages_bytes,
        "walBytes": database.wal_bytes,
    });
    Ok(HttpResponse::Ok().json(body))
}

async fn presence(_: Authenticated, handles: web::Data<Handles>) -> ApiResult<HttpResponse> {
    Ok(HttpResponse::Ok().json(handles.presence.send(GetPresence).await?))
}

/// `{tabId, hostname}`; renderers before #39.6 send the tab id as `sessionId`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeartbeatBody {
    #[serde(alias = "sessionId")]
    tab_id: String,
    #[serde(default)]
    hostname: String,
}

async fn heartbeat(
    caller: Authenticated,
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<HeartbeatBody>,
) -> Result<HttpResponse, Problem<PresenceError>> {
    let body = body.into_inner();
    let peer = req.peer_addr().map(|a| a.ip());
    let beat = Heartbeat { session: caller.session, tab_id: body.tab_id, hostname: body.hostname, peer };
    let row = handles.presence.send(beat).await.map_err(|_| PresenceError::Store(RecordError::Unavailable))??;
    Ok(HttpResponse::Ok().json(row))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/health", &[(Verb::Get, |r| r.to(liveness))]),
    Endpoint::new("/relay/health", &[(Verb::Get, |r| r.to(dashboard))]),
    Endpoint::new("/relay/presence", &[(Verb::Get, |r| r.to(presence))]),
    Endpoint::new("/relay/presence/heartbeat", &[(Verb::Post, |r| r.to(heartbeat))]),
]);
