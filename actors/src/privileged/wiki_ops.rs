//! The Wiki library commands (`wiki.*`) inside the privileged pipeline: they arrive parsed,
//! authorized (the caller's role re-derived from the records) and audited, and run in the
//! pipeline's transaction, so a command's record changes and its audit entry commit together.
//! Every change is checked against the stored records here: the revision a command names,
//! unique category names, the category set of a reorder, the reassignment target of a delete,
//! the lifecycle of a document (only an active one is trashed, only a trashed one is restored or
//! deleted). What must wait for the commit waits in [`WikiHooks`]: realtime events for the
//! changed records, and removal of files no record references any more. Upload batches are in
//! [`super::wiki_upload_ops`], publishing in [`super::wiki_publish_ops`].

use std::sync::{Arc, Mutex};

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

use super::error::PrivError;
use super::service::Principal;
use crate::realtime::Publish;

/// Most categories a library holds.
pub const MAX_CATEGORIES: usize = 200;
/// Most documents one `wiki.library` answer lists.
pub const MAX_LIBRARY_DOCUMENTS: i64 = 5_000;

/// Work that must wait until the command's transaction commits.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum AfterCommit {
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

/// What the privileged service needs to carry out `wiki.*` commands.
#[derive(Clone)]
pub struct WikiHooks {
    pub files: WikiFiles,
    /// Realtime: told about every committed record change.
    pub publisher: Option<Recipient<Publish>>,
    /// The wiki actor: indexes published documents.
    pub indexer: Option<Recipient<crate::wiki::IndexDocument>>,
    pending: Arc<Mutex<Vec<AfterCommit>>>,
}

impl WikiHooks {
    pub fn new(files: WikiFiles, publisher: Option<Recipient<Publish>>) -> WikiHooks {
        WikiHooks { files, publisher, indexer: None, pending: Arc::default() }
    }

    /// Lets published documents reach the wiki actor's indexer.
    pub fn with_indexer(mut self, indexer: Recipient<crate::wiki::IndexDocument>) -> WikiHooks {
        self.indexer = Some(indexer);
        self
    }

    pub(super) fn defer(&self, work: AfterCommit) {
        self.pending.lock().unwrap_or_else(|p| p.into_inner()).push(work);
    }

    pub(super) fn changed(&self, spec: &'static CollectionSpec, action: Action, record: &Value) {
        self.defer(AfterCommit::Publish { collection: spec.name, action, record: record.clone() });
    }

    /// Moves a ready upload's verified PDF into the library (before the commit: the library is
    /// content-addressed, so a rolled-back publish leaves only an unreferenced file).
    pub(super) fn promote(&self, upload_id: &str, checksum: &str) -> Result<(), PrivError> {
        self.files.promote_pdf(upload_id, checksum).map(|_| ()).map_err(|e| {
            tracing::error!(error = %e, "a ready upload's PDF could not be moved into the library");
            PrivError::Internal
        })
    }

    /// After the commit, removes the PDF and cover named by `old` (a document's record as it
    /// was) that no document references any more.
    pub(super) fn release_files(&self, conn: &mut SqliteConnection, old: &Value) -> Result<(), PrivError> {
        for field in ["checksum", "coverChecksum"] {
            let checksum = text(old, field);
            if checksum.is_empty() {
                continue;
            }
            let clause = format!("{} = ?", infra::sql::quote_ident(field));
            let users = select_in(conn, &WIKI_DOCUMENTS, &clause, &[SqlValue::Text(checksum.clone())], "\"id\"", 1)
                .map_err(record_error)?;
            if users.is_empty() {
                self.defer(if field == "checksum" {
                    AfterCommit::RemovePdf(checksum)
                } else {
                    AfterCommit::RemoveCover(checksum)
                });
            }
        }
        Ok(())
    }

    /// After the transaction: on commit, publishes the changes and removes what is no longer
    /// referenced; on rollback, forgets them.
    pub(super) fn finish(&self, committed: bool) {
        let work: Vec<AfterCommit> = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()));
        if !committed {
            return;
        }
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
                        indexer.do_send(crate::wiki::IndexDocument { document_id, upload_id });
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

