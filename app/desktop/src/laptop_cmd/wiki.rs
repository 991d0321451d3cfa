//! Wiki uploads from the paired laptop (desktop client mode, main window): `laptop_wiki_upload`,
//! the laptop's counterpart of the server PC's `admin_wiki_upload`. In the laptop's live
//! protected session it shows the native chooser in this process (`wiki_pick`), announces the
//! chosen PDFs (name, size, SHA-256) with `wiki.upload.begin`, signed like every `laptop_command`,
//! then, file by file, reads each file in the planned 4 MiB chunks (one chunk in memory at a
//! time; the file's identity re-checked before every read and its whole SHA-256 before the last
//! chunk leaves) and posts every chunk with its own signed `wiki.upload.chunk` claim
//! (`infra::device_client`), trying again while another Wiki job holds the server's pipeline.
//! Every chunk counts as activity and needs the session still live; a revoked device, a role
//! change or an ended session stops the upload with `laptop_command`'s refusal mapping. Progress
//! goes to the renderer as the same `WikiUploadEvent`s as on the server PC; paths, PDF bytes,
//! the key and the token never leave this process or reach the logs.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use domain::wiki::limits::UPLOAD_CHUNK_BYTES;
use infra::device_client::{chunk_envelope, Bytes, ChunkOf, ChunkProgress, DeviceClient, DeviceClientError, Signer};
use infra::wiki::source::{SourceError, SourcePdf};
use sha2::{Digest, Sha256};

use super::state::Binding;
use super::{key_of, off_thread, origin, paired, settle, token_of, LaptopState, LOCKED};
use crate::admin_wiki_cmd::{
    begin_payload, checked_replacement, planned, WikiUploadEvent, WikiUploadSummary, BUSY_PAUSE, BUSY_RETRIES,
};
use crate::bridge::{Access, BridgeError, Command};
use crate::wiki_pick::{self, Announced};

pub const LAPTOP_WIKI_UPLOAD: Command = Command::new("laptop_wiki_upload", Access::MainOnly);

/// Deadline of one chunk request: the last chunk's answer waits while the server assembles,
/// verifies and extracts the PDF.
const CHUNK_TIMEOUT: Duration = Duration::from_secs(180);
pub(super) const CHANGED: &str = "the file changed or moved after it was chosen; choose it again";
const UNREADABLE: &str = "the file can no longer be read";
const OTHER_PLAN: &str = "the server planned other chunks than this file has";

/// Where the chunks go: the server as the paired device, or a test double.
pub(super) trait ChunkSink: Sync {
    /// Posts one chunk. A `Locked` or `PasswordRequired` refusal stops the whole upload; any other
    /// error fails this file only.
    fn send(&self, chunk: ChunkOf<'_>, bytes: Bytes)
        -> impl Future<Output = Result<ChunkProgress, BridgeError>> + Send;
}

/// Whether the server refused because another Wiki job holds the pipeline.
fn busy(e: &DeviceClientError) -> bool {
    e.code() == Some("busy")
}

/// `post` again after `pause` while the server answers busy, at most `BUSY_RETRIES` more times.
pub(super) async fn retrying_busy<F, Fut>(mut post: F, pause: Duration) -> Result<ChunkProgress, DeviceClientError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<ChunkProgress, DeviceClientError>>,
{
    let mut tries = 0;
    loop {
        match post().await {
            Err(e) if busy(&e) && tries < BUSY_RETRIES => {
                tries += 1;
                tokio::time::sleep(pause).await;
            }
            answer => return answer,
        }
    }
}

/// The server, reached as the paired device with its key.
struct Remote {
    state: Arc<LaptopState>,
    client: DeviceClient,
    token: String,
    binding: Binding,
    secret: [u8; 32],
}

impl ChunkSink for Remote {
    async fn send(&self, chunk: ChunkOf<'_>, bytes: Bytes) -> Result<ChunkProgress, BridgeError> {
        if !self.state.session_alive(true) {
            return Err(BridgeError::Locked(LOCKED.into()));
        }
        let b = &self.binding;
        let signer = Signer { account_id: &b.account_id, device_id: &b.device_id, role: &b.role, secret: &self.secret };
        // Every try is a new request: a fresh request id, signed again.
        let post = move || {
            let bytes = bytes.clone();
            async move {
                let claim = chunk_envelope(signer, chunk, &bytes, self.state.now_ms())?;
                self.client.post_chunk(&self.token, &claim, bytes).await
            }
        };
        retrying_busy(post, BUSY_PAUSE).await.map_err(|e| settle(&self.state, e))
    }
}

/// Opens the announced file again; a different size means it changed.
async fn open(file: &Announced) -> Result<SourcePdf, &'static str> {
    let (path, size) = (file.path.clone(), file.byte_size);
    match tokio::task::spawn_blocking(move || SourcePdf::open(&path)).await {
        Ok(Ok(source)) if source.size() == size => Ok(source),
        Ok(_) => Err(CHANGED),
        Err(_) => Err(UNREADABLE),
    }
}

/// Chunk `index` of the open file, read off the async workers (the file comes back with it).
async fn read(mut source: SourcePdf, index: u64) -> Result<(SourcePdf, Vec<u8>), &'static str> {
    let read = tokio::task::spawn_blocking(move || source.read_chunk(index, UPLOAD_CHUNK_BYTES).map(|b| (source, b)));
    match read.await {
        Ok(Ok(done)) => Ok(done),
        Ok(Err(SourceError::Changed)) => Err(CHANGED),
        Ok(Err(SourceError::Unreadable)) | Err(_) => Err(UNREADABLE),
    }
}

