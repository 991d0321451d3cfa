//! `relay admin ...`: server-local administration of protected accounts on the Relay server PC.
//! While a server runs on the data directory, each command goes to it over the control socket
//! (`DATA_DIR/control.sock`, same user only) and its privileged actor makes the change; with no
//! server running the command first recovers an interrupted backup restore (as a server start
//! does), then opens the database itself and runs the same
//! `actors::privileged::admin_ops` over the same `PrivilegedService`, so the rules and the audit
//! log are identical either way, and so is the failure budget of the `--as` password checks (the
//! server PC's, kept in the store when no server runs). `migrate-roles` always works on the store
//! directly. Initial password setup, activation, reset and recovery exist only here (account
//! creation and the Publisher assignment also on the server PC's Administration screen and from
//! paired laptops).

use clap::Subcommand;

use actors::privileged::admin_ops;
use actors::privileged::service::LegacyPlan;
use actors::privileged::PrivilegedService;
use domain::control::{AdminOp, AdminReply, ControlOp, ControlReply, ControlRequest, SecretText};
use domain::roles::AccountKind;
use infra::control_socket::{self, ClientError};

use crate::control_client::{deliver, Delivered};
use infra::datadir::DataDir;

use crate::secret_input::read_secret;

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// List protected accounts with their effective roles.
    List,
    /// Set or reset an account's password (read from the terminal or one stdin line). Revokes the
    /// account's paired devices.
    SetPassword {
        #[arg(long)]
        username: String,
    },
    /// Activate an account (it needs a password first).
    Activate {
        #[arg(long)]
        username: String,
    },
    /// Deactivate an account (not the Owner).
    Deactivate {
        #[arg(long)]
        username: String,
    },
    /// Start pairing a laptop: prints an 8-character code valid for 10 minutes. `--as` is the
    /// Owner or Administrator doing it (password prompted); `--for` the account being paired.
    PairDevice {
        #[arg(long = "as")]
        actor: String,
        #[arg(long = "for")]
        target: String,
        #[arg(long, default_value = "Paired laptop")]
        label: String,
    },
    /// Revoke a paired device (`--as` is the acting Owner or Administrator; password prompted).
    RevokeDevice {
        #[arg(long = "as")]
        actor: String,
        #[arg(long)]
        device: String,
    },
    /// Create a protected account, inactive and without a password (`--as` is the acting Owner or
    /// Administrator; password prompted). Only the Owner creates Administrators.
    CreateAccount {
        #[arg(long = "as")]
        actor: String,
        #[arg(long)]
        username: String,
        #[arg(long)]
        display_name: String,
        #[arg(long, value_parser = ["administrator", "publisher"])]
        kind: String,
    },
    /// Make a Publisher account the Publisher (`--as` is the acting Owner or Administrator;
    /// password prompted). The previous Publisher's devices are revoked; the incoming one needs
    /// `set-password` and `activate` here.
    AssignPublisher {
        #[arg(long = "as")]
        actor: String,
        #[arg(long)]
        username: String,
    },
    /// Verify the hash-chained audit log of privileged commands.
    VerifyAudit,
    /// Plan (and with --apply, perform) the conversion of a legacy `relay_operators` roster.
    /// Back up the whole data directory first; a deferred plan changes nothing.
    MigrateRoles {
        #[arg(long)]
        apply: bool,
    },
}

/// The store of an existing data directory (`run` has checked that it exists). With no server
/// running, the data directory's lock is taken (returned; hold it while the store is used: a
/// server restarting for a restore holds it) and an interrupted backup restore is recovered
/// first (as a server start does; an error opens nothing). A running server recovered at its own start, so a journal present now
/// belongs to a restore it is running: the store is not opened under it.
fn open(data_dir: &std::path::Path, server_running: bool) -> Result<DirectStore, BoxError> {
    let dir = DataDir::open(data_dir)?;
    let mut lock = None;
    if !server_running {
        lock = Some(infra::dir_lock::lock(dir.root())?);
        actors::system::recover_interrupted_restore(&dir)?;
    } else if std::fs::symlink_metadata(dir.root().join(domain::backup::journal::JOURNAL_FILE_NAME)).is_ok() {
        return Err("the running server is restoring a backup; retry when the restore has finished".into());
    }
    let (pool, _) = infra::db::open(&dir.db_path(), 1)?;
    Ok((PrivilegedService::new(pool.clone(), infra::clock::system()), pool, lock))
}

/// The store opened directly, with the data directory's lock when no server runs.
type DirectStore = (PrivilegedService, infra::db::DbPool, Option<infra::dir_lock::DirLock>);

