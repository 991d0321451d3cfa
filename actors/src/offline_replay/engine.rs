//! One replay of the queue against the server, run as a future beside the actor: queued creates
//! first (each an ordinary create with its client-chosen id, so a retry after a crash finds its
//! own record), then updates and deletes in guarded batches of at most 100 changes and 3 MiB.
//! Store work goes back to the actor as messages (it alone owns the store). A confirmed refusal
//! marks the change for review; a 409 whose server copy already equals the change counts as
//! applied (the same change, confirmed before a crash); a 404 from the batch route stops with
//! "Update the Relay server" and keeps every change; any outcome the client cannot know
//! (network, timeout, 5xx) stops the replay and keeps the change queued as it was.

use actix::Addr;
use serde::Serialize;
use serde_json::{json, Map, Value};

use domain::offline::queue::MutationAction;
use infra::http::{CancellationToken, HttpError};
use infra::offline_store::PendingChange;
use infra::relay_client::{is_confirmed_refusal, ChangeAnswer, RelayClient};

use super::{OfflineReplayActor, ReplayProgress, Settle, Settlement, TakeReplayable};

/// Most changes per batch request (the route's limit).
pub const BATCH_CHANGES: usize = domain::offline::MAX_REPLAY_BATCH;
/// Largest batch body the client builds (the route accepts 4 MiB).
pub const BATCH_BYTES: usize = 3 * 1024 * 1024;

pub const OLD_SERVER: &str = "Update the Relay server before syncing offline changes. Your changes remain queued.";
pub const UNREACHABLE: &str = "The Relay server could not be reached; the changes remain queued.";
pub const CONFLICT: &str = "Server conflict";

/// What one replay did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplaySummary {
    pub total: usize,
    pub synced: usize,
    pub conflicts: usize,
    pub failed: usize,
    /// Why the replay stopped early (the changes not reached stay queued as they were).
    pub stopped: Option<String>,
}

enum Stop {
    OldServer,
    Unreachable,
    Store(String),
}

impl Stop {
    fn text(&self) -> String {
        match self {
            Stop::OldServer => OLD_SERVER.into(),
            Stop::Unreachable => UNREACHABLE.into(),
            Stop::Store(reason) => reason.clone(),
        }
    }
}

fn unknown_or_old(error: &HttpError) -> Stop {
    match error {
        HttpError::Status { status: 404, .. } => Stop::OldServer,
        _ => Stop::Unreachable,
    }
}

/// Whether every field the change writes already has that value on the server.
fn already_there(data: Option<&Map<String, Value>>, server: &Value) -> bool {
    data.is_some_and(|d| d.iter().all(|(k, v)| server.get(k) == Some(v)))
}

struct Run<'a> {
    actor: &'a Addr<OfflineReplayActor>,
    client: &'a RelayClient,
    token: &'a str,
    cancel: &'a CancellationToken,
    summary: ReplaySummary,
    done: usize,
}

impl Run<'_> {
    /// Settles `settled` in one commit, counts them and reports progress.
    async fn settle(&mut self, settled: Vec<(&PendingChange, Settlement)>) -> Result<(), Stop> {
        let mut items = Vec::with_capacity(settled.len());
        for (change, settlement) in settled {
            match &settlement {
                Settlement::Applied { .. } => self.summary.synced += 1,
                Settlement::Conflict => self.summary.conflicts += 1,
                Settlement::Failed { .. } => self.summary.failed += 1,
            }
            items.push((change.id, change.version, settlement));
        }
        let count = items.len();
        self.actor
            .send(Settle { items })
            .await
            .map_err(|_| Stop::Store("the offline store stopped".into()))?
            .map_err(Stop::Store)?;
        self.done += count;
        self.actor.do_send(ReplayProgress { done: self.done, total: self.summary.total });
        Ok(())
    }

    /// The server's copy when a refused change may in fact already be applied.
    async fn server_copy(&self, change: &PendingChange) -> Result<Option<Value>, Stop> {
        let read = self.client.get_record(self.token, &change.collection, &change.record_id, self.cancel).await;
        read.map_err(|e| unknown_or_old(&e)).map_err(|s| match s {
            Stop::OldServer => Stop::Unreachable,
            other => other,
        })
    }

    async fn create(&mut self, change: &PendingChange) -> Result<(), Stop> {
        let data = Value::Object(change.data.clone().unwrap_or_default());
        match self.client.create_record(self.token, &change.collection, &change.record_id, &data, self.cancel).await {
            Ok(record) => {
                infra::fault::fault_point("offline:replay:created");
                self.settle(vec![(change, Settlement::Applied { server: Some(record) })]).await
            }
            Err(e) => match is_confirmed_refusal(&e) {
                Some(_) => {
                    // A retried create finds its own record under its id.
                    let settlement = match self.server_copy(change).await? {
                        Some(server) if already_there(change.data.as_ref(), &server) => {
                            Settlement::Applied { server: Some(server) }
                        }
                        Some(_) => Settlement::Conflict,
                        None => Settlement::Failed { reason: "The server refused the new record.".into() },
                    };
                    self.settle(vec![(change, settlement)]).await
                }
                None => Err(Stop::Unreachable),
            },
        }
    }

    async fn batch(&mut self, changes: &[PendingChange]) -> Result<(), Stop> {
        let wire: Vec<Value> = changes.iter().map(wire_change).collect();
        let answers = self.client.replay_batch(self.token, &wire, self.cancel).await.map_err(|e| unknown_or_old(&e))?;
        infra::fault::fault_point("offline:replay:batch-answered");
        let mut settled = Vec::with_capacity(changes.len());
        for (change, answer) in changes.iter().zip(answers) {
            settled.push((change, self.settlement(change, &answer).await?));
        }
        self.settle(settled).await
    }

    async fn settlement(&self, change: &PendingChange, answer: &ChangeAnswer) -> Result<Settlement, Stop> {
        Ok(match answer.status {
            200 if answer.applied => Settlement::Applied { server: None },
            409 => match (change.action, self.server_copy(change).await?) {
                (MutationAction::Update, Some(server)) if already_there(change.data.as_ref(), &server) => {
                    Settlement::Applied { server: Some(server) }
                }
                _ => Settlement::Conflict,
            },
            _ => Settlement::Failed {
                reason: answer
                    .message
                    .clone()
                    .unwrap_or_else(|| format!("The server refused the change ({}).", answer.status)),
            },
        })
    }
}

