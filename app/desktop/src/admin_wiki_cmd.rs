//! Wiki uploads from the server PC's Administration screen (desktop server mode, main window):
//! `admin_wiki_upload` shows the native file chooser in this process (`wiki_pick`), announces
//! each chosen PDF (name, size, SHA-256) with `wiki.upload.begin` in the Administration session
//! (one batch; `replacementDocumentId` when replacing one document), then, file by file, has the
//! session authorize the feed (`Authorize::wiki_feed`, audited as `wiki.upload.feed`, which
//! answers the account the chunks are bound to) and sends `FeedUpload` to the wiki actor, which
//! reads the file in 4 MiB chunks, assembles, verifies and extracts it. Progress goes to the
//! calling window over the command's channel as [`WikiUploadEvent`]s: every file `queued`, then
//! `uploading`, then what the wiki actor answered (`ready`, or `failed` with its reason). Paths and
//! PDF bytes never reach the renderer: it learns file names, sizes, states and upload ids. The
//! paired laptop's `laptop_wiki_upload` (`laptop_cmd::wiki`) shares the batch and event shapes.

use actix::Addr;
use actors::privileged::{Authorize, Caller, SessionKind};
use actors::wiki::{FeedUpload, Sender, UploadProgress, WikiActor, WikiError};
use serde::Serialize;
use serde_json::{json, Value};

use crate::admin_cmd::{self, AdminSession};
use crate::bridge::{Access, Bridge, BridgeError, Command};
use crate::wiki_pick::{self, Announced};

pub const ADMIN_WIKI_UPLOAD: Command = Command::new("admin_wiki_upload", Access::MainOnly);

/// How often a feed (or, from the paired laptop, a chunk) refused as busy (another Wiki job
/// holds the pipeline) is tried again.
pub(crate) const BUSY_RETRIES: u32 = 30;
pub(crate) const BUSY_PAUSE: std::time::Duration = std::time::Duration::from_secs(1);

/// One file's progress, as the renderer sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WikiUploadEvent {
    pub upload_id: String,
    pub file_name: String,
    pub byte_size: u64,
    /// queued, uploading, assembling, extracting, ready, failed (the upload states).
    pub state: String,
    pub stored_chunks: u32,
    pub chunk_count: u32,
    /// Why it failed (a stable reason code or a sentence), else null.
    pub error: Option<String>,
}

impl WikiUploadEvent {
    /// This file at the progress the server answered.
    pub(crate) fn advance(&mut self, state: String, stored_chunks: u32, chunk_count: u32, error: Option<String>) {
        self.state = state;
        self.stored_chunks = stored_chunks;
        self.chunk_count = chunk_count;
        self.error = error;
    }
}

/// What `admin_wiki_upload` answers once every file was fed (no batch when the chooser was
/// cancelled).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WikiUploadSummary {
    pub batch_id: Option<String>,
    pub files: Vec<WikiUploadEvent>,
}

fn wiki_of(bridge: &Bridge) -> Result<Addr<WikiActor>, BridgeError> {
    bridge
        .live_server()
        .and_then(|l| l.wiki)
        .ok_or_else(|| BridgeError::Unavailable("Wiki publishing is on the Relay server PC".into()))
}

/// A document id as the server issues them (never a path or anything long).
pub(crate) fn checked_replacement(raw: Option<String>) -> Result<Option<String>, BridgeError> {
    match raw {
        None => Ok(None),
        Some(id) if !id.is_empty() && id.len() <= 64 && id.bytes().all(|b| b.is_ascii_alphanumeric()) => Ok(Some(id)),
        Some(_) => Err(BridgeError::Invalid("choose a document to replace".into())),
    }
}

/// The `wiki.upload.begin` payload for the announced files.
pub(crate) fn begin_payload(files: &[Announced], replacement: Option<&str>) -> Value {
    let files: Vec<Value> = files
        .iter()
        .map(|f| json!({"fileName": f.file_name, "byteSize": f.byte_size, "checksum": f.checksum}))
        .collect();
    match replacement {
        Some(id) => json!({"files": files, "replacementDocumentId": id}),
        None => json!({"files": files}),
    }
}

