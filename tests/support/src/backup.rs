//! Helpers the backup black-box tests share: running `relay backup` with extra environment,
//! the backup working files left in a data directory, the contact names a data directory
//! serves, and a restart-and-check for crash tests.

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::path::Path;

use diesel::prelude::*;

use crate::process::relay_bin;
pub use crate::process::text;
use crate::relay::Relay;

/// Backup working files left in the data directory (verification or restore stages, an
/// original store, a journal).
pub fn backup_leftovers(data_dir: &Path) -> Vec<String> {
    std::fs::read_dir(data_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".relay-backup"))
        .collect()
}

/// Runs `relay backup --data-dir D <args>` with extra environment variables.
pub fn backup_env(data_dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> std::process::Output {
    std::process::Command::new(relay_bin())
        .arg("backup")
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .envs(envs.iter().copied())
        .output()
        .unwrap()
}

/// The contact names a server on `data_dir` serves (it is started and stopped here).
pub async fn served_names(data_dir: &Path) -> BTreeSet<String> {
    let mut relay = Relay::start_in(data_dir, &[]);
    let names = names_served_by(&relay).await;
    relay.stop();
    names
}

/// The contact names the running `relay` serves now (with a fresh token: it may have restarted).
pub async fn names_served_by(relay: &Relay) -> BTreeSet<String> {
    let token = relay.token().await;
    let page = relay.get_json(&token, "/api/collections/contacts/records?perPage=100").await;
    page["items"].as_array().unwrap().iter().map(|c| c["name"].as_str().unwrap().to_string()).collect()
}

/// The finished archives in a data directory's `backups/`, sorted (oldest first).
pub fn archives(data_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir.join("backups"))
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    names.retain(|n| n.ends_with(".zip") && !n.contains(".part"));
    names.sort();
    names
}

pub fn names(list: &[&str]) -> BTreeSet<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[derive(QueryableByName)]
pub struct IdRow {
    #[diesel(sql_type = diesel::sql_types::Text)]
    pub id: String,
}

/// The contact ids inside an archive's database (extracted to a temporary file).
pub fn contact_ids_in(archive: &Path) -> BTreeSet<String> {
    let mut zip = zip::ZipArchive::new(std::fs::File::open(archive).unwrap()).unwrap();
    let mut db = Vec::new();
    zip.by_name("relay.db").unwrap().read_to_end(&mut db).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("snapshot.db");
    std::fs::File::create(&path).unwrap().write_all(&db).unwrap();
    let mut conn = SqliteConnection::establish(path.to_str().unwrap()).unwrap();
    let rows: Vec<IdRow> = diesel::sql_query("SELECT id FROM contacts").load(&mut conn).unwrap();
    rows.into_iter().map(|r| r.id).collect()
}

/// The `pre_restore_...` safety archives in a data directory.
pub fn safety_archives(data_dir: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(data_dir.join("backups"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("pre_restore_"))
        .collect()
}
