//! The Wiki library's command handlers (`wiki.*`): the privileged pipeline
//! (`actors::privileged::commands::run`) hands them a command already parsed, authorized (the
//! caller's role re-derived from the records) and audited, inside its transaction, so a
//! command's record changes and its audit entry commit together. Every change is checked against
//! the stored records here: the revision a command names, unique category names, the category set
//! of a reorder, the reassignment target of a delete, the lifecycle of a document (only an active
//! one is trashed, only a trashed one is restored or deleted). What must wait for the commit is
//! returned as data with the answer ([`Done::after_commit`]: realtime events for the changed
//! records, removal of files no record references any more, indexing), and the pipeline hands it
//! to [`WikiHooks::apply`] only once the transaction committed. Refusals are [`CommandError`]s,
//! which the pipeline answers as its own. Upload batches are in [`super::upload_ops`], publishing
//! in [`super::publish_ops`]. Nothing here knows the privileged subsystem.

use std::sync::Arc;

use actix::prelude::*;
use diesel::sqlite::SqliteConnection;
use serde_json::{json, Value};

use domain::collections::{CollectionSpec, WIKI_CATEGORIES, WIKI_DOCUMENTS};
use domain::record::{Action, RecordError};
use domain::validation::SqlValue;
use domain::wiki::command::WikiCommand;
use domain::wiki::limits::MAX_TITLE_CHARS;
use domain::wiki::{check_delete, normalize_category_name, DocumentType};
use infra::store::{create_in, delete_in, get_in, select_in, update_in};
use infra::wiki::files::WikiFiles;

use super::error::CommandError;
use crate::realtime::Publish;

/// Most categories a library holds.
pub const MAX_CATEGORIES: usize = 200;
/// Most documents one `wiki.library` answer lists.
pub const MAX_LIBRARY_DOCUMENTS: i64 = 5_000;

/// Who runs a `wiki.*` command, as the privileged pipeline established it.
#[derive(Debug, Clone, Copy)]
pub struct Caller<'a> {
    pub account_id: &'a str,
    /// Shown on the records the command writes (published by, trashed by).
    pub display_name: &'a str,
    /// The paired laptop a signed command came from; none on the server PC and the web.
    pub device_id: Option<&'a str>,
}

/// A command's answer and the work that waits until its transaction commits.
#[derive(Debug, Clone, PartialEq)]
pub struct Done {
    pub result: Value,
    pub after_commit: Vec<AfterCommit>,
}

/// Work that must wait until the command's transaction commits (dropped when it rolls back).
#[derive(Debug, Clone, PartialEq)]
pub enum AfterCommit {
    Publish {
        collection: &'static str,
        action: Action,
        record: Value,
    },
    RemovePdf(String),
    RemoveCover(String),
    RemoveStaging(String),
    /// Index a published document from its upload's extracted pages (the wiki actor).
    Index {
        document_id: String,
        upload_id: String,
    },
}

/// What the privileged service needs to carry out `wiki.*` commands and their after-commit work.
#[derive(Clone)]
pub struct WikiHooks {
    pub files: WikiFiles,
    /// Realtime: told about every committed record change.
    pub publisher: Option<Recipient<Publish>>,
    /// The wiki actor: indexes published documents.
    pub indexer: Option<Recipient<super::IndexDocument>>,
}

impl WikiHooks {
    pub fn new(files: WikiFiles, publisher: Option<Recipient<Publish>>) -> WikiHooks {
        WikiHooks { files, publisher, indexer: None }
    }

    /// Lets published documents reach the wiki actor's indexer.
    pub fn with_indexer(mut self, indexer: Recipient<super::IndexDocument>) -> WikiHooks {
        self.indexer = Some(indexer);
        self
    }

    /// After a command's transaction committed: publishes its changes, removes what is no longer
    /// referenced and asks for indexing.
    pub fn apply(&self, work: Vec<AfterCommit>) {
        for item in work {
            let removed = match item {
                AfterCommit::Publish { collection, action, record } => {
                    if let Some(p) = &self.publisher {
                        p.do_send(Publish { collection, action, record: Arc::new(record) });
                    }
                    Ok(())
                }
                AfterCommit::RemovePdf(checksum) => self.files.remove_pdf(&checksum),
                AfterCommit::RemoveCover(checksum) => self.files.remove_cover(&checksum),
                AfterCommit::RemoveStaging(upload_id) => self.files.remove_upload(&upload_id),
                AfterCommit::Index { document_id, upload_id } => {
                    if let Some(indexer) = &self.indexer {
                        indexer.do_send(super::IndexDocument { document_id, upload_id });
                    }
                    Ok(())
                }
            };
            if let Err(e) = removed {
                tracing::warn!(error = %e, "a Wiki file could not be removed; it is left for the next cleanup");
            }
        }
    }
}

