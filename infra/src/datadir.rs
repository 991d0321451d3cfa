//! The server's data directory and the secrets kept beside (not inside) the database. The
//! directory, its `secrets/` folder and its `store/` folder are owner-only (0700); `store/` holds
//! the authoritative store (`relay.db` and its WAL files; later Wiki documents and logos), the
//! one directory a backup restore swaps as a whole. A data directory from before `store/`
//! existed is migrated once at open: the database files are renamed into `store/` (refused,
//! touching nothing, when a file is in both places), and nothing is done to the store while a
//! restore journal waits for recovery (`crate::backup::swap`). The connection passphrase and the
//! token-signing key are owner-only files (0600) written atomically (exclusive temp file, fsync,
//! rename). Symbolic links are refused where a secret is expected, and loose permissions found
//! on start are tightened and reported.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use domain::desktop_setup::{parse_saved, DesktopSetup, SetupError};
use serde::{Deserialize, Serialize};

pub const MIN_PASSPHRASE_LEN: usize = 8;
pub const MAX_PASSPHRASE_LEN: usize = 256;

/// Environment variable that sets the connection passphrase on first start (8–256 characters),
/// for `relay serve` and the desktop's server mode alike.
pub const BOOTSTRAP_ENV: &str = "RELAY_BOOTSTRAP_PASSPHRASE";

/// The folder of the data directory that holds the authoritative store.
pub const STORE_DIR: &str = "store";
/// The database file inside [`STORE_DIR`].
pub const DB_FILE_NAME: &str = "relay.db";
/// The database and its WAL side files, moved together from a legacy layout.
const DB_FILES: [&str; 3] = ["relay.db", "relay.db-wal", "relay.db-shm"];
#[derive(Debug, thiserror::Error)]
pub enum DataDirError {
    #[error("data directory problem at {path}: {source}")]
    Io { path: String, source: io::Error },
    #[error("{0} is a symbolic link or not a regular file; refusing to use it")]
    NotRegular(String),
    #[error("the passphrase must be {MIN_PASSPHRASE_LEN}-{MAX_PASSPHRASE_LEN} characters without control characters")]
    InvalidPassphrase,
    #[error("the secret file {0} is empty or corrupt")]
    Corrupt(String),
    #[error(
        "{0} exists both in the data directory and in its store/ folder; move one of them aside (neither was touched)"
    )]
    LegacyConflict(String),
    #[error("no passphrase file: start `relay serve` once first (a desktop server keeps it in the OS secret store; reveal it from the app)")]
    NoPassphrase,
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> DataDirError + '_ {
    move |source| DataDirError::Io { path: path.display().to_string(), source }
}

/// Checks a passphrase's length and characters.
pub fn validate_passphrase(p: &str) -> Result<(), DataDirError> {
    let n = p.chars().count();
    if !(MIN_PASSPHRASE_LEN..=MAX_PASSPHRASE_LEN).contains(&n) || p.chars().any(char::is_control) {
        return Err(DataDirError::InvalidPassphrase);
    }
    Ok(())
}

/// Where the running server can be reached; written at start for `relay connection-info`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct RuntimeInfo {
    pub bind: String,
    pub port: u16,
    pub pid: u32,
}

#[derive(Debug, Clone)]
pub struct DataDir {
    root: PathBuf,
}

#[cfg(unix)]
fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(mode))
}
#[cfg(not(unix))]
fn set_mode(_path: &Path, _mode: u32) -> io::Result<()> {
    Ok(())
}

#[cfg(unix)]
fn loose_mode(meta: &fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o077 != 0
}
#[cfg(not(unix))]
fn loose_mode(_meta: &fs::Metadata) -> bool {
    false
}

/// Creates `dir` (and parents) if needed and makes it owner-only; a link or a non-directory in
/// its place is refused.
pub fn ensure_private_dir(dir: &Path) -> Result<(), DataDirError> {
    match fs::symlink_metadata(dir) {
        Ok(meta) if meta.file_type().is_symlink() => return Err(DataDirError::NotRegular(dir.display().to_string())),
        Ok(meta) if !meta.is_dir() => return Err(DataDirError::NotRegular(dir.display().to_string())),
        Ok(meta) => {
            if loose_mode(&meta) {
                tracing::warn!(dir = %dir.display(), "tightening data directory permissions to owner-only");
                set_mode(dir, 0o700).map_err(io_err(dir))?;
            }
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            fs::create_dir_all(dir).map_err(io_err(dir))?;
            set_mode(dir, 0o700).map_err(io_err(dir))?;
        }
        Err(e) => return Err(io_err(dir)(e)),
    }
    Ok(())
}

