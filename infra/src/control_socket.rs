//! The control socket's file rules and its blocking client. The server's end is a Unix domain
//! socket at `DATA_DIR/control.sock`: [`bind`] refuses a data directory that is not owner-only
//! and owned by this user, refuses a symlink or any non-socket file at the path, refuses to start
//! when another server answers on it, replaces a stale socket left by a crashed server, and
//! makes the new socket 0600. [`peer_allowed`] is the same-uid rule the listener applies to
//! every connection (SO_PEERCRED). [`request`] is the `relay admin` side: it never follows a
//! symlink, says [`ClientError::NotRunning`] when no server listens (the caller then opens the
//! store directly), and bounds every read and write. Nothing here listens on TCP.

use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

use domain::control::{ControlRequest, ControlResponse, IO_DEADLINE_MS, MAX_REPLY_BYTES, SOCKET_FILE};

#[derive(Debug, thiserror::Error)]
pub enum BindError {
    #[error("the data directory must be owned by this user and closed to others (mode 0700)")]
    UnsafeDirectory,
    #[error("{0} is a symbolic link; refusing to use it as the control socket")]
    Symlink(String),
    #[error("{0} exists and is not a socket; remove it if it is not needed")]
    NotASocket(String),
    #[error("another Relay server is already running on this data directory")]
    AlreadyRunning,
    #[error("control socket: {0}")]
    Io(#[from] std::io::Error),
}

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// No server is listening (no socket file, or a stale one).
    #[error("no Relay server is running on this data directory")]
    NotRunning,
    #[error("{0} is a symbolic link; refusing to connect")]
    Symlink(String),
    #[error("the server did not answer within {0} s")]
    Timeout(u64),
    #[error("the server's reply was not understood")]
    BadReply,
    #[error("control socket: {0}")]
    Io(std::io::Error),
}

/// What is at the socket path, looked at without following a link.
enum PathState {
    Absent,
    Symlink,
    NotASocket,
    Socket,
}

fn path_state(path: &Path) -> std::io::Result<PathState> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => Ok(PathState::Symlink),
        Ok(meta) if !meta.file_type().is_socket() => Ok(PathState::NotASocket),
        Ok(_) => Ok(PathState::Socket),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(PathState::Absent),
        Err(e) => Err(e),
    }
}

/// Where a data directory's control socket lives.
pub fn socket_path(data_dir: &Path) -> PathBuf {
    data_dir.join(SOCKET_FILE)
}

/// This process's effective user id.
pub fn current_uid() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}

/// The same-uid rule: only the server's own user may talk to it.
pub fn peer_allowed(peer_uid: u32) -> bool {
    peer_uid == current_uid()
}

fn check_directory(data_dir: &Path) -> Result<(), BindError> {
    let meta = std::fs::symlink_metadata(data_dir)?;
    if !meta.is_dir() || meta.uid() != current_uid() || meta.mode() & 0o077 != 0 {
        return Err(BindError::UnsafeDirectory);
    }
    Ok(())
}

/// Binds the control socket of `data_dir` (see the module doc for every refusal). The listener
/// is non-blocking, ready for an async runtime.
pub fn bind(data_dir: &Path) -> Result<UnixListener, BindError> {
    check_directory(data_dir)?;
    let path = socket_path(data_dir);
    match path_state(&path)? {
        PathState::Symlink => return Err(BindError::Symlink(SOCKET_FILE.into())),
        PathState::NotASocket => return Err(BindError::NotASocket(SOCKET_FILE.into())),
        PathState::Socket => match UnixStream::connect(&path) {
            Ok(_) => return Err(BindError::AlreadyRunning),
            Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
                tracing::info!("replacing a stale control socket");
                std::fs::remove_file(&path)?;
            }
            Err(e) => return Err(BindError::Io(e)),
        },
        PathState::Absent => {}
    }
    let listener = UnixListener::bind(&path)?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Removes the socket file on shutdown if it is still ours (a socket, not a link).
pub fn remove(data_dir: &Path) {
    let path = socket_path(data_dir);
    if matches!(path_state(&path), Ok(PathState::Socket)) {
        let _ = std::fs::remove_file(path);
    }
}

/// Sends one request to the server of `data_dir` and reads its reply.
pub fn request(data_dir: &Path, request: &ControlRequest) -> Result<ControlResponse, ClientError> {
    let path = socket_path(data_dir);
    match path_state(&path) {
        Ok(PathState::Symlink) => return Err(ClientError::Symlink(SOCKET_FILE.into())),
        Ok(PathState::Socket) => {}
        Ok(PathState::Absent | PathState::NotASocket) | Err(_) => return Err(ClientError::NotRunning),
    }
    let mut stream = match UnixStream::connect(&path) {
        Ok(s) => s,
        Err(e) if matches!(e.kind(), ErrorKind::ConnectionRefused | ErrorKind::NotFound) => {
            return Err(ClientError::NotRunning)
        }
        Err(e) => return Err(ClientError::Io(e)),
    };
    let deadline = Duration::from_millis(IO_DEADLINE_MS);
    stream.set_write_timeout(Some(deadline)).map_err(ClientError::Io)?;
    let mut line = serde_json::to_vec(request).map_err(|_| ClientError::BadReply)?;
    line.push(b'\n');
    stream.write_all(&line).map_err(|e| io_or_timeout(e, deadline))?;
    let deadline = Duration::from_millis(request.reply_deadline_ms());
    stream.set_read_timeout(Some(deadline)).map_err(ClientError::Io)?;
    let mut reply = Vec::new();
    let mut reader = BufReader::new(stream.take(MAX_REPLY_BYTES as u64 + 1));
    reader.read_until(b'\n', &mut reply).map_err(|e| io_or_timeout(e, deadline))?;
    if reply.is_empty() || reply.len() > MAX_REPLY_BYTES {
        return Err(ClientError::BadReply);
    }
    serde_json::from_slice(&reply).map_err(|_| ClientError::BadReply)
}

fn io_or_timeout(e: std::io::Error, deadline: Duration) -> ClientError {
    match e.kind() {
        ErrorKind::WouldBlock | ErrorKind::TimedOut => ClientError::Timeout(deadline.as_secs()),
        _ => ClientError::Io(e),
    }
}

#[cfg(test)]
mod tests;
