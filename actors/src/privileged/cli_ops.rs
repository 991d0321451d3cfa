//! The server-local CLI commands the control socket (`actors::control`) delivers to the
//! privileged actor: `relay dynatrace ...`, `relay wiki ...` (a command, or authorizing an
//! upload's feed) and `relay admin ...`. Each checks the acting account's password (`--as`) behind
//! the local sign-in budget and runs the same typed commands, rules and audit as the server PC's
//! Administration screen. None of them is reachable from HTTP.

use actix::prelude::*;
use serde_json::Value;

use domain::privileged_command::PrivilegedCommand;

use super::service::FollowUp;
use super::{admin_ops, AdminOpError, PrivError, PrivilegedActor};
use crate::kit::guarded;

/// Server-local `relay dynatrace ...`, delivered by the control socket (`actors::control`): one
/// `dynatrace.*` command run as `actor` after a password check behind the local sign-in budget.
/// Not reachable from HTTP.
#[derive(Message)]
#[rtype(result = "Result<Value, PrivError>")]
pub struct RunDynatrace {
    pub actor: String,
    pub password: domain::control::SecretText,
    pub command: String,
    pub payload: Value,
    pub token: Option<domain::control::SecretText>,
    pub expected_revision: Option<i64>,
}

/// Server-local `relay wiki ...`, delivered by the control socket: one `wiki.*` command run as
/// `actor` after a password check behind the local sign-in budget (the password counts as fresh
/// for this one command). Not reachable from HTTP.
#[derive(Message)]
#[rtype(result = "Result<Value, PrivError>")]
pub struct RunWiki {
    pub actor: String,
    pub password: domain::control::SecretText,
    pub command: String,
    pub payload: Value,
}

/// Server-local `relay wiki upload` (control socket): checks `actor`'s password behind the local
/// sign-in budget and that the records still give the account Wiki management; the decision
/// is audited with `target` (the upload id). Answers the account id the upload must belong to.
/// Not reachable from HTTP.
#[derive(Message)]
#[rtype(result = "Result<String, PrivError>")]
pub struct AuthorizeWikiFeed {
    pub actor: String,
    pub password: domain::control::SecretText,
    pub target: String,
}

/// Server-local administration from `relay admin`, delivered by the control socket
/// (`actors::control`); the acting account's password (`--as`) is checked behind the local
/// sign-in budget. Not reachable from HTTP.
#[derive(Message)]
#[rtype(result = "Result<domain::control::AdminReply, AdminOpError>")]
pub struct RunAdmin(pub domain::control::AdminOp);

impl Handler<RunDynatrace> for PrivilegedActor {
    type Result = ResponseFuture<Result<Value, PrivError>>;
    fn handle(&mut self, msg: RunDynatrace, _: &mut Context<Self>) -> Self::Result {
        let run = self.run_dynatrace(msg);
        self.respond(run)
    }
}

impl Handler<RunWiki> for PrivilegedActor {
    type Result = Result<Value, PrivError>;
    fn handle(&mut self, msg: RunWiki, _: &mut Context<Self>) -> Self::Result {
        let run = self.run_as_account("wiki.", &msg.actor, &msg.password, &msg.command, msg.payload, None);
        run.map(|(result, _)| result).inspect_err(|e| self.fail(e))
    }
}

impl Handler<AuthorizeWikiFeed> for PrivilegedActor {
    type Result = Result<String, PrivError>;
    fn handle(&mut self, msg: AuthorizeWikiFeed, _: &mut Context<Self>) -> Self::Result {
        let authorized = self.check_ready().and_then(|_| {
            let principal = self.authenticate_locally(&msg.actor, msg.password.expose())?;
            let capability = domain::roles::Capability::WikiManage;
            let (id, role) = (&principal.account.id, principal.role);
            self.service.authorize_local_action(id, role, capability, "wiki.upload.feed", &msg.target)?;
            Ok(principal.account.id)
        });
        authorized.inspect_err(|e| self.fail(e))
    }
}

impl PrivilegedActor {
    fn run_dynatrace(&mut self, msg: RunDynatrace) -> Result<(Value, Option<FollowUp>), PrivError> {
        let mut payload = msg.payload;
        if let (Some(token), Some(map)) = (msg.token, payload.as_object_mut()) {
            map.insert("token".into(), Value::String(token.0));
        }
        self.run_as_account("dynatrace.", &msg.actor, &msg.password, &msg.command, payload, msg.expected_revision)
    }

    /// One command of the family named by `prefix`, run as `actor` after a password check
    /// behind the local sign-in budget (the password is fresh for this one command).
    fn run_as_account(
        &mut self,
        prefix: &str,
        actor: &str,
        password: &domain::control::SecretText,
        name: &str,
        payload: Value,
        expected_revision: Option<i64>,
    ) -> Result<(Value, Option<FollowUp>), PrivError> {
        self.check_ready()?;
        if !name.starts_with(prefix) {
            return Err(PrivError::Forbidden(format!("only {prefix}* commands run here")));
        }
        let command = PrivilegedCommand::parse(name, &payload)?;
        let principal = self.authenticate_locally(actor, password.expose())?;
        let result = self.service.execute_local(&principal, &command, expected_revision, true)?;
        Ok((result, FollowUp::of(&command)))
    }
}

impl Handler<RunAdmin> for PrivilegedActor {
    type Result = Result<domain::control::AdminReply, AdminOpError>;
    fn handle(&mut self, msg: RunAdmin, ctx: &mut Context<Self>) -> Self::Result {
        let now = self.now();
        self.persisted.mark_dirty();
        let result = guarded(self, ctx, |a| {
            let (service, guard) = (&a.service, &mut a.reauth_guard);
            admin_ops::run(service, msg.0, &mut |actor, password| {
                guard.check_on_server_pc(now, || service.authenticate(actor, password))
            })
        })
        .unwrap_or(Err(AdminOpError::Privileged(PrivError::Internal)));
        if let Err(AdminOpError::Privileged(e)) = &result {
            self.fail(e);
        }
        result
    }
}
