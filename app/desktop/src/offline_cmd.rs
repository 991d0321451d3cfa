//! The desktop's offline commands (client mode, main window only): the offline status (pending
//! count, review count, replay progress), cache writes of online snapshots and cache reads
//! while the server is unreachable, offline writes (checked, cache and queue in one commit),
//! the replay, and the pending-change review. Each translates to a message to the client's
//! `offline_replay` actor; server and setup windows have none and get `unavailable`. Relay Web
//! has no equivalent: browsers never queue writes.

use actix::Addr;
use actors::offline_replay::review::{PendingPage, Resolution, ReviewView};
use actors::offline_replay::{
    CacheSnapshot, GetOfflineStatus, ListPending, Mutate, OfflineError, OfflineReplayActor, OfflineStatus, ReadCache,
    ReplayNow, ReplaySummary, ResolvePending, ReviewPending,
};
use domain::offline::queue::OfflineMutation;
use infra::offline_store::{CachedCollection, MutationApplied};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::bridge::{Access, Bridge, BridgeError, Command};

pub const OFFLINE_STATUS: Command = Command::new("offline_status", Access::MainOnly);
pub const OFFLINE_CACHE_PUT: Command = Command::new("offline_cache_put", Access::MainOnly);
pub const OFFLINE_CACHE_READ: Command = Command::new("offline_cache_read", Access::MainOnly);
pub const OFFLINE_MUTATE: Command = Command::new("offline_mutate", Access::MainOnly);
pub const OFFLINE_REPLAY: Command = Command::new("offline_replay", Access::MainOnly);
pub const PENDING_CHANGES: Command = Command::new("pending_changes", Access::MainOnly);

/// `pending_changes` requests, exactly these shapes.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "action", rename_all = "camelCase", deny_unknown_fields)]
pub enum PendingRequest {
    List {
        #[serde(default, rename = "afterId")]
        after_id: Option<i64>,
    },
    Review {
        id: i64,
    },
    Resolve {
        token: String,
        resolution: Resolution,
        #[serde(default)]
        edits: Option<Map<String, Value>>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PendingAnswer {
    Page(PendingPage),
    Review(ReviewView),
    Resolved { resolved: bool },
}

fn offline_of(bridge: &Bridge) -> Result<Addr<OfflineReplayActor>, BridgeError> {
    bridge.offline().ok_or_else(|| BridgeError::Unavailable("offline changes are kept on Relay clients".into()))
}

fn refused(e: OfflineError) -> BridgeError {
    match e {
        OfflineError::Refused(text) => BridgeError::Invalid(text),
        other => BridgeError::Unavailable(other.to_string()),
    }
}

fn stopped(_: actix::MailboxError) -> BridgeError {
    BridgeError::Unavailable("the offline subsystem is restarting; retry".into())
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::caller;

    #[tauri::command]
    pub async fn offline_status<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<OfflineStatus, BridgeError> {
        caller(OFFLINE_STATUS, &webview, &bridge)?;
        offline_of(&bridge)?.send(GetOfflineStatus).await.map_err(stopped)
    }

    #[tauri::command]
    pub async fn offline_cache_put<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        collection: String,
        records: Vec<Value>,
    ) -> Result<(), BridgeError> {
        caller(OFFLINE_CACHE_PUT, &webview, &bridge)?;
        offline_of(&bridge)?.send(CacheSnapshot { collection, records }).await.map_err(stopped)?.map_err(refused)
    }

    #[tauri::command]
    pub async fn offline_cache_read<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        collection: String,
    ) -> Result<Option<CachedCollection>, BridgeError> {
        caller(OFFLINE_CACHE_READ, &webview, &bridge)?;
        offline_of(&bridge)?.send(ReadCache { collection }).await.map_err(stopped)?.map_err(refused)
    }

    #[tauri::command]
    pub async fn offline_mutate<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        mutation: OfflineMutation,
    ) -> Result<MutationApplied, BridgeError> {
        caller(OFFLINE_MUTATE, &webview, &bridge)?;
        offline_of(&bridge)?.send(Mutate(mutation)).await.map_err(stopped)?.map_err(refused)
    }

    /// Replays the queue (or joins the replay in progress) with the token of the latest
    /// sign-in; the renderer calls it after reconnecting.
    #[tauri::command]
    pub async fn offline_replay<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
    ) -> Result<ReplaySummary, BridgeError> {
        caller(OFFLINE_REPLAY, &webview, &bridge)?;
        offline_of(&bridge)?.send(ReplayNow).await.map_err(stopped)?.map_err(refused)
    }

    #[tauri::command]
    pub async fn pending_changes<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        request: PendingRequest,
    ) -> Result<PendingAnswer, BridgeError> {
        caller(PENDING_CHANGES, &webview, &bridge)?;
        let actor = offline_of(&bridge)?;
        match request {
            PendingRequest::List { after_id } => {
                let page = actor.send(ListPending { after_id }).await.map_err(stopped)?.map_err(refused)?;
                Ok(PendingAnswer::Page(page))
            }
            PendingRequest::Review { id } => {
                let view = actor.send(ReviewPending { id }).await.map_err(stopped)?.map_err(refused)?;
                Ok(PendingAnswer::Review(view))
            }
            PendingRequest::Resolve { token, resolution, edits } => {
                actor.send(ResolvePending { token, resolution, edits }).await.map_err(stopped)?.map_err(refused)?;
                Ok(PendingAnswer::Resolved { resolved: true })
            }
        }
    }
}

pub use commands::*;