/// `event` failed for `why`, reported.
fn failed(mut event: WikiUploadEvent, why: &str, emit: &impl Fn(&WikiUploadEvent)) -> WikiUploadEvent {
    event.state = "failed".into();
    event.error = Some(why.to_string());
    emit(&event);
    event
}

/// Uploads one announced file chunk by chunk, reporting on `emit`; its last event. `Err` stops
/// the whole upload (the file's failed event was reported first).
pub(super) async fn upload_file(
    sink: &impl ChunkSink,
    batch_id: &str,
    file: &Announced,
    mut event: WikiUploadEvent,
    emit: &(impl Fn(&WikiUploadEvent) + Sync),
) -> Result<WikiUploadEvent, BridgeError> {
    event.state = "uploading".into();
    emit(&event);
    let count = file.byte_size.div_ceil(UPLOAD_CHUNK_BYTES);
    if u64::from(event.chunk_count) != count {
        return Ok(failed(event, OTHER_PLAN, emit));
    }
    let mut source = match open(file).await {
        Ok(source) => source,
        Err(why) => return Ok(failed(event, why, emit)),
    };
    let mut whole = Sha256::new();
    for index in 0..count {
        let bytes;
        (source, bytes) = match read(source, index).await {
            Ok(read) => read,
            Err(why) => return Ok(failed(event, why, emit)),
        };
        whole.update(&bytes);
        if index + 1 == count {
            let sum: String = whole.clone().finalize().iter().map(|b| format!("{b:02x}")).collect();
            if sum != file.checksum {
                return Ok(failed(event, CHANGED, emit));
            }
        }
        let chunk = ChunkOf { upload_id: &event.upload_id, batch_id, index: index as u32 };
        let answer = sink.send(chunk, Bytes::from(bytes)).await;
        match answer {
            Ok(p) => {
                event.advance(p.state, p.stored_chunks, p.chunk_count, p.error);
                emit(&event);
                if event.state == "failed" {
                    return Ok(event);
                }
            }
            Err(e @ (BridgeError::Locked(_) | BridgeError::PasswordRequired(_))) => {
                failed(event, &e.to_string(), emit);
                return Err(e);
            }
            Err(e) => {
                tracing::warn!(target: "relay::laptop", error = %e, "a Wiki chunk was refused");
                return Ok(failed(event, &e.to_string(), emit));
            }
        }
    }
    Ok(event)
}

/// `laptop_wiki_upload`: the checks (the chooser, `pick`, is awaited only once the session is
/// live), the announcement, `wiki.upload.begin`, then every file in turn; the summary.
pub async fn upload(
    state: &Arc<LaptopState>,
    token: Option<String>,
    replacement: Option<String>,
    pick: impl Future<Output = Result<Vec<PathBuf>, BridgeError>> + Send,
    emit: impl Fn(&WikiUploadEvent) + Send + Sync,
) -> Result<WikiUploadSummary, BridgeError> {
    let replacement = checked_replacement(replacement)?;
    origin(state)?;
    if !state.session_alive(true) {
        return Err(BridgeError::Locked(LOCKED.into()));
    }
    let binding = paired(state)?;
    let token = token_of(token)?;
    let paths = pick.await?;
    if paths.is_empty() {
        return Ok(WikiUploadSummary { batch_id: None, files: Vec::new() });
    }
    let files = wiki_pick::announce_off_thread(paths, replacement.is_some()).await?;
    let payload = begin_payload(&files, replacement.as_deref());
    let batch = super::command(state, Some(token.clone()), "wiki.upload.begin", payload, None).await?;
    let (batch_id, mut events) = planned(&batch, &files)?;
    for event in &events {
        emit(event);
    }
    let held = binding.clone();
    let secret = off_thread(state, move |s| key_of(s, &held)).await??;
    let client =
        DeviceClient::new(&binding.server, CHUNK_TIMEOUT).map_err(|e| BridgeError::Unavailable(e.to_string()))?;
    let sink = Remote { state: state.clone(), client, token, binding, secret };
    for (event, file) in events.iter_mut().zip(&files) {
        *event = upload_file(&sink, &batch_id, file, event.clone(), &emit).await?;
    }
    tracing::info!(target: "relay::laptop", files = events.len(), "Wiki upload from the laptop done");
    Ok(WikiUploadSummary { batch_id: Some(batch_id), files: events })
}

mod commands {
    use tauri::ipc::Channel;
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::{caller, Bridge};
    use crate::session_cmd::SharedSession;

    /// Chooses PDFs on this laptop and uploads them, signed as the paired device, into one batch
    /// (one PDF, opened for the document, when `replacement_document_id` is set); reports each
    /// file on `on_progress`.
    #[tauri::command]
    pub async fn laptop_wiki_upload<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        laptop: State<'_, Arc<LaptopState>>,
        shared: State<'_, SharedSession>,
        replacement_document_id: Option<String>,
        on_progress: Channel<WikiUploadEvent>,
    ) -> Result<WikiUploadSummary, BridgeError> {
        caller(LAPTOP_WIKI_UPLOAD, &webview, &bridge)?;
        let pick = wiki_pick::pick(webview.window(), replacement_document_id.is_none());
        let emit = |event: &WikiUploadEvent| {
            let _ = on_progress.send(event.clone());
        };
        upload(laptop.inner(), shared.token(), replacement_document_id, pick, emit).await
    }
}

pub use commands::*;

#[cfg(test)]
mod tests;