/// Creates a new owner-only (0600) file, failing if anything already exists at `path` (no
/// link is followed: `O_EXCL`).
pub(crate) fn create_private_file(path: &Path) -> io::Result<fs::File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options.open(path)
}

/// Flushes a directory's entries (a rename or a new file in it) to disk. A no-op off Unix.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    #[cfg(unix)]
    fs::File::open(dir)?.sync_all()?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

/// Atomically writes an owner-only file: exclusive temp file, fsync, rename over the target.
pub fn write_private_file(path: &Path, contents: &[u8]) -> Result<(), DataDirError> {
    let tmp = path.with_extension(format!("tmp-{}", std::process::id()));
    let _ = fs::remove_file(&tmp);
    let mut file = create_private_file(&tmp).map_err(io_err(&tmp))?;
    file.write_all(contents).and_then(|_| file.sync_all()).map_err(io_err(&tmp))?;
    drop(file);
    fs::rename(&tmp, path).map_err(io_err(path))
}

/// Removes a file; one that is already absent is fine.
pub fn remove_if_present(path: &Path) -> Result<(), DataDirError> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(io_err(path)(e)),
        _ => Ok(()),
    }
}

/// Reads a secret file, refusing links and non-regular files and tightening loose permissions.
pub fn read_private_file(path: &Path) -> Result<Option<Vec<u8>>, DataDirError> {
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_err(path)(e)),
    };
    if !meta.file_type().is_file() {
        return Err(DataDirError::NotRegular(path.display().to_string()));
    }
    if loose_mode(&meta) {
        tracing::warn!(file = %path.display(), "secret file was readable by others; tightening to owner-only");
        set_mode(path, 0o600).map_err(io_err(path))?;
    }
    fs::read(path).map(Some).map_err(io_err(path))
}