/// A realtime event for a record the command changed.
pub(super) fn changed(spec: &'static CollectionSpec, action: Action, record: &Value) -> AfterCommit {
    AfterCommit::Publish { collection: spec.name, action, record: record.clone() }
}

/// Moves a ready upload's verified PDF into the library (before the commit: the library is
/// content-addressed, so a rolled-back publish leaves only an unreferenced file).
pub(super) fn promote(files: &WikiFiles, upload_id: &str, checksum: &str) -> Result<(), CommandError> {
    files.promote_pdf(upload_id, checksum).map(|_| ()).map_err(|e| {
        tracing::error!(error = %e, "a ready upload's PDF could not be moved into the library");
        CommandError::Internal
    })
}

/// The removal, after the commit, of the PDF and cover named by `old` (a document's record as it
/// was) that no document references any more.
pub(super) fn release_files(conn: &mut SqliteConnection, old: &Value) -> Result<Vec<AfterCommit>, CommandError> {
    let mut work = Vec::new();
    for field in ["checksum", "coverChecksum"] {
        let checksum = text(old, field);
        if checksum.is_empty() {
            continue;
        }
        let clause = format!("{} = ?", infra::sql::quote_ident(field));
        let users = select_in(conn, &WIKI_DOCUMENTS, &clause, &[SqlValue::Text(checksum.clone())], "\"id\"", 1)
            .map_err(record_error)?;
        if users.is_empty() {
            work.push(if field == "checksum" {
                AfterCommit::RemovePdf(checksum)
            } else {
                AfterCommit::RemoveCover(checksum)
            });
        }
    }
    Ok(work)
}

pub(super) fn record_error(e: RecordError) -> CommandError {
    match e {
        RecordError::NotFound => CommandError::Invalid("the Wiki record no longer exists".into()),
        RecordError::Validation(fields) if fields.values().any(|f| f.code == "validation_not_unique") => {
            CommandError::Invalid("that name is already in use".into())
        }
        RecordError::Validation(fields) => {
            let named: Vec<String> = fields.iter().map(|(name, f)| format!("{name}: {}", f.message)).collect();
            CommandError::Invalid(named.join("; "))
        }
        RecordError::BadRequest(why) => CommandError::Invalid(why),
        _ => CommandError::Internal,
    }
}

fn text(record: &Value, field: &str) -> String {
    record.get(field).and_then(Value::as_str).unwrap_or_default().to_string()
}

/// The record `id` of `spec`, whose revision must be `revision`.
pub(super) fn current(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    id: &str,
    revision: i64,
) -> Result<Value, CommandError> {
    let record = get_in(conn, spec, id).map_err(record_error)?;
    let record = record.ok_or_else(|| CommandError::Invalid("the Wiki record no longer exists".into()))?;
    if record.get("revision").and_then(Value::as_i64) != Some(revision) {
        return Err(CommandError::StaleRevision);
    }
    Ok(record)
}

pub(super) fn category_exists(conn: &mut SqliteConnection, id: &str) -> Result<(), CommandError> {
    match get_in(conn, &WIKI_CATEGORIES, id).map_err(record_error)? {
        Some(_) => Ok(()),
        None => Err(CommandError::Invalid("choose an existing category".into())),
    }
}

fn categories(conn: &mut SqliteConnection) -> Result<Vec<Value>, CommandError> {
    select_in(conn, &WIKI_CATEGORIES, "1", &[], "\"sortOrder\", \"name\"", MAX_CATEGORIES as i64 + 1)
        .map_err(record_error)
}

/// A document title as shown to readers: trimmed, 1–240 plain characters.
pub(super) fn checked_title(raw: &str) -> Result<String, CommandError> {
    let title = domain::text::collapse_whitespace(raw);
    if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS || raw.chars().any(char::is_control) {
        return Err(CommandError::Invalid("titles must be 1-240 plain characters".into()));
    }
    Ok(title)
}

pub(super) fn checked_type(raw: &str) -> Result<DocumentType, CommandError> {
    DocumentType::parse(raw).ok_or_else(|| CommandError::Invalid("the document type must be sop or cheatsheet".into()))
}

