//! The laptop's Wiki upload without a server: the checks before the chooser, the busy retry, and
//! one file's chunks against a recording sink (rising progress, a file changed after it was
//! announced, a refusal that fails the file, a revocation that stops the upload). The state's
//! server is the discard port on loopback: a request let through would answer `Unavailable`.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use serde_json::json;

use super::super::state::tests::{binding, state};
use super::super::REVOKED;
use super::*;
use infra::device_client::Proof;

const TOKEN: &str = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJyZWxheSJ9.c2lnbmF0dXJlLWJ5dGVz";

/// A sink that records what it was sent and answers from a queue.
#[derive(Default)]
struct Recording {
    sent: Mutex<Vec<(u32, Vec<u8>)>>,
    answers: Mutex<VecDeque<Result<ChunkProgress, BridgeError>>>,
}

impl Recording {
    fn answering(answers: impl IntoIterator<Item = Result<ChunkProgress, BridgeError>>) -> Recording {
        Recording { sent: Mutex::default(), answers: Mutex::new(answers.into_iter().collect()) }
    }

    fn indexes(&self) -> Vec<u32> {
        self.sent.lock().unwrap().iter().map(|(i, _)| *i).collect()
    }
}

impl ChunkSink for Recording {
    fn send(
        &self,
        chunk: ChunkOf<'_>,
        bytes: Bytes,
    ) -> impl Future<Output = Result<ChunkProgress, BridgeError>> + Send {
        assert_eq!((chunk.upload_id, chunk.batch_id), ("up1", "batch1"));
        self.sent.lock().unwrap().push((chunk.index, bytes.to_vec()));
        let answer = self.answers.lock().unwrap().pop_front().expect("an answer for every chunk");
        async move { answer }
    }
}

fn progress(state: &str, stored: u32, count: u32) -> Result<ChunkProgress, BridgeError> {
    Ok(ChunkProgress {
        upload_id: "up1".into(),
        state: state.into(),
        stored_chunks: stored,
        chunk_count: count,
        error: None,
    })
}

