//! The upload rows of the Wiki (`relay_wiki_upload_batches`, `relay_wiki_uploads`,
//! `relay_wiki_upload_chunks`): reading an upload with its batch (the binding every chunk is
//! checked against), recording a stored chunk, moving an upload to a new state with a fixed
//! safe error text, storing what extraction found, and listing what expired. Every statement
//! binds its values; nothing here decides whether a chunk or a transition is allowed
//! (`domain::wiki` does), and the chunk bytes themselves are files ([`super::files`]).

use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};

/// One upload with its batch, as stored.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct StoredUpload {
    #[diesel(sql_type = Text)]
    pub id: String,
    #[diesel(sql_type = Text, column_name = "batchId")]
    pub batch_id: String,
    #[diesel(sql_type = Text, column_name = "accountId")]
    pub account_id: String,
    #[diesel(sql_type = Text, column_name = "deviceId")]
    pub device_id: String,
    #[diesel(sql_type = Text, column_name = "fileName")]
    pub file_name: String,
    #[diesel(sql_type = BigInt, column_name = "byteSize")]
    pub byte_size: i64,
    #[diesel(sql_type = Text)]
    pub checksum: String,
    #[diesel(sql_type = BigInt, column_name = "chunkSize")]
    pub chunk_size: i64,
    #[diesel(sql_type = BigInt, column_name = "chunkCount")]
    pub chunk_count: i64,
    #[diesel(sql_type = Text, column_name = "replacementDocumentId")]
    pub replacement_document_id: String,
    #[diesel(sql_type = Text)]
    pub state: String,
    #[diesel(sql_type = BigInt, column_name = "pageCount")]
    pub page_count: i64,
    #[diesel(sql_type = Text)]
    pub outline: String,
    #[diesel(sql_type = Text, column_name = "coverChecksum")]
    pub cover_checksum: String,
    #[diesel(sql_type = BigInt, column_name = "expiresAt")]
    pub expires_at: i64,
    #[diesel(sql_type = Text, column_name = "batchState")]
    pub batch_state: String,
}

const SELECT_UPLOAD: &str = "SELECT u.id, u.batchId, u.accountId, u.deviceId, u.fileName, u.byteSize, u.checksum, \
     u.chunkSize, u.chunkCount, u.replacementDocumentId, u.state, u.pageCount, u.outline, u.coverChecksum, \
     u.expiresAt, b.state AS batchState FROM relay_wiki_uploads u JOIN relay_wiki_upload_batches b ON b.id = u.batchId";

/// The upload `id` with its batch's state, if it exists.
pub fn load_upload(conn: &mut SqliteConnection, id: &str) -> diesel::QueryResult<Option<StoredUpload>> {
    let rows: Vec<StoredUpload> =
        diesel::sql_query(format!("{SELECT_UPLOAD} WHERE u.id = ?")).bind::<Text, _>(id).load(conn)?;
    Ok(rows.into_iter().next())
}

#[derive(QueryableByName)]
struct ChunkRow {
    #[diesel(sql_type = BigInt, column_name = "chunkIndex")]
    index: i64,
    #[diesel(sql_type = BigInt, column_name = "byteSize")]
    byte_size: i64,
}

/// Records (or re-records, after a resend) that chunk `index` of `upload_id` is stored.
pub fn record_chunk(
    conn: &mut SqliteConnection,
    upload_id: &str,
    index: u32,
    byte_size: u64,
    checksum: &str,
    now: i64,
) -> diesel::QueryResult<()> {
    diesel::sql_query(
        "INSERT OR REPLACE INTO relay_wiki_upload_chunks (uploadId, chunkIndex, byteSize, checksum, storedAt) \
         VALUES (?, ?, ?, ?, ?)",
    )
    .bind::<Text, _>(upload_id)
    .bind::<BigInt, _>(i64::from(index))
    .bind::<BigInt, _>(byte_size as i64)
    .bind::<Text, _>(checksum)
    .bind::<BigInt, _>(now)
    .execute(conn)?;
    diesel::sql_query("UPDATE relay_wiki_uploads SET lastActivityAt = ? WHERE id = ?")
        .bind::<BigInt, _>(now)
        .bind::<Text, _>(upload_id)
        .execute(conn)?;
    Ok(())
}

