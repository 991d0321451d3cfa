//! The privileged actor's two entry messages, whichever door a caller came through:
//! [`RunCommand`] runs one privileged command and [`Authorize`] decides one action outside the
//! command enum (a logo, a manual rollback, a Wiki upload's feed). The door is the *origin*: a
//! paired laptop's signed envelope ([`Signed`]); an open session ([`Session`], the server PC's
//! Administration screen or Relay Web's protected session, told apart by its [`SessionKind`] and
//! governed by that family's `session_policy::SessionPolicy`); or the control socket's CLI,
//! run as an account whose password (`--as`) is checked behind the server PC's budget ([`Cli`] for
//! `relay dynatrace|wiki`, [`CliAdmin`] for `relay admin`). Every origin authenticates its caller,
//! builds the principal once and hands the typed command to `PrivilegedService`'s one pipeline;
//! the origin's type fixes the reply (a signed request's receipt, a command's result, an admin
//! reply), so no caller unwraps a shape it cannot get.

use actix::prelude::*;
use serde_json::Value;

use domain::control::{AdminOp, AdminReply, SecretText};
use domain::privileged_command::PrivilegedCommand;
use domain::roles::Capability;

use super::service::{CommandOutcome, FollowUp};
use super::session_policy::{SessionKind, SessionUse};
use super::{admin_ops, AdminOpError, PrivError, PrivilegedActor};
use crate::kit::guarded;

/// Where a privileged command came from: it authenticates the caller, runs the command through
/// the pipeline and shapes the reply.
pub trait Origin: Send + 'static {
    /// What the caller gets back.
    type Reply: Send + 'static;
    /// Runs the command on `actor`.
    fn run(self, actor: &mut PrivilegedActor, ctx: &mut Context<PrivilegedActor>) -> ResponseFuture<Self::Reply>;
}

/// Runs one privileged command from `origin` through the one pipeline (the only run message).
#[derive(Message)]
#[rtype(result = "O::Reply")]
pub struct RunCommand<O: Origin> {
    pub origin: O,
}

impl<O: Origin> Handler<RunCommand<O>> for PrivilegedActor {
    type Result = ResponseFuture<O::Reply>;
    fn handle(&mut self, msg: RunCommand<O>, ctx: &mut Context<Self>) -> Self::Result {
        msg.origin.run(self, ctx)
    }
}

/// A command by its wire name (`dynatrace.configure`) with its payload and the revision the
/// caller saw; the pipeline parses it into a `PrivilegedCommand` (the enum is the allowlist).
#[derive(Debug, Clone, PartialEq)]
pub struct NamedCommand {
    pub name: String,
    pub payload: Value,
    pub expected_revision: Option<i64>,
}

impl NamedCommand {
    pub fn new(name: impl Into<String>, payload: Value, expected_revision: Option<i64>) -> NamedCommand {
        NamedCommand { name: name.into(), payload, expected_revision }
    }
}

/// A paired laptop's signed envelope (`POST /api/relay/privileged/execute`, a Wiki upload's
/// chunk): the raw body names the account, the device and the command, all verified by the
/// pipeline (`PrivilegedService::execute_signed`).
pub struct Signed {
    pub body: bytes::Bytes,
}

/// An open session: `id` is the server PC's session id (`Local`) or the web session's binding
/// (`Browser`).
pub struct Session {
    pub family: SessionKind,
    pub id: String,
    pub command: NamedCommand,
}

/// Which commands a CLI run may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CliScope {
    /// `relay dynatrace ...`: `dynatrace.*` only.
    Dynatrace,
    /// `relay wiki ...`: `wiki.*` only.
    Wiki,
}

impl CliScope {
    fn prefix(self) -> &'static str {
        match self {
            CliScope::Dynatrace => "dynatrace.",
            CliScope::Wiki => "wiki.",
        }
    }
}