/// One `wiki.*` command, inside the caller's transaction; `files` is the library's store (a
/// publish moves the verified PDF in before the commit). The answer carries the work that waits
/// for the commit.
pub fn run(
    conn: &mut SqliteConnection,
    files: &WikiFiles,
    who: Caller<'_>,
    command: &WikiCommand,
    now: i64,
) -> Result<Done, CommandError> {
    let mut after_commit = Vec::new();
    let result = run_collecting(conn, files, who, command, now, &mut after_commit)?;
    Ok(Done { result, after_commit })
}

fn run_collecting(
    conn: &mut SqliteConnection,
    files: &WikiFiles,
    who: Caller<'_>,
    command: &WikiCommand,
    now: i64,
    work: &mut Vec<AfterCommit>,
) -> Result<Value, CommandError> {
    use WikiCommand as W;
    match command {
        W::Library {} => library(conn),
        W::CategoryCreate { name } => create_category(conn, work, name, now),
        W::CategoryRename { category_id, name, revision } => {
            current(conn, &WIKI_CATEGORIES, category_id, *revision)?;
            let name = normalize_category_name(name).map_err(|e| CommandError::Invalid(e.to_string()))?;
            let body = json!({"name": name.name, "normalizedName": name.key});
            let record = update_in(conn, &WIKI_CATEGORIES, category_id, &body, now).map_err(record_error)?;
            work.push(changed(&WIKI_CATEGORIES, Action::Update, &record));
            Ok(record)
        }
        W::CategoryReorder { category_ids } => reorder(conn, work, category_ids, now),
        W::CategoryDelete { category_id, reassign_to, revision } => {
            delete_category(conn, work, category_id, reassign_to, *revision, now)
        }
        W::Retitle { document_id, title, category_id, document_type, revision } => {
            current(conn, &WIKI_DOCUMENTS, document_id, *revision)?;
            let title = checked_title(title)?;
            let kind = checked_type(document_type)?;
            category_exists(conn, category_id)?;
            let body = json!({"title": title, "categoryId": category_id, "documentType": kind.as_str()});
            let record = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(record_error)?;
            work.push(changed(&WIKI_DOCUMENTS, Action::Update, &record));
            Ok(record)
        }
        W::Trash { document_id, revision } => {
            let document = current(conn, &WIKI_DOCUMENTS, document_id, *revision)?;
            if text(&document, "lifecycleState") != "active" {
                return Err(CommandError::Invalid("only a published document can be moved to the trash".into()));
            }
            let body = json!({"lifecycleState": "trashed", "trashedAt": domain::time::format_ms(now),
                "trashedByName": who.display_name});
            let record = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(record_error)?;
            work.push(changed(&WIKI_DOCUMENTS, Action::Update, &record));
            Ok(record)
        }
        W::Restore { document_id, revision } => {
            let document = current(conn, &WIKI_DOCUMENTS, document_id, *revision)?;
            if text(&document, "lifecycleState") != "trashed" {
                return Err(CommandError::Invalid("only a trashed document can be restored".into()));
            }
            let body = json!({"lifecycleState": "active", "trashedAt": "", "trashedByName": ""});
            let record = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(|e| match e {
                RecordError::Validation(_) => {
                    CommandError::Invalid("a published document already has this file name or source".into())
                }
                other => record_error(other),
            })?;
            work.push(changed(&WIKI_DOCUMENTS, Action::Create, &record));
            Ok(record)
        }
        W::Delete { document_id, revision, reauth_proof: _ } => delete_document(conn, work, document_id, *revision),
        W::UploadBegin { files: announced, replacement_document_id } => {
            super::upload_ops::begin(conn, who, announced, replacement_document_id.as_deref(), now)
        }
        W::UploadStatus {} => super::upload_ops::status(conn, who, now),
        // The bytes travel beside the signed claim; the wiki actor checks them against it.
        W::UploadChunk { upload_id, .. } => Ok(json!({"authorized": true, "uploadId": upload_id})),
        W::UploadCancel { batch_id } => super::upload_ops::cancel(conn, work, who, batch_id, now),
        W::Publish { upload_id, title, category_id, document_type } => {
            super::publish_ops::publish(conn, files, work, who, upload_id, title, category_id, document_type, now)
        }
        W::Replace { document_id, upload_id, revision } => {
            super::publish_ops::replace(conn, files, work, who, document_id, upload_id, *revision, now)
        }
    }
}