/// The sizes of the stored chunks of `upload_id`, by index (`None` where one is missing).
pub fn stored_chunk_sizes(
    conn: &mut SqliteConnection,
    upload_id: &str,
    chunk_count: u32,
) -> diesel::QueryResult<Vec<Option<u64>>> {
    let rows: Vec<ChunkRow> = diesel::sql_query(
        "SELECT chunkIndex, byteSize FROM relay_wiki_upload_chunks WHERE uploadId = ? ORDER BY chunkIndex",
    )
    .bind::<Text, _>(upload_id)
    .load(conn)?;
    let mut sizes = vec![None; chunk_count as usize];
    for row in rows {
        if let Some(slot) = usize::try_from(row.index).ok().and_then(|i| sizes.get_mut(i)) {
            *slot = Some(row.byte_size as u64);
        }
    }
    Ok(sizes)
}

/// Moves an upload to `state` (with a fixed, safe error text or empty).
pub fn set_state(
    conn: &mut SqliteConnection,
    upload_id: &str,
    state: &str,
    safe_error: &str,
    now: i64,
) -> diesel::QueryResult<()> {
    diesel::sql_query("UPDATE relay_wiki_uploads SET state = ?, safeError = ?, lastActivityAt = ? WHERE id = ?")
        .bind::<Text, _>(state)
        .bind::<Text, _>(safe_error)
        .bind::<BigInt, _>(now)
        .bind::<Text, _>(upload_id)
        .execute(conn)?;
    Ok(())
}

/// Stores what extraction found and marks the upload ready for review.
pub fn set_extracted(
    conn: &mut SqliteConnection,
    upload_id: &str,
    page_count: u32,
    outline_json: &str,
    cover_checksum: &str,
    now: i64,
) -> diesel::QueryResult<()> {
    diesel::sql_query(
        "UPDATE relay_wiki_uploads SET state = 'ready', safeError = '', pageCount = ?, outline = ?, \
         coverChecksum = ?, lastActivityAt = ? WHERE id = ?",
    )
    .bind::<BigInt, _>(i64::from(page_count))
    .bind::<Text, _>(outline_json)
    .bind::<Text, _>(cover_checksum)
    .bind::<BigInt, _>(now)
    .bind::<Text, _>(upload_id)
    .execute(conn)?;
    Ok(())
}

/// Marks an upload published as `document_id`.
pub fn set_published(
    conn: &mut SqliteConnection,
    upload_id: &str,
    document_id: &str,
    now: i64,
) -> diesel::QueryResult<()> {
    diesel::sql_query(
        "UPDATE relay_wiki_uploads SET state = 'published', publishedDocumentId = ?, lastActivityAt = ? WHERE id = ?",
    )
    .bind::<Text, _>(document_id)
    .bind::<BigInt, _>(now)
    .bind::<Text, _>(upload_id)
    .execute(conn)?;
    // A batch whose every upload is finished is complete.
    diesel::sql_query(
        "UPDATE relay_wiki_upload_batches SET state = 'completed', lastActivityAt = ? WHERE state = 'active' \
         AND id = (SELECT batchId FROM relay_wiki_uploads WHERE id = ?) AND NOT EXISTS (SELECT 1 FROM \
         relay_wiki_uploads WHERE batchId = relay_wiki_upload_batches.id AND state NOT IN ('published', 'failed', 'cancelled'))",
    )
    .bind::<BigInt, _>(now)
    .bind::<Text, _>(upload_id)
    .execute(conn)?;
    Ok(())
}

#[derive(QueryableByName)]
struct IdRow {
    #[diesel(sql_type = Text)]
    id: String,
}

