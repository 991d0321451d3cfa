//! Guarded writes for clients that were offline or reviewed a preview: `POST
//! /api/relay/offline/replay` (one queued change, body <= 264 KiB: 200 `{applied: true}` or the
//! change's error, 409 when the record changed), `POST /api/relay/offline/replay/batch` (`{changes:
//! [...]}`, 1 to 100 changes, body <= 4 MiB: 200 `{results: [...]}` with one result per change)
//! and `POST /api/relay/servers/sync` (one Servers sync batch, body <= 4 MiB). The replay routes
//! exist on the data API only (Relay Web has no offline queue); Servers sync is on both
//! listeners. Handlers only translate: the store actor parses, validates and compares.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use actors::store::{ReplayOfflineChanges, SyncServers};
use actors::Handles;
use domain::offline::replay::{ChangeResult, ReplayError};
use domain::offline::servers_sync::SyncError;
use domain::offline::{MAX_BATCH_BODY, MAX_REPLAY_BATCH, MAX_REPLAY_BODY};
use domain::record::RecordError;

use crate::auth::Authenticated;
use crate::error::{json_config, Problem};
use crate::route_table::{Endpoint, RouteTable, Verb};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReplayBatch {
    changes: Vec<Value>,
}

async fn replay_one(
    _: Authenticated,
    handles: web::Data<Handles>,
    body: web::Json<Value>,
) -> Result<HttpResponse, Problem<ReplayError>> {
    let send = handles.store.send(ReplayOfflineChanges { changes: vec![body.into_inner()] });
    let results = send.await.map_err(|_| ReplayError::Store(RecordError::Unavailable))?.map_err(ReplayError::Store)?;
    match results.into_iter().next() {
        Some(Ok(())) => Ok(HttpResponse::Ok().json(json!({ "applied": true }))),
        Some(Err(e)) => Err(Problem(e)),
        None => Err(Problem(ReplayError::Store(RecordError::Internal))),
    }
}

async fn replay_batch(
    _: Authenticated,
    handles: web::Data<Handles>,
    body: web::Json<ReplayBatch>,
) -> Result<HttpResponse, Problem<ReplayError>> {
    let changes = body.into_inner().changes;
    if changes.is_empty() || changes.len() > MAX_REPLAY_BATCH {
        return Err(Problem(ReplayError::Invalid));
    }
    let send = handles.store.send(ReplayOfflineChanges { changes });
    let results = send.await.map_err(|_| ReplayError::Store(RecordError::Unavailable))?.map_err(ReplayError::Store)?;
    let results: Vec<ChangeResult> = results.iter().map(ChangeResult::of).collect();
    Ok(HttpResponse::Ok().json(json!({ "results": results })))
}

async fn sync_servers(
    _: Authenticated,
    handles: web::Data<Handles>,
    body: web::Json<Value>,
) -> Result<HttpResponse, Problem<SyncError>> {
    let send = handles.store.send(SyncServers { body: body.into_inner() });
    let written = send.await.map_err(|_| SyncError::Store(RecordError::Unavailable))??;
    Ok(HttpResponse::Ok().json(written))
}

/// Debug builds only: `RELAY_TEST_WITHOUT_OFFLINE_REPLAY=1` leaves the replay routes out, so
/// tests can stand in for an older server that lacks them.
fn replay_routes_mounted() -> bool {
    !(cfg!(debug_assertions) && std::env::var("RELAY_TEST_WITHOUT_OFFLINE_REPLAY").as_deref() == Ok("1"))
}

/// The replay routes (data API only).
pub(crate) const REPLAY_ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/offline/replay", &[(Verb::Post, |r| r.to(replay_one))])
        .with(|r| r.app_data(json_config(MAX_REPLAY_BODY))),
    Endpoint::new("/relay/offline/replay/batch", &[(Verb::Post, |r| r.to(replay_batch))])
        .with(|r| r.app_data(json_config(MAX_BATCH_BODY))),
])
.mounted_when(replay_routes_mounted);

/// The Servers sync route (data API and Relay Web gateway).
pub(crate) const SYNC_ROUTES: RouteTable =
    RouteTable::new(&[Endpoint::new("/relay/servers/sync", &[(Verb::Post, |r| r.to(sync_servers))])
        .with(|r| r.app_data(json_config(MAX_BATCH_BODY)))]);
