//! The Wiki upload batch commands inside the privileged pipeline: `wiki.upload.begin` opens the
//! caller's one active batch (bound to the account and, from a laptop, the device) with an upload
//! and chunk plan per announced PDF; `wiki.upload.status` answers the caller's batch; and
//! `wiki.upload.cancel` ends it and removes its staging after the commit. A batch past its
//! seven-day expiry is expired before a new one opens. Only announced facts are stored here:
//! a file name that passed `domain::wiki::check_batch`, a size within the limits, a checksum of
//! 64 lowercase hex characters; never a path on the publisher's machine.

use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};
use serde_json::{json, Value};

use domain::collections::WIKI_DOCUMENTS;
use domain::wiki::command::AnnouncedFile;
use domain::wiki::limits::UPLOAD_RETENTION_MS;
use domain::wiki::{check_batch, is_sha256_hex, UploadPlan, UploadState};
use infra::store::get_in;

use super::error::PrivError;
use super::service::Principal;
use super::wiki_ops::{record_error, AfterCommit, WikiHooks};

#[derive(QueryableByName)]
struct BatchRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = BigInt)]
    expires_at: i64,
}

#[derive(QueryableByName)]
struct UploadRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    file_name: String,
    #[diesel(sql_type = BigInt)]
    byte_size: i64,
    #[diesel(sql_type = BigInt)]
    chunk_size: i64,
    #[diesel(sql_type = BigInt)]
    chunk_count: i64,
    #[diesel(sql_type = Text)]
    state: String,
    #[diesel(sql_type = Text)]
    safe_error: String,
    #[diesel(sql_type = BigInt)]
    stored_chunks: i64,
}

fn device_of(who: &Principal) -> &str {
    who.device_id.as_deref().unwrap_or("")
}

/// The caller's active batch, if any.
fn active_batch(conn: &mut SqliteConnection, who: &Principal) -> Result<Option<BatchRow>, PrivError> {
    let rows: Vec<BatchRow> = diesel::sql_query(
        "SELECT id, expiresAt AS expires_at FROM relay_wiki_upload_batches WHERE accountId = ? AND state = 'active'",
    )
    .bind::<Text, _>(&who.account.id)
    .load(conn)?;
    Ok(rows.into_iter().next())
}

fn uploads_of(conn: &mut SqliteConnection, batch_id: &str) -> Result<Vec<UploadRow>, PrivError> {
    Ok(diesel::sql_query(
        "SELECT u.id, u.fileName AS file_name, u.byteSize AS byte_size, u.chunkSize AS chunk_size, \
         u.chunkCount AS chunk_count, u.state, u.safeError AS safe_error, \
         (SELECT COUNT(*) FROM relay_wiki_upload_chunks c WHERE c.uploadId = u.id) AS stored_chunks \
         FROM relay_wiki_uploads u WHERE u.batchId = ? ORDER BY u.position",
    )
    .bind::<Text, _>(batch_id)
    .load(conn)?)
}

/// Ends a batch (`cancelled` or `expired`) with every unfinished upload in it.
fn end_batch(conn: &mut SqliteConnection, batch_id: &str, state: UploadState, now: i64) -> Result<(), PrivError> {
    diesel::sql_query("UPDATE relay_wiki_upload_batches SET state = ?, lastActivityAt = ? WHERE id = ?")
        .bind::<Text, _>(state.as_str())
        .bind::<BigInt, _>(now)
        .bind::<Text, _>(batch_id)
        .execute(conn)?;
    diesel::sql_query(
        "UPDATE relay_wiki_uploads SET state = ?, lastActivityAt = ? WHERE batchId = ? AND state NOT IN ('published')",
    )
    .bind::<Text, _>(state.as_str())
    .bind::<BigInt, _>(now)
    .bind::<Text, _>(batch_id)
    .execute(conn)?;
    Ok(())
}