/// The control socket's `relay dynatrace|wiki ... --as`: one command of `scope` run as
/// `as_user`, whose password is checked behind the server PC's budget and counts as fresh for
/// this one command. A token travels in `token` (merged into the payload's `token` field, never
/// kept where a `Debug` would show it). Not reachable from HTTP.
pub struct Cli {
    pub as_user: String,
    pub password: SecretText,
    pub scope: CliScope,
    pub command: NamedCommand,
    pub token: Option<SecretText>,
}

/// The control socket's `relay admin ...`: one admin operation; those that act as an account
/// carry its `--as` password, checked behind the server PC's budget. Not reachable from HTTP.
pub struct CliAdmin {
    pub op: AdminOp,
}

/// Who asks [`Authorize`].
pub enum Caller {
    /// An open session of `family` (`id` as in [`Session`]).
    Session { family: SessionKind, id: String },
    /// The control socket's CLI run as `as_user` (password checked behind the server PC's budget,
    /// fresh by construction).
    Cli { as_user: String, password: SecretText },
}

/// May `caller` take `action` (which needs `capability`) on `target`, outside the command enum
/// (logos, which the branding actor stores; a manual rollback, which the recovery launcher
/// performs; a Wiki upload's feed, which the wiki actor stores)? Counts as privileged activity,
/// re-derives the role from the records and writes an `authorized` (or `forbidden`) audit entry
/// with `target` as its request id. With `fresh_password`, the caller's password must also be
/// fresh (the session's policy), else `ReauthRequired` before anything is audited. Answers the
/// acting account's id (a Wiki upload's chunks are bound to it).
#[derive(Message)]
#[rtype(result = "Result<String, PrivError>")]
pub struct Authorize {
    pub caller: Caller,
    pub capability: Capability,
    /// The audit log's command name, e.g. `branding.setLogo`.
    pub action: &'static str,
    pub target: String,
    pub fresh_password: bool,
}

impl Authorize {
    /// Feeding Wiki upload `upload_id` (`wiki.upload.feed`, capability `WikiManage`).
    pub fn wiki_feed(caller: Caller, upload_id: impl Into<String>) -> Authorize {
        Authorize {
            caller,
            capability: Capability::WikiManage,
            action: "wiki.upload.feed",
            target: upload_id.into(),
            fresh_password: false,
        }
    }
}

fn done<T: Send + 'static>(value: T) -> ResponseFuture<T> {
    Box::pin(async move { value })
}

impl Origin for Signed {
    type Reply = Result<CommandOutcome, PrivError>;
    fn run(self, actor: &mut PrivilegedActor, ctx: &mut Context<PrivilegedActor>) -> ResponseFuture<Self::Reply> {
        if let Err(e) = actor.check_ready() {
            return done(Err(e));
        }
        let result = guarded(actor, ctx, |a| a.service.execute_signed(&self.body)).unwrap_or(Err(PrivError::Internal));
        match result {
            Err(e) => {
                tracing::warn!(code = domain::problem::HttpProblem::code(&e), "signed privileged request refused");
                actor.fail(&e);
                done(Err(e))
            }
            Ok(mut outcome) => {
                let finish = actor.follow_up(outcome.follow_up.take(), std::mem::take(&mut outcome.result));
                Box::pin(async move {
                    outcome.result = finish.await?;
                    Ok(outcome)
                })
            }
        }
    }
}

impl Origin for Session {
    type Reply = Result<Value, PrivError>;
    fn run(self, actor: &mut PrivilegedActor, _: &mut Context<PrivilegedActor>) -> ResponseFuture<Self::Reply> {
        let run = actor.run_in_session(self);
        actor.respond(run)
    }
}

impl Origin for Cli {
    type Reply = Result<Value, PrivError>;
    fn run(self, actor: &mut PrivilegedActor, _: &mut Context<PrivilegedActor>) -> ResponseFuture<Self::Reply> {
        let run = actor.run_as_account(self);
        actor.respond(run)
    }
}