fn lstat(path: &Path) -> Result<Option<fs::Metadata>, DataDirError> {
    match fs::symlink_metadata(path) {
        Ok(meta) => Ok(Some(meta)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(io_err(path)(e)),
    }
}

/// Moves `relay.db`, `relay.db-wal` and `relay.db-shm` from the data directory's root into
/// `store/` (a layout from before `store/` existed). Every file is checked before any is moved:
/// one that is a link or not a regular file, or that `store/` already has, is an error and
/// nothing is touched. The directories are fsynced after the renames. Returns how many files
/// moved. No server may be running on the directory (the callers open it before the store).
fn migrate_legacy_store(root: &Path) -> Result<usize, DataDirError> {
    let store = root.join(STORE_DIR);
    let mut moves = Vec::new();
    for name in DB_FILES {
        let legacy = root.join(name);
        let Some(meta) = lstat(&legacy)? else { continue };
        if !meta.file_type().is_file() {
            return Err(DataDirError::NotRegular(name.to_string()));
        }
        if lstat(&store.join(name))?.is_some() {
            return Err(DataDirError::LegacyConflict(name.to_string()));
        }
        moves.push(name);
    }
    if moves.is_empty() {
        return Ok(0);
    }
    ensure_private_dir(&store)?;
    for name in &moves {
        fs::rename(root.join(name), store.join(name)).map_err(io_err(&store))?;
    }
    sync_dir(&store).map_err(io_err(&store))?;
    sync_dir(root).map_err(io_err(root))?;
    tracing::info!(files = moves.len(), "moved the database into the data directory's store folder");
    Ok(moves.len())
}

impl DataDir {
    /// Opens (creating if needed) an owner-only data directory with its `secrets/` and `store/`
    /// folders, migrating a legacy layout (database files at the root) into `store/` once. While
    /// a restore journal is present the store is left exactly as it is: the start recovers it
    /// (`crate::backup::swap::recover_at_start`) before the store opens.
    pub fn open(root: impl AsRef<Path>) -> Result<DataDir, DataDirError> {
        let root = root.as_ref().to_path_buf();
        ensure_private_dir(&root)?;
        let root = fs::canonicalize(&root).map_err(io_err(&root))?;
        ensure_private_dir(&root.join("secrets"))?;
        if lstat(&root.join(domain::backup::journal::JOURNAL_FILE_NAME))?.is_some() {
            tracing::warn!("an interrupted backup restore is waiting for recovery; the store is left as it is");
        } else {
            migrate_legacy_store(&root)?;
            ensure_private_dir(&root.join(STORE_DIR))?;
        }
        Ok(DataDir { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `DATA/store`: the authoritative store, swapped as a whole by a restore.
    pub fn store_dir(&self) -> PathBuf {
        self.root.join(STORE_DIR)
    }
    /// `DATA/store/relay.db`.
    pub fn db_path(&self) -> PathBuf {
        self.store_dir().join(DB_FILE_NAME)
    }
    fn secret(&self, name: &str) -> PathBuf {
        self.root.join("secrets").join(name)
    }

    /// The first-start passphrase from [`BOOTSTRAP_ENV`], when set and not empty.
    pub fn bootstrap_passphrase() -> Option<String> {
        std::env::var(BOOTSTRAP_ENV).ok().filter(|s| !s.is_empty())
    }

    /// Returns the stored passphrase, creating it on first start from `bootstrap` (validated)
    /// or at random. The boolean says whether it was created now.
    pub fn load_or_create_passphrase(&self, bootstrap: Option<&str>) -> Result<(String, bool), DataDirError> {
        if let Some(existing) = self.read_passphrase_opt()? {
            return Ok((existing, false));
        }
        let passphrase = match bootstrap {
            Some(p) => {
                validate_passphrase(p)?;
                p.to_string()
            }
            None => crate::ids::passphrase(),
        };
        write_private_file(&self.secret("passphrase"), passphrase.as_bytes())?;
        Ok((passphrase, true))
    }

    pub(crate) fn read_passphrase_opt(&self) -> Result<Option<String>, DataDirError> {
        let path = self.secret("passphrase");
        match read_private_file(&path)? {
            None => Ok(None),
            Some(bytes) => {
                let text = String::from_utf8(bytes).map_err(|_| DataDirError::Corrupt(path.display().to_string()))?;
                validate_passphrase(&text).map_err(|_| DataDirError::Corrupt(path.display().to_string()))?;
                Ok(Some(text))
            }
        }
    }

    /// Removes the plaintext passphrase file (after it moved into the OS secret store).
    pub(crate) fn remove_passphrase_file(&self) -> Result<(), DataDirError> {
        remove_if_present(&self.secret("passphrase"))
    }

    /// The stored passphrase, for `relay connection-info`.
    pub fn read_passphrase(&self) -> Result<String, DataDirError> {
        self.read_passphrase_opt()?.ok_or(DataDirError::NoPassphrase)
    }

    /// Replaces the passphrase (server-local operation).
    pub fn set_passphrase(&self, passphrase: &str) -> Result<(), DataDirError> {
        validate_passphrase(passphrase)?;
        write_private_file(&self.secret("passphrase"), passphrase.as_bytes())
    }

    /// The 32-byte key that signs auth tokens, created on first use.
    pub fn load_or_create_token_key(&self) -> Result<Vec<u8>, DataDirError> {
        let path = self.secret("token.key");
        if let Some(bytes) = read_private_file(&path)? {
            if bytes.len() != 32 {
                return Err(DataDirError::Corrupt(path.display().to_string()));
            }
            return Ok(bytes);
        }
        let key = crate::ids::random_bytes(32);
        write_private_file(&path, &key)?;
        Ok(key)
    }

    pub fn write_runtime_info(&self, info: &RuntimeInfo) -> Result<(), DataDirError> {
        let json = serde_json::to_vec_pretty(info).unwrap_or_default();
        write_private_file(&self.root.join("runtime.json"), &json)
    }

    fn desktop_setup_path(&self) -> PathBuf {
        self.root.join("desktop.json")
    }

    /// The desktop's saved connection setup (strict, validated again; see `domain::desktop_setup`).
    pub fn read_desktop_setup(&self) -> Result<Option<DesktopSetup>, DataDirError> {
        let path = self.desktop_setup_path();
        match read_private_file(&path)? {
            None => Ok(None),
            Some(bytes) => parse_saved(&bytes).map(Some).map_err(|_| DataDirError::Corrupt(path.display().to_string())),
        }
    }

    /// Saves the desktop's setup (validated first) owner-only and atomically.
    pub fn write_desktop_setup(&self, setup: DesktopSetup) -> Result<DesktopSetup, SetupError> {
        let setup = setup.validated()?;
        write_private_file(&self.desktop_setup_path(), setup.to_json().as_bytes())
            .map_err(|e| SetupError::Storage(e.to_string()))?;
        Ok(setup)
    }

    /// Removes the saved desktop setup (no error when there is none).
    pub fn clear_desktop_setup(&self) -> Result<(), DataDirError> {
        remove_if_present(&self.desktop_setup_path())
    }

    pub fn read_runtime_info(&self) -> Option<RuntimeInfo> {
        let bytes = read_private_file(&self.root.join("runtime.json")).ok()??;
        serde_json::from_slice(&bytes).ok()
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn mode(p: &Path) -> u32 {
        fs::metadata(p).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn creates_owner_only_layout_and_keeps_the_first_passphrase() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path().join("data")).unwrap();
        assert_eq!(mode(dir.root()), 0o700);
        assert_eq!(mode(&dir.root().join("secrets")), 0o700);
        let (p1, created) = dir.load_or_create_passphrase(Some("correct horse")).unwrap();
        assert!(created);
        assert_eq!(p1, "correct horse");
        assert_eq!(mode(&dir.secret("passphrase")), 0o600);
        let (p2, created) = dir.load_or_create_passphrase(Some("another one")).unwrap();
        assert_eq!((p2.as_str(), created), ("correct horse", false));
        assert_eq!(dir.read_passphrase().unwrap(), "correct horse");
    }

    #[test]
    fn random_passphrase_when_no_bootstrap_and_invalid_bootstrap_rejected() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path()).unwrap();
        assert!(matches!(dir.load_or_create_passphrase(Some("short")), Err(DataDirError::InvalidPassphrase)));
        assert!(matches!(dir.read_passphrase(), Err(DataDirError::NoPassphrase)));
        let (p, _) = dir.load_or_create_passphrase(None).unwrap();
        assert!(validate_passphrase(&p).is_ok());
        assert!(validate_passphrase("line\nbreak-pass").is_err());
    }

    #[test]
    fn loose_permissions_are_tightened_and_symlinks_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path()).unwrap();
        dir.load_or_create_passphrase(Some("passphrase-1")).unwrap();
        fs::set_permissions(dir.secret("passphrase"), fs::Permissions::from_mode(0o644)).unwrap();
        dir.read_passphrase().unwrap();
        assert_eq!(mode(&dir.secret("passphrase")), 0o600);
        let key = dir.load_or_create_token_key().unwrap();
        assert_eq!(key, dir.load_or_create_token_key().unwrap());
        fs::remove_file(dir.secret("token.key")).unwrap();
        std::os::unix::fs::symlink(dir.secret("passphrase"), dir.secret("token.key")).unwrap();
        assert!(matches!(dir.load_or_create_token_key(), Err(DataDirError::NotRegular(_))));
    }

    #[test]
    fn the_store_folder_is_owner_only_and_holds_the_database() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path().join("data")).unwrap();
        assert_eq!(mode(&dir.store_dir()), 0o700);
        assert_eq!(dir.db_path(), dir.root().join("store").join("relay.db"));
    }

    /// A database written in the legacy layout (files at the root), left with a WAL that holds
    /// committed rows: `open` moves all three files into `store/` and every row is there.
    #[test]
    fn a_legacy_layout_is_migrated_into_the_store_folder_with_its_wal() {
        use diesel::connection::SimpleConnection;
        use diesel::{Connection, RunQueryDsl};
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        ensure_private_dir(&root).unwrap();
        let legacy = root.join("relay.db");
        let mut writer = diesel::SqliteConnection::establish(legacy.to_str().unwrap()).unwrap();
        writer
            .batch_execute(
                "PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE t (v TEXT); \
                 INSERT INTO t VALUES ('one'), ('two');",
            )
            .unwrap();
        // Copy the three files while the writer holds them open (as a crash would leave them),
        // so the rows live only in the WAL.
        let crashed = tmp.path().join("crashed");
        ensure_private_dir(&crashed).unwrap();
        for name in DB_FILES {
            fs::copy(root.join(name), crashed.join(name)).unwrap();
        }
        drop(writer);
        assert!(fs::metadata(crashed.join("relay.db-wal")).unwrap().len() > 0, "the rows are in the WAL");

        let dir = DataDir::open(&crashed).unwrap();
        for name in DB_FILES {
            assert!(!crashed.join(name).exists(), "{name} left at the root");
            assert!(dir.store_dir().join(name).is_file(), "{name} not moved");
        }
        #[derive(diesel::QueryableByName)]
        struct Row {
            #[diesel(sql_type = diesel::sql_types::Integer)]
            n: i32,
        }
        let mut conn = diesel::SqliteConnection::establish(dir.db_path().to_str().unwrap()).unwrap();
        let rows: Vec<Row> = diesel::sql_query("SELECT count(*) AS n FROM t").load(&mut conn).unwrap();
        assert_eq!(rows[0].n, 2);
        drop(conn);
        assert_eq!(migrate_legacy_store(dir.root()).unwrap(), 0, "a migrated directory is left alone");
    }

    #[test]
    fn a_database_file_in_both_places_is_refused_and_nothing_moves() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        fs::create_dir_all(root.join("store")).unwrap();
        fs::write(root.join("relay.db"), b"legacy").unwrap();
        fs::write(root.join("relay.db-wal"), b"legacy wal").unwrap();
        fs::write(root.join("store/relay.db-wal"), b"current wal").unwrap();
        let refused = DataDir::open(&root);
        assert!(matches!(refused, Err(DataDirError::LegacyConflict(ref f)) if f == "relay.db-wal"), "{refused:?}");
        assert_eq!(fs::read(root.join("relay.db")).unwrap(), b"legacy");
        assert_eq!(fs::read(root.join("relay.db-wal")).unwrap(), b"legacy wal");
        assert_eq!(fs::read(root.join("store/relay.db-wal")).unwrap(), b"current wal");
        assert!(!root.join("store/relay.db").exists());

        let linked = tmp.path().join("linked");
        fs::create_dir_all(&linked).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("elsewhere.db"), linked.join("relay.db")).unwrap();
        assert!(matches!(DataDir::open(&linked), Err(DataDirError::NotRegular(_))));
    }

    #[test]
    fn a_pending_restore_journal_leaves_the_store_layout_alone() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("data");
        fs::create_dir_all(&root).unwrap();
        fs::write(root.join(domain::backup::journal::JOURNAL_FILE_NAME), b"{}").unwrap();
        let dir = DataDir::open(&root).unwrap();
        assert!(!dir.store_dir().exists(), "no empty store may appear where recovery expects none");
    }

    #[test]
    fn runtime_info_round_trips() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path()).unwrap();
        assert!(dir.read_runtime_info().is_none());
        let info = RuntimeInfo { bind: "127.0.0.1".into(), port: 8090, pid: 7 };
        dir.write_runtime_info(&info).unwrap();
        assert_eq!(dir.read_runtime_info(), Some(info));
    }

    #[test]
    fn desktop_setup_is_saved_owner_only_and_rechecked_on_read() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = DataDir::open(tmp.path()).unwrap();
        assert_eq!(dir.read_desktop_setup().unwrap(), None);
        let saved = dir
            .write_desktop_setup(DesktopSetup::Client {
                server_url: "http://192.168.1.5:8090/".into(),
                allow_insecure_http: false,
            })
            .unwrap();
        assert_eq!(
            saved,
            DesktopSetup::Client { server_url: "http://192.168.1.5:8090".into(), allow_insecure_http: false }
        );
        assert_eq!(dir.read_desktop_setup().unwrap(), Some(saved));
        assert_eq!(mode(&dir.root().join("desktop.json")), 0o600);

        let refused = dir.write_desktop_setup(DesktopSetup::Client {
            server_url: "http://relay.example.com".into(),
            allow_insecure_http: false,
        });
        assert!(matches!(refused, Err(SetupError::ServerUrl(_))));
        assert!(dir.read_desktop_setup().unwrap().is_some(), "a refused setup leaves the saved one untouched");

        // A hand-edited file with a URL the setup screen would refuse is not trusted.
        fs::write(dir.root().join("desktop.json"), r#"{"mode":"client","serverUrl":"http://relay.example.com"}"#)
            .unwrap();
        assert!(matches!(dir.read_desktop_setup(), Err(DataDirError::Corrupt(_))));
    }
}
