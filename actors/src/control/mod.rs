//! The server-local control channel. `ControlActor` owns the listening Unix domain socket in the
//! data directory (bound by `infra::control_socket::bind`: 0600, owner-only directory, no
//! symlinks) and serves one typed request per connection from `relay admin` (and the coming
//! `relay backup`), so changes made from the command line go through the actors that own the
//! state. Every connection's peer is checked first (SO_PEERCRED: the server's own uid only);
//! the request line is bounded in bytes and time; at most `MAX_CONNECTIONS` are served at once.
//! Logs name the operation only, never its payload. Nothing here is reachable over TCP.
//! [`Drain`] waits (bounded) until the connections in flight have been answered: a host that
//! stops the server (a restore) asks first, so the reply that started the restore is delivered.

use std::os::unix::net::UnixListener as StdUnixListener;
use std::time::Duration;

use actix::prelude::*;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio_stream::wrappers::UnixListenerStream;

use domain::control::{
    ControlError, ControlErrorCode, ControlOp, ControlReply, ControlRequest, ControlResponse, IO_DEADLINE_MS,
    MAX_CONNECTIONS, MAX_REQUEST_BYTES,
};
use infra::control_socket::peer_allowed;

use crate::backup::BackupActor;
use crate::kit::{Subsystem, SubsystemCtx};
use crate::privileged::{Caller, Cli, CliAdmin, CliScope, NamedCommand, PrivilegedActor, RunCommand};

pub const NAME: &str = "control";

/// The subsystems a control request may be delivered to.
#[derive(Clone)]
pub struct ControlTargets {
    pub privileged: Addr<PrivilegedActor>,
    /// Absent when the server runs without a data directory of its own (in-process tests).
    pub backup: Option<Addr<BackupActor>>,
    /// The logos (absent, like `backup`, without a data directory).
    pub branding: Option<Addr<crate::branding::BrandingActor>>,
    /// The Radar session (`relay radar sign-in`).
    pub radar: Addr<crate::radar::RadarActor>,
    /// The Dynatrace sync (`relay dynatrace sync`; absent without Dynatrace).
    pub dynatrace: Option<Addr<crate::dynatrace::DynatraceActor>>,
    /// The Wiki (`relay wiki upload`; absent without a data directory).
    pub wiki: Option<Addr<crate::wiki::WikiActor>>,
}

pub struct ControlActor {
    subsystem: SubsystemCtx,
    listener: StdUnixListener,
    targets: ControlTargets,
    in_flight: usize,
    /// Waiting [`Drain`] requests, answered when `in_flight` reaches zero.
    drained: Vec<tokio::sync::oneshot::Sender<()>>,
}

/// Resolves once every connection in flight has been answered, or after `within`.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Drain {
    pub within: Duration,
}

impl Handler<Drain> for ControlActor {
    type Result = ResponseFuture<()>;
    fn handle(&mut self, msg: Drain, _: &mut Context<Self>) -> Self::Result {
        if self.in_flight == 0 {
            return Box::pin(async {});
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.drained.push(tx);
        Box::pin(async move {
            let _ = tokio::time::timeout(msg.within, rx).await;
        })
    }
}

impl ControlActor {
    /// `listener` comes from `infra::control_socket::bind` (non-blocking).
    pub fn new(subsystem: SubsystemCtx, listener: StdUnixListener, targets: ControlTargets) -> ControlActor {
        ControlActor { subsystem, listener, targets, in_flight: 0, drained: Vec::new() }
    }
}

impl Subsystem for ControlActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.in_flight
    }
    fn reset(&mut self) {
        self.in_flight = 0;
    }
    fn on_start(&mut self, ctx: &mut Context<Self>) {
        match self.listener.try_clone().and_then(tokio::net::UnixListener::from_std) {
            Ok(listener) => {
                ctx.add_stream(UnixListenerStream::new(listener));
            }
            Err(e) => self.subsystem.report_failure(NAME, format!("control socket unavailable: {e}")),
        }
    }
}

crate::subsystem_actor!(ControlActor);

