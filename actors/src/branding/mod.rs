//! The branding actor: owns the company and footer logo files (`infra::images::LogoStore`
//! under `DATA/store/assets/`) and runs the image pipeline for logos and alert-body images.
//! Decoding never runs on the actor's thread: each job goes to a blocking thread holding the
//! single decode permit, so at most one image is decoded at a time (bounded memory), and at most
//! `BrandingConfig::max_waiting` jobs wait for it (more are refused as busy, each holding at
//! most 5 MiB of input). A logo is written only after the whole pipeline accepted the new
//! image, so a refused upload leaves the previous logo untouched. Reached from
//! `GET /api/relay/branding/logo/{kind}`, `POST /api/relay/images/alert-body` and the control
//! socket (`relay branding set-logo` / `remove-logo`); it holds no rule of its own.

mod error;

pub use error::BrandingError;

use std::path::PathBuf;

use actix::prelude::*;

use domain::control::{BrandingOp, BrandingReply};
use domain::images::{ImageFormat, LogoKind, MAX_LOGO_INPUT_BYTES};
use infra::images::{process_body_image, process_logo, read_input_file, InputFileError, LogoStore};

use crate::kit::{BoundedWork, Subsystem, SubsystemCtx, WorkRefused};

pub const NAME: &str = "branding";

/// `relay branding set-logo` (control socket): validate, process and store a logo.
#[derive(Message)]
#[rtype(result = "Result<LogoInfo, BrandingError>")]
pub struct SetLogo {
    pub kind: LogoKind,
    pub bytes: Vec<u8>,
}

/// `relay branding remove-logo` (control socket): remove a logo (absent is fine).
#[derive(Message)]
#[rtype(result = "Result<(), BrandingError>")]
pub struct RemoveLogo {
    pub kind: LogoKind,
}

/// `GET /api/relay/branding/logo/{kind}`: the stored PNG, if any.
#[derive(Message)]
#[rtype(result = "Result<Option<Vec<u8>>, BrandingError>")]
pub struct GetLogo {
    pub kind: LogoKind,
}

/// `POST /api/relay/images/alert-body`: the processed alert-body image.
#[derive(Message)]
#[rtype(result = "Result<PreparedImage, BrandingError>")]
pub struct PrepareBodyImage {
    pub bytes: Vec<u8>,
}

/// What a stored logo became.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogoInfo {
    pub width: u32,
    pub height: u32,
    pub bytes: usize,
}

/// A processed alert-body image and its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreparedImage {
    pub bytes: Vec<u8>,
    pub format: ImageFormat,
}

impl PreparedImage {
    pub fn mime(&self) -> &'static str {
        self.format.mime()
    }

    /// `data:image/png;base64,…` (or `image/jpeg`).
    pub fn data_url(&self) -> String {
        domain::images::data_url(self.format, &self.bytes)
    }
}

/// How much image work may queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BrandingConfig {
    /// Jobs waiting for (or holding) the single decode permit; default 4. Beyond it a request
    /// is refused with 503 and `Retry-After: 1`.
    pub max_waiting: usize,
}

impl Default for BrandingConfig {
    fn default() -> Self {
        BrandingConfig { max_waiting: 4 }
    }
}

pub struct BrandingActor {
    subsystem: SubsystemCtx,
    logos: LogoStore,
    /// One decode at a time; at most `BrandingConfig::max_waiting` admitted.
    decode: BoundedWork,
}

impl BrandingActor {
    /// The logos of the data directory at `data_root`.
    pub fn new(subsystem: SubsystemCtx, config: BrandingConfig, data_root: PathBuf) -> BrandingActor {
        BrandingActor { subsystem, logos: LogoStore::new(&data_root), decode: BoundedWork::new(config.max_waiting) }
    }

    /// Runs `job` on a blocking thread while holding the decode permit (see `kit::BoundedWork`).
    fn run_exclusive<T: Send + 'static>(
        &self,
        job: impl FnOnce(&LogoStore) -> Result<T, BrandingError> + Send + 'static,
    ) -> ResponseFuture<Result<T, BrandingError>> {
        let logos = self.logos.clone();
        let run = self.decode.run(move || job(&logos));
        let subsystem = self.subsystem.clone();
        Box::pin(async move {
            run.await.unwrap_or_else(|refused| match refused {
                WorkRefused::Busy => Err(BrandingError::Busy),
                WorkRefused::Closed => Err(BrandingError::Unavailable),
                WorkRefused::Panicked => {
                    tracing::error!("image job panicked");
                    subsystem.report_failure(NAME, "image job panicked");
                    Err(BrandingError::Internal)
                }
            })
        })
    }
}

