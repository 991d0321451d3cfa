//! `relay-launcher`, Relay's small, stable recovery launcher (issue #14 item 5). It owns runtime
//! selection, candidate probation, promotion, rollback with the data snapshot, and the
//! fallback: see `flow` for one run, `probation` for the health rules' driver, `supervise` for
//! how a runtime is started and watched, and `config` for its inputs. The rules themselves are
//! `domain::updater::recovery`; the files are `infra::recovery`. When no validated runtime can be
//! started it opens only `https://github.com/CrimsonSoul/Relay/releases` and exits 1; after more
//! than three hand-offs (exit 75) in one run it stops with exit 1 without opening anything.
//! `relay-launcher install` (see `config`) installs the first runtime once, under the recovery
//! lock (`infra::recovery::install_first_runtime`); the next run bootstraps the catalog from it.
//! It prints the build id and exits 0, or names the refusal with its code and exits 1. Installed
//! from the `relay-desktop` package, the first run does the same with the packaged seed build
//! (`seed`) before it bootstraps.

mod config;
mod flow;
mod probation;
mod seed;
mod supervise;

use std::process::{Command, ExitCode, Stdio};

fn main() -> ExitCode {
    infra::logging::init("info");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let config = match config::Invocation::from_env(&args) {
        Ok(config::Invocation::Run(config)) => config,
        Ok(config::Invocation::Install(install)) => return install_first_runtime(&install),
        Err(message) => {
            eprintln!("relay-launcher: {message}");
            return ExitCode::from(2);
        }
    };
    match flow::run(&config) {
        Ok(code) => ExitCode::from(u8::try_from(code).unwrap_or(1)),
        // Runtimes did start; a fourth hand-off in one run is a loop, not a broken install.
        Err(flow::Failure::TooManyHandoffs) => {
            tracing::error!(target: "relay::launcher", code = "too_many_handoffs", "the runtime handed off too often; stopping");
            ExitCode::from(1)
        }
        Err(failure) => {
            if let flow::Failure::Start(error) = &failure {
                tracing::error!(target: "relay::launcher", "a runtime could not be started or waited for: {error}");
            }
            tracing::error!(target: "relay::launcher", code = failure.code(), "no runtime can be started; opening the releases page");
            open_releases_page(&config);
            ExitCode::from(1)
        }
    }
}

/// `relay-launcher install`: the first runtime, under the recovery lock.
fn install_first_runtime(install: &config::Install) -> ExitCode {
    let installed = infra::recovery::ManagedRoot::open(&install.managed_root).and_then(|root| {
        let lock = infra::recovery::RecoveryLock::acquire(&root, infra::recovery::install::INSTALL_LOCK_WAIT)?;
        infra::recovery::install_first_runtime(&root, &lock, &install.runtime, install.version, install.commit)
    });
    match installed {
        Ok(build) => {
            tracing::info!(target: "relay::launcher", build = %build, "first runtime installed");
            println!("{build}");
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("relay-launcher: install refused: {error} ({})", error.code());
            ExitCode::from(1)
        }
    }
}

/// Opens the fixed releases page and nothing else.
fn open_releases_page(config: &config::Config) {
    let opened = Command::new(&config.opener)
        .arg(infra::recovery::RELEASES_PAGE)
        .stdin(Stdio::null())
        .env_remove(infra::fault::FAULT_ENV)
        .status();
    if !opened.is_ok_and(|status| status.success()) {
        tracing::error!(target: "relay::launcher", "the releases page could not be opened");
    }
}
