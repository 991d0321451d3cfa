//! Control socket file rules on a real filesystem: owner-only socket, a second server refused,
//! a stale socket replaced, symlinks and foreign files refused, an open data directory refused,
//! and the client's "not running" answer that lets `relay admin` fall back to the store.

use std::os::unix::fs::PermissionsExt;

use domain::control::{ControlOp, ControlRequest};

use super::*;

fn private_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    dir
}

fn ping() -> ControlRequest {
    ControlRequest::new(ControlOp::Ping)
}

#[test]
fn binds_an_owner_only_socket_and_refuses_a_second_server() {
    let dir = private_dir();
    let listener = bind(dir.path()).unwrap();
    let mode = std::fs::metadata(socket_path(dir.path())).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    assert!(matches!(bind(dir.path()), Err(BindError::AlreadyRunning)));
    drop(listener);
    remove(dir.path());
    assert!(!socket_path(dir.path()).exists());
}

#[test]
fn a_stale_socket_is_replaced() {
    let dir = private_dir();
    drop(std::os::unix::net::UnixListener::bind(socket_path(dir.path())).unwrap());
    assert!(socket_path(dir.path()).exists(), "a crashed server leaves its socket file");
    assert!(matches!(request(dir.path(), &ping()), Err(ClientError::NotRunning)));
    let _listener = bind(dir.path()).expect("stale socket replaced");
}

#[test]
fn symlinks_and_foreign_files_are_refused() {
    let dir = private_dir();
    let elsewhere = private_dir();
    let target = elsewhere.path().join("real.sock");
    let _real = std::os::unix::net::UnixListener::bind(&target).unwrap();
    std::os::unix::fs::symlink(&target, socket_path(dir.path())).unwrap();
    assert!(matches!(bind(dir.path()), Err(BindError::Symlink(_))));
    assert!(matches!(request(dir.path(), &ping()), Err(ClientError::Symlink(_))));
    assert!(target.exists(), "the link's target is left alone");

    std::fs::remove_file(socket_path(dir.path())).unwrap();
    std::fs::write(socket_path(dir.path()), b"not a socket").unwrap();
    assert!(matches!(bind(dir.path()), Err(BindError::NotASocket(_))));
    assert_eq!(std::fs::read(socket_path(dir.path())).unwrap(), b"not a socket", "left untouched");
}

#[test]
fn an_open_data_directory_is_refused() {
    let dir = private_dir();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert!(matches!(bind(dir.path()), Err(BindError::UnsafeDirectory)));
    assert!(!socket_path(dir.path()).exists());
}

#[test]
fn no_socket_means_not_running() {
    let dir = private_dir();
    assert!(matches!(request(dir.path(), &ping()), Err(ClientError::NotRunning)));
}

#[test]
fn only_this_user_is_a_permitted_peer() {
    assert!(peer_allowed(current_uid()));
    assert!(!peer_allowed(current_uid().wrapping_add(1)));
}