fn batch_json(batch_id: &str, expires_at: i64, uploads: &[UploadRow]) -> Value {
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
    who: &Principal,
    files: &[AnnouncedFile],
    replacement: Option<&str>,
    now: i64,
) -> Result<Value, PrivError> {
    let names: Vec<&str> = files.iter().map(|f| f.file_name.as_str()).collect();
    check_batch(&names).map_err(|e| PrivError::Invalid(e.to_string()))?;
    let mut plans = Vec::with_capacity(files.len());
    for file in files {
        if !is_sha256_hex(&file.checksum) {
            return Err(PrivError::Invalid("each file needs its SHA-256 checksum (64 lowercase hex)".into()));
        }
        plans.push(UploadPlan::for_size(file.byte_size).map_err(|e| PrivError::Invalid(e.to_string()))?);
    }
    if let Some(document_id) = replacement {
        if files.len() != 1 {
            return Err(PrivError::Invalid("a replacement takes exactly one PDF".into()));
        }
        let document = get_in(conn, &WIKI_DOCUMENTS, document_id).map_err(record_error)?;
        if document.is_none_or(|d| d.get("lifecycleState").and_then(Value::as_str) != Some("active")) {
            return Err(PrivError::Invalid("only a published document can be replaced".into()));
        }
    }
    if let Some(batch) = active_batch(conn, who)? {
        if batch.expires_at > now {
            return Err(PrivError::Invalid("finish or cancel the upload batch in progress first".into()));
        }
        end_batch(conn, &batch.id, UploadState::Expired, now)?;
    }
    let batch_id = infra::ids::record_id();
    let expires_at = now + UPLOAD_RETENTION_MS;
    let total: u64 = files.iter().map(|f| f.byte_size).sum();
    diesel::sql_query(
        "INSERT INTO relay_wiki_upload_batches (id, accountId, deviceId, actorName, fileCount, totalBytes, state, \
         createdAt, lastActivityAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)",
    )
    .bind::<Text, _>(&batch_id)
    .bind::<Text, _>(&who.account.id)
    .bind::<Text, _>(device_of(who))
    .bind::<Text, _>(&who.account.display_name)
    .bind::<BigInt, _>(files.len() as i64)
    .bind::<BigInt, _>(total as i64)
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(expires_at)
    .execute(conn)?;
    for (position, (file, plan)) in files.iter().zip(&plans).enumerate() {
        diesel::sql_query(
            "INSERT INTO relay_wiki_uploads (id, batchId, accountId, deviceId, position, fileName, byteSize, checksum, \
             chunkSize, chunkCount, replacementDocumentId, state, lastActivityAt, expiresAt) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind::<Text, _>(infra::ids::record_id())
        .bind::<Text, _>(&batch_id)
        .bind::<Text, _>(&who.account.id)
        .bind::<Text, _>(device_of(who))
        .bind::<BigInt, _>(position as i64)
        .bind::<Text, _>(&file.file_name)
        .bind::<BigInt, _>(plan.byte_size() as i64)
        .bind::<Text, _>(&file.checksum)
        .bind::<BigInt, _>(domain::wiki::limits::UPLOAD_CHUNK_BYTES as i64)
        .bind::<BigInt, _>(i64::from(plan.chunk_count()))
        .bind::<Text, _>(replacement.unwrap_or(""))
        .bind::<Text, _>(UploadState::Queued.as_str())
        .bind::<BigInt, _>(now)
        .bind::<BigInt, _>(expires_at)
        .execute(conn)?;
    }
    Ok(batch_json(&batch_id, expires_at, &uploads_of(conn, &batch_id)?))
}

/// `wiki.upload.status`: the caller's active batch (`{"batchId": null}` when none).
pub fn status(conn: &mut SqliteConnection, who: &Principal, now: i64) -> Result<Value, PrivError> {
    match active_batch(conn, who)? {
        Some(batch) if batch.expires_at > now => {
            Ok(batch_json(&batch.id, batch.expires_at, &uploads_of(conn, &batch.id)?))
        }
        _ => Ok(json!({"batchId": null, "uploads": []})),
    }
}

/// `wiki.upload.cancel`: only the caller's own active batch.
pub fn cancel(
    conn: &mut SqliteConnection,
    hooks: &WikiHooks,
    who: &Principal,
    batch_id: &str,
    now: i64,
) -> Result<Value, PrivError> {
    let batch = active_batch(conn, who)?.filter(|b| b.id == batch_id);
    let batch = batch.ok_or_else(|| PrivError::Invalid("no such upload batch in progress".into()))?;
    let uploads = uploads_of(conn, &batch.id)?;
    end_batch(conn, &batch.id, UploadState::Cancelled, now)?;
    for upload in &uploads {
        hooks.defer(AfterCommit::RemoveStaging(upload.id.clone()));
    }
    Ok(json!({"batchId": batch.id, "cancelled": uploads.len()}))
}
