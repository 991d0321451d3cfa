//! The server PC's Administration commands (desktop server mode, main window only): protected
//! sign-in by username and password through the in-process privileged actor (never the LAN
//! API), the local privileged session it opens, and the allowlisted privileged commands run in
//! it. The session id stays in this process: the renderer learns only who is signed in, the
//! role and when the session idle-locks (15 minutes after the last privileged command; reading
//! the status keeps nothing alive). Lock, a Relay sign-out (`share_session` with `null`, which
//! ends every local session of the server PC), a server restart (restore) and quitting end it; the
//! command names and payloads are parsed and authorized by the actor (`PrivilegedCommand`, the
//! one allowlist). Passwords pass through once and are never logged or kept.

use std::sync::Mutex;

use actix::Addr;
use actors::privileged::{
    EndLocalSessions, EndSession, LocalSessionView, NamedCommand, OpenLocalSession, PrivError, PrivilegedActor,
    ReconfirmLocalPassword, RunCommand, Session, SessionKind, SessionStatus,
};
use domain::privileged_command::PrivilegedCommand;
use serde::Serialize;
use serde_json::Value;

use crate::bridge::{Access, Bridge, BridgeError, Command};

pub const ADMIN_STATUS: Command = Command::new("admin_status", Access::MainOnly);
pub const ADMIN_SIGN_IN: Command = Command::new("admin_sign_in", Access::MainOnly);
pub const ADMIN_CONFIRM_PASSWORD: Command = Command::new("admin_confirm_password", Access::MainOnly);
pub const ADMIN_LOCK: Command = Command::new("admin_lock", Access::MainOnly);
pub const ADMIN_COMMAND: Command = Command::new("admin_command", Access::MainOnly);

/// Longest username and password accepted before anything is sent to the actor.
const MAX_USERNAME: usize = 64;
const MAX_PASSWORD: usize = 1024;

/// The shell's half of the local session: its id, never handed to the renderer.
#[derive(Default)]
pub struct AdminSession {
    id: Mutex<Option<String>>,
}

impl AdminSession {
    pub(crate) fn get(&self) -> Option<String> {
        self.id.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    pub(crate) fn set(&self, id: Option<String>) -> Option<String> {
        std::mem::replace(&mut *self.id.lock().unwrap_or_else(|p| p.into_inner()), id)
    }
}

/// What the Administration screen may know.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AdminStatus {
    /// False outside server mode (client and setup windows have no local administration).
    pub available: bool,
    pub session: Option<LocalSessionView>,
}

/// The running server's privileged actor, if this desktop runs the server.
fn privileged_of(bridge: &Bridge) -> Option<Addr<PrivilegedActor>> {
    bridge.live_server().map(|l| l.privileged)
}

fn required(bridge: &Bridge) -> Result<Addr<PrivilegedActor>, BridgeError> {
    privileged_of(bridge).ok_or_else(|| BridgeError::Unavailable("administration is on the Relay server PC".into()))
}

/// The privileged or branding actor went away (a restore restarts the server).
pub(crate) fn stopped(_: actix::MailboxError) -> BridgeError {
    BridgeError::Unavailable("the server is restarting; retry in a moment".into())
}

const LOCKED: &str = "The administration session locked. Sign in again.";

/// A refusal as the renderer sees it. `ReauthRequired` means the session is gone when
/// `session_alive` is false, else that this action needs the password again.
fn refusal(e: PrivError, session_alive: bool) -> BridgeError {
    match e {
        PrivError::ReauthRequired if session_alive => {
            BridgeError::PasswordRequired("Confirm your password to continue.".into())
        }
        PrivError::ReauthRequired => BridgeError::Locked(LOCKED.into()),
        PrivError::InvalidCredentials => {
            BridgeError::Rejected("Wrong username or password, or the account is not active.".into())
        }
        PrivError::RateLimited { retry_after_secs } => BridgeError::RateLimited(retry_after_secs),
        PrivError::NotBootstrapped | PrivError::Internal => BridgeError::Unavailable(e.to_string()),
        other => BridgeError::Rejected(other.to_string()),
    }
}

fn check_credentials(username: &str, password: &str) -> Result<(), BridgeError> {
    if username.trim().is_empty()
        || username.len() > MAX_USERNAME
        || password.is_empty()
        || password.len() > MAX_PASSWORD
    {
        return Err(BridgeError::Invalid("enter a username and a password".into()));
    }
    Ok(())
}

/// The current status; a session the actor no longer knows (idle lock, restart) is forgotten.
async fn status(bridge: &Bridge, session: &AdminSession) -> Result<AdminStatus, BridgeError> {
    let Some(actor) = privileged_of(bridge) else {
        return Ok(AdminStatus { available: false, session: None });
    };
    let Some(id) = session.get() else {
        return Ok(AdminStatus { available: true, session: None });
    };
    let view = actor.send(SessionStatus { family: SessionKind::Local, id: id.clone() }).await.map_err(stopped)?;
    if view.is_none() {
        forget(session, &id);
    }
    Ok(AdminStatus { available: true, session: view })
}

