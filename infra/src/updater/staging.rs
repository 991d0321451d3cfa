//! The updater's private filesystem: the updates root (a path the caller passes in, normally
//! `$XDG_DATA_HOME/relay/updates`) and the fresh `vX.Y.Z-<uuid v4>` version directory each
//! download gets under it. The root must be an absolute path without `.`/`..` and without a
//! symbolic link on any component (each is checked with `lstat`); missing components are
//! created 0700, and the root must then be a directory owned by the current user (group and
//! other permissions are removed). A version directory is created 0700 with a name the domain
//! formats (`StagingDirName`), files in it are created `O_CREAT|O_EXCL|O_NOFOLLOW` with an
//! exact mode, and a finished file is fsynced, renamed without replacing anything and the
//! directory fsynced. A [`VersionDir`] removes itself when dropped unless the caller keeps it,
//! so an error, a cancellation or a dropped future never leaves a partial download behind.
//! [`UpdatesRoot::entries`] lists the root (names, whether each is a real directory, its
//! modification time) and [`UpdatesRoot::remove_staging_dir`] removes one recognized staging
//! directory after checking it again with `lstat`; which ones are abandoned is
//! `domain::updater::staging_cleanup`'s decision, made by the caller. [`updates_dir_from`] is
//! where the root lives (`$XDG_DATA_HOME/relay/updates`, else `~/.local/share/relay/updates`). It
//! does not download or verify.

use std::ffi::CString;
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Component, Path, PathBuf};
use std::time::UNIX_EPOCH;

use domain::updater::{StagingDirName, Version};

/// Why the updates root or a version directory cannot be used. Messages name no path.
#[derive(Debug, thiserror::Error)]
pub enum StagingError {
    #[error("The updates directory must be an absolute path without '.' or '..'.")]
    RootNotAbsolute,
    #[error("A component of the updates directory path is a symbolic link.")]
    SymlinkInPath,
    #[error("A component of the updates directory path is not a directory.")]
    NotADirectory,
    #[error("The updates directory is not owned by the current user.")]
    NotOwned,
    #[error("A staging file already exists.")]
    AlreadyExists,
    #[error("The staged file is not a regular file owned by the current user.")]
    NotRegularFile,
    #[error("Staging failed: {0}")]
    Io(#[source] io::Error),
}

impl StagingError {
    /// A stable, machine-readable code (`snake_case`).
    pub fn code(&self) -> &'static str {
        match self {
            StagingError::RootNotAbsolute => "updates_root_not_absolute",
            StagingError::SymlinkInPath => "updates_root_symlink",
            StagingError::NotADirectory => "updates_root_not_a_directory",
            StagingError::NotOwned => "updates_root_not_owned",
            StagingError::AlreadyExists => "staging_file_exists",
            StagingError::NotRegularFile => "staged_file_not_regular",
            StagingError::Io(_) => "staging_io",
        }
    }
}

fn io_error(error: io::Error) -> StagingError {
    match error.kind() {
        io::ErrorKind::AlreadyExists => StagingError::AlreadyExists,
        // `O_NOFOLLOW` on a link.
        _ if error.raw_os_error() == Some(libc::ELOOP) => StagingError::SymlinkInPath,
        _ => StagingError::Io(error),
    }
}

fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The updates root for these environment values: `$XDG_DATA_HOME/relay/updates` when that is
/// an absolute path, else `$HOME/.local/share/relay/updates` (the XDG default); `None` without
/// an absolute home.
pub fn updates_dir_from(xdg_data_home: Option<&std::ffi::OsStr>, home: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    let absolute = |value: Option<&std::ffi::OsStr>| value.map(PathBuf::from).filter(|path| path.is_absolute());
    let data_home = absolute(xdg_data_home).or_else(|| absolute(home).map(|home| home.join(".local/share")))?;
    Some(data_home.join("relay").join("updates"))
}

/// One entry of the updates root as the cleanup rule needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootEntry {
    /// The entry's name (lossy UTF-8; a name that is not UTF-8 is never one Relay made).
    pub name: String,
    /// A directory itself, not a link to one.
    pub is_dir: bool,
    /// Last modification, milliseconds since the Unix epoch (`None` when unknown).
    pub modified_ms: Option<u64>,
}

/// The verified updates root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdatesRoot {
    path: PathBuf,
}