/// The batch id and each announced file's first event, matched by position (the server answers
/// its uploads in the announced order, each with the announced name and size).
pub(crate) fn planned(batch: &Value, files: &[Announced]) -> Result<(String, Vec<WikiUploadEvent>), BridgeError> {
    let unexpected = || BridgeError::Unavailable("the server answered an unexpected upload batch".into());
    let batch_id = batch["batchId"].as_str().filter(|id| !id.is_empty()).ok_or_else(unexpected)?;
    let uploads = batch["uploads"].as_array().filter(|u| u.len() == files.len()).ok_or_else(unexpected)?;
    let mut events = Vec::with_capacity(files.len());
    for (upload, file) in uploads.iter().zip(files) {
        let upload_id = upload["uploadId"].as_str().filter(|id| !id.is_empty()).ok_or_else(unexpected)?;
        if upload["fileName"] != file.file_name.as_str() || upload["byteSize"].as_u64() != Some(file.byte_size) {
            return Err(unexpected());
        }
        events.push(WikiUploadEvent {
            upload_id: upload_id.to_string(),
            file_name: file.file_name.clone(),
            byte_size: file.byte_size,
            state: upload["state"].as_str().unwrap_or("queued").to_string(),
            stored_chunks: upload["storedChunks"].as_u64().unwrap_or(0) as u32,
            chunk_count: upload["chunkCount"].as_u64().unwrap_or(0) as u32,
            error: None,
        });
    }
    Ok((batch_id.to_string(), events))
}

/// The event after the wiki actor's answer to a feed.
fn fed(mut event: WikiUploadEvent, answer: Result<UploadProgress, WikiError>) -> WikiUploadEvent {
    match answer {
        Ok(p) => event.advance(p.state, p.stored_chunks, p.chunk_count, p.error),
        Err(e) => {
            event.state = "failed".into();
            event.error = Some(e.to_string());
        }
    }
    event
}

/// Feeds one upload, trying again while another Wiki job holds the pipeline.
async fn feed(
    wiki: &Addr<WikiActor>,
    account_id: String,
    upload_id: &str,
    file: &Announced,
) -> Result<UploadProgress, WikiError> {
    let mut tries = 0;
    loop {
        let sender = Sender { account_id: account_id.clone(), device_id: String::new() };
        let msg = FeedUpload { sender, upload_id: upload_id.to_string(), path: file.path.clone() };
        match wiki.send(msg).await.map_err(|_| WikiError::Unavailable)? {
            Err(WikiError::Busy) if tries < BUSY_RETRIES => {
                tries += 1;
                tokio::time::sleep(BUSY_PAUSE).await;
            }
            answer => return answer,
        }
    }
}

mod commands {
    use tauri::ipc::Channel;
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::caller;