/// The change as the guarded route takes it (update/delete only).
pub fn wire_change(change: &PendingChange) -> Value {
    let mut wire = json!({
        "collection": change.collection,
        "action": if change.action == MutationAction::Delete { "delete" } else { "update" },
        "recordId": change.record_id,
        "expectedUpdated": change.base_updated,
        "expectedFingerprint": change.expected_fingerprint,
    });
    if change.action != MutationAction::Delete {
        wire["data"] = Value::Object(change.data.clone().unwrap_or_default());
    }
    wire
}

/// Groups consecutive guarded changes into batches under both limits.
fn batches(changes: &[PendingChange]) -> Vec<&[PendingChange]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0usize, 0usize);
    for (i, change) in changes.iter().enumerate() {
        let size = wire_change(change).to_string().len();
        if i > start && (i - start >= BATCH_CHANGES || bytes + size > BATCH_BYTES) {
            out.push(&changes[start..i]);
            start = i;
            bytes = 0;
        }
        bytes += size;
    }
    if start < changes.len() {
        out.push(&changes[start..]);
    }
    out
}

/// Replays everything replayable now; never retries on its own.
pub async fn replay(
    actor: Addr<OfflineReplayActor>,
    client: RelayClient,
    token: String,
    cancel: CancellationToken,
) -> ReplaySummary {
    let pending = match actor.send(TakeReplayable).await {
        Ok(Ok(pending)) => pending,
        Ok(Err(reason)) => return ReplaySummary { stopped: Some(reason), ..Default::default() },
        Err(_) => return ReplaySummary { stopped: Some("the offline store stopped".into()), ..Default::default() },
    };
    let (creates, guarded): (Vec<PendingChange>, Vec<PendingChange>) =
        pending.into_iter().partition(|c| c.action == MutationAction::Create);
    let mut run = Run {
        actor: &actor,
        client: &client,
        token: &token,
        cancel: &cancel,
        summary: ReplaySummary { total: creates.len() + guarded.len(), ..Default::default() },
        done: 0,
    };
    actor.do_send(ReplayProgress { done: 0, total: run.summary.total });
    let mut outcome = Ok(());
    for change in &creates {
        outcome = run.create(change).await;
        if outcome.is_err() {
            break;
        }
    }
    if outcome.is_ok() {
        for batch in batches(&guarded) {
            outcome = run.batch(batch).await;
            if outcome.is_err() {
                break;
            }
        }
    }
    if let Err(stop) = outcome {
        run.summary.stopped = Some(stop.text());
    }
    run.summary
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(id: i64, action: MutationAction, note_len: usize) -> PendingChange {
        let mut data = Map::new();
        data.insert("note".into(), Value::String("x".repeat(note_len)));
        PendingChange {
            id,
            mutation_id: format!("m{id}"),
            collection: "notes".into(),
            record_id: format!("{id:015}"),
            action,
            data: (action != MutationAction::Delete).then_some(data),
            timestamp_ms: 0,
            base_updated: "2026-12-03 10:00:00.000Z".into(),
            expected_fingerprint: "0".repeat(64),
            version: 1,
            sync_error: String::new(),
        }
    }

    #[test]
    fn batches_respect_the_count_and_the_byte_limit() {
        let many: Vec<PendingChange> = (0..250).map(|i| change(i, MutationAction::Update, 10)).collect();
        let sizes: Vec<usize> = batches(&many).iter().map(|b| b.len()).collect();
        assert_eq!(sizes, vec![100, 100, 50]);
        let big: Vec<PendingChange> = (0..30).map(|i| change(i, MutationAction::Update, 200 * 1024)).collect();
        let sizes: Vec<usize> = batches(&big).iter().map(|b| b.len()).collect();
        assert!(sizes.iter().all(|&n| n * 200 * 1024 <= BATCH_BYTES), "{sizes:?}");
        assert_eq!(sizes.iter().sum::<usize>(), 30);
        assert!(batches(&[]).is_empty());
    }

    #[test]
    fn the_wire_form_is_what_the_guarded_route_takes() {
        let update = wire_change(&change(7, MutationAction::Update, 1));
        let parsed = domain::offline::replay::parse_replay_change(&update).unwrap();
        assert_eq!(parsed.record_id, "000000000000007");
        let delete = wire_change(&change(8, MutationAction::Delete, 1));
        assert!(delete.get("data").is_none());
        assert!(domain::offline::replay::parse_replay_change(&delete).is_ok());
    }

    #[test]
    fn a_change_is_already_there_only_when_every_field_matches() {
        let c = change(1, MutationAction::Update, 3);
        assert!(already_there(c.data.as_ref(), &json!({"note": "xxx", "other": 1})));
        assert!(!already_there(c.data.as_ref(), &json!({"note": "yyy"})));
        assert!(!already_there(None, &json!({})));
    }
}