impl UpdatesRoot {
    /// Checks every component of `path` with `lstat` (no symbolic link, each one a directory),
    /// creates the missing ones 0700, and requires the root itself to be owned by the current
    /// user (its group and other permissions are removed).
    pub fn open(path: &Path) -> Result<UpdatesRoot, StagingError> {
        walk_without_links(path, true)?;
        let meta = fs::symlink_metadata(path).map_err(StagingError::Io)?;
        if meta.uid() != current_uid() {
            return Err(StagingError::NotOwned);
        }
        if meta.mode() & 0o077 != 0 {
            tracing::warn!(target: "relay::updater", "tightening the updates directory to owner-only");
            fs::set_permissions(path, fs::Permissions::from_mode(0o700)).map_err(StagingError::Io)?;
        }
        Ok(UpdatesRoot { path: path.to_path_buf() })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Creates a fresh `vX.Y.Z-<uuid v4>` directory (0700, owned by the current user) and
    /// flushes the root's entry for it. The directory is removed again when the returned value
    /// is dropped, unless [`VersionDir::keep`] is called.
    pub fn create_version_dir(&self, version: Version) -> Result<VersionDir, StagingError> {
        let mut random = [0u8; 16];
        random.copy_from_slice(&crate::ids::random_bytes(16));
        let name = StagingDirName::from_random(version, random);
        let path = self.path.join(name.to_string());
        fs::DirBuilder::new().mode(0o700).create(&path).map_err(io_error)?;
        let dir = VersionDir { path, name, keep: false };
        let meta = fs::symlink_metadata(&dir.path).map_err(StagingError::Io)?;
        if !meta.is_dir() || meta.uid() != current_uid() {
            return Err(StagingError::NotOwned);
        }
        fs::set_permissions(&dir.path, fs::Permissions::from_mode(0o700)).map_err(StagingError::Io)?;
        crate::datadir::sync_dir(&self.path).map_err(StagingError::Io)?;
        Ok(dir)
    }

    /// Every entry directly under the root, read with `lstat` (links are reported as what they
    /// are, never followed).
    pub fn entries(&self) -> Result<Vec<RootEntry>, StagingError> {
        let mut entries = Vec::new();
        for entry in fs::read_dir(&self.path).map_err(StagingError::Io)? {
            let entry = entry.map_err(StagingError::Io)?;
            let meta = fs::symlink_metadata(entry.path()).map_err(StagingError::Io)?;
            let modified_ms = meta
                .modified()
                .ok()
                .and_then(|time| time.duration_since(UNIX_EPOCH).ok())
                .map(|age| age.as_millis() as u64);
            let name = entry.file_name().to_string_lossy().into_owned();
            entries.push(RootEntry { name, is_dir: meta.file_type().is_dir(), modified_ms });
        }
        Ok(entries)
    }

    /// Removes the staging directory `name` (a name the domain recognizes, so it cannot name
    /// anything outside the root) after checking again that it is a real directory of the
    /// current user; a link or another file in its place is refused and left alone.
    pub fn remove_staging_dir(&self, name: &StagingDirName) -> Result<(), StagingError> {
        let path = self.path.join(name.to_string());
        let meta = fs::symlink_metadata(&path).map_err(StagingError::Io)?;
        if meta.file_type().is_symlink() {
            return Err(StagingError::SymlinkInPath);
        }
        if !meta.is_dir() {
            return Err(StagingError::NotADirectory);
        }
        if meta.uid() != current_uid() {
            return Err(StagingError::NotOwned);
        }
        remove_tree(&path).map_err(StagingError::Io)?;
        crate::datadir::sync_dir(&self.path).map_err(StagingError::Io)
    }
}

/// Checks each component of the absolute, normal `path` with `lstat`: no symbolic link, and
/// every ancestor a directory. With `create_missing`, missing components are created 0700 (and
/// must then be directories); without it a missing component is an error.
pub(crate) fn walk_without_links(path: &Path, create_missing: bool) -> Result<(), StagingError> {
    let normal = path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    if !path.is_absolute() || !normal {
        return Err(StagingError::RootNotAbsolute);
    }
    let mut walked = PathBuf::new();
    let mut components = path.components().peekable();
    while let Some(component) = components.next() {
        walked.push(component);
        // Only an existing file being checked (nothing created) may end in a non-directory.
        let may_be_file = components.peek().is_none() && !create_missing;
        match fs::symlink_metadata(&walked) {
            Ok(meta) if meta.file_type().is_symlink() => return Err(StagingError::SymlinkInPath),
            Ok(meta) if !meta.is_dir() && !may_be_file => return Err(StagingError::NotADirectory),
            Ok(_) => {}
            Err(error) if error.kind() == io::ErrorKind::NotFound && create_missing => {
                match fs::DirBuilder::new().mode(0o700).create(&walked) {
                    Err(error) if error.kind() != io::ErrorKind::AlreadyExists => return Err(StagingError::Io(error)),
                    // Created here, or by a concurrent caller: checked again.
                    _ => check_directory(&walked)?,
                }
            }
            Err(error) => return Err(StagingError::Io(error)),
        }
    }
    Ok(())
}

fn check_directory(path: &Path) -> Result<(), StagingError> {
    let meta = fs::symlink_metadata(path).map_err(StagingError::Io)?;
    if meta.file_type().is_symlink() {
        return Err(StagingError::SymlinkInPath);
    }
    if !meta.is_dir() {
        return Err(StagingError::NotADirectory);
    }
    Ok(())
}

/// One download's private directory under the updates root.
#[derive(Debug)]
pub struct VersionDir {
    path: PathBuf,
    name: StagingDirName,
    keep: bool,
}

impl VersionDir {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory's name (`vX.Y.Z-<uuid v4>`).
    pub fn name(&self) -> &StagingDirName {
        &self.name
    }