impl StreamHandler<std::io::Result<UnixStream>> for ControlActor {
    fn handle(&mut self, accepted: std::io::Result<UnixStream>, ctx: &mut Context<Self>) {
        let stream = match accepted {
            Ok(stream) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "control socket accept failed");
                return;
            }
        };
        if self.in_flight >= MAX_CONNECTIONS {
            tracing::warn!("control connection dropped: too many at once");
            return;
        }
        self.in_flight += 1;
        let targets = self.targets.clone();
        ctx.spawn(serve_connection(stream, targets).into_actor(self).map(|_, act, _| {
            act.in_flight -= 1;
            if act.in_flight == 0 {
                for waiter in act.drained.drain(..) {
                    let _ = waiter.send(());
                }
            }
        }));
    }

    fn finished(&mut self, ctx: &mut Context<Self>) {
        self.subsystem.report_failure(NAME, "control socket listener ended");
        ctx.stop();
    }
}

fn deadline() -> Duration {
    Duration::from_millis(IO_DEADLINE_MS)
}

/// Checks the peer, reads one bounded request line, runs it and writes one reply line.
async fn serve_connection(stream: UnixStream, targets: ControlTargets) {
    let peer_uid = stream.peer_cred().map(|c| c.uid()).ok();
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read.take(MAX_REQUEST_BYTES as u64 + 1));
    let result = if peer_uid.is_some_and(peer_allowed) {
        match tokio::time::timeout(deadline(), read_request(&mut reader)).await {
            Ok(Ok(request)) => {
                tracing::info!(op = request.name(), "control request");
                dispatch(request, &targets).await
            }
            Ok(Err(e)) => Err(e),
            Err(_) => Err(ControlError::new(ControlErrorCode::BadRequest, "no request within the deadline")),
        }
    } else {
        tracing::warn!(peer_uid = ?peer_uid, "control connection refused: not the server's user");
        Err(ControlError::new(ControlErrorCode::PeerRefused, "refused: the control socket serves only its owner"))
    };
    if let Err(e) = &result {
        tracing::info!(code = ?e.code, "control request refused");
    }
    let mut line = serde_json::to_vec(&ControlResponse { result }).unwrap_or_default();
    line.push(b'\n');
    let _ = tokio::time::timeout(deadline(), async {
        write.write_all(&line).await?;
        write.shutdown().await
    })
    .await;
    // Consume what an oversized request left unread, so closing does not reset the peer before
    // it reads the reply (bounded in bytes and time).
    let mut rest = reader.into_inner().into_inner().take(4 * MAX_REQUEST_BYTES as u64);
    let _ = tokio::time::timeout(Duration::from_secs(1), tokio::io::copy(&mut rest, &mut tokio::io::sink())).await;
}

type BoundedReader = BufReader<tokio::io::Take<tokio::net::unix::OwnedReadHalf>>;

async fn read_request(reader: &mut BoundedReader) -> Result<ControlRequest, ControlError> {
    let mut line = Vec::new();
    reader
        .read_until(b'\n', &mut line)
        .await
        .map_err(|_| ControlError::new(ControlErrorCode::BadRequest, "the request could not be read"))?;
    if line.len() > MAX_REQUEST_BYTES {
        return Err(ControlError::new(ControlErrorCode::TooLarge, "the request is too large"));
    }
    ControlRequest::parse(line.trim_ascii_end())
}