fn migrate(svc: &PrivilegedService, pool: &infra::db::DbPool, apply: bool) -> Result<(), BoxError> {
    let mut conn = pool.get()?;
    match svc.plan_legacy(&mut conn)? {
        LegacyPlan::None => println!("No legacy operator roster to convert."),
        LegacyPlan::Deferred(reasons) => {
            for r in &reasons {
                println!("deferred: {r}");
            }
            return Err("the migration is deferred; nothing was changed".into());
        }
        LegacyPlan::Planned(plan, _) => {
            println!(
                "Plan: {} accounts, {} device bindings, owner {}, publisher {}",
                plan.accounts.len(),
                plan.device_bindings.len(),
                plan.state.owner_account_id,
                plan.state.publisher_account_id.as_deref().unwrap_or("none")
            );
            if apply {
                drop(conn);
                println!("{:?}", svc.ensure_ready()?);
            } else {
                println!("Dry run: pass --apply to convert (after a full backup).");
            }
        }
    }
    Ok(())
}

pub fn run(data_dir: &std::path::Path, command: AdminCommand) -> Result<(), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    let op = match command {
        AdminCommand::MigrateRoles { apply } => {
            let (svc, pool, _lock) = open(data_dir, server_running(data_dir)?)?;
            return migrate(&svc, &pool, apply);
        }
        other => admin_op(other)?,
    };
    print_reply(run_op(data_dir, op)?);
    Ok(())
}

/// The typed operation for a command, prompting for the passwords it needs.
fn admin_op(command: AdminCommand) -> Result<AdminOp, BoxError> {
    Ok(match command {
        AdminCommand::List => AdminOp::List {},
        AdminCommand::SetPassword { username } => {
            let password = SecretText(read_secret(&format!("New password for {username}: "))?);
            AdminOp::SetPassword { username, password }
        }
        AdminCommand::Activate { username } => AdminOp::SetActive { username, active: true },
        AdminCommand::Deactivate { username } => AdminOp::SetActive { username, active: false },
        AdminCommand::PairDevice { actor, target, label } => {
            let password = SecretText(read_secret(&format!("Password for {actor}: "))?);
            AdminOp::PairDevice { actor, password, target, label }
        }
        AdminCommand::RevokeDevice { actor, device } => {
            let password = SecretText(read_secret(&format!("Password for {actor}: "))?);
            AdminOp::RevokeDevice { actor, password, device }
        }
        AdminCommand::CreateAccount { actor, username, display_name, kind } => {
            let kind = if kind == "administrator" { AccountKind::Administrator } else { AccountKind::Publisher };
            let password = SecretText(read_secret(&format!("Password for {actor}: "))?);
            AdminOp::CreateAccount { actor, password, username, display_name, kind }
        }
        AdminCommand::AssignPublisher { actor, username } => {
            let password = SecretText(read_secret(&format!("Password for {actor}: "))?);
            AdminOp::AssignPublisher { actor, password, username }
        }
        AdminCommand::VerifyAudit => AdminOp::VerifyAudit {},
        AdminCommand::MigrateRoles { .. } => return Err("migrate-roles runs on the store directly".into()),
    })
}

/// Whether a server answers on the data directory's control socket.
fn server_running(data_dir: &std::path::Path) -> Result<bool, BoxError> {
    match control_socket::request(data_dir, &ControlRequest::new(ControlOp::Ping)) {
        Ok(_) => Ok(true),
        Err(ClientError::NotRunning) => Ok(false),
        Err(e) => Err(format!("could not reach the running server: {e}").into()),
    }
}

/// Runs `op` in the running server through its control socket, so the server's actors make the
/// change; with no server running, on the store directly with the same rules.
fn run_op(data_dir: &std::path::Path, op: AdminOp) -> Result<AdminReply, BoxError> {
    match deliver(data_dir, ControlOp::Admin(op.clone()))? {
        Delivered::Reply(ControlReply::Admin(reply)) => Ok(reply),
        Delivered::Reply(_) => Err("the server sent an unexpected reply".into()),
        Delivered::NotRunning => {
            let (svc, pool, _lock) = open(data_dir, false)?;
            let limits = infra::rate_limits::RateLimitStore::new(pool);
            Ok(admin_ops::run_without_server(&svc, &limits, op)?)
        }
    }
}

fn print_reply(reply: AdminReply) {
    match reply {
        AdminReply::Accounts { accounts } => {
            for a in accounts {
                println!(
                    "{:<16} {:<24} {:<14} {:<8} role={:<13} password={}",
                    a.id,
                    a.username,
                    a.kind,
                    if a.active { "active" } else { "inactive" },
                    a.role.as_deref().unwrap_or("none"),
                    if a.credential_set { "Configured" } else { "Not configured" },
                );
            }
        }
        AdminReply::PasswordSet { username } => {
            println!("Password set for {username}; its paired devices were revoked.")
        }
        AdminReply::ActiveSet { username, active } => {
            println!("{username} is {}.", if active { "active" } else { "inactive" })
        }
        AdminReply::PairingCode { target, code, expires_ms } => {
            println!("Pairing code for {target}: {}", code.expose());
            println!("Valid until {} (10 minutes), single use.", domain::time::format_ms(expires_ms));
        }
        AdminReply::Revoked { result } | AdminReply::Changed { result } => println!("{result}"),
        AdminReply::AuditVerified { entries } => {
            println!("Audit log verified: {entries} entries, chain and head intact.")
        }
    }
}