/// Expires every active batch past its expiry (with its unfinished uploads) and returns the
/// ids of the uploads whose staging may go.
pub fn expire_batches(conn: &mut SqliteConnection, now: i64) -> diesel::QueryResult<Vec<String>> {
    let uploads: Vec<IdRow> = diesel::sql_query(
        "SELECT u.id FROM relay_wiki_uploads u JOIN relay_wiki_upload_batches b ON b.id = u.batchId \
         WHERE b.state = 'active' AND b.expiresAt <= ?",
    )
    .bind::<BigInt, _>(now)
    .load(conn)?;
    diesel::sql_query(
        "UPDATE relay_wiki_uploads SET state = 'expired', lastActivityAt = ? WHERE state NOT IN ('published') \
         AND batchId IN (SELECT id FROM relay_wiki_upload_batches WHERE state = 'active' AND expiresAt <= ?)",
    )
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(now)
    .execute(conn)?;
    diesel::sql_query(
        "UPDATE relay_wiki_upload_batches SET state = 'expired', lastActivityAt = ? WHERE state = 'active' AND expiresAt <= ?",
    )
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(now)
    .execute(conn)?;
    Ok(uploads.into_iter().map(|r| r.id).collect())
}

/// Upload ids whose staging is still wanted: unfinished ones, and ones published within the
/// last hour (their pages wait for indexing).
pub fn live_upload_ids(conn: &mut SqliteConnection, now: i64) -> diesel::QueryResult<Vec<String>> {
    let rows: Vec<IdRow> = diesel::sql_query(
        "SELECT id FROM relay_wiki_uploads WHERE state IN ('queued', 'uploading', 'assembling', 'extracting', 'ready') \
         OR (state = 'published' AND lastActivityAt > ?)",
    )
    .bind::<BigInt, _>(now - 3_600_000)
    .load(conn)?;
    Ok(rows.into_iter().map(|r| r.id).collect())
}

/// A batch as stored: its id and expiry.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct BatchRow {
    #[diesel(sql_type = Text)]
    pub id: String,
    #[diesel(sql_type = BigInt, column_name = "expiresAt")]
    pub expires_at: i64,
}

/// An upload of a batch with how many of its chunks are stored.
#[derive(Debug, Clone, PartialEq, Eq, QueryableByName)]
pub struct UploadSummary {
    #[diesel(sql_type = Text)]
    pub id: String,
    #[diesel(sql_type = Text, column_name = "fileName")]
    pub file_name: String,
    #[diesel(sql_type = BigInt, column_name = "byteSize")]
    pub byte_size: i64,
    #[diesel(sql_type = BigInt, column_name = "chunkSize")]
    pub chunk_size: i64,
    #[diesel(sql_type = BigInt, column_name = "chunkCount")]
    pub chunk_count: i64,
    #[diesel(sql_type = Text)]
    pub state: String,
    #[diesel(sql_type = Text, column_name = "safeError")]
    pub safe_error: String,
    #[diesel(sql_type = BigInt, column_name = "storedChunks")]
    pub stored_chunks: i64,
}

/// The active batch of `account_id`, if any (expired or not).
pub fn active_batch(conn: &mut SqliteConnection, account_id: &str) -> diesel::QueryResult<Option<BatchRow>> {
    let rows: Vec<BatchRow> = diesel::sql_query(
        "SELECT id, expiresAt FROM relay_wiki_upload_batches WHERE accountId = ? AND state = 'active'",
    )
    .bind::<Text, _>(account_id)
    .load(conn)?;
    Ok(rows.into_iter().next())
}

/// The uploads of `batch_id` in their announced order.
pub fn batch_uploads(conn: &mut SqliteConnection, batch_id: &str) -> diesel::QueryResult<Vec<UploadSummary>> {
    diesel::sql_query(
        "SELECT u.id, u.fileName, u.byteSize, u.chunkSize, u.chunkCount, u.state, u.safeError, \
         (SELECT COUNT(*) FROM relay_wiki_upload_chunks c WHERE c.uploadId = u.id) AS storedChunks \
         FROM relay_wiki_uploads u WHERE u.batchId = ? ORDER BY u.position",
    )
    .bind::<Text, _>(batch_id)
    .load(conn)
}

