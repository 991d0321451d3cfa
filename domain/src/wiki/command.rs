//! The typed `wiki.*` privileged commands: every way the Owner, an Administrator or the
//! Publisher changes the Wiki library, as one enum whose serde form is the command name and its
//! strict camelCase payload. `PrivilegedCommand::Wiki` carries one, so the privileged pipeline
//! (envelope or local session, role re-derived from the records, request-id replay, audit) runs
//! them like every other command; this module only names them, parses them and says which need a
//! fresh password. It holds no rule about the library itself: the handlers check revisions,
//! uniqueness and membership against the stored records.

use serde::{Deserialize, Serialize};

/// One file a publisher announces before uploading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnnouncedFile {
    pub file_name: String,
    pub byte_size: u64,
    /// SHA-256 of the whole file, 64 lowercase hex characters.
    pub checksum: String,
}

/// One allowlisted `wiki.*` command with its payload.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "command", content = "payload", deny_unknown_fields, rename_all_fields = "camelCase")]
pub enum WikiCommand {
    /// `wiki.library`: every document (trashed ones too) and category, for the publishing
    /// screen.
    #[serde(rename = "wiki.library")]
    Library {},
    /// `wiki.category.create`: a new category at the end of the order.
    #[serde(rename = "wiki.category.create")]
    CategoryCreate { name: String },
    /// `wiki.category.rename`: revision-checked.
    #[serde(rename = "wiki.category.rename")]
    CategoryRename { category_id: String, name: String, revision: i64 },
    /// `wiki.category.reorder`: the complete list of category ids in their new order.
    #[serde(rename = "wiki.category.reorder")]
    CategoryReorder { category_ids: Vec<String> },
    /// `wiki.category.delete`: moves the category's documents (trashed ones too) to
    /// `reassignTo`, then deletes it; the built-in category cannot be deleted.
    #[serde(rename = "wiki.category.delete")]
    CategoryDelete { category_id: String, reassign_to: String, revision: i64 },
    /// `wiki.upload.begin`: opens the caller's one active batch for up to 100 PDFs (one when
    /// replacing a document) and answers the upload ids and chunk plans.
    #[serde(rename = "wiki.upload.begin")]
    UploadBegin {
        files: Vec<AnnouncedFile>,
        #[serde(default)]
        replacement_document_id: Option<String>,
    },
    /// `wiki.upload.status`: the caller's active batch and its uploads.
    #[serde(rename = "wiki.upload.status")]
    UploadStatus {},
    /// `wiki.upload.chunk`: the signed claim that travels with one chunk's bytes on the chunk
    /// route (`POST /api/relay/wiki/chunks`). The command only authorizes the caller; the wiki
    /// actor then checks the bytes against this claim and the upload before storing them.
    /// `index` is kept as sent (a JSON number) so a fractional one is refused by the chunk check.
    #[serde(rename = "wiki.upload.chunk")]
    UploadChunk { upload_id: String, batch_id: String, index: serde_json::Number, byte_size: u64, checksum: String },
    /// `wiki.upload.cancel`: cancels the caller's batch and removes its staging.
    #[serde(rename = "wiki.upload.cancel")]
    UploadCancel { batch_id: String },
    /// `wiki.publish`: publishes a ready upload as a new document.
    #[serde(rename = "wiki.publish")]
    Publish { upload_id: String, title: String, category_id: String, document_type: String },
    /// `wiki.replace`: a ready upload becomes the new PDF of an existing document, which keeps
    /// its id, identity and authored file name. Revision-checked.
    #[serde(rename = "wiki.replace")]
    Replace { document_id: String, upload_id: String, revision: i64 },
    /// `wiki.retitle`: changes a document's title, category and type. Revision-checked.
    #[serde(rename = "wiki.retitle")]
    Retitle { document_id: String, title: String, category_id: String, document_type: String, revision: i64 },
    /// `wiki.trash`: hides a document from readers. Revision-checked.
    #[serde(rename = "wiki.trash")]
    Trash { document_id: String, revision: i64 },
    /// `wiki.restore`: brings a trashed document back. Revision-checked.
    #[serde(rename = "wiki.restore")]
    Restore { document_id: String, revision: i64 },
    /// `wiki.delete`: deletes a trashed document and its files for good. Needs a fresh password
    /// (a proof from a laptop; a fresh local password on the server PC).
    #[serde(rename = "wiki.delete")]
    Delete {
        document_id: String,
        revision: i64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reauth_proof: Option<String>,
    },
}

impl WikiCommand {
    /// Every `wiki.*` command name, in declaration order.
    pub const NAMES: &'static [&'static str] = &[
        "wiki.library",
        "wiki.category.create",
        "wiki.category.rename",
        "wiki.category.reorder",
        "wiki.category.delete",
        "wiki.upload.begin",
        "wiki.upload.status",
        "wiki.upload.chunk",
        "wiki.upload.cancel",
        "wiki.publish",
        "wiki.replace",
        "wiki.retitle",
        "wiki.trash",
        "wiki.restore",
        "wiki.delete",
    ];

    /// Every payload field name, so a "missing field" error maps to a static name.
    pub const PAYLOAD_FIELDS: &'static [&'static str] = &[
        "name",
        "categoryId",
        "categoryIds",
        "reassignTo",
        "revision",
        "files",
        "replacementDocumentId",
        "batchId",
        "uploadId",
        "index",
        "byteSize",
        "checksum",
        "title",
        "documentType",
        "documentId",
        "reauthProof",
    ];

    pub fn name(&self) -> &'static str {
        use WikiCommand as W;
        match self {
            W::Library {} => "wiki.library",
            W::CategoryCreate { .. } => "wiki.category.create",
            W::CategoryRename { .. } => "wiki.category.rename",
            W::CategoryReorder { .. } => "wiki.category.reorder",
            W::CategoryDelete { .. } => "wiki.category.delete",
            W::UploadBegin { .. } => "wiki.upload.begin",
            W::UploadStatus {} => "wiki.upload.status",
            W::UploadChunk { .. } => "wiki.upload.chunk",
            W::UploadCancel { .. } => "wiki.upload.cancel",
            W::Publish { .. } => "wiki.publish",
            W::Replace { .. } => "wiki.replace",
            W::Retitle { .. } => "wiki.retitle",
            W::Trash { .. } => "wiki.trash",
            W::Restore { .. } => "wiki.restore",
            W::Delete { .. } => "wiki.delete",
        }
    }

    /// Commands that destroy published content need a fresh password.
    pub fn needs_fresh_password(&self) -> bool {
        matches!(self, WikiCommand::Delete { .. })
    }

    /// The fresh-password proof a laptop's `wiki.delete` carries.
    pub fn reauth_proof(&self) -> Option<&str> {
        match self {
            WikiCommand::Delete { reauth_proof, .. } => reauth_proof.as_deref(),
            _ => None,
        }
    }

    /// Commands that change the library (everything but the reads): their changes are
    /// published to realtime subscribers after the commit.
    pub fn changes_library(&self) -> bool {
        !matches!(self, WikiCommand::Library {} | WikiCommand::UploadStatus {} | WikiCommand::UploadChunk { .. })
    }
}

#[cfg(test)]
#[path = "command_tests.rs"]
mod tests;
