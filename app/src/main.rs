//! The `relay` binary. `relay serve` runs server mode: it opens the data directory, creates
//! the connection passphrase on first start, starts the supervised actor system and the HTTP
//! server on one actix System, and prints where it listens. `relay connection-info` prints the
//! server URL and passphrase for the local operator; `relay admin` administers protected
//! accounts on the server PC, `relay backup` makes and checks backups there, `relay branding`
//! sets the logos, and `relay device` pairs a laptop and sends signed commands.
//! Parsing and wiring only; rules live in the library crates.

mod admin;
mod backup;
mod branding;
mod cli;
mod control_client;
mod device;
mod dynatrace;
mod radar;
mod secret_input;
mod serve;
mod wiki;

use clap::Parser;

fn main() -> std::process::ExitCode {
    // Before any thread: the start-up clock and the allocator's arena cap.
    infra::startup::begin();
    // The hidden worker modes (backup verification, Wiki PDF extraction) come before any
    // argument parsing.
    if let Some(code) = infra::worker::run_if_worker() {
        return std::process::ExitCode::from(code as u8);
    }
    // Before the first SQLite connection (the store).
    infra::db::configure_sqlite_once();
    let cli = cli::Cli::parse();
    match &cli.command {
        // A server also keeps its log in DATA_DIR/logs (rotated, owner-only).
        cli::Command::Serve(args) => infra::logging::init_with_files(cli.log_level(), Some(&args.data_dir)),
        _ => infra::logging::init(cli.log_level()),
    }
    infra::startup::mark("logging");
    let result = match cli.command {
        cli::Command::Serve(args) => serve::run(args),
        cli::Command::ConnectionInfo(args) => serve::connection_info(args),
        cli::Command::Admin(args) => admin::run(&args.data_dir, args.command),
        cli::Command::Device(args) => device::run(&args.key_file, args.command),
        cli::Command::Backup(args) => backup::run(&args.data_dir, args.command),
        cli::Command::Branding(args) => branding::run(&args.data_dir, args.command),
        cli::Command::Radar(args) => radar::run(&args.data_dir, args.command),
        cli::Command::Dynatrace(args) => dynatrace::run(&args.data_dir, args.command),
        cli::Command::Wiki(args) => wiki::run(&args.data_dir, args.command),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!(error = %e, "relay failed");
            eprintln!("relay: {e}");
            std::process::ExitCode::FAILURE
        }
    }
}
