//! The CLI side of the control socket shared by `relay admin` and `relay backup`: deliver one
//! typed operation to the server running on the data directory, retrying briefly while the
//! target subsystem restarts, or report that no server runs (the caller then works on the data
//! directory directly with the same rules).

use domain::control::{ControlErrorCode, ControlOp, ControlReply, ControlRequest};
use infra::control_socket::{self, ClientError};

type BoxError = Box<dyn std::error::Error>;

/// How often a request is retried while the server's subsystem restarts, and the pause between.
const UNAVAILABLE_RETRIES: u32 = 3;
const RETRY_PAUSE: std::time::Duration = std::time::Duration::from_secs(1);

/// What delivering an operation came to.
pub enum Delivered {
    Reply(ControlReply),
    /// No server runs on the data directory.
    NotRunning,
}

pub fn deliver(data_dir: &std::path::Path, op: ControlOp) -> Result<Delivered, BoxError> {
    let request = ControlRequest::new(op);
    for attempt in 0..=UNAVAILABLE_RETRIES {
        match control_socket::request(data_dir, &request) {
            Ok(response) => match response.result {
                Ok(reply) => return Ok(Delivered::Reply(reply)),
                Err(e) if e.code == ControlErrorCode::Unavailable && attempt < UNAVAILABLE_RETRIES => {
                    std::thread::sleep(RETRY_PAUSE);
                }
                Err(e) => return Err(format!("the running server refused: {}", e.message).into()),
            },
            Err(ClientError::NotRunning) => return Ok(Delivered::NotRunning),
            Err(e) => return Err(format!("could not reach the running server: {e}").into()),
        }
    }
    Err("the running server stayed unavailable; check `relay` logs and retry".into())
}
