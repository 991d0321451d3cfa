//! The `relay` binary. `relay serve` runs server mode: it opens the data directory, creates
//! the connection passphrase on first start, starts the supervised actor system and the HTTP
//! server on one actix System, and prints where it listens. `relay connection-info` prints the
//! server URL and passphrase for the local operator; `relay admin` administers protected
//! accounts on the server PC and `relay device` pairs a laptop and sends signed commands.
//! Parsing and wiring only; rules live in the library crates.

mod admin;
mod cli;
mod device;
mod secret_input;
mod serve;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    infra::logging::init(cli.log_level());
    let result = match cli.command {
        cli::Command::Serve(args) => serve::run(args),
        cli::Command::ConnectionInfo(args) => serve::connection_info(args),
        cli::Command::Admin(args) => admin::run(&args.data_dir, args.command),
        cli::Command::Device(args) => device::run(&args.key_file, args.command),
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