fn pdf(dir: &Path, len: usize) -> (PathBuf, Vec<u8>) {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    bytes.extend((0..len - bytes.len()).map(|i| (i % 251) as u8));
    let path = dir.join("runbook.pdf");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn queued(file: &Announced) -> WikiUploadEvent {
    WikiUploadEvent {
        upload_id: "up1".into(),
        file_name: file.file_name.clone(),
        byte_size: file.byte_size,
        state: "queued".into(),
        stored_chunks: 0,
        chunk_count: file.byte_size.div_ceil(UPLOAD_CHUNK_BYTES) as u32,
        error: None,
    }
}

/// Uploads `file` into `sink`; the answer and every reported event.
async fn run(sink: &Recording, file: &Announced) -> (Result<WikiUploadEvent, BridgeError>, Vec<WikiUploadEvent>) {
    let events = Mutex::new(Vec::new());
    let emit = |e: &WikiUploadEvent| events.lock().unwrap().push(e.clone());
    let answer = upload_file(sink, "batch1", file, queued(file), &emit).await;
    (answer, events.into_inner().unwrap())
}

fn states(events: &[WikiUploadEvent]) -> Vec<(&str, u32)> {
    events.iter().map(|e| (e.state.as_str(), e.stored_chunks)).collect()
}

#[tokio::test]
async fn without_a_live_session_it_is_locked_before_the_chooser_and_any_request() {
    let tmp = tempfile::tempdir().unwrap();
    let (state, clock, _) = state(tmp.path());
    let state = Arc::new(state);
    state.write_binding(&binding("fp")).unwrap();
    let never = async { panic!("the chooser was shown") };
    let emitted = Mutex::new(0);
    let emit = |_: &WikiUploadEvent| *emitted.lock().unwrap() += 1;
    let locked = upload(&state, Some(TOKEN.into()), None, never, emit).await;
    assert_eq!(locked, Err(BridgeError::Locked(LOCKED.into())));
    // Idle past the lock: the same.
    state.open_session(&binding("fp"), Proof { proof: "p".repeat(15), expires_ms: i64::MAX });
    clock.advance_ms(super::super::state::IDLE_LOCK_MS);
    let never = async { panic!("the chooser was shown") };
    let idle = upload(&state, Some(TOKEN.into()), None, never, |_: &WikiUploadEvent| ()).await;
    assert_eq!(idle, Err(BridgeError::Locked(LOCKED.into())));
    assert_eq!(*emitted.lock().unwrap(), 0);
    // A live session is activity: the idle timer restarts, and a cancelled chooser is no batch.
    state.open_session(&binding("fp"), Proof { proof: "p".repeat(15), expires_ms: i64::MAX });
    clock.advance_ms(super::super::state::IDLE_LOCK_MS - 1);
    let cancelled = upload(&state, Some(TOKEN.into()), None, async { Ok(Vec::new()) }, |_: &WikiUploadEvent| ()).await;
    assert_eq!(cancelled, Ok(WikiUploadSummary { batch_id: None, files: Vec::new() }));
    clock.advance_ms(super::super::state::IDLE_LOCK_MS - 1);
    assert!(state.session_alive(false), "the upload counted as activity");
    let bad =
        upload(&state, Some(TOKEN.into()), Some("../x".into()), async { Ok(Vec::new()) }, |_: &WikiUploadEvent| ());
    assert!(matches!(bad.await, Err(BridgeError::Invalid(_))));
}

#[tokio::test]
async fn a_busy_pipeline_is_tried_again_then_given_up() {
    let busy = || DeviceClientError::Refused {
        status: 503,
        code: "busy".into(),
        message: "busy".into(),
        retry_after_secs: Some(1),
    };
    let calls = Mutex::new(0u32);
    let post = || {
        let n = {
            let mut calls = calls.lock().unwrap();
            *calls += 1;
            *calls
        };
        let answer = if n < 3 { Err(busy()) } else { progress("ready", 1, 1).map_err(|_| DeviceClientError::Protocol) };
        async move { answer }
    };
    let answer = retrying_busy(post, Duration::ZERO).await.unwrap();
    assert_eq!((answer.state.as_str(), *calls.lock().unwrap()), ("ready", 3));

    *calls.lock().unwrap() = 0;
    let always = || {
        *calls.lock().unwrap() += 1;
        async { Err::<ChunkProgress, _>(busy()) }
    };
    assert_eq!(retrying_busy(always, Duration::ZERO).await.unwrap_err().code(), Some("busy"));
    assert_eq!(*calls.lock().unwrap(), BUSY_RETRIES + 1);

    *calls.lock().unwrap() = 0;
    let refused = || {
        *calls.lock().unwrap() += 1;
        async { Err::<ChunkProgress, _>(DeviceClientError::Network) }
    };
    assert!(retrying_busy(refused, Duration::ZERO).await.is_err());
    assert_eq!(*calls.lock().unwrap(), 1, "only busy is tried again");
}

#[tokio::test]
async fn a_file_goes_chunk_by_chunk_with_rising_progress() {
    let tmp = tempfile::tempdir().unwrap();
    let (path, bytes) = pdf(tmp.path(), UPLOAD_CHUNK_BYTES as usize + 20);
    let file = wiki_pick::announce(&path).unwrap();
    let sink = Recording::answering([progress("uploading", 1, 2), progress("ready", 2, 2)]);
    let (answer, events) = run(&sink, &file).await;
    assert_eq!(answer.unwrap().state, "ready");
    assert_eq!(states(&events), [("uploading", 0), ("uploading", 1), ("ready", 2)]);
    assert_eq!(sink.indexes(), [0, 1]);
    let sent: Vec<u8> = sink.sent.lock().unwrap().iter().flat_map(|(_, b)| b.clone()).collect();
    assert_eq!(sink.sent.lock().unwrap()[0].1.len() as u64, UPLOAD_CHUNK_BYTES);
    assert!(sent == bytes, "the chunks are the file, in order");

    let failed = ChunkProgress { error: Some("malformed-pdf".into()), ..progress("failed", 2, 2).unwrap() };
    let sink = Recording::answering([progress("uploading", 1, 2), Ok(failed)]);
    let (answer, _) = run(&sink, &file).await;
    assert_eq!(answer.unwrap().error.as_deref(), Some("malformed-pdf"), "the server's reason");
}

#[tokio::test]
async fn a_file_changed_after_it_was_announced_fails_before_its_last_chunk_leaves() {
    let tmp = tempfile::tempdir().unwrap();
    let (path, mut bytes) = pdf(tmp.path(), UPLOAD_CHUNK_BYTES as usize + 20);
    let file = wiki_pick::announce(&path).unwrap();

    // The same size, other bytes in the second chunk: the first goes, the last never does.
    *bytes.last_mut().unwrap() ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let sink = Recording::answering([progress("uploading", 1, 2)]);
    let (answer, events) = run(&sink, &file).await;
    let answer = answer.unwrap();
    assert_eq!((answer.state.as_str(), answer.error.as_deref()), ("failed", Some(CHANGED)));
    assert_eq!(sink.indexes(), [0]);
    assert_eq!(events.last(), Some(&answer));

    // Another size: nothing is sent.
    bytes.push(b'\n');
    std::fs::write(&path, &bytes).unwrap();
    let sink = Recording::default();
    let (answer, _) = run(&sink, &file).await;
    assert_eq!(answer.unwrap().error.as_deref(), Some(CHANGED));
    assert_eq!(sink.indexes(), Vec::<u32>::new());

    // Moved away: nothing is sent.
    std::fs::rename(&path, tmp.path().join("moved.pdf")).unwrap();
    let (answer, _) = run(&sink, &file).await;
    assert_eq!(answer.unwrap().error.as_deref(), Some(CHANGED));
    assert!(sink.indexes().is_empty());
}

#[tokio::test]
async fn a_refused_chunk_fails_its_file_and_a_revocation_stops_the_upload() {
    let tmp = tempfile::tempdir().unwrap();
    let (path, _) = pdf(tmp.path(), 100);
    let file = wiki_pick::announce(&path).unwrap();
    let sink = Recording::answering([Err(BridgeError::Invalid("chunk checksum mismatch".into()))]);
    let (answer, _) = run(&sink, &file).await;
    let answer = answer.unwrap();
    assert_eq!(answer.state, "failed");
    assert!(answer.error.unwrap().contains("chunk checksum mismatch"));

    let sink = Recording::answering([Err(BridgeError::Locked(REVOKED.into()))]);
    let (answer, events) = run(&sink, &file).await;
    assert_eq!(answer, Err(BridgeError::Locked(REVOKED.into())));
    assert_eq!(events.last().map(|e| e.state.as_str()), Some("failed"), "the file is reported failed first");
    let json = serde_json::to_value(events.last().unwrap()).unwrap();
    assert_eq!(json["uploadId"], json!("up1"));
}
