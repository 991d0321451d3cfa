//! `relay wiki ...`: the Wiki library from the server PC until the Administration screen
//! publishes (a headless server has no screen at all). Each subcommand runs one typed `wiki.*`
//! privileged command as `--as` (the Owner, an Administrator or the Publisher; password from a
//! hidden prompt or one stdin line) over the control socket, so the server's role check,
//! revision check and audit log apply. Commands that need a record's revision read it from
//! `wiki.library` first, in the same password prompt. Output is plain text for an operator.

use clap::Subcommand;
use serde_json::{json, Value};

use domain::control::{ControlOp, ControlReply, SecretText, WikiOp};

use crate::control_client::{deliver, Delivered};
use crate::secret_input::read_secret;

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum WikiCommand {
    /// List categories and documents (trashed ones too).
    Library {
        #[arg(long = "as")]
        actor: String,
    },
    /// Add a category.
    CategoryCreate {
        #[arg(long = "as")]
        actor: String,
        name: String,
    },
    /// Rename a category.
    CategoryRename {
        #[arg(long = "as")]
        actor: String,
        category_id: String,
        name: String,
    },
    /// Set the order of every category (all ids, first to last).
    CategoryReorder {
        #[arg(long = "as")]
        actor: String,
        #[arg(required = true)]
        category_ids: Vec<String>,
    },
    /// Delete a category, moving its documents to another one.
    CategoryDelete {
        #[arg(long = "as")]
        actor: String,
        category_id: String,
        #[arg(long)]
        reassign_to: String,
    },
    /// Change a document's title, category and type (`sop` or `cheatsheet`).
    Retitle {
        #[arg(long = "as")]
        actor: String,
        document_id: String,
        #[arg(long)]
        title: String,
        #[arg(long)]
        category: String,
        #[arg(long = "type")]
        document_type: String,
    },
    /// Move a document to the trash (readers no longer see it).
    Trash {
        #[arg(long = "as")]
        actor: String,
        document_id: String,
    },
    /// Bring a trashed document back.
    Restore {
        #[arg(long = "as")]
        actor: String,
        document_id: String,
    },
    /// Delete a trashed document and its files for good.
    Delete {
        #[arg(long = "as")]
        actor: String,
        document_id: String,
    },
    /// Upload PDFs (at most 100; one with --replace) from this PC: opens a batch, feeds each file
    /// and waits until it is ready for review (or failed).
    Upload {
        #[arg(long = "as")]
        actor: String,
        /// Replace the PDF of this document (it keeps its title and file name).
        #[arg(long)]
        replace: Option<String>,
        #[arg(required = true)]
        files: Vec<std::path::PathBuf>,
    },
    /// Publish a ready upload as a new document.
    Publish {
        #[arg(long = "as")]
        actor: String,
        upload_id: String,
        #[arg(long)]
        title: String,
        #[arg(long, default_value = "wikiuncategoriz")]
        category: String,
        #[arg(long = "type", default_value = "sop")]
        document_type: String,
    },
    /// Make a ready upload (opened with --replace) the new PDF of its document.
    Replace {
        #[arg(long = "as")]
        actor: String,
        document_id: String,
        upload_id: String,
    },
    /// Show your upload batch in progress.
    Uploads {
        #[arg(long = "as")]
        actor: String,
    },
    /// Cancel your upload batch and remove what it staged.
    CancelUploads {
        #[arg(long = "as")]
        actor: String,
        batch_id: String,
    },
}

struct Session<'a> {
    data_dir: &'a std::path::Path,
    actor: String,
    password: SecretText,
}

impl Session<'_> {
    fn run(&self, command: &str, payload: Value) -> Result<Value, BoxError> {
        let op = WikiOp::Run {
            actor: self.actor.clone(),
            password: self.password.clone(),
            command: command.to_string(),
            payload,
        };
        match deliver(self.data_dir, ControlOp::Wiki(op))? {
            Delivered::Reply(ControlReply::Wiki(value)) => Ok(value),
            Delivered::Reply(_) => Err("the server sent an unexpected reply".into()),
            Delivered::NotRunning => Err("no Relay server is running on this data directory; start it first".into()),
        }
    }

    /// The current revision of a category or document, read from the library.
    fn revision(&self, list: &str, id: &str) -> Result<i64, BoxError> {
        let library = self.run("wiki.library", json!({}))?;
        let found = library[list].as_array().and_then(|items| items.iter().find(|item| item["id"] == id));
        found.and_then(|item| item["revision"].as_i64()).ok_or_else(|| format!("no such record: {id}").into())
    }
}

