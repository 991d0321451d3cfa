//! Publishing (`wiki.*` handlers the privileged pipeline runs): `wiki.publish` turns the caller's own ready upload
//! into a new active document, and `wiki.replace` makes it the new PDF of an existing document
//! (which keeps its id, source identity, title and authored file name). Both check the upload
//! against the stored records (owner account, state `ready`, an unexpired batch, the
//! replacement target it was opened for), move the verified PDF into the content-addressed
//! library, and, after the commit, ask the wiki actor to index the document's passages (which
//! then removes the staging). A file name already used by another active document is refused.

use diesel::sqlite::SqliteConnection;
use serde_json::{json, Value};

use domain::collections::WIKI_DOCUMENTS;
use domain::record::{Action, RecordError};
use infra::store::{create_in, update_in};
use infra::wiki::uploads::{self, StoredUpload};

use infra::wiki::files::WikiFiles;

use super::error::CommandError;
use super::ops::{changed, checked_title, checked_type, promote, record_error, release_files, AfterCommit, Caller};

/// The caller's ready upload, opened for `replacing` (or for a new document when empty).
fn ready_upload(
    conn: &mut SqliteConnection,
    who: Caller<'_>,
    upload_id: &str,
    replacing: &str,
    now: i64,
) -> Result<StoredUpload, CommandError> {
    let upload = uploads::load_upload(conn, upload_id)?.filter(|u| u.account_id == who.account_id);
    let upload = upload.ok_or_else(|| CommandError::Invalid("no such upload of yours".into()))?;
    if upload.state != "ready" || upload.batch_state != "active" || upload.expires_at <= now {
        return Err(CommandError::Invalid("the upload is not ready for review".into()));
    }
    if upload.replacement_document_id != replacing {
        return Err(CommandError::Invalid("the upload was not opened for this document".into()));
    }
    Ok(upload)
}

fn name_taken(e: RecordError) -> CommandError {
    match e {
        RecordError::Validation(_) => CommandError::Invalid("a published document already has this file name".into()),
        other => record_error(other),
    }
}

fn outline_of(upload: &StoredUpload) -> Value {
    serde_json::from_str(&upload.outline).unwrap_or_else(|_| json!([]))
}

/// `wiki.publish`.
#[allow(clippy::too_many_arguments)]
pub fn publish(
    conn: &mut SqliteConnection,
    files: &WikiFiles,
    work: &mut Vec<AfterCommit>,
    who: Caller<'_>,
    upload_id: &str,
    title: &str,
    category_id: &str,
    document_type: &str,
    now: i64,
) -> Result<Value, CommandError> {
    let upload = ready_upload(conn, who, upload_id, "", now)?;
    let title = checked_title(title)?;
    let kind = checked_type(document_type)?;
    super::ops::category_exists(conn, category_id)?;
    promote(files, &upload.id, &upload.checksum)?;
    let body = json!({
        "sourceKey": format!("managed:{}", infra::ids::record_id()),
        "categoryId": category_id, "documentType": kind.as_str(), "title": title, "fileName": upload.file_name,
        "checksum": upload.checksum, "byteSize": upload.byte_size, "pageCount": upload.page_count,
        "outline": outline_of(&upload), "coverChecksum": upload.cover_checksum, "lifecycleState": "active",
        "publishedByAccountId": who.account_id, "publishedByName": who.display_name,
        "publishedAt": domain::time::format_ms(now), "searchIndexState": "pending",
    });
    let document = create_in(conn, &WIKI_DOCUMENTS, &body, now).map_err(name_taken)?;
    let document_id = document["id"].as_str().unwrap_or_default().to_string();
    uploads::set_published(conn, &upload.id, &document_id, now)?;
    work.push(changed(&WIKI_DOCUMENTS, Action::Create, &document));
    work.push(AfterCommit::Index { document_id, upload_id: upload.id });
    Ok(document)
}

/// `wiki.replace`.
#[allow(clippy::too_many_arguments)]
pub fn replace(
    conn: &mut SqliteConnection,
    files: &WikiFiles,
    work: &mut Vec<AfterCommit>,
    who: Caller<'_>,
    document_id: &str,
    upload_id: &str,
    revision: i64,
    now: i64,
) -> Result<Value, CommandError> {
    let document = super::ops::current(conn, &WIKI_DOCUMENTS, document_id, revision)?;
    if document["lifecycleState"] != "active" {
        return Err(CommandError::Invalid("only a published document can be replaced".into()));
    }
    let upload = ready_upload(conn, who, upload_id, document_id, now)?;
    promote(files, &upload.id, &upload.checksum)?;
    let body = json!({
        "checksum": upload.checksum, "byteSize": upload.byte_size, "pageCount": upload.page_count,
        "outline": outline_of(&upload), "coverChecksum": upload.cover_checksum, "searchIndexState": "pending",
        "searchIndexError": "", "publishedByAccountId": who.account_id, "publishedByName": who.display_name,
        "publishedAt": domain::time::format_ms(now),
    });
    let updated = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(record_error)?;
    uploads::set_published(conn, &upload.id, document_id, now)?;
    work.extend(release_files(conn, &document)?);
    work.push(changed(&WIKI_DOCUMENTS, Action::Update, &updated));
    work.push(AfterCommit::Index { document_id: document_id.to_string(), upload_id: upload.id });
    Ok(updated)
}