impl Origin for CliAdmin {
    type Reply = Result<AdminReply, AdminOpError>;
    fn run(self, actor: &mut PrivilegedActor, ctx: &mut Context<PrivilegedActor>) -> ResponseFuture<Self::Reply> {
        let now = actor.now();
        actor.persisted.mark_dirty();
        let result = guarded(actor, ctx, |a| {
            let (service, guard) = (&a.service, &mut a.reauth_guard);
            admin_ops::run(service, self.op, &mut |as_user, password| {
                guard.check_on_server_pc(now, || service.authenticate(as_user, password))
            })
        })
        .unwrap_or(Err(AdminOpError::Privileged(PrivError::Internal)));
        if let Err(AdminOpError::Privileged(e)) = &result {
            actor.fail(e);
        }
        done(result)
    }
}

impl PrivilegedActor {
    /// One command in an open session, under its family's policy: the command allowlist, then
    /// the session (ended when its account's credential changed), the principal, the freshness
    /// of the password, the pipeline; a refusal saying the role is gone ends the session.
    fn run_in_session(&mut self, s: Session) -> Result<(Value, Option<FollowUp>), PrivError> {
        self.check_ready()?;
        let policy = s.family.policy();
        let early = if policy.parse_before_session { Some(policy.admit(&s.command)?) } else { None };
        let (session, account) = self.current_session(s.family, &s.id, SessionUse::Activity)?;
        let command = match early {
            Some(command) => command,
            None => policy.admit(&s.command)?,
        };
        let now = self.subsystem.now_ms();
        let result = self.service.session_principal(account, session.role).and_then(|principal| {
            let fresh = self.fresh_in_session(s.family, &s.id, &session, command.needs_fresh_password(), now);
            self.service.execute_as(&principal, &command, s.command.expected_revision, fresh)
        });
        self.settle(s.family, &s.id, &result);
        Ok((result?, FollowUp::of(&command)))
    }

    /// One command of the CLI's scope, run as its account after a password check behind the
    /// server PC's budget (the password is fresh for this one command).
    fn run_as_account(&mut self, cli: Cli) -> Result<(Value, Option<FollowUp>), PrivError> {
        let NamedCommand { name, mut payload, expected_revision } = cli.command;
        if let (Some(token), Some(map)) = (cli.token, payload.as_object_mut()) {
            map.insert("token".into(), Value::String(token.0));
        }
        self.check_ready()?;
        let prefix = cli.scope.prefix();
        if !name.starts_with(prefix) {
            return Err(PrivError::Forbidden(format!("only {prefix}* commands run here")));
        }
        let command = PrivilegedCommand::parse(&name, &payload)?;
        let principal = self.authenticate_locally(&cli.as_user, cli.password.expose())?;
        let result = self.service.execute_as(&principal, &command, expected_revision, true)?;
        Ok((result, FollowUp::of(&command)))
    }
}

impl Handler<Authorize> for PrivilegedActor {
    type Result = Result<String, PrivError>;
    fn handle(&mut self, msg: Authorize, _: &mut Context<Self>) -> Self::Result {
        let Authorize { caller, capability, action, target, fresh_password } = msg;
        match caller {
            Caller::Session { family, id } => {
                self.check_ready()?;
                let (session, account) = self.current_session(family, &id, SessionUse::Activity)?;
                let now = self.subsystem.now_ms();
                if fresh_password && !self.fresh_in_session(family, &id, &session, true, now) {
                    return Err(PrivError::ReauthRequired);
                }
                // An authorization has always refused a role the records no longer give, or no
                // role at all, as `RoleChanged`.
                let principal = self.service.session_principal(account, session.role).map_err(|e| match e {
                    PrivError::AccountUnavailable => PrivError::RoleChanged,
                    e => e,
                });
                let result = principal.and_then(|who| {
                    self.service.authorize_local_action(&who, capability, action, &target).map(|()| who)
                });
                self.settle(family, &id, &result);
                result.map(|who| who.account.id).inspect_err(|e| self.fail(e))
            }
            Caller::Cli { as_user, password } => {
                let authorized = self.check_ready().and_then(|_| {
                    let principal = self.authenticate_locally(&as_user, password.expose())?;
                    self.service.authorize_local_action(&principal, capability, action, &target)?;
                    Ok(principal.account.id)
                });
                authorized.inspect_err(|e| self.fail(e))
            }
        }
    }
}