fn print_library(library: &Value) {
    println!("Categories:");
    for category in library["categories"].as_array().into_iter().flatten() {
        println!("  {}  {}", category["id"].as_str().unwrap_or(""), category["name"].as_str().unwrap_or(""));
    }
    println!("Documents:");
    for document in library["documents"].as_array().into_iter().flatten() {
        let state = document["lifecycleState"].as_str().unwrap_or("");
        let mark = if state == "trashed" { " (trashed)" } else { "" };
        println!(
            "  {}  {}  [{}] {} pages{mark}",
            document["id"].as_str().unwrap_or(""),
            document["title"].as_str().unwrap_or(""),
            document["documentType"].as_str().unwrap_or(""),
            document["pageCount"]
        );
    }
}

fn print_uploads(status: &Value) {
    match status["batchId"].as_str() {
        None => println!("No upload batch in progress."),
        Some(batch) => {
            println!("Batch {batch}");
            for upload in status["uploads"].as_array().into_iter().flatten() {
                println!(
                    "  {}  {}  {}  {}/{} chunks",
                    upload["uploadId"].as_str().unwrap_or(""),
                    upload["fileName"].as_str().unwrap_or(""),
                    upload["state"].as_str().unwrap_or(""),
                    upload["storedChunks"],
                    upload["chunkCount"]
                );
            }
        }
    }
}

fn actor_of(command: &WikiCommand) -> &str {
    use WikiCommand as W;
    match command {
        W::Library { actor }
        | W::CategoryCreate { actor, .. }
        | W::CategoryRename { actor, .. }
        | W::CategoryReorder { actor, .. }
        | W::CategoryDelete { actor, .. }
        | W::Retitle { actor, .. }
        | W::Trash { actor, .. }
        | W::Restore { actor, .. }
        | W::Delete { actor, .. }
        | W::Upload { actor, .. }
        | W::Publish { actor, .. }
        | W::Replace { actor, .. }
        | W::Uploads { actor }
        | W::CancelUploads { actor, .. } => actor,
    }
}

/// Size and SHA-256 of a file, read in 1 MiB steps.
fn announce(path: &std::path::Path) -> Result<Value, BoxError> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let name = path.file_name().and_then(|n| n.to_str()).ok_or("every file needs a UTF-8 name")?;
    let mut file = std::fs::File::open(path)?;
    let (mut hasher, mut size, mut buf) = (Sha256::new(), 0u64, vec![0u8; 1 << 20]);
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    let checksum: String = hasher.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(json!({"fileName": name, "byteSize": size, "checksum": checksum}))
}

/// `relay wiki upload`: one batch, each file fed by the server from its absolute path.
fn upload(s: &Session<'_>, files: &[std::path::PathBuf], replace: Option<&str>) -> Result<(), BoxError> {
    let mut absolute = Vec::with_capacity(files.len());
    let mut announced = Vec::with_capacity(files.len());
    for file in files {
        let path = std::fs::canonicalize(file).map_err(|e| format!("{}: {e}", file.display()))?;
        announced.push(announce(&path)?);
        absolute.push(path);
    }
    let batch = s.run("wiki.upload.begin", json!({"files": announced, "replacementDocumentId": replace}))?;
    let uploads = batch["uploads"].as_array().cloned().unwrap_or_default();
    for (upload, path) in uploads.iter().zip(&absolute) {
        let upload_id = upload["uploadId"].as_str().ok_or("the server answered no upload id")?.to_string();
        let name = upload["fileName"].as_str().unwrap_or("");
        let op = WikiOp::Feed {
            actor: s.actor.clone(),
            password: s.password.clone(),
            upload_id: upload_id.clone(),
            path: path.to_string_lossy().into_owned(),
        };
        let progress = match deliver(s.data_dir, ControlOp::Wiki(op))? {
            Delivered::Reply(ControlReply::Wiki(value)) => value,
            Delivered::Reply(_) => return Err("the server sent an unexpected reply".into()),
            Delivered::NotRunning => return Err("the server stopped".into()),
        };
        match progress["error"].as_str() {
            Some(error) => println!("{upload_id}  {name}  failed: {error}"),
            None => println!("{upload_id}  {name}  {}", progress["state"].as_str().unwrap_or("")),
        }
    }
    println!(
        "Batch {} — publish each ready upload with `relay wiki publish UPLOAD_ID --title ...`.",
        batch["batchId"].as_str().unwrap_or("")
    );
    Ok(())
}