/// Ends a batch (`cancelled` or `expired`) with every upload in it that was not published.
pub fn end_batch(conn: &mut SqliteConnection, batch_id: &str, state: &str, now: i64) -> diesel::QueryResult<()> {
    diesel::sql_query("UPDATE relay_wiki_upload_batches SET state = ?, lastActivityAt = ? WHERE id = ?")
        .bind::<Text, _>(state)
        .bind::<BigInt, _>(now)
        .bind::<Text, _>(batch_id)
        .execute(conn)?;
    diesel::sql_query(
        "UPDATE relay_wiki_uploads SET state = ?, lastActivityAt = ? WHERE batchId = ? AND state NOT IN ('published')",
    )
    .bind::<Text, _>(state)
    .bind::<BigInt, _>(now)
    .bind::<Text, _>(batch_id)
    .execute(conn)?;
    Ok(())
}

/// Who opens a batch.
#[derive(Debug, Clone, Copy)]
pub struct BatchOwner<'a> {
    pub account_id: &'a str,
    pub device_id: &'a str,
    pub actor_name: &'a str,
}

/// One upload a new batch holds (already checked by `domain::wiki`).
#[derive(Debug, Clone)]
pub struct NewUpload<'a> {
    pub id: String,
    pub file_name: &'a str,
    pub byte_size: u64,
    pub checksum: &'a str,
    pub chunk_size: u64,
    pub chunk_count: u32,
}

/// Inserts an active batch with its queued uploads.
pub fn insert_batch(
    conn: &mut SqliteConnection,
    batch_id: &str,
    owner: BatchOwner<'_>,
    uploads: &[NewUpload<'_>],
    replacement_document_id: &str,
    now: i64,
    expires_at: i64,
) -> diesel::QueryResult<()> {
    let total: u64 = uploads.iter().map(|u| u.byte_size).sum();
    diesel::sql_query(
        "INSERT INTO relay_wiki_upload_batches (id, accountId, deviceId, actorName, fileCount, totalBytes, state, \
         createdAt, lastActivityAt, expiresAt) VALUES (?, ?, ?, ?, ?, ?, 'active', ?, ?, ?)",
    )
    .bind::<Text, _>(batch_id)
    .bind::<Text, _>(owner.account_id)
    .bind::<Text, _>(owner.device_id)
    .bind::<Text, _>(owner.actor_name)
    .bind::<BigInt, _>(uploads.len() as i64)
    .bind::<BigInt, _>(total as i64)
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(now)
    .bind::<BigInt, _>(expires_at)
    .execute(conn)?;
    for (position, upload) in uploads.iter().enumerate() {
        diesel::sql_query(
            "INSERT INTO relay_wiki_uploads (id, batchId, accountId, deviceId, position, fileName, byteSize, checksum, \
             chunkSize, chunkCount, replacementDocumentId, state, lastActivityAt, expiresAt) \
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)",
        )
        .bind::<Text, _>(&upload.id)
        .bind::<Text, _>(batch_id)
        .bind::<Text, _>(owner.account_id)
        .bind::<Text, _>(owner.device_id)
        .bind::<BigInt, _>(position as i64)
        .bind::<Text, _>(upload.file_name)
        .bind::<BigInt, _>(upload.byte_size as i64)
        .bind::<Text, _>(upload.checksum)
        .bind::<BigInt, _>(upload.chunk_size as i64)
        .bind::<BigInt, _>(i64::from(upload.chunk_count))
        .bind::<Text, _>(replacement_document_id)
        .bind::<BigInt, _>(now)
        .bind::<BigInt, _>(expires_at)
        .execute(conn)?;
    }
    Ok(())
}
