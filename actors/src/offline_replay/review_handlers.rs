//! The actor side of the pending-change review: listing reads the queue, a review reads the
//! server's copy (with the latest sign-in's token) and issues a token, and a resolution checks
//! the token, the change's version and that no replay runs before it drops or re-bases the
//! change. A re-based change is replayed at once.

use actix::prelude::*;
use serde_json::{Map, Value};

use domain::offline::record_fingerprint;
use infra::http::CancellationToken;
use infra::relay_client::RelayClient;

use super::review::{self, PendingPage, Resolution, ReviewView, ServerSide, PAGE_SIZE, STALE, SYNC_IN_PROGRESS};
use super::{store_error, OfflineError, OfflineReplayActor, REQUEST_TIMEOUT};

/// A page of queued writes that need review (conflicts and refusals), after `after_id`.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<PendingPage, OfflineError>")]
pub struct ListPending {
    pub after_id: Option<i64>,
}

/// One queued write beside the server's current record, with a token for its resolution.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<ReviewView, OfflineError>")]
pub struct ReviewPending {
    pub id: i64,
}

/// Applies the operator's choice for a reviewed write: take the server's record, or retry
/// mine (optionally with `edits`).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), OfflineError>")]
pub struct ResolvePending {
    pub token: String,
    pub resolution: Resolution,
    pub edits: Option<Map<String, Value>>,
}

/// Review → actor: the server copy was read; issue the token.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<ReviewView, OfflineError>")]
struct Reviewed {
    id: i64,
    server: ServerSide,
}

fn new_token() -> String {
    let hex: String = infra::ids::random_bytes(16).iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[0..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..32])
}

impl OfflineReplayActor {
    fn change(&mut self, id: i64) -> Result<infra::offline_store::PendingChange, OfflineError> {
        let page = self.store()?.pending_page(Some(id - 1), 1).map_err(store_error)?;
        page.into_iter().find(|c| c.id == id).ok_or_else(|| OfflineError::Refused(STALE.into()))
    }
}

impl Handler<ListPending> for OfflineReplayActor {
    type Result = Result<PendingPage, OfflineError>;
    fn handle(&mut self, msg: ListPending, _: &mut Context<Self>) -> Self::Result {
        let store = self.store()?;
        let changes = store.pending_page(msg.after_id, PAGE_SIZE + 1).map_err(store_error)?;
        let more = changes.len() > PAGE_SIZE as usize;
        let mut items = Vec::with_capacity(PAGE_SIZE as usize);
        for change in changes.into_iter().take(PAGE_SIZE as usize) {
            let cached = store.cached_record(&change.collection, &change.record_id).map_err(store_error)?;
            items.push(review::summary(&change, cached.as_ref()));
        }
        let next_after_id = if more { items.last().map(|i| i.id) } else { None };
        Ok(PendingPage { items, next_after_id })
    }
}

impl Handler<ReviewPending> for OfflineReplayActor {
    type Result = ResponseActFuture<Self, Result<ReviewView, OfflineError>>;
    fn handle(&mut self, msg: ReviewPending, ctx: &mut Context<Self>) -> Self::Result {
        let change = match self.change(msg.id) {
            Ok(change) => change,
            Err(e) => return Box::pin(fut::ready(Err(e))),
        };
        let token = self.usable_token();
        let client = RelayClient::new(&self.config.server_origin, REQUEST_TIMEOUT).ok();
        let addr = ctx.address();
        let read = async move {
            let server = match (token, client) {
                (Some(token), Some(client)) => {
                    let cancel = CancellationToken::new();
                    match client.get_record(&token, &change.collection, &change.record_id, &cancel).await {
                        Ok(Some(record)) => ServerSide::Present { record },
                        Ok(None) => ServerSide::Deleted,
                        Err(_) => ServerSide::Unavailable,
                    }
                }
                _ => ServerSide::Unavailable,
            };
            addr.send(Reviewed { id: msg.id, server }).await.map_err(|_| OfflineError::Unavailable)?
        };
        Box::pin(read.into_actor(self))
    }
}

impl Handler<Reviewed> for OfflineReplayActor {
    type Result = Result<ReviewView, OfflineError>;
    fn handle(&mut self, msg: Reviewed, _: &mut Context<Self>) -> Self::Result {
        let change = self.change(msg.id)?;
        let local = self.store()?.cached_record(&change.collection, &change.record_id).map_err(store_error)?;
        let token = new_token();
        let now = self.subsystem.now_ms();
        self.tickets.issue(token.clone(), change.id, change.version, msg.server.clone(), now);
        let change_view = serde_json::json!({
            "id": change.id,
            "collection": change.collection,
            "action": review::action_name(change.action),
            "recordId": change.record_id,
            "data": change.data.clone().map(Value::Object),
        });
        Ok(ReviewView { token, change: change_view, local, server: msg.server })
    }
}

impl Handler<ResolvePending> for OfflineReplayActor {
    type Result = Result<(), OfflineError>;
    fn handle(&mut self, msg: ResolvePending, ctx: &mut Context<Self>) -> Self::Result {
        if self.run.is_running() {
            return Err(OfflineError::Refused(SYNC_IN_PROGRESS.into()));
        }
        let stale = || OfflineError::Refused(STALE.into());
        let now = self.subsystem.now_ms();
        let ticket = self.tickets.take(&msg.token, now).ok_or_else(stale)?;
        let change = self.change(ticket.change_id)?;
        if change.version != ticket.version {
            return Err(stale());
        }
        let server_copy = match &ticket.server {
            ServerSide::Present { record } => Some(record.clone()),
            ServerSide::Deleted => None,
            ServerSide::Unavailable => {
                return Err(OfflineError::Refused("Connect to the Relay server to resolve this change.".into()))
            }
        };
        let store_stale = |e| match e {
            infra::offline_store::OfflineStoreError::Stale => stale(),
            other => store_error(other),
        };
        match (msg.resolution, msg.edits) {
            (Resolution::Server, None) => {
                self.store()?.discard(change.id, change.version, server_copy).map_err(store_stale)
            }
            (Resolution::Server, Some(_)) => {
                Err(OfflineError::Refused("Edits are only for retrying your change.".into()))
            }
            (Resolution::Retry, edits) => {
                let Some(server) = server_copy else {
                    return Err(OfflineError::Refused(
                        "The record was deleted on the server; keep the server version.".into(),
                    ));
                };
                let local = self.store()?.cached_record(&change.collection, &change.record_id).map_err(store_error)?;
                let data = match &edits {
                    Some(edits) => Some(Value::Object(
                        review::apply_edits(change.data.as_ref(), local.as_ref(), edits)
                            .map_err(|e| OfflineError::Refused(e.into()))?,
                    )),
                    None => change.data.clone().map(Value::Object),
                };
                let updated = server.get("updated").and_then(Value::as_str).unwrap_or_default().to_string();
                let fingerprint = record_fingerprint(&server).map_err(|_| stale())?;
                self.store()?.rebase(change.id, change.version, &updated, &fingerprint, data).map_err(store_stale)?;
                if let Err(e) = self.start_replay(ctx) {
                    tracing::info!(error = %e, "re-based change waits for the next replay");
                }
                Ok(())
            }
        }
    }
}