    /// Chooses PDFs on this PC and uploads them into one batch (one PDF, opened for the document,
    /// when `replacement_document_id` is set); reports each file on `on_progress`.
    #[tauri::command]
    pub async fn admin_wiki_upload<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        replacement_document_id: Option<String>,
        on_progress: Channel<WikiUploadEvent>,
    ) -> Result<WikiUploadSummary, BridgeError> {
        caller(ADMIN_WIKI_UPLOAD, &webview, &bridge)?;
        let replacement = checked_replacement(replacement_document_id)?;
        let wiki = wiki_of(&bridge)?;
        admin_cmd::require_session(&bridge, &session)?;
        let paths = wiki_pick::pick(webview.window(), replacement.is_none()).await?;
        if paths.is_empty() {
            return Ok(WikiUploadSummary { batch_id: None, files: Vec::new() });
        }
        let replacing = replacement.is_some();
        let files = wiki_pick::announce_off_thread(paths, replacing).await?;
        let payload = begin_payload(&files, replacement.as_deref());
        let batch = admin_cmd::command_in_session(&bridge, &session, "wiki.upload.begin", payload, None).await?;
        let (batch_id, mut events) = planned(&batch, &files)?;
        for event in &events {
            let _ = on_progress.send(event.clone());
        }
        for (event, file) in events.iter_mut().zip(&files) {
            event.state = "uploading".into();
            let _ = on_progress.send(event.clone());
            let upload_id = event.upload_id.clone();
            let authorize =
                |id| Authorize::wiki_feed(Caller::Session { family: SessionKind::Local, id }, upload_id.clone());
            let account_id = admin_cmd::in_session(&bridge, &session, authorize).await?;
            let answer = feed(&wiki, account_id, &upload_id, file).await;
            if let Err(e) = &answer {
                tracing::warn!(error = %e, "a Wiki upload could not be fed");
            }
            *event = fed(event.clone(), answer);
            let _ = on_progress.send(event.clone());
        }
        Ok(WikiUploadSummary { batch_id: Some(batch_id), files: events })
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    fn announced(name: &str, size: u64) -> Announced {
        Announced {
            path: format!("/srv/private/{name}").into(),
            file_name: name.into(),
            byte_size: size,
            checksum: "ab".repeat(32),
        }
    }

    #[test]
    fn the_batch_announces_names_sizes_and_checksums_but_no_path() {
        let files = [announced("a.pdf", 10), announced("b.pdf", 20)];
        let payload = begin_payload(&files, None);
        assert_eq!(payload["files"][1], json!({"fileName": "b.pdf", "byteSize": 20, "checksum": "ab".repeat(32)}));
        assert!(payload.get("replacementDocumentId").is_none());
        assert!(!payload.to_string().contains("/srv/private"), "no path is announced");
        let replacing = begin_payload(&files[..1], Some("doc123"));
        assert_eq!(replacing["replacementDocumentId"], "doc123");
    }

    #[test]
    fn replacement_ids_are_record_ids_only() {
        assert_eq!(checked_replacement(None), Ok(None));
        assert_eq!(checked_replacement(Some("abc123".into())), Ok(Some("abc123".into())));
        for bad in ["", "../etc", "a b", &"x".repeat(65)] {
            assert!(checked_replacement(Some(bad.into())).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_server_batch_is_matched_to_the_announced_files_in_order() {
        let files = [announced("a.pdf", 10), announced("b.pdf", 20)];
        let batch = json!({"batchId": "batch1", "uploads": [
            {"uploadId": "up1", "fileName": "a.pdf", "byteSize": 10, "chunkCount": 1, "storedChunks": 0, "state": "queued"},
            {"uploadId": "up2", "fileName": "b.pdf", "byteSize": 20, "chunkCount": 1, "storedChunks": 0, "state": "queued"},
        ]});
        let (batch_id, events) = planned(&batch, &files).unwrap();
        assert_eq!(batch_id, "batch1");
        assert_eq!(events[1].upload_id, "up2");
        assert_eq!(
            (events[1].file_name.as_str(), events[1].byte_size, events[1].state.as_str()),
            ("b.pdf", 20, "queued")
        );
        let mut swapped = batch.clone();
        swapped["uploads"][0]["fileName"] = json!("b.pdf");
        assert!(planned(&swapped, &files).is_err(), "a different file in a position is refused");
        assert!(planned(&json!({"batchId": "batch1", "uploads": []}), &files).is_err());
    }

    #[test]
    fn a_feed_answer_becomes_the_files_event() {
        let first = WikiUploadEvent {
            upload_id: "up1".into(),
            file_name: "a.pdf".into(),
            byte_size: 10,
            state: "uploading".into(),
            stored_chunks: 0,
            chunk_count: 1,
            error: None,
        };
        let ready = UploadProgress {
            upload_id: "up1".into(),
            state: "ready".into(),
            stored_chunks: 1,
            chunk_count: 1,
            error: None,
        };
        let done = fed(first.clone(), Ok(ready));
        assert_eq!((done.state.as_str(), done.stored_chunks, done.error), ("ready", 1, None));
        let failed = UploadProgress { state: "failed".into(), error: Some("malformed-pdf".into()), ..done_progress() };
        assert_eq!(fed(first.clone(), Ok(failed)).error.as_deref(), Some("malformed-pdf"));
        let changed = fed(first, Err(WikiError::SourceChanged));
        assert_eq!(changed.state, "failed");
        assert!(changed.error.unwrap().contains("changed or moved"));
        let json = serde_json::to_value(done_event()).unwrap();
        let mut keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["byteSize", "chunkCount", "error", "fileName", "state", "storedChunks", "uploadId"]);
    }

    fn done_progress() -> UploadProgress {
        UploadProgress { upload_id: "up1".into(), state: "ready".into(), stored_chunks: 1, chunk_count: 1, error: None }
    }

    fn done_event() -> WikiUploadEvent {
        fed(
            WikiUploadEvent {
                upload_id: "up1".into(),
                file_name: "a.pdf".into(),
                byte_size: 10,
                state: "uploading".into(),
                stored_chunks: 0,
                chunk_count: 1,
                error: None,
            },
            Ok(done_progress()),
        )
    }
}
