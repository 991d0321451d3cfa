//! Relay Web's server-mediated protected sign-in: the `/web/api/protected/*` routes, behind a live
//! web session (CSRF on every POST). They translate HTTP to the privileged actor's
//! session messages (`actors::privileged::session_ops`, a `SessionKind::Browser` session), keyed by the web session's
//! server-side binding, and translate its refusals to [`ProtectedRefusal`]s whose codes the
//! renderer's `WebProtectedSession` understands. Routes: `GET status`, `POST sign-in`
//! (`{username, password}`, 4 KiB), `POST confirm` (`{password}`, approves one destructive
//! command), `POST lock`, `POST command` (`{command, payload, expectedRevision}`, only the commands
//! `PrivilegedCommand::on_the_web` allows) and `POST wiki/chunks?uploadId&batchId&index&byteSize&checksum`
//! (one Wiki upload chunk as the raw body, at most 4 MiB). No answer carries a key, a token, a
//! proof, a path or a password; a sign-in arms a watcher that ends the protected session when
//! the web session ends (logout, replacement, expiry).

use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use serde::Deserialize;
use serde_json::{json, Value};

use actors::privileged::{
    Authorize, Caller, ConfirmBrowserPassword, EndSession, LocalSessionView, NamedCommand, OpenBrowserSession,
    PrivError, RunCommand, Session, SessionKind, SessionStatus, MAX_REAUTH_BODY,
};
use actors::web_sessions::WebGrant;
use actors::wiki::{IncomingChunk, Sender, StoreChunk, WikiError};
use actors::Handles;
use domain::problem::HttpProblem;

use crate::error::{json_config, Problem, RawBody};
use crate::route_table::{Endpoint, RouteTable, Verb};

/// Longest accepted username and password (the sign-in body is capped at 4 KiB as well).
const MAX_USERNAME: usize = 64;
const MAX_PASSWORD: usize = 1024;

/// Why a protected request from a browser was refused, in the renderer's vocabulary.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProtectedRefusal {
    /// No protected session (never opened, idle-locked, ended with the web session, or the
    /// account's role or credential changed).
    #[error("The protected session locked. Sign in again.")]
    Locked,
    /// This action needs the password confirmed again (then retried once).
    #[error("Confirm your password to continue.")]
    PasswordRequired,
    #[error("Wrong username or password, or the account is not active.")]
    Rejected,
    #[error("{0}")]
    Forbidden(String),
    #[error("This is done on the Relay server PC or a paired laptop, not in a browser.")]
    NotOnTheWeb,
    #[error("{0}")]
    Invalid(String),
    #[error("Too many attempts; retry in {0} s.")]
    RateLimited(u64),
    #[error("The record changed meanwhile; reload and retry.")]
    StaleRevision,
    #[error("{0}")]
    Conflict(String),
    #[error("Protected sign-in is not available right now; retry in a moment.")]
    Unavailable,
}

impl HttpProblem for ProtectedRefusal {
    fn status(&self) -> u16 {
        match self {
            ProtectedRefusal::Invalid(_) => 400,
            ProtectedRefusal::Rejected => 401,
            ProtectedRefusal::Locked
            | ProtectedRefusal::PasswordRequired
            | ProtectedRefusal::Forbidden(_)
            | ProtectedRefusal::NotOnTheWeb => 403,
            ProtectedRefusal::StaleRevision | ProtectedRefusal::Conflict(_) => 409,
            ProtectedRefusal::RateLimited(_) => 429,
            ProtectedRefusal::Unavailable => 503,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            ProtectedRefusal::Locked => "locked",
            ProtectedRefusal::PasswordRequired => "password_required",
            ProtectedRefusal::Rejected => "rejected",
            ProtectedRefusal::Forbidden(_) => "forbidden",
            ProtectedRefusal::NotOnTheWeb => "not_on_the_web",
            ProtectedRefusal::Invalid(_) => "invalid",
            ProtectedRefusal::RateLimited(_) => "rate_limited",
            ProtectedRefusal::StaleRevision => "stale_revision",
            ProtectedRefusal::Conflict(_) => "conflict",
            ProtectedRefusal::Unavailable => "unavailable",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            ProtectedRefusal::RateLimited(secs) => Some(*secs),
            _ => None,
        }
    }
}