/// `wiki.library`: every category and document (trashed ones too).
fn library(conn: &mut SqliteConnection) -> Result<Value, CommandError> {
    let categories = categories(conn)?;
    let documents =
        select_in(conn, &WIKI_DOCUMENTS, "1", &[], "\"title\", \"id\"", MAX_LIBRARY_DOCUMENTS).map_err(record_error)?;
    Ok(json!({"categories": categories, "documents": documents}))
}

fn create_category(
    conn: &mut SqliteConnection,
    work: &mut Vec<AfterCommit>,
    raw: &str,
    now: i64,
) -> Result<Value, CommandError> {
    let name = normalize_category_name(raw).map_err(|e| CommandError::Invalid(e.to_string()))?;
    let existing = categories(conn)?;
    if existing.len() >= MAX_CATEGORIES {
        return Err(CommandError::Invalid(format!("a library holds at most {MAX_CATEGORIES} categories")));
    }
    let last = existing
        .iter()
        .filter(|c| text(c, "systemKey").is_empty())
        .filter_map(|c| c.get("sortOrder").and_then(Value::as_f64))
        .fold(0.0, f64::max);
    let body = json!({"name": name.name, "normalizedName": name.key, "sortOrder": last + 1.0});
    let record = create_in(conn, &WIKI_CATEGORIES, &body, now).map_err(record_error)?;
    work.push(changed(&WIKI_CATEGORIES, Action::Create, &record));
    Ok(record)
}

fn reorder(
    conn: &mut SqliteConnection,
    work: &mut Vec<AfterCommit>,
    ids: &[String],
    now: i64,
) -> Result<Value, CommandError> {
    let existing = categories(conn)?;
    let mut stored: Vec<String> = existing.iter().map(|c| text(c, "id")).collect();
    let mut asked = ids.to_vec();
    stored.sort();
    asked.sort();
    if stored != asked {
        return Err(CommandError::Invalid("the new order must list every category exactly once".into()));
    }
    let mut records = Vec::new();
    for (position, id) in ids.iter().enumerate() {
        let record =
            update_in(conn, &WIKI_CATEGORIES, id, &json!({"sortOrder": position as f64}), now).map_err(record_error)?;
        work.push(changed(&WIKI_CATEGORIES, Action::Update, &record));
        records.push(record);
    }
    Ok(json!({"categories": records}))
}

fn delete_category(
    conn: &mut SqliteConnection,
    work: &mut Vec<AfterCommit>,
    id: &str,
    reassign_to: &str,
    revision: i64,
    now: i64,
) -> Result<Value, CommandError> {
    let category = current(conn, &WIKI_CATEGORIES, id, revision)?;
    check_delete(&text(&category, "systemKey")).map_err(|e| CommandError::Invalid(e.to_string()))?;
    if reassign_to == id {
        return Err(CommandError::Invalid("move the documents to another category".into()));
    }
    category_exists(conn, reassign_to)?;
    let members = select_in(
        conn,
        &WIKI_DOCUMENTS,
        "\"categoryId\" = ?",
        &[SqlValue::Text(id.to_string())],
        "\"id\"",
        MAX_LIBRARY_DOCUMENTS,
    )
    .map_err(record_error)?;
    for document in &members {
        let moved = update_in(conn, &WIKI_DOCUMENTS, &text(document, "id"), &json!({"categoryId": reassign_to}), now)
            .map_err(record_error)?;
        work.push(changed(&WIKI_DOCUMENTS, Action::Update, &moved));
    }
    let deleted = delete_in(conn, &WIKI_CATEGORIES, id).map_err(record_error)?;
    work.push(changed(&WIKI_CATEGORIES, Action::Delete, &deleted));
    Ok(json!({"deleted": id, "documentsMoved": members.len()}))
}

/// `wiki.delete`: only a trashed document; its files go after the commit unless another
/// document still uses the same bytes.
fn delete_document(
    conn: &mut SqliteConnection,
    work: &mut Vec<AfterCommit>,
    id: &str,
    revision: i64,
) -> Result<Value, CommandError> {
    let document = current(conn, &WIKI_DOCUMENTS, id, revision)?;
    if text(&document, "lifecycleState") != "trashed" {
        return Err(CommandError::Invalid("move the document to the trash before deleting it".into()));
    }
    let deleted = delete_in(conn, &WIKI_DOCUMENTS, id).map_err(record_error)?;
    work.push(changed(&WIKI_DOCUMENTS, Action::Delete, &deleted));
    work.extend(release_files(conn, &deleted)?);
    Ok(json!({"deleted": id}))
}

#[cfg(test)]
#[path = "ops_tests.rs"]
mod tests;