/// Forgets `id` unless another sign-in replaced it meanwhile.
fn forget(session: &AdminSession, id: &str) {
    let mut held = session.id.lock().unwrap_or_else(|p| p.into_inner());
    if held.as_deref() == Some(id) {
        *held = None;
    }
}

/// A Relay sign-out in this window: forgets the held session and ends every local session of
/// the server PC, so Administration asks for a password again.
pub async fn end_on_relay_sign_out(bridge: &Bridge, session: &AdminSession) {
    end_local_sessions(privileged_of(bridge), session).await;
}

/// Forgets the held session and has `privileged` (this desktop's server, if it runs one) end
/// every local session. A server that is restarting (restore) keeps no session to end.
async fn end_local_sessions(privileged: Option<Addr<PrivilegedActor>>, session: &AdminSession) {
    session.set(None);
    if let Some(actor) = privileged {
        if actor.send(EndLocalSessions).await.is_err() {
            tracing::debug!("the server is restarting; its local sessions end with it");
        }
    }
}

/// Sends the message `build` makes for the held session to the privileged actor; a refusal is
/// answered like `admin_command`'s (a gone session is forgotten and answers `locked`).
pub async fn in_session<M, T>(
    bridge: &Bridge,
    session: &AdminSession,
    build: impl FnOnce(String) -> M,
) -> Result<T, BridgeError>
where
    M: actix::Message<Result = Result<T, PrivError>> + Send + 'static,
    T: Send + 'static,
    PrivilegedActor: actix::Handler<M>,
{
    let actor = required(bridge)?;
    let id = session.get().ok_or_else(|| BridgeError::Locked(LOCKED.into()))?;
    match actor.send(build(id.clone())).await.map_err(stopped)? {
        Ok(answer) => Ok(answer),
        Err(e) => Err(settle_refusal(&actor, session, &id, e).await?),
    }
}

/// Runs one allowlisted privileged command (`name`, `payload`) in the held session.
pub async fn command_in_session(
    bridge: &Bridge,
    session: &AdminSession,
    command: &str,
    payload: Value,
    expected_revision: Option<i64>,
) -> Result<Value, BridgeError> {
    if !PrivilegedCommand::is_known(command) {
        return Err(BridgeError::Invalid("unknown command".into()));
    }
    let command = NamedCommand::new(command, payload, expected_revision);
    let run = |id| RunCommand { origin: Session { family: SessionKind::Local, id, command } };
    in_session(bridge, session, run).await
}

/// Refuses at once (`locked`) when no session is held or the server is not running here, before
/// a command starts something the operator would wait on (a file chooser).
pub fn require_session(bridge: &Bridge, session: &AdminSession) -> Result<(), BridgeError> {
    required(bridge)?;
    session.get().map(drop).ok_or_else(|| BridgeError::Locked(LOCKED.into()))
}

/// The bridge error for a refusal in the held session, forgetting the session when it is gone.
async fn settle_refusal(
    actor: &Addr<PrivilegedActor>,
    session: &AdminSession,
    id: &str,
    e: PrivError,
) -> Result<BridgeError, BridgeError> {
    let alive =
        actor.send(SessionStatus { family: SessionKind::Local, id: id.to_string() }).await.map_err(stopped)?.is_some();
    if !alive {
        forget(session, id);
    }
    Ok(refusal(e, alive))
}

mod commands {
    use tauri::{State, Webview};

    use super::*;
    use crate::bridge::caller;

