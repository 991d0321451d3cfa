//! The Wiki upload batch commands (`wiki.*` handlers the privileged pipeline runs): `wiki.upload.begin` opens the
//! caller's one active batch (bound to the account and, from a laptop, the device) with an upload
//! and chunk plan per announced PDF; `wiki.upload.status` answers the caller's batch; and
//! `wiki.upload.cancel` ends it and removes its staging after the commit. A batch past its
//! seven-day expiry is expired before a new one opens. Only announced facts are stored (through
//! `infra::wiki::uploads`): a file name that passed `domain::wiki::check_batch`, a size within
//! the limits, a checksum of 64 lowercase hex characters; never a path on the publisher's machine.

use diesel::sqlite::SqliteConnection;
use serde_json::{json, Value};

use domain::collections::WIKI_DOCUMENTS;
use domain::wiki::command::AnnouncedFile;
use domain::wiki::limits::{UPLOAD_CHUNK_BYTES, UPLOAD_RETENTION_MS};
use domain::wiki::{check_batch, is_sha256_hex, UploadPlan, UploadState};
use infra::store::get_in;
use infra::wiki::uploads::{self, BatchOwner, NewUpload, UploadSummary};

use super::error::CommandError;
use super::ops::{record_error, AfterCommit, Caller};

fn device_of<'a>(who: &Caller<'a>) -> &'a str {
    who.device_id.unwrap_or("")
}

fn batch_json(batch_id: &str, expires_at: i64, uploads: &[UploadSummary]) -> Value {
    let uploads: Vec<Value> = uploads
        .iter()
        .map(|u| {
            json!({"uploadId": u.id, "fileName": u.file_name, "byteSize": u.byte_size, "chunkSize": u.chunk_size,
                "chunkCount": u.chunk_count, "storedChunks": u.stored_chunks, "state": u.state,
                "error": if u.safe_error.is_empty() { Value::Null } else { Value::String(u.safe_error.clone()) }})
        })
        .collect();
    json!({"batchId": batch_id, "expiresAtMs": expires_at, "uploads": uploads})
}

/// `wiki.upload.begin`.
pub fn begin(
    conn: &mut SqliteConnection,
    who: Caller<'_>,
    files: &[AnnouncedFile],
    replacement: Option<&str>,
    now: i64,
) -> Result<Value, CommandError> {
    let names: Vec<&str> = files.iter().map(|f| f.file_name.as_str()).collect();
    check_batch(&names).map_err(|e| CommandError::Invalid(e.to_string()))?;
    let mut plans = Vec::with_capacity(files.len());
    for file in files {
        if !is_sha256_hex(&file.checksum) {
            return Err(CommandError::Invalid("each file needs its SHA-256 checksum (64 lowercase hex)".into()));
        }
        plans.push(UploadPlan::for_size(file.byte_size).map_err(|e| CommandError::Invalid(e.to_string()))?);
    }
    if let Some(document_id) = replacement {
        if files.len() != 1 {
            return Err(CommandError::Invalid("a replacement takes exactly one PDF".into()));
        }
        let document = get_in(conn, &WIKI_DOCUMENTS, document_id).map_err(record_error)?;
        if document.is_none_or(|d| d.get("lifecycleState").and_then(Value::as_str) != Some("active")) {
            return Err(CommandError::Invalid("only a published document can be replaced".into()));
        }
    }
    if let Some(batch) = uploads::active_batch(conn, who.account_id)? {
        if batch.expires_at > now {
            return Err(CommandError::Invalid("finish or cancel the upload batch in progress first".into()));
        }
        uploads::end_batch(conn, &batch.id, UploadState::Expired.as_str(), now)?;
    }
    let batch_id = infra::ids::record_id();
    let expires_at = now + UPLOAD_RETENTION_MS;
    let new: Vec<NewUpload<'_>> = files
        .iter()
        .zip(&plans)
        .map(|(file, plan)| NewUpload {
            id: infra::ids::record_id(),
            file_name: &file.file_name,
            byte_size: plan.byte_size(),
            checksum: &file.checksum,
            chunk_size: UPLOAD_CHUNK_BYTES,
            chunk_count: plan.chunk_count(),
        })
        .collect();
    let owner = BatchOwner { account_id: who.account_id, device_id: device_of(&who), actor_name: who.display_name };
    uploads::insert_batch(conn, &batch_id, owner, &new, replacement.unwrap_or(""), now, expires_at)?;
    Ok(batch_json(&batch_id, expires_at, &uploads::batch_uploads(conn, &batch_id)?))
}

/// `wiki.upload.status`: the caller's active batch (`{"batchId": null}` when none).
pub fn status(conn: &mut SqliteConnection, who: Caller<'_>, now: i64) -> Result<Value, CommandError> {
    match uploads::active_batch(conn, who.account_id)? {
        Some(batch) if batch.expires_at > now => {
            Ok(batch_json(&batch.id, batch.expires_at, &uploads::batch_uploads(conn, &batch.id)?))
        }
        _ => Ok(json!({"batchId": null, "uploads": []})),
    }
}

/// `wiki.upload.cancel`: only the caller's own active batch.
pub fn cancel(
    conn: &mut SqliteConnection,
    work: &mut Vec<AfterCommit>,
    who: Caller<'_>,
    batch_id: &str,
    now: i64,
) -> Result<Value, CommandError> {
    let batch = uploads::active_batch(conn, who.account_id)?.filter(|b| b.id == batch_id);
    let batch = batch.ok_or_else(|| CommandError::Invalid("no such upload batch in progress".into()))?;
    let uploads = uploads::batch_uploads(conn, &batch.id)?;
    uploads::end_batch(conn, &batch.id, UploadState::Cancelled.as_str(), now)?;
    for upload in &uploads {
        work.push(AfterCommit::RemoveStaging(upload.id.clone()));
    }
    Ok(json!({"batchId": batch.id, "cancelled": uploads.len()}))
}
