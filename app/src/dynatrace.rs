//! `relay dynatrace ...`: the Dynatrace settings of a running server from its own PC (a
//! headless server has no Administration screen). Each settings command runs the typed
//! `dynatrace.*` privileged command as `--as` (an Owner or Administrator; password read from a
//! hidden prompt or one stdin line), over the control socket, so the server's rules, revision
//! check and audit log apply. The platform token is read the same way (never an argument) and
//! never printed. `sync` asks for a sync now and prints what it did.

use clap::Subcommand;
use serde_json::{json, Value};

use domain::control::{ControlOp, ControlReply, DynatraceOp, SecretText};

use crate::control_client::{deliver, Delivered};
use crate::secret_input::read_secret;

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Subcommand)]
pub enum DynatraceCommand {
    /// Show the settings (the token only as configured / not configured).
    Status {
        #[arg(long = "as")]
        actor: String,
    },
    /// Set the environment URL and scope. Changing the URL removes the stored token.
    Configure {
        #[arg(long = "as")]
        actor: String,
        /// `https://<environment-id>.apps.dynatrace.com`.
        #[arg(long)]
        url: String,
        /// An alerting profile whose problems Relay shows (repeatable; none: every problem).
        #[arg(long = "profile")]
        profiles: Vec<String>,
        /// A custom DQL matcher for problem events (wins over profiles).
        #[arg(long)]
        matcher: Option<String>,
        /// The NOC workflow whose notification e-mails name problems.
        #[arg(long)]
        workflow: Option<String>,
        /// Take the scope from the workflow's DQL query task (needs --workflow).
        #[arg(long)]
        follow_workflow: bool,
        /// The workflow's DQL query task to follow (default: its only one).
        #[arg(long)]
        workflow_task: Option<String>,
    },
    /// Store the platform token (read after the password, from a hidden prompt or stdin).
    SetToken {
        #[arg(long = "as")]
        actor: String,
    },
    /// Forget the platform token.
    RemoveToken {
        #[arg(long = "as")]
        actor: String,
    },
    /// Run one small query with the stored URL and token.
    Test {
        #[arg(long = "as")]
        actor: String,
    },
    /// Sync now and print what the sync did.
    Sync,
}

fn send(data_dir: &std::path::Path, op: DynatraceOp) -> Result<Value, BoxError> {
    match deliver(data_dir, ControlOp::Dynatrace(op))? {
        Delivered::Reply(ControlReply::Dynatrace(value)) => Ok(value),
        Delivered::Reply(_) => Err("the server sent an unexpected reply".into()),
        Delivered::NotRunning => Err("no Relay server is running on this data directory; start it first".into()),
    }
}

fn run_command(
    data_dir: &std::path::Path,
    actor: &str,
    password: &SecretText,
    command: &str,
    payload: Value,
    token: Option<SecretText>,
    expected_revision: Option<i64>,
) -> Result<Value, BoxError> {
    let op = DynatraceOp::Run {
        actor: actor.to_string(),
        password: password.clone(),
        command: command.to_string(),
        payload,
        token,
        expected_revision,
    };
    send(data_dir, op)
}

fn password_for(actor: &str) -> Result<SecretText, BoxError> {
    Ok(SecretText(read_secret(&format!("Password for {actor}: "))?))
}

/// Runs a settings command that needs the current revision: reads the status first.
fn with_revision(
    data_dir: &std::path::Path,
    actor: &str,
    command: &str,
    payload: Value,
    token: Option<SecretText>,
    password: &SecretText,
) -> Result<Value, BoxError> {
    let status = run_command(data_dir, actor, password, "dynatrace.status", json!({}), None, None)?;
    let revision = status["revision"].as_i64().ok_or("the server's status has no revision")?;
    run_command(data_dir, actor, password, command, payload, token, Some(revision))
}

fn print_status(status: &Value) {
    let text = |v: &Value| v.as_str().unwrap_or("(not set)").to_string();
    println!("Environment: {}", text(&status["environmentUrl"]));
    let token = if status["token"] == "configured" { "Configured" } else { "Not configured" };
    println!("Platform token: {token}");
    match status["scope"]["kind"].as_str() {
        Some("alerting-profile") => println!("Scope: alerting profiles {}", status["scope"]["profiles"]),
        Some("custom-dql") => println!("Scope: custom matcher {}", status["scope"]["matcher"]),
        _ => println!("Scope: every problem"),
    }
    println!("Workflow: {}", text(&status["workflowId"]));
    println!("Revision: {}", status["revision"]);
}

pub fn run(data_dir: &std::path::Path, command: DynatraceCommand) -> Result<(), BoxError> {
    if !data_dir.is_dir() {
        return Err(format!("no data directory at {}", data_dir.display()).into());
    }
    match command {
        DynatraceCommand::Status { actor } => {
            let password = password_for(&actor)?;
            print_status(&run_command(data_dir, &actor, &password, "dynatrace.status", json!({}), None, None)?);
        }
        DynatraceCommand::Configure { actor, url, profiles, matcher, workflow, follow_workflow, workflow_task } => {
            let password = password_for(&actor)?;
            let payload = json!({"environmentUrl": url, "alertingProfiles": profiles, "matcher": matcher, "workflowId": workflow,
                "followWorkflow": follow_workflow, "workflowTask": workflow_task});
            print_status(&with_revision(data_dir, &actor, "dynatrace.configure", payload, None, &password)?);
        }
        DynatraceCommand::SetToken { actor } => {
            let password = password_for(&actor)?;
            let token = SecretText(read_secret("Dynatrace platform token: ")?);
            let status = with_revision(data_dir, &actor, "dynatrace.setToken", json!({}), Some(token), &password)?;
            print_status(&status);
        }
        DynatraceCommand::RemoveToken { actor } => {
            let password = password_for(&actor)?;
            print_status(&with_revision(data_dir, &actor, "dynatrace.removeToken", json!({}), None, &password)?);
        }
        DynatraceCommand::Test { actor } => {
            let password = password_for(&actor)?;
            let result = run_command(data_dir, &actor, &password, "dynatrace.testConnection", json!({}), None, None)?;
            let message = result["message"].as_str().unwrap_or("");
            if result["ok"] == true {
                println!("{message}");
            } else {
                return Err(format!("connection test failed: {message}").into());
            }
        }
        DynatraceCommand::Sync => {
            let summary = send(data_dir, DynatraceOp::Sync {})?;
            println!("{summary}");
        }
    }
    Ok(())
}
