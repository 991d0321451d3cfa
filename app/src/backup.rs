//! `relay backup ...`: server-local backups from the command line. While a server runs on the
//! data directory each command goes to its backup actor over the control socket (so it is
//! serialized with the schedule and the desktop's buttons); with no server running, the same
//! actor is started here on the data directory for the one command. Output is a short
//! human summary; `health` prints the status as JSON for scripts.

use clap::Subcommand;

use actors::backup::jobs::JobEnv;
use actors::backup::{BackupActor, BackupConfig};
use actors::kit::SubsystemCtx;
use actors::system::BackupSettings;
use domain::backup::names::ArchiveName;
use domain::backup::status::RestoreResult;
use domain::control::{BackupOp, BackupReply, ControlOp, ControlReply};
use infra::datadir::DataDir;

use crate::control_client::{deliver, Delivered};

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum BackupCommand {
    /// Write a backup now, verify it in a disposable restore, then apply retention.
    Create,
    /// Verify an existing backup (by its file name in DATA_DIR/backups).
    Verify { name: String },
    /// List the backups in DATA_DIR/backups, newest first.
    List,
    /// Backup health: restore point age, last verification, failures, the running operation.
    Health,
    /// Restore a backup. The backup is verified, a pre-restore safety backup of the current
    /// data is written and verified, then the store is swapped under a journal and the restored
    /// data must open and pass its checks, or the previous data is put back. A running server
    /// stops, restores and restarts on its own (same ports); `--yes` confirms replacing the
    /// current data.
    Restore {
        name: String,
        #[arg(long)]
        yes: bool,
    },
}

pub fn run(data_dir: &std::path::Path, command: BackupCommand) -> Result<(), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    let op = match command {
        BackupCommand::Restore { name, yes } => return restore(data_dir, &name, yes),
        BackupCommand::Create => BackupOp::Create {},
        BackupCommand::Verify { name } => BackupOp::Verify { name },
        BackupCommand::List => BackupOp::List {},
        BackupCommand::Health => BackupOp::Health {},
    };
    let reply = match deliver(data_dir, ControlOp::Backup(op.clone()))? {
        Delivered::Reply(ControlReply::Backup(reply)) => reply,
        Delivered::Reply(_) => return Err("the server sent an unexpected reply".into()),
        Delivered::NotRunning => run_here(data_dir, op)?,
    };
    print_reply(reply)
}

/// Restores `name`. With a server running, the server verifies the archive and a fresh safety
/// backup while it keeps serving, then restarts onto the restored data; success is printed only
/// once the restarted server reports that it served a read. With no server, the same steps run
/// here on the data directory (under its lock).
fn restore(data_dir: &std::path::Path, name: &str, confirmed: bool) -> Result<(), BoxError> {
    if !confirmed {
        return Err(
            "restoring replaces the current data (a safety backup is taken first); pass --yes to confirm".into()
        );
    }
    let op = ControlOp::Backup(BackupOp::Restore { name: name.to_string() });
    match deliver(data_dir, op)? {
        Delivered::Reply(ControlReply::Backup(BackupReply::RestoreStaged { staged })) => {
            println!("Backup {} verified; safety backup {} written and verified.", name, staged.safety.name.as_str());
            println!("The server is restarting onto the restored data...");
            wait_for_restore(data_dir, &staged.safety.name)
        }
        Delivered::Reply(_) => Err("the server sent an unexpected reply".into()),
        Delivered::NotRunning => restore_here(data_dir, name),
    }
}