/// Trash, restore or delete one document at its current revision.
fn lifecycle(s: &Session<'_>, command: &str, document_id: &str, done: &str) -> Result<(), BoxError> {
    let revision = s.revision("documents", document_id)?;
    s.run(command, json!({"documentId": document_id, "revision": revision}))?;
    println!("{done}");
    Ok(())
}

pub fn run(data_dir: &std::path::Path, command: WikiCommand) -> Result<(), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    let actor = actor_of(&command).to_string();
    let password = SecretText(read_secret(&format!("Password for {actor}: "))?);
    let s = Session { data_dir, actor, password };
    use WikiCommand as W;
    match command {
        W::Library { .. } => print_library(&s.run("wiki.library", json!({}))?),
        W::CategoryCreate { name, .. } => {
            let created = s.run("wiki.category.create", json!({"name": name}))?;
            println!(
                "Created category {} ({})",
                created["name"].as_str().unwrap_or(""),
                created["id"].as_str().unwrap_or("")
            );
        }
        W::CategoryRename { category_id, name, .. } => {
            let revision = s.revision("categories", &category_id)?;
            s.run("wiki.category.rename", json!({"categoryId": category_id, "name": name, "revision": revision}))?;
            println!("Renamed.");
        }
        W::CategoryReorder { category_ids, .. } => {
            s.run("wiki.category.reorder", json!({"categoryIds": category_ids}))?;
            println!("Reordered.");
        }
        W::CategoryDelete { category_id, reassign_to, .. } => {
            let revision = s.revision("categories", &category_id)?;
            let payload = json!({"categoryId": category_id, "reassignTo": reassign_to, "revision": revision});
            let result = s.run("wiki.category.delete", payload)?;
            println!("Deleted; {} document(s) moved.", result["documentsMoved"]);
        }
        W::Retitle { document_id, title, category, document_type, .. } => {
            let revision = s.revision("documents", &document_id)?;
            let payload = json!({"documentId": document_id, "title": title, "categoryId": category,
                "documentType": document_type, "revision": revision});
            s.run("wiki.retitle", payload)?;
            println!("Updated.");
        }
        W::Trash { document_id, .. } => lifecycle(&s, "wiki.trash", &document_id, "Moved to the trash.")?,
        W::Restore { document_id, .. } => lifecycle(&s, "wiki.restore", &document_id, "Restored.")?,
        W::Delete { document_id, .. } => lifecycle(&s, "wiki.delete", &document_id, "Deleted.")?,
        W::Upload { files, replace, .. } => upload(&s, &files, replace.as_deref())?,
        W::Publish { upload_id, title, category, document_type, .. } => {
            let payload =
                json!({"uploadId": upload_id, "title": title, "categoryId": category, "documentType": document_type});
            let document = s.run("wiki.publish", payload)?;
            println!(
                "Published {} ({})",
                document["title"].as_str().unwrap_or(""),
                document["id"].as_str().unwrap_or("")
            );
        }
        W::Replace { document_id, upload_id, .. } => {
            let revision = s.revision("documents", &document_id)?;
            let payload = json!({"documentId": document_id, "uploadId": upload_id, "revision": revision});
            s.run("wiki.replace", payload)?;
            println!("Replaced.");
        }
        W::Uploads { .. } => print_uploads(&s.run("wiki.upload.status", json!({}))?),
        W::CancelUploads { batch_id, .. } => {
            let result = s.run("wiki.upload.cancel", json!({"batchId": batch_id}))?;
            println!("Cancelled {} upload(s).", result["cancelled"]);
        }
    }
    Ok(())
}