impl Subsystem for BrandingActor {
    const NAME: &'static str = NAME;
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.decode.admitted()
    }
}

crate::subsystem_actor!(BrandingActor);

/// Starts the supervised branding actor over the data directory at `data_root`.
pub fn start(ctx: &SubsystemCtx, data_root: PathBuf) -> Addr<BrandingActor> {
    let ctx = ctx.clone();
    crate::kit::start_supervised(move |_| BrandingActor::new(ctx, BrandingConfig::default(), data_root))
}

fn storage(kind: LogoKind, what: &'static str) -> impl FnOnce(std::io::Error) -> BrandingError {
    move |e| {
        tracing::error!(kind = kind.as_str(), error = %e, "logo {what} failed");
        BrandingError::Internal
    }
}

impl Handler<SetLogo> for BrandingActor {
    type Result = ResponseFuture<Result<LogoInfo, BrandingError>>;
    fn handle(&mut self, msg: SetLogo, _: &mut Context<Self>) -> Self::Result {
        self.run_exclusive(move |logos| {
            let out = process_logo(&msg.bytes)?;
            logos.put(msg.kind, &out.bytes).map_err(storage(msg.kind, "write"))?;
            tracing::info!(kind = msg.kind.as_str(), width = out.width, height = out.height, "logo stored");
            Ok(LogoInfo { width: out.width, height: out.height, bytes: out.bytes.len() })
        })
    }
}

impl Handler<RemoveLogo> for BrandingActor {
    type Result = ResponseFuture<Result<(), BrandingError>>;
    fn handle(&mut self, msg: RemoveLogo, _: &mut Context<Self>) -> Self::Result {
        self.run_exclusive(move |logos| logos.remove(msg.kind).map_err(storage(msg.kind, "removal")))
    }
}

impl Handler<GetLogo> for BrandingActor {
    type Result = ResponseFuture<Result<Option<Vec<u8>>, BrandingError>>;
    fn handle(&mut self, msg: GetLogo, _: &mut Context<Self>) -> Self::Result {
        // A read of at most 1 MiB decodes nothing, so it does not wait for the decode permit.
        let logos = self.logos.clone();
        Box::pin(async move {
            let read = tokio::task::spawn_blocking(move || logos.get(msg.kind)).await;
            read.map_err(|_| BrandingError::Internal)?.map_err(storage(msg.kind, "read"))
        })
    }
}

impl Handler<PrepareBodyImage> for BrandingActor {
    type Result = ResponseFuture<Result<PreparedImage, BrandingError>>;
    fn handle(&mut self, msg: PrepareBodyImage, _: &mut Context<Self>) -> Self::Result {
        self.run_exclusive(move |_| {
            let out = process_body_image(&msg.bytes)?;
            Ok(PreparedImage { bytes: out.bytes, format: out.format })
        })
    }
}

/// Runs one `relay branding ...` control operation. `set-logo` names a file the operator's
/// client resolved to an absolute path; it is read here, bounded to the logo input limit.
pub async fn run_op(branding: &Addr<BrandingActor>, op: BrandingOp) -> Result<BrandingReply, BrandingError> {
    let closed = |_| BrandingError::Unavailable;
    match op {
        BrandingOp::SetLogo { kind, path } => {
            let path = PathBuf::from(path);
            if !path.is_absolute() {
                return Err(BrandingError::InvalidInput("the logo file path must be absolute".into()));
            }
            let read = tokio::task::spawn_blocking(move || read_input_file(&path, MAX_LOGO_INPUT_BYTES)).await;
            let bytes = match read.map_err(|_| BrandingError::Internal)? {
                Ok(bytes) => bytes,
                Err(InputFileError::TooLarge) => {
                    return Err(domain::images::ImageError::TooLarge { limit_mb: MAX_LOGO_INPUT_BYTES >> 20 }.into())
                }
                Err(e) => return Err(BrandingError::InvalidInput(e.to_string())),
            };
            let info = branding.send(SetLogo { kind, bytes }).await.map_err(closed)??;
            Ok(BrandingReply::LogoSet { logo: kind, width: info.width, height: info.height, bytes: info.bytes })
        }
        BrandingOp::RemoveLogo { kind } => {
            branding.send(RemoveLogo { kind }).await.map_err(closed)??;
            Ok(BrandingReply::LogoRemoved { logo: kind })
        }
    }
}

#[cfg(test)]
mod tests;
