//! `relay admin ...`: server-local administration of protected accounts on the Relay server PC.
//! The commands open the server's database directly (SQLite WAL makes this safe while the server
//! runs) and use the same `PrivilegedService` as the server, so the rules and the audit log are
//! identical. Initial password setup, activation, reset and recovery exist only here.

use clap::Subcommand;

use actors::privileged::service::LegacyPlan;
use actors::privileged::{PrivilegedService, Readiness};
use domain::privileged_command::PrivilegedCommand;
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
    /// Verify the hash-chained audit log of privileged commands.
    VerifyAudit,
    /// Plan (and with --apply, perform) the conversion of a legacy `relay_operators` roster.
    /// Back up the whole data directory first; a deferred plan changes nothing.
    MigrateRoles {
        #[arg(long)]
        apply: bool,
    },
}

fn open(data_dir: &std::path::Path) -> Result<(PrivilegedService, infra::db::DbPool), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    let dir = DataDir::open(data_dir)?;
    let (pool, _) = infra::db::open(&dir.db_path(), 1)?;
    Ok((PrivilegedService::new(pool.clone(), infra::clock::system()), pool))
}

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
    let (svc, pool) = open(data_dir)?;
    match command {
        AdminCommand::MigrateRoles { apply } => migrate(&svc, &pool, apply),
        other => run_ready(&svc, other),
    }
}

/// Commands that need a ready privileged store (bootstrapped or migrated).
fn run_ready(svc: &PrivilegedService, command: AdminCommand) -> Result<(), BoxError> {
    if let Readiness::Deferred(reasons) = svc.ensure_ready()? {
        return Err(format!(
            "role-account migration deferred ({}); run `relay admin migrate-roles`",
            reasons.join("; ")
        )
        .into());
    }
    match command {
        AdminCommand::List => {
            for (account, role) in svc.accounts()? {
                println!(
                    "{:<16} {:<24} {:<14} {:<8} role={:<13} password={}",
                    account.id,
                    account.username,
                    format!("{:?}", account.kind).to_lowercase(),
                    if account.active { "active" } else { "inactive" },
                    role.map(|r| r.as_str()).unwrap_or("none"),
                    if account.credential_set { "Configured" } else { "Not configured" },
                );
            }
        }
        AdminCommand::SetPassword { username } => {
            let password = read_secret(&format!("New password for {username}: "))?;
            let account = svc.set_password(&username, &password)?;
            println!("Password set for {}; its paired devices were revoked.", account.username);
        }
        AdminCommand::Activate { username } => {
            svc.set_active(&username, true)?;
            println!("{username} is active.");
        }
        AdminCommand::Deactivate { username } => {
            svc.set_active(&username, false)?;
            println!("{username} is inactive.");
        }
        AdminCommand::PairDevice { actor, target, label } => {
            let password = read_secret(&format!("Password for {actor}: "))?;
            let principal = svc.authenticate(&actor, &password)?;
            let ticket = svc.start_pairing(&principal, &target, &label)?;
            println!("Pairing code for {target}: {}", ticket.code);
            println!("Valid until {} (10 minutes), single use.", domain::time::format_ms(ticket.expires_ms));
        }
        AdminCommand::RevokeDevice { actor, device } => {
            let password = read_secret(&format!("Password for {actor}: "))?;
            let principal = svc.authenticate(&actor, &password)?;
            let command = PrivilegedCommand::DevicesRevoke { device_id: device };
            let result = svc.execute_local(&principal, &command, None, true)?;
            println!("{result}");
        }
        AdminCommand::MigrateRoles { apply } => {
            println!("Already converted or nothing to convert (apply={apply}).");
        }
        AdminCommand::VerifyAudit => {
            let n = svc.verify_audit()?;
            println!("Audit log verified: {n} entries, chain and head intact.");
        }
    }
    Ok(())
}