    /// `name` inside this directory. `name` is one of the updater's fixed file names.
    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// Creates `name` with `O_CREAT|O_EXCL|O_NOFOLLOW` and exactly `mode` (0600 for downloads,
    /// 0700 for the executable); anything already there, link or not, is refused.
    pub fn create_file(&self, name: &str, mode: u32) -> Result<File, StagingError> {
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(self.file(name))
            .map_err(io_error)?;
        // The umask may have narrowed the mode; set it exactly.
        file.set_permissions(fs::Permissions::from_mode(mode)).map_err(StagingError::Io)?;
        Ok(file)
    }

    /// Opens `name` for reading without following a link; it must be a regular file owned by
    /// the current user.
    pub fn open_file(&self, name: &str) -> Result<File, StagingError> {
        open_owned_regular(&self.file(name))
    }

    /// Makes a finished file final: fsync it, rename `from` to `to` refusing to replace
    /// anything, and fsync the directory.
    pub fn commit(&self, file: File, from: &str, to: &str) -> Result<(), StagingError> {
        file.sync_all().map_err(StagingError::Io)?;
        drop(file);
        rename_no_replace(&self.file(from), &self.file(to))?;
        crate::datadir::sync_dir(&self.path).map_err(StagingError::Io)
    }

    /// Keeps the directory after this value is dropped (the download or preparation succeeded
    /// and the caller now owns it by name).
    pub fn keep(mut self) -> PathBuf {
        self.keep = true;
        std::mem::take(&mut self.path)
    }

    /// Removes the directory and everything in it now.
    pub fn remove(mut self) -> Result<(), StagingError> {
        self.keep = true;
        remove_tree(&self.path).map_err(StagingError::Io)
    }
}

impl Drop for VersionDir {
    fn drop(&mut self) {
        if !self.keep {
            if let Err(error) = remove_tree(&self.path) {
                tracing::warn!(target: "relay::updater", code = "staging_remove_failed", "cannot remove a staging directory: {error}");
            }
        }
    }
}

/// Removes a staging directory tree (links inside are removed, never followed).
pub(crate) fn remove_tree(path: &Path) -> io::Result<()> {
    match fs::remove_dir_all(path) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
        _ => Ok(()),
    }
}

/// Opens `path` read-only with `O_NOFOLLOW`; it must be a regular file owned by the current
/// user (checked on the open descriptor).
pub(crate) fn open_owned_regular(path: &Path) -> Result<File, StagingError> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
        .map_err(io_error)?;
    let meta = file.metadata().map_err(StagingError::Io)?;
    if !meta.is_file() || meta.uid() != current_uid() {
        return Err(StagingError::NotRegularFile);
    }
    Ok(file)
}

/// `renameat2(RENAME_NOREPLACE)`: fails with `AlreadyExists` instead of replacing `to`.
fn rename_no_replace(from: &Path, to: &Path) -> Result<(), StagingError> {
    let c_path = |p: &Path| {
        CString::new(p.as_os_str().as_bytes()).map_err(|_| StagingError::Io(io::ErrorKind::InvalidInput.into()))
    };
    let (from, to) = (c_path(from)?, c_path(to)?);
    // SAFETY: both are valid NUL-terminated paths; AT_FDCWD resolves them like rename(2).
    let result =
        unsafe { libc::renameat2(libc::AT_FDCWD, from.as_ptr(), libc::AT_FDCWD, to.as_ptr(), libc::RENAME_NOREPLACE) };
    if result == 0 {
        Ok(())
    } else {
        Err(io_error(io::Error::last_os_error()))
    }
}

#[cfg(test)]
#[path = "staging_tests.rs"]
mod tests;
