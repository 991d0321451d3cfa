//! `relay branding ...`: set or remove the company and footer logos on the Relay server PC.
//! While a server runs on the data directory the operation goes to its branding actor over the
//! control socket (the file is named by its absolute path; the server reads at most 2 MiB and
//! runs the image pipeline); with no server running, the same pipeline and logo files are used
//! here directly. A refused image prints its message and stable code and leaves the previous
//! logo untouched. (Setting logos from a paired laptop as a signed privileged command waits for
//! the Administration issue: the privileged command runner is synchronous inside a database
//! transaction and cannot reach the branding actor.)

use clap::Subcommand;

use domain::control::{BrandingOp, BrandingReply, ControlOp, ControlReply};
use domain::images::{LogoKind, MAX_LOGO_INPUT_BYTES};
use domain::problem::HttpProblem as _;
use infra::images::{process_logo, read_input_file, LogoStore};

use crate::control_client::{deliver, Delivered};

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum BrandingCommand {
    /// Set a logo from a PNG, JPEG or WebP file (at most 2 MB; resized inside 400x400).
    SetLogo {
        /// company or footer
        #[arg(value_parser = parse_kind)]
        kind: LogoKind,
        file: std::path::PathBuf,
    },
    /// Remove a logo (nothing to remove is fine).
    RemoveLogo {
        /// company or footer
        #[arg(value_parser = parse_kind)]
        kind: LogoKind,
    },
}

fn parse_kind(name: &str) -> Result<LogoKind, String> {
    LogoKind::parse(name).ok_or_else(|| "the logo kind is `company` or `footer`".to_string())
}

pub fn run(data_dir: &std::path::Path, command: BrandingCommand) -> Result<(), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    let op = match command {
        BrandingCommand::SetLogo { kind, file } => {
            let path = std::path::absolute(&file).map_err(|e| format!("cannot resolve {}: {e}", file.display()))?;
            BrandingOp::SetLogo { kind, path: path.display().to_string() }
        }
        BrandingCommand::RemoveLogo { kind } => BrandingOp::RemoveLogo { kind },
    };
    let reply = match deliver(data_dir, ControlOp::Branding(op.clone()))? {
        Delivered::Reply(ControlReply::Branding(reply)) => reply,
        Delivered::Reply(_) => return Err("the server sent an unexpected reply".into()),
        Delivered::NotRunning => run_here(data_dir, op)?,
    };
    match reply {
        BrandingReply::LogoSet { logo, width, height, bytes } => {
            println!("{} logo set: {width}x{height} PNG, {bytes} bytes.", logo.as_str())
        }
        BrandingReply::LogoRemoved { logo } => println!("{} logo removed.", logo.as_str()),
    }
    Ok(())
}

/// The same operation with no server running: the pipeline and the files directly.
fn run_here(data_dir: &std::path::Path, op: BrandingOp) -> Result<BrandingReply, BoxError> {
    let logos = LogoStore::new(data_dir);
    match op {
        BrandingOp::SetLogo { kind, path } => {
            let bytes = read_input_file(std::path::Path::new(&path), MAX_LOGO_INPUT_BYTES).map_err(|e| match e {
                infra::images::InputFileError::TooLarge => {
                    let e = domain::images::ImageError::TooLarge { limit_mb: MAX_LOGO_INPUT_BYTES >> 20 };
                    format!("{e} ({})", e.code())
                }
                other => format!("cannot read {path}: {other}"),
            })?;
            let out = process_logo(&bytes).map_err(|e| format!("{e} ({})", e.code()))?;
            logos.put(kind, &out.bytes)?;
            Ok(BrandingReply::LogoSet { logo: kind, width: out.width, height: out.height, bytes: out.bytes.len() })
        }
        BrandingOp::RemoveLogo { kind } => {
            logos.remove(kind)?;
            Ok(BrandingReply::LogoRemoved { logo: kind })
        }
    }
}