impl ProtectedRefusal {
    /// The actor's refusal; `session_alive` tells a missing session from a missing approval.
    fn of(e: PrivError, session_alive: bool) -> ProtectedRefusal {
        match e {
            PrivError::ReauthRequired if session_alive => ProtectedRefusal::PasswordRequired,
            PrivError::ReauthRequired | PrivError::RoleChanged | PrivError::AccountUnavailable => {
                ProtectedRefusal::Locked
            }
            PrivError::InvalidCredentials => ProtectedRefusal::Rejected,
            PrivError::NotOnTheWeb => ProtectedRefusal::NotOnTheWeb,
            PrivError::RateLimited { retry_after_secs } => ProtectedRefusal::RateLimited(retry_after_secs),
            PrivError::StaleRevision => ProtectedRefusal::StaleRevision,
            PrivError::RequestConflict | PrivError::InProgress => ProtectedRefusal::Conflict(e.to_string()),
            PrivError::Invalid(_) | PrivError::Envelope(_) | PrivError::PairingInvalid => {
                ProtectedRefusal::Invalid(e.to_string())
            }
            PrivError::Forbidden(_) | PrivError::DeviceUnavailable | PrivError::BadSignature => {
                ProtectedRefusal::Forbidden(e.to_string())
            }
            PrivError::NotBootstrapped | PrivError::Internal => ProtectedRefusal::Unavailable,
        }
    }
}

type Refused = Problem<ProtectedRefusal>;

impl From<actix::MailboxError> for Refused {
    fn from(_: actix::MailboxError) -> Refused {
        Problem(ProtectedRefusal::Unavailable)
    }
}

/// The binding of the web session `require_web_session` authorized (always present behind it).
fn grant_of(req: &HttpRequest) -> Result<WebGrant, Refused> {
    req.extensions().get::<WebGrant>().cloned().ok_or(Problem(ProtectedRefusal::Locked))
}

fn status_body(view: Option<LocalSessionView>) -> HttpResponse {
    HttpResponse::Ok().json(json!({ "available": true, "session": view }))
}

async fn is_alive(handles: &Handles, binding: &str) -> bool {
    let status = SessionStatus { family: SessionKind::Browser, id: binding.to_string() };
    matches!(handles.privileged.send(status).await, Ok(Some(_)))
}

/// Translates a refusal, asking whether the session still lives when that decides the code (the
/// actor itself ends a session whose role or account went away).
async fn refusal(handles: &Handles, binding: &str, e: PrivError) -> Refused {
    let alive = matches!(e, PrivError::ReauthRequired) && is_alive(handles, binding).await;
    Problem(ProtectedRefusal::of(e, alive))
}

