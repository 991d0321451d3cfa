//! The store's guarded-write messages: offline replay (one change or a batch of up to 100, each
//! guarded on its own) and a Servers sync batch (all-or-nothing). Both are parsed and validated
//! here against the domain rules, applied by the single writer thread in one transaction, and
//! published to realtime in commit order like every other write.

use actix::prelude::*;
use serde::Serialize;
use serde_json::Value;

use domain::collections::{CONFLICT_LOG, SERVERS};
use domain::offline::record_fingerprint;
use domain::offline::replay::{parse_replay_change, ReplayError};
use domain::offline::servers_sync::{parse_sync_batch, SyncError, SyncOperation};
use domain::record::{Action, RecordError};
use domain::validation::{validate_write, WriteMode};
use infra::store::{PreparedReplay, PreparedSync, ReplayOutcome};

use super::executor::StoreExecutor;

/// Replays queued offline changes (each a JSON object as the client sent it); one result per
/// change, in order. The outer error is a store failure that touched nothing.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Vec<Result<(), ReplayError>>, RecordError>")]
pub struct ReplayOfflineChanges {
    pub changes: Vec<Value>,
}

/// Applies one Servers sync batch (`{operations: [...]}`).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Vec<SyncWritten>, SyncError>")]
pub struct SyncServers {
    pub body: Value,
}

/// One operation's answer, PocketBase batch style: `{status: 200, body: record}` for saves and
/// `{status: 204, body: null}` for removals.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SyncWritten {
    pub status: u16,
    pub body: Value,
}

fn prepare_change(raw: &Value) -> Result<PreparedReplay, ReplayError> {
    let change = parse_replay_change(raw)?;
    let write = match &change.data {
        Some(data) => Some(validate_write(change.spec, data, WriteMode::Update)?),
        None => None,
    };
    Ok(PreparedReplay { change, write })
}

fn prepare_operation(index: usize, op: SyncOperation) -> Result<PreparedSync, SyncError> {
    let validate =
        |data: &Value, mode| validate_write(&SERVERS, data, mode).map_err(|e| SyncError::from_record(index, e));
    let fingerprint = |expected: &Value| {
        record_fingerprint(expected).map_err(|_| SyncError::Invalid("`expected` is not a record this server wrote"))
    };
    Ok(match op {
        SyncOperation::Create { data } => PreparedSync::Create { write: validate(&data, WriteMode::Create)? },
        SyncOperation::Update { record_id, expected, data } => PreparedSync::Update {
            expected_fingerprint: fingerprint(&expected)?,
            write: validate(&data, WriteMode::Update)?,
            record_id,
        },
        SyncOperation::Delete { record_id, expected } => {
            PreparedSync::Delete { expected_fingerprint: fingerprint(&expected)?, record_id }
        }
    })
}

impl Handler<ReplayOfflineChanges> for StoreExecutor {
    type Result = Result<Vec<Result<(), ReplayError>>, RecordError>;
    fn handle(&mut self, msg: ReplayOfflineChanges, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let mut results: Vec<Result<(), ReplayError>> = Vec::with_capacity(msg.changes.len());
            let mut prepared = Vec::new();
            for raw in &msg.changes {
                match prepare_change(raw) {
                    Ok(p) => {
                        prepared.push(p);
                        results.push(Ok(()));
                    }
                    Err(e) => results.push(Err(e)),
                }
            }
            let outcomes = s.store.replay_offline(&prepared, s.subsystem.now_ms())?;
            let mut outcomes = prepared.iter().zip(outcomes);
            let (mut applied, mut conflicts) = (0usize, 0usize);
            for slot in results.iter_mut().filter(|r| r.is_ok()) {
                let Some((p, outcome)) = outcomes.next() else { break };
                *slot = match outcome {
                    ReplayOutcome::Updated(record) => {
                        s.publish(p.change.spec, Action::Update, &record);
                        applied += 1;
                        Ok(())
                    }
                    ReplayOutcome::Deleted(record) => {
                        s.publish(p.change.spec, Action::Delete, &record);
                        applied += 1;
                        Ok(())
                    }
                    ReplayOutcome::AlreadyDeleted => Ok(()),
                    ReplayOutcome::Conflict { log } => {
                        if let Some(log) = log {
                            s.publish(&CONFLICT_LOG, Action::Create, &log);
                        }
                        conflicts += 1;
                        Err(ReplayError::Conflict)
                    }
                    ReplayOutcome::Failed(e) => Err(ReplayError::from(e)),
                };
            }
            tracing::info!(changes = msg.changes.len(), applied, conflicts, "offline changes replayed");
            Ok(results)
        })
    }
}

impl Handler<SyncServers> for StoreExecutor {
    type Result = Result<Vec<SyncWritten>, SyncError>;
    fn handle(&mut self, msg: SyncServers, _: &mut SyncContext<Self>) -> Self::Result {
        let outcome = self.run(|s| {
            let prepared: Vec<PreparedSync> = match parse_sync_batch(&msg.body)
                .and_then(|ops| ops.into_iter().enumerate().map(|(i, op)| prepare_operation(i, op)).collect())
            {
                Ok(prepared) => prepared,
                Err(refusal) => return Ok(Err(refusal)),
            };
            let written = match s.store.sync_servers(&prepared, s.subsystem.now_ms()) {
                Ok(written) => written,
                Err(refusal) => return Ok(Err(refusal)),
            };
            let mut answers = Vec::with_capacity(written.len());
            for (action, record) in written {
                s.publish(&SERVERS, action, &record);
                answers.push(match action {
                    Action::Delete => SyncWritten { status: 204, body: Value::Null },
                    _ => SyncWritten { status: 200, body: record },
                });
            }
            tracing::info!(operations = answers.len(), "servers sync batch applied");
            Ok(Ok(answers))
        });
        outcome.map_err(SyncError::Store).and_then(|r| r)
    }
}