    #[tauri::command]
    pub async fn admin_status<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
    ) -> Result<AdminStatus, BridgeError> {
        caller(ADMIN_STATUS, &webview, &bridge)?;
        status(&bridge, &session).await
    }

    #[tauri::command]
    pub async fn admin_sign_in<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        username: String,
        password: String,
    ) -> Result<AdminStatus, BridgeError> {
        caller(ADMIN_SIGN_IN, &webview, &bridge)?;
        check_credentials(&username, &password)?;
        let actor = required(&bridge)?;
        let open = OpenLocalSession { username: username.trim().to_string(), password };
        let id = actor.send(open).await.map_err(stopped)?.map_err(|e| refusal(e, false))?;
        if let Some(previous) = session.set(Some(id)) {
            actor.do_send(EndSession { family: SessionKind::Local, id: previous });
        }
        status(&bridge, &session).await
    }

    #[tauri::command]
    pub async fn admin_confirm_password<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        password: String,
    ) -> Result<AdminStatus, BridgeError> {
        caller(ADMIN_CONFIRM_PASSWORD, &webview, &bridge)?;
        check_credentials("-", &password)?;
        let actor = required(&bridge)?;
        let id = session.get().ok_or_else(|| BridgeError::Locked(LOCKED.into()))?;
        let confirm = ReconfirmLocalPassword { session_id: id.clone(), password };
        match actor.send(confirm).await.map_err(stopped)? {
            Ok(view) => Ok(AdminStatus { available: true, session: Some(view) }),
            Err(PrivError::ReauthRequired) => {
                forget(&session, &id);
                Err(BridgeError::Locked(LOCKED.into()))
            }
            Err(e) => Err(refusal(e, true)),
        }
    }

    #[tauri::command]
    pub async fn admin_lock<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
    ) -> Result<AdminStatus, BridgeError> {
        caller(ADMIN_LOCK, &webview, &bridge)?;
        if let (Some(id), Some(actor)) = (session.set(None), privileged_of(&bridge)) {
            actor.send(EndSession { family: SessionKind::Local, id }).await.map_err(stopped)?;
        }
        status(&bridge, &session).await
    }

    #[tauri::command]
    pub async fn admin_command<R: tauri::Runtime>(
        webview: Webview<R>,
        bridge: State<'_, Bridge>,
        session: State<'_, AdminSession>,
        command: String,
        payload: Value,
        expected_revision: Option<i64>,
    ) -> Result<Value, BridgeError> {
        caller(ADMIN_COMMAND, &webview, &bridge)?;
        command_in_session(&bridge, &session, &command, payload, expected_revision).await
    }
}

pub use commands::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_tell_a_lock_from_a_password_check_and_never_echo_input() {
        assert_eq!(refusal(PrivError::ReauthRequired, false), BridgeError::Locked(LOCKED.into()));
        assert!(matches!(refusal(PrivError::ReauthRequired, true), BridgeError::PasswordRequired(_)));
        assert_eq!(refusal(PrivError::RateLimited { retry_after_secs: 30 }, false), BridgeError::RateLimited(30));
        let wrong = refusal(PrivError::InvalidCredentials, false);
        assert_eq!(wrong, BridgeError::Rejected("Wrong username or password, or the account is not active.".into()));
        let forbidden = refusal(PrivError::Forbidden("only the Owner can transfer ownership".into()), true);
        assert_eq!(forbidden, BridgeError::Rejected("not permitted: only the Owner can transfer ownership".into()));
    }

    #[test]
    fn credentials_are_bounded_before_they_reach_the_actor() {
        assert!(check_credentials("ryan", "a password").is_ok());
        assert!(check_credentials(" ", "a password").is_err());
        assert!(check_credentials("ryan", "").is_err());
        assert!(check_credentials(&"u".repeat(MAX_USERNAME + 1), "a password").is_err());
        assert!(check_credentials("ryan", &"p".repeat(MAX_PASSWORD + 1)).is_err());
    }

    #[test]
    fn a_relay_sign_out_ends_the_administration_session() {
        const PW: &str = "local-owner-password";
        let tmp = tempfile::tempdir().unwrap();
        actix::System::new().block_on(async {
            use actix::Actor;
            let clock = infra::clock::system();
            let (pool, _) = infra::db::open(&tmp.path().join("relay.db"), 2).unwrap();
            let service = actors::privileged::PrivilegedService::new(pool, clock.clone());
            service.ensure_ready().unwrap();
            service.set_password("ryan", PW).unwrap();
            service.set_active("ryan", true).unwrap();
            let health = actors::health::HealthActor::new(clock.clone()).start();
            let ctx = actors::kit::SubsystemCtx::new(clock, health);
            let limits = actors::privileged::PrivilegedLimits::default();
            let actor = PrivilegedActor::new(ctx, service, limits).start();
            let open = || OpenLocalSession { username: "ryan".into(), password: PW.into() };
            let held = actor.send(open()).await.unwrap().unwrap();
            let other = actor.send(open()).await.unwrap().unwrap();
            let session = AdminSession::default();
            session.set(Some(held.clone()));

            end_local_sessions(Some(actor.clone()), &session).await;

            assert_eq!(session.get(), None, "the window forgot its session");
            for id in [held, other] {
                let status = actor.send(SessionStatus { family: SessionKind::Local, id }).await.unwrap();
                assert_eq!(status, None, "every local session of the server PC ended");
            }
            assert!(actor.send(open()).await.unwrap().is_ok(), "Administration signs in again with the password");
        });
    }

    #[test]
    fn the_session_id_is_forgotten_only_when_it_is_still_the_held_one() {
        let session = AdminSession::default();
        session.set(Some("first".into()));
        forget(&session, "other");
        assert_eq!(session.get().as_deref(), Some("first"));
        forget(&session, "first");
        assert_eq!(session.get(), None);
    }
}