async fn status(req: HttpRequest, handles: web::Data<Handles>) -> Result<HttpResponse, Refused> {
    let grant = grant_of(&req)?;
    let view = handles.privileged.send(SessionStatus { family: SessionKind::Browser, id: grant.binding }).await?;
    Ok(status_body(view))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignInBody {
    username: String,
    password: String,
}

async fn sign_in(
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<SignInBody>,
) -> Result<HttpResponse, Refused> {
    let grant = grant_of(&req)?;
    let SignInBody { username, password } = body.into_inner();
    if username.trim().is_empty()
        || username.len() > MAX_USERNAME
        || password.is_empty()
        || password.len() > MAX_PASSWORD
    {
        return Err(Problem(ProtectedRefusal::Invalid("Enter a username and a password.".into())));
    }
    let binding = grant.binding.clone();
    let msg = OpenBrowserSession { binding: binding.clone(), username, password, source: crate::source_ip(&req) };
    let view = match handles.privileged.send(msg).await? {
        Ok(view) => view,
        Err(e) => return Err(refusal(&handles, &binding, e).await),
    };
    // The protected session ends with its web session (logout, replacement, expiry).
    let mut ended = grant.ended;
    let privileged = handles.privileged.clone();
    actix_web::rt::spawn(async move {
        let _ = ended.changed().await;
        privileged.do_send(EndSession { family: SessionKind::Browser, id: binding });
    });
    Ok(status_body(Some(view)))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ConfirmBody {
    password: String,
}

async fn confirm(
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<ConfirmBody>,
) -> Result<HttpResponse, Refused> {
    let grant = grant_of(&req)?;
    let password = body.into_inner().password;
    if password.is_empty() || password.len() > MAX_PASSWORD {
        return Err(Problem(ProtectedRefusal::Invalid("Enter your password.".into())));
    }
    let msg = ConfirmBrowserPassword { binding: grant.binding.clone(), password, source: crate::source_ip(&req) };
    match handles.privileged.send(msg).await? {
        Ok(view) => Ok(status_body(Some(view))),
        // Without a session there is nothing to confirm: the page signs in again.
        Err(PrivError::ReauthRequired) => Err(Problem(ProtectedRefusal::Locked)),
        Err(e) => Err(refusal(&handles, &grant.binding, e).await),
    }
}

async fn lock(req: HttpRequest, handles: web::Data<Handles>) -> Result<HttpResponse, Refused> {
    let grant = grant_of(&req)?;
    handles.privileged.send(EndSession { family: SessionKind::Browser, id: grant.binding }).await?;
    Ok(status_body(None))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CommandBody {
    command: String,
    #[serde(default)]
    payload: Option<Value>,
    #[serde(default)]
    expected_revision: Option<i64>,
}

async fn command(
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<CommandBody>,
) -> Result<HttpResponse, Refused> {
    let grant = grant_of(&req)?;
    let b = body.into_inner();
    let command = NamedCommand::new(b.command, b.payload.unwrap_or_else(|| json!({})), b.expected_revision);
    let msg = RunCommand { origin: Session { family: SessionKind::Browser, id: grant.binding.clone(), command } };
    match handles.privileged.send(msg).await? {
        Ok(result) => Ok(HttpResponse::Ok().json(json!({ "result": result }))),
        Err(e) => Err(refusal(&handles, &grant.binding, e).await),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ChunkParams {
    upload_id: String,
    batch_id: String,
    index: f64,
    byte_size: u64,
    checksum: String,
}

/// One chunk of the session's upload: the session authorizes the feed (audited as
/// `wiki.upload.feed`), then the wiki actor checks the bytes against the claim and the upload
/// (bound to the session's account) before storing them.
async fn chunk(
    req: HttpRequest,
    handles: web::Data<Handles>,
    params: web::Query<ChunkParams>,
    RawBody(body): RawBody,
) -> Result<HttpResponse, actix_web::Error> {
    let grant = grant_of(&req)?;
    let p = params.into_inner();
    let caller = Caller::Session { family: SessionKind::Browser, id: grant.binding.clone() };
    let authorize = Authorize::wiki_feed(caller, p.upload_id.clone());
    let account_id = match handles.privileged.send(authorize).await.map_err(Refused::from)? {
        Ok(id) => id,
        Err(e) => return Err(refusal(&handles, &grant.binding, e).await.into()),
    };
    let wiki = handles.wiki.as_ref().ok_or(Problem(WikiError::Unavailable))?;
    let chunk = IncomingChunk {
        upload_id: p.upload_id,
        batch_id: p.batch_id,
        index: p.index,
        byte_size: p.byte_size,
        checksum: p.checksum,
        bytes: body.to_vec(),
    };
    let sender = Sender { account_id, device_id: String::new() };
    let progress = wiki.send(StoreChunk { sender, chunk }).await.map_err(|e| Problem(WikiError::from(e)))?;
    Ok(HttpResponse::Ok().json(progress.map_err(Problem)?))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/status", &[(Verb::Get, |r| r.to(status))]),
    Endpoint::new("/sign-in", &[(Verb::Post, |r| r.to(sign_in))]).with(|r| r.app_data(json_config(MAX_REAUTH_BODY))),
    Endpoint::new("/confirm", &[(Verb::Post, |r| r.to(confirm))]).with(|r| r.app_data(json_config(MAX_REAUTH_BODY))),
    Endpoint::new("/lock", &[(Verb::Post, |r| r.to(lock))]),
    Endpoint::new("/command", &[(Verb::Post, |r| r.to(command))]),
    Endpoint::new("/wiki/chunks", &[(Verb::Post, |r| r.to(chunk))])
        .with(|r| r.app_data(web::PayloadConfig::new(domain::wiki::limits::UPLOAD_CHUNK_BYTES as usize))),
]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_approval_is_told_from_a_locked_session_and_nothing_is_echoed() {
        let needs = ProtectedRefusal::of(PrivError::ReauthRequired, true);
        assert_eq!((needs.code(), needs.status()), ("password_required", 403));
        assert_eq!(ProtectedRefusal::of(PrivError::ReauthRequired, false).code(), "locked");
        assert_eq!(ProtectedRefusal::of(PrivError::RoleChanged, true).code(), "locked");
        let rejected = ProtectedRefusal::of(PrivError::InvalidCredentials, false);
        assert_eq!((rejected.code(), rejected.status()), ("rejected", 401));
        let limited = ProtectedRefusal::of(PrivError::RateLimited { retry_after_secs: 30 }, false);
        assert_eq!((limited.status(), limited.retry_after_secs()), (429, Some(30)));
        assert_eq!(ProtectedRefusal::of(PrivError::NotOnTheWeb, true).code(), "not_on_the_web");
        assert_eq!(
            ProtectedRefusal::of(PrivError::Internal, true).message(),
            "Protected sign-in is not available right now; retry in a moment."
        );
    }
}