async fn dispatch(request: ControlRequest, targets: &ControlTargets) -> Result<ControlReply, ControlError> {
    match request.request {
        ControlOp::Ping => Ok(ControlReply::Pong { version: env!("CARGO_PKG_VERSION").to_string() }),
        ControlOp::Admin(op) => {
            let reply = targets.privileged.send(RunCommand { origin: CliAdmin { op } }).await.map_err(|_| {
                ControlError::new(ControlErrorCode::Unavailable, "the privileged subsystem is restarting; retry")
            })?;
            reply.map(ControlReply::Admin).map_err(ControlError::from)
        }
        ControlOp::Backup(op) => {
            let backup = targets
                .backup
                .as_ref()
                .ok_or_else(|| ControlError::new(ControlErrorCode::Unavailable, "this server keeps no backups"))?;
            crate::backup::run_op(backup, op).await.map(ControlReply::Backup).map_err(ControlError::from)
        }
        ControlOp::Branding(op) => {
            let branding = targets
                .branding
                .as_ref()
                .ok_or_else(|| ControlError::new(ControlErrorCode::Unavailable, "this server keeps no logos"))?;
            crate::branding::run_op(branding, op).await.map(ControlReply::Branding).map_err(ControlError::from)
        }
        ControlOp::Radar(op) => {
            let cookie = match op {
                domain::control::RadarOp::SignIn { cookie } => Some(cookie.0),
                domain::control::RadarOp::SignOut {} => None,
            };
            let snapshot = targets
                .radar
                .send(crate::radar::SetRadarSession { cookie })
                .await
                .map_err(|_| {
                    ControlError::new(ControlErrorCode::Unavailable, "the radar subsystem is restarting; retry")
                })?
                .map_err(|e| ControlError::new(ControlErrorCode::Refused, e.to_string()))?;
            Ok(ControlReply::Radar(domain::control::RadarReply {
                color: snapshot.color,
                sign_in_required: snapshot.sign_in_required,
                error: snapshot.error,
            }))
        }
        ControlOp::Dynatrace(domain::control::DynatraceOp::Sync {}) => {
            let dynatrace = targets.dynatrace.as_ref().ok_or_else(|| {
                ControlError::new(ControlErrorCode::Unavailable, "Dynatrace is not available on this server")
            })?;
            let summary = dynatrace
                .send(crate::dynatrace::SyncNow)
                .await
                .map_err(|_| {
                    ControlError::new(ControlErrorCode::Unavailable, "the Dynatrace sync is restarting; retry")
                })?
                .map_err(|e| ControlError::new(ControlErrorCode::Unavailable, e.to_string()))?;
            Ok(ControlReply::Dynatrace(crate::dynatrace::summary_json(&summary)))
        }
        ControlOp::Dynatrace(domain::control::DynatraceOp::Run {
            actor,
            password,
            command,
            payload,
            token,
            expected_revision,
        }) => {
            let command = NamedCommand::new(command, payload, expected_revision);
            let cli = Cli { as_user: actor, password, scope: CliScope::Dynatrace, command, token };
            let run = RunCommand { origin: cli };
            let result = targets
                .privileged
                .send(run)
                .await
                .map_err(|_| {
                    ControlError::new(ControlErrorCode::Unavailable, "the privileged runtime is restarting; retry")
                })?
                .map_err(privileged_refusal)?;
            Ok(ControlReply::Dynatrace(result))
        }
        ControlOp::Wiki(domain::control::WikiOp::Feed { actor, password, upload_id, path }) => {
            let wiki = targets.wiki.as_ref().ok_or_else(|| {
                ControlError::new(ControlErrorCode::Unavailable, "the Wiki is not available on this server")
            })?;
            let caller = Caller::Cli { as_user: actor, password };
            let authorize = crate::privileged::Authorize::wiki_feed(caller, upload_id.clone());
            let account_id = targets.privileged.send(authorize).await.map_err(|_| {
                ControlError::new(ControlErrorCode::Unavailable, "the privileged runtime is restarting; retry")
            })?;
            let sender =
                crate::wiki::Sender { account_id: account_id.map_err(privileged_refusal)?, device_id: String::new() };
            let feed = crate::wiki::FeedUpload { sender, upload_id, path: path.into() };
            let progress = wiki
                .send(feed)
                .await
                .map_err(|_| ControlError::new(ControlErrorCode::Unavailable, "the Wiki is restarting; retry"))?;
            let progress = progress.map_err(|e| ControlError::new(ControlErrorCode::Refused, e.to_string()))?;
            Ok(ControlReply::Wiki(serde_json::to_value(&progress).unwrap_or_default()))
        }
        ControlOp::Wiki(domain::control::WikiOp::Run { actor, password, command, payload }) => {
            let command = NamedCommand::new(command, payload, None);
            let cli = Cli { as_user: actor, password, scope: CliScope::Wiki, command, token: None };
            let run = RunCommand { origin: cli };
            let result = targets.privileged.send(run).await.map_err(|_| {
                ControlError::new(ControlErrorCode::Unavailable, "the privileged runtime is restarting; retry")
            })?;
            Ok(ControlReply::Wiki(result.map_err(privileged_refusal)?))
        }
    }
}

/// A privileged refusal as a control error (an internal failure stays internal).
fn privileged_refusal(e: crate::privileged::PrivError) -> ControlError {
    let code = if matches!(e, crate::privileged::PrivError::Internal) {
        ControlErrorCode::Internal
    } else {
        ControlErrorCode::Refused
    };
    ControlError::new(code, e.to_string())
}

#[cfg(test)]
mod tests;
