//! The typed `wiki.*` privileged commands: every way the Owner, an Administrator or the
//! Publisher changes the Wiki library, as one enum whose serde form is the command name and its
//! strict camelCase payload. `PrivilegedCommand::Wiki` carries one, so the privileged pipeline
//! (envelope or local session, role re-derived from the records, request-id replay, audit) runs
//! them like every other command; this module only names them, parses them and keeps their rows
//! ([`WikiCommand::SPECS`]: each needs `WikiManage`, runs from a laptop, the server PC and the
//! web but for the chunk claim, and only deleting needs a fresh password). It holds no rule about
//! the library itself: the handlers check revisions, uniqueness and membership against the
//! stored records.

use serde::{Deserialize, Serialize};

use crate::privileged_command::spec::{self, CommandSpec};

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

/// One row per `wiki.*` command: every property of the command together.
mod row {
    use crate::privileged_command::spec::CommandSpec;
    use crate::roles::Capability::WikiManage;

    /// Every `wiki.*` command publishes from a laptop, the server PC and the web.
    const fn wiki(name: &'static str) -> CommandSpec {
        CommandSpec::new(name, WikiManage).on_the_web()
    }

    pub const LIBRARY: CommandSpec = wiki("wiki.library");
    pub const CATEGORY_CREATE: CommandSpec = wiki("wiki.category.create");
    pub const CATEGORY_RENAME: CommandSpec = wiki("wiki.category.rename");
    pub const CATEGORY_REORDER: CommandSpec = wiki("wiki.category.reorder");
    pub const CATEGORY_DELETE: CommandSpec = wiki("wiki.category.delete");
    pub const UPLOAD_BEGIN: CommandSpec = wiki("wiki.upload.begin");
    pub const UPLOAD_STATUS: CommandSpec = wiki("wiki.upload.status");
    /// A chunk's claim is never a command of its own on the web: the gateway's chunk route
    /// authorizes the session instead.
    pub const UPLOAD_CHUNK: CommandSpec = CommandSpec::new("wiki.upload.chunk", WikiManage);
    pub const UPLOAD_CANCEL: CommandSpec = wiki("wiki.upload.cancel");
    pub const PUBLISH: CommandSpec = wiki("wiki.publish");
    pub const REPLACE: CommandSpec = wiki("wiki.replace");
    pub const RETITLE: CommandSpec = wiki("wiki.retitle");
    pub const TRASH: CommandSpec = wiki("wiki.trash");
    pub const RESTORE: CommandSpec = wiki("wiki.restore");
    /// Destroys published content.
    pub const DELETE: CommandSpec = wiki("wiki.delete").fresh_password();

    /// The registration list, in declaration order.
    pub const ALL: [CommandSpec; 15] = [
        LIBRARY,
        CATEGORY_CREATE,
        CATEGORY_RENAME,
        CATEGORY_REORDER,
        CATEGORY_DELETE,
        UPLOAD_BEGIN,
        UPLOAD_STATUS,
        UPLOAD_CHUNK,
        UPLOAD_CANCEL,
        PUBLISH,
        REPLACE,
        RETITLE,
        TRASH,
        RESTORE,
        DELETE,
    ];
}

impl WikiCommand {
    /// The registration list: one row per `wiki.*` command, in declaration order.
    pub const SPECS: &'static [CommandSpec] = &row::ALL;

    /// Every `wiki.*` command name, in declaration order.
    pub const NAMES: &'static [&'static str] = &spec::names(row::ALL);

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

    /// The command's row.
    pub fn spec(&self) -> &'static CommandSpec {
        use WikiCommand as W;
        match self {
            W::Library {} => &row::LIBRARY,
            W::CategoryCreate { .. } => &row::CATEGORY_CREATE,
            W::CategoryRename { .. } => &row::CATEGORY_RENAME,
            W::CategoryReorder { .. } => &row::CATEGORY_REORDER,
            W::CategoryDelete { .. } => &row::CATEGORY_DELETE,
            W::UploadBegin { .. } => &row::UPLOAD_BEGIN,
            W::UploadStatus {} => &row::UPLOAD_STATUS,
            W::UploadChunk { .. } => &row::UPLOAD_CHUNK,
            W::UploadCancel { .. } => &row::UPLOAD_CANCEL,
            W::Publish { .. } => &row::PUBLISH,
            W::Replace { .. } => &row::REPLACE,
            W::Retitle { .. } => &row::RETITLE,
            W::Trash { .. } => &row::TRASH,
            W::Restore { .. } => &row::RESTORE,
            W::Delete { .. } => &row::DELETE,
        }
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
pub(crate) mod tests;
