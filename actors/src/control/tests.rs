//! Control actor tests over a real Unix socket and a real database: ping, an admin operation
//! delivered to the privileged actor, and malformed, oversized and silent requests answered
//! with typed errors without touching state.

use std::io::{Read, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream as StdUnixStream;

use domain::control::{AdminOp, AdminReply};
use infra::control_socket::{bind, request, socket_path};

use super::*;
use crate::kit::start_supervised;
use crate::system::start_server;
use crate::testkit::{relay_config, TestCtx};

async fn start() -> (tempfile::TempDir, Addr<ControlActor>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let handles = start_server(relay_config(dir.path())).unwrap();
    let listener = bind(dir.path()).unwrap();
    let ctx = TestCtx::new().ctx();
    let targets = ControlTargets {
        privileged: handles.privileged.clone(),
        backup: None,
        branding: None,
        wiki: None,
        radar: handles.radar.clone(),
        dynatrace: None,
    };
    let control = start_supervised(move |_| ControlActor::new(ctx, listener, targets));
    (dir, control)
}

async fn ask(dir: &std::path::Path, op: ControlOp) -> ControlResponse {
    let dir = dir.to_path_buf();
    tokio::task::spawn_blocking(move || request(&dir, &ControlRequest::new(op))).await.unwrap().unwrap()
}

async fn raw(dir: &std::path::Path, bytes: Vec<u8>) -> ControlResponse {
    let path = socket_path(dir);
    tokio::task::spawn_blocking(move || {
        let mut stream = StdUnixStream::connect(path).unwrap();
        let _ = stream.write_all(&bytes);
        let _ = stream.shutdown(std::net::Shutdown::Write);
        let mut reply = String::new();
        stream.read_to_string(&mut reply).unwrap();
        serde_json::from_str(reply.trim()).unwrap()
    })
    .await
    .unwrap()
}

#[actix_rt::test]
async fn ping_and_admin_operations_reach_their_actors() {
    let (dir, _control) = start().await;
    let pong = ask(dir.path(), ControlOp::Ping).await;
    assert!(matches!(pong.result, Ok(ControlReply::Pong { .. })), "{pong:?}");
    let listed = ask(dir.path(), ControlOp::Admin(AdminOp::List {})).await;
    let Ok(ControlReply::Admin(AdminReply::Accounts { accounts })) = listed.result else {
        panic!("unexpected reply {listed:?}");
    };
    assert!(!accounts.is_empty(), "the bootstrap accounts exist");
    let refused =
        ask(dir.path(), ControlOp::Admin(AdminOp::SetActive { username: "nobody".into(), active: true })).await;
    let err = refused.result.unwrap_err();
    assert_eq!(err.code, ControlErrorCode::Refused);
    assert!(err.message.contains("unknown account"), "{}", err.message);
}

#[actix_rt::test]
async fn malformed_oversized_and_silent_requests_get_typed_errors() {
    let (dir, _control) = start().await;
    let garbage = raw(dir.path(), b"{\"version\":1,\"request\":{\"kind\":\"shell\"}}\n".to_vec()).await;
    assert_eq!(garbage.result.unwrap_err().code, ControlErrorCode::BadRequest);
    let huge = raw(dir.path(), vec![b'x'; MAX_REQUEST_BYTES + 10]).await;
    assert_eq!(huge.result.unwrap_err().code, ControlErrorCode::TooLarge);
    let empty = raw(dir.path(), Vec::new()).await;
    assert_eq!(empty.result.unwrap_err().code, ControlErrorCode::BadRequest);
    let still_serving = ask(dir.path(), ControlOp::Ping).await;
    assert!(still_serving.result.is_ok());
}