pub(super) fn record_error(e: RecordError) -> PrivError {
    match e {
        RecordError::NotFound => PrivError::Invalid("the Wiki record no longer exists".into()),
        RecordError::Validation(fields) if fields.values().any(|f| f.code == "validation_not_unique") => {
            PrivError::Invalid("that name is already in use".into())
        }
        RecordError::Validation(fields) => {
            let named: Vec<String> = fields.iter().map(|(name, f)| format!("{name}: {}", f.message)).collect();
            PrivError::Invalid(named.join("; "))
        }
        RecordError::BadRequest(why) => PrivError::Invalid(why),
        _ => PrivError::Internal,
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
) -> Result<Value, PrivError> {
    let record = get_in(conn, spec, id).map_err(record_error)?;
    let record = record.ok_or_else(|| PrivError::Invalid("the Wiki record no longer exists".into()))?;
    if record.get("revision").and_then(Value::as_i64) != Some(revision) {
        return Err(PrivError::StaleRevision);
    }
    Ok(record)
}

pub(super) fn category_exists(conn: &mut SqliteConnection, id: &str) -> Result<(), PrivError> {
    match get_in(conn, &WIKI_CATEGORIES, id).map_err(record_error)? {
        Some(_) => Ok(()),
        None => Err(PrivError::Invalid("choose an existing category".into())),
    }
}

fn categories(conn: &mut SqliteConnection) -> Result<Vec<Value>, PrivError> {
    select_in(conn, &WIKI_CATEGORIES, "1", &[], "\"sortOrder\", \"name\"", MAX_CATEGORIES as i64 + 1)
        .map_err(record_error)
}

/// A document title as shown to readers: trimmed, 1–240 plain characters.
pub(super) fn checked_title(raw: &str) -> Result<String, PrivError> {
    let title = domain::text::collapse_whitespace(raw);
    if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS || raw.chars().any(char::is_control) {
        return Err(PrivError::Invalid("titles must be 1-240 plain characters".into()));
    }
    Ok(title)
}

pub(super) fn checked_type(raw: &str) -> Result<DocumentType, PrivError> {
    DocumentType::parse(raw).ok_or_else(|| PrivError::Invalid("the document type must be sop or cheatsheet".into()))
}

/// One `wiki.*` command.
pub fn run(
    conn: &mut SqliteConnection,
    hooks: &WikiHooks,
    who: &Principal,
    command: &WikiCommand,
    now: i64,
) -> Result<Value, PrivError> {
    use WikiCommand as W;
    match command {
        W::Library {} => library(conn),
        W::CategoryCreate { name } => create_category(conn, hooks, name, now),
        W::CategoryRename { category_id, name, revision } => {
            current(conn, &WIKI_CATEGORIES, category_id, *revision)?;
            let name = normalize_category_name(name).map_err(|e| PrivError::Invalid(e.to_string()))?;
            let body = json!({"name": name.name, "normalizedName": name.key});
            let record = update_in(conn, &WIKI_CATEGORIES, category_id, &body, now).map_err(record_error)?;
            hooks.changed(&WIKI_CATEGORIES, Action::Update, &record);
            Ok(record)
        }
        W::CategoryReorder { category_ids } => reorder(conn, hooks, category_ids, now),
        W::CategoryDelete { category_id, reassign_to, revision } => {
            delete_category(conn, hooks, category_id, reassign_to, *revision, now)
        }
        W::Retitle { document_id, title, category_id, document_type, revision } => {
            current(conn, &WIKI_DOCUMENTS, document_id, *revision)?;
            let title = checked_title(title)?;
            let kind = checked_type(document_type)?;
            category_exists(conn, category_id)?;
            let body = json!({"title": title, "categoryId": category_id, "documentType": kind.as_str()});
            let record = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(record_error)?;
            hooks.changed(&WIKI_DOCUMENTS, Action::Update, &record);
            Ok(record)
        }
        W::Trash { document_id, revision } => {
            let document = current(conn, &WIKI_DOCUMENTS, document_id, *revision)?;
            if text(&document, "lifecycleState") != "active" {
                return Err(PrivError::Invalid("only a published document can be moved to the trash".into()));
            }
            let body = json!({"lifecycleState": "trashed", "trashedAt": domain::time::format_ms(now),
                "trashedByName": who.account.display_name});
            let record = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(record_error)?;
            hooks.changed(&WIKI_DOCUMENTS, Action::Update, &record);
            Ok(record)
        }
        W::Restore { document_id, revision } => {
            let document = current(conn, &WIKI_DOCUMENTS, document_id, *revision)?;
            if text(&document, "lifecycleState") != "trashed" {
                return Err(PrivError::Invalid("only a trashed document can be restored".into()));
            }
            let body = json!({"lifecycleState": "active", "trashedAt": "", "trashedByName": ""});
            let record = update_in(conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(|e| match e {
                RecordError::Validation(_) => {
                    PrivError::Invalid("a published document already has this file name or source".into())
                }
                other => record_error(other),
            })?;
            hooks.changed(&WIKI_DOCUMENTS, Action::Create, &record);
            Ok(record)
        }
        W::Delete { document_id, revision, reauth_proof: _ } => delete_document(conn, hooks, document_id, *revision),
        W::UploadBegin { files, replacement_document_id } => {
            super::wiki_upload_ops::begin(conn, who, files, replacement_document_id.as_deref(), now)
        }
        W::UploadStatus {} => super::wiki_upload_ops::status(conn, who, now),
        // The bytes travel beside the signed claim; the wiki actor checks them against it.
        W::UploadChunk { upload_id, .. } => Ok(json!({"authorized": true, "uploadId": upload_id})),
        W::UploadCancel { batch_id } => super::wiki_upload_ops::cancel(conn, hooks, who, batch_id, now),
        W::Publish { upload_id, title, category_id, document_type } => {
            super::wiki_publish_ops::publish(conn, hooks, who, upload_id, title, category_id, document_type, now)
        }
        W::Replace { document_id, upload_id, revision } => {
            super::wiki_publish_ops::replace(conn, hooks, who, document_id, upload_id, *revision, now)
        }
    }
}

/// `wiki.library`: every category and document (trashed ones too).
fn library(conn: &mut SqliteConnection) -> Result<Value, PrivError> {
    let categories = categories(conn)?;
    let documents =
        select_in(conn, &WIKI_DOCUMENTS, "1", &[], "\"title\", \"id\"", MAX_LIBRARY_DOCUMENTS).map_err(record_error)?;
    Ok(json!({"categories": categories, "documents": documents}))
}

fn create_category(conn: &mut SqliteConnection, hooks: &WikiHooks, raw: &str, now: i64) -> Result<Value, PrivError> {
    let name = normalize_category_name(raw).map_err(|e| PrivError::Invalid(e.to_string()))?;
    let existing = categories(conn)?;
    if existing.len() >= MAX_CATEGORIES {
        return Err(PrivError::Invalid(format!("a library holds at most {MAX_CATEGORIES} categories")));
    }
    let last = existing
        .iter()
        .filter(|c| text(c, "systemKey").is_empty())
        .filter_map(|c| c.get("sortOrder").and_then(Value::as_f64))
        .fold(0.0, f64::max);
    let body = json!({"name": name.name, "normalizedName": name.key, "sortOrder": last + 1.0});
    let record = create_in(conn, &WIKI_CATEGORIES, &body, now).map_err(record_error)?;
    hooks.changed(&WIKI_CATEGORIES, Action::Create, &record);
    Ok(record)
}

fn reorder(conn: &mut SqliteConnection, hooks: &WikiHooks, ids: &[String], now: i64) -> Result<Value, PrivError> {
    let existing = categories(conn)?;
    let mut stored: Vec<String> = existing.iter().map(|c| text(c, "id")).collect();
    let mut asked = ids.to_vec();
    stored.sort();
    asked.sort();
    if stored != asked {
        return Err(PrivError::Invalid("the new order must list every category exactly once".into()));
    }
    let mut changed = Vec::new();
    for (position, id) in ids.iter().enumerate() {
        let record =
            update_in(conn, &WIKI_CATEGORIES, id, &json!({"sortOrder": position as f64}), now).map_err(record_error)?;
        hooks.changed(&WIKI_CATEGORIES, Action::Update, &record);
        changed.push(record);
    }
    Ok(json!({"categories": changed}))
}

fn delete_category(
    conn: &mut SqliteConnection,
    hooks: &WikiHooks,
    id: &str,
    reassign_to: &str,
    revision: i64,
    now: i64,
) -> Result<Value, PrivError> {
    let category = current(conn, &WIKI_CATEGORIES, id, revision)?;
    check_delete(&text(&category, "systemKey")).map_err(|e| PrivError::Invalid(e.to_string()))?;
    if reassign_to == id {
        return Err(PrivError::Invalid("move the documents to another category".into()));
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
        hooks.changed(&WIKI_DOCUMENTS, Action::Update, &moved);
    }
    let deleted = delete_in(conn, &WIKI_CATEGORIES, id).map_err(record_error)?;
    hooks.changed(&WIKI_CATEGORIES, Action::Delete, &deleted);
    Ok(json!({"deleted": id, "documentsMoved": members.len()}))
}

/// `wiki.delete`: only a trashed document; its files go after the commit unless another
/// document still uses the same bytes.
fn delete_document(
    conn: &mut SqliteConnection,
    hooks: &WikiHooks,
    id: &str,
    revision: i64,
) -> Result<Value, PrivError> {
    let document = current(conn, &WIKI_DOCUMENTS, id, revision)?;
    if text(&document, "lifecycleState") != "trashed" {
        return Err(PrivError::Invalid("move the document to the trash before deleting it".into()));
    }
    let deleted = delete_in(conn, &WIKI_DOCUMENTS, id).map_err(record_error)?;
    hooks.changed(&WIKI_DOCUMENTS, Action::Delete, &deleted);
    hooks.release_files(conn, &deleted)?;
    Ok(json!({"deleted": id}))
}

#[cfg(test)]
#[path = "wiki_ops_tests.rs"]
mod tests;