/// How long the CLI waits for the restarted server's restore report, and how often it asks.
const RESTORE_REPORT_DEADLINE: std::time::Duration = std::time::Duration::from_secs(300);
const RESTORE_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// Polls the server (it is briefly unreachable while it restarts, holding the data directory's
/// lock) until it reports the outcome of the restore identified by its safety backup. A server
/// that is gone (no answer and the lock free) stopped during the restore: its next start
/// finishes or undoes it.
fn wait_for_restore(data_dir: &std::path::Path, safety: &ArchiveName) -> Result<(), BoxError> {
    let deadline = std::time::Instant::now() + RESTORE_REPORT_DEADLINE;
    while std::time::Instant::now() < deadline {
        std::thread::sleep(RESTORE_POLL);
        let status = match deliver(data_dir, ControlOp::Backup(BackupOp::Health {})) {
            Ok(Delivered::Reply(ControlReply::Backup(BackupReply::Status { status }))) => status,
            Ok(Delivered::NotRunning) if infra::dir_lock::lock(data_dir).is_ok() => {
                return Err("the server stopped during the restore; start Relay again: its start finishes the restore or puts the previous data back".into());
            }
            _ => continue,
        };
        let Some(finished) = status.last_restore.filter(|r| &r.safety == safety && r.is_final()) else {
            continue;
        };
        return match finished.result {
            RestoreResult::Serving => {
                println!("Restored {}; the server serves it.", finished.restored.as_str());
                Ok(())
            }
            RestoreResult::RolledBack { reason } => Err(format!(
                "the restored data failed to open ({reason}); the previous data was put back and is served"
            )
            .into()),
            RestoreResult::Failed { reason } => Err(format!("the restore failed: {reason}").into()),
            RestoreResult::Installed => unreachable!("filtered: final outcomes only"),
        };
    }
    Err("the server did not report the restore's outcome in time; check `relay backup health` and its logs".into())
}

/// No server runs: the cold restore, holding the data directory's lock.
fn restore_here(data_dir: &std::path::Path, name: &str) -> Result<(), BoxError> {
    let dir = DataDir::open(data_dir)?;
    let _lock = infra::dir_lock::lock(dir.root())?;
    actors::system::recover_interrupted_restore(&dir)?;
    let env = job_env(&dir)?;
    let clock = infra::clock::system();
    let mut last_phase = None;
    let report = actors::backup::restore::restore_cold(&dir, env, name, || clock.now_ms(), &mut |phase, _| {
        if last_phase != Some(phase) {
            eprintln!("{}...", phase.label());
            last_phase = Some(phase);
        }
    })?;
    println!("Safety backup {} written and verified.", report.safety.name.as_str());
    println!(
        "Restored {} ({} tables). Start Relay to serve it.",
        report.restored.name.as_str(),
        report.restored.tables
    );
    if report.cleanup_deferred {
        println!("The previous data's folder is removed at the next start.");
    }
    Ok(())
}

/// The backup jobs' environment on a data directory whose server is not running.
fn job_env(dir: &DataDir) -> Result<JobEnv, BoxError> {
    let (pool, _) = infra::db::open(&dir.db_path(), 2)?;
    Ok(BackupSettings::new(dir.root().to_path_buf())?.job_env(pool))
}

/// No server runs: start the backup actor on the data directory for this one operation.
fn run_here(data_dir: &std::path::Path, op: BackupOp) -> Result<BackupReply, BoxError> {
    let dir = DataDir::open(data_dir)?;
    let _lock = infra::dir_lock::lock(dir.root())?;
    actors::system::recover_interrupted_restore(&dir)?;
    let env = job_env(&dir)?;
    let system = actix::System::new();
    system.block_on(async move {
        use actix::Actor;
        let clock = infra::clock::system();
        let health = actors::health::HealthActor::new(clock.clone()).start();
        let backup = BackupActor::new(
            SubsystemCtx::new(clock, health),
            BackupConfig { env, schedule: false, store: None, restart: None, last_restore: None },
        )
        .start();
        let reply = actors::backup::run_op(&backup, op).await?;
        Ok::<_, BoxError>(reply)
    })
}

fn print_reply(reply: BackupReply) -> Result<(), BoxError> {
    match reply {
        BackupReply::Created { backup } => {
            println!(
                "Backup {} written and verified ({} bytes, {} tables).",
                backup.name.as_str(),
                backup.size,
                backup.tables
            );
            for pruned in backup.pruned {
                println!("Retention removed {}", pruned.as_str());
            }
        }
        BackupReply::Verified { backup } => println!(
            "Backup {} verified: {} entries, {} bytes restored, {} tables read.",
            backup.name.as_str(),
            backup.entries,
            backup.extracted_bytes,
            backup.tables
        ),
        BackupReply::Listed { archives } => {
            for a in archives {
                let mark = if a.verified_restore_point { "  (verified restore point)" } else { "" };
                println!("{}  {:>12} bytes{mark}", a.name.as_str(), a.size);
            }
        }
        BackupReply::Status { status } => println!("{}", serde_json::to_string_pretty(&status)?),
        BackupReply::RestoreStaged { .. } => return Err("the server sent an unexpected reply".into()),
    }
    Ok(())
}
