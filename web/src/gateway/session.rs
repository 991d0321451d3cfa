//! Web sign-in, session resume (after a reload), refresh and logout, the renderer's app-user connection and browser log
//! ingestion; plus `require_web_session`, which puts every gateway `/api` route behind a live
//! web session (CSRF on writes) and the per-session and global rate limits. Refusals are
//! `WebError`s answered through `error::Problem`.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::cookie::{time::Duration as CookieDuration, Cookie, SameSite};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse, ResponseError};
use serde::Deserialize;

use actors::web_sessions::{
    Authorize, IssueConnection, Issued, Logout, Refresh, RequestKind, Resume, WebError, WebSignIn,
};
use actors::Handles;
use domain::redact::escape_line_breaks;

use super::guard::is_state_changing;
use crate::error::Problem;
use crate::route_table::{Endpoint, RouteTable, Verb};

pub const SESSION_COOKIE: &str = "relay_web";
pub const CSRF_HEADER: &str = "x-relay-csrf";
pub const MAX_LOG_MESSAGE: usize = 5000;
pub const MAX_LOG_BODY: usize = 16 * 1024;

/// A gateway route's refusal; the actor being unreachable is a 503 of the same family.
type WebRefusal = Problem<WebError>;

fn cookie_of(req: &HttpRequest) -> Option<String> {
    req.cookie(SESSION_COOKIE).map(|c| c.value().to_string())
}

fn csrf_of(req: &HttpRequest) -> Option<String> {
    req.headers().get(CSRF_HEADER).and_then(|v| v.to_str().ok()).map(String::from)
}

fn session_cookie(value: String, max_age_secs: i64) -> Cookie<'static> {
    Cookie::build(SESSION_COOKIE, value)
        .path("/")
        .http_only(true)
        .same_site(SameSite::Strict)
        .max_age(CookieDuration::seconds(max_age_secs.max(0)))
        .finish()
}

fn issued_response(issued: Issued, now_ms: i64) -> HttpResponse {
    // Whole seconds left until the absolute limit, rounded up (a fresh session shows 8 h).
    let max_age = (issued.absolute_expiry_ms - now_ms + 999).div_euclid(1000);
    HttpResponse::Ok()
        .cookie(session_cookie(issued.cookie, max_age))
        .json(serde_json::json!({ "csrfToken": issued.csrf, "expiresAt": domain::time::format_ms(issued.absolute_expiry_ms) }))
}

fn now_ms() -> i64 {
    use infra::clock::Clock;
    infra::clock::SystemClock.now_ms()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SignInBody {
    passphrase: String,
}

async fn sign_in(
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<SignInBody>,
) -> Result<HttpResponse, WebRefusal> {
    let source = crate::source_ip(&req);
    let msg = WebSignIn { passphrase: body.into_inner().passphrase, source, replaces: cookie_of(&req) };
    let issued = handles.web_sessions.send(msg).await??;
    Ok(issued_response(issued, now_ms()))
}

async fn refresh(req: HttpRequest, handles: web::Data<Handles>) -> Result<HttpResponse, WebRefusal> {
    let msg = Refresh { cookie: cookie_of(&req), csrf: csrf_of(&req) };
    let issued = handles.web_sessions.send(msg).await??;
    Ok(issued_response(issued, now_ms()))
}

/// After a page reload: the cookie alone gives the page its session's CSRF token back. A POST, so
/// the guard insists on this origin; no CORS, so no other site can read the answer. Without a
/// live session the answer is 204 (nothing to resume: the page asks for the passphrase), so
/// every first visit does not log a failed request in the browser console.
async fn resume(req: HttpRequest, handles: web::Data<Handles>) -> Result<HttpResponse, WebRefusal> {
    match handles.web_sessions.send(Resume { cookie: cookie_of(&req) }).await? {
        Ok(issued) => Ok(issued_response(issued, now_ms())),
        Err(WebError::NoSession) => Ok(HttpResponse::NoContent().finish()),
        Err(refusal) => Err(refusal.into()),
    }
}

async fn logout(req: HttpRequest, handles: web::Data<Handles>) -> Result<HttpResponse, WebRefusal> {
    handles.web_sessions.send(Logout { cookie: cookie_of(&req), csrf: csrf_of(&req) }).await??;
    Ok(HttpResponse::NoContent().cookie(session_cookie(String::new(), 0)).finish())
}

async fn connection(req: HttpRequest, handles: web::Data<Handles>) -> Result<HttpResponse, WebRefusal> {
    let msg = IssueConnection { cookie: cookie_of(&req), csrf: csrf_of(&req) };
    let body = handles.web_sessions.send(msg).await??;
    Ok(HttpResponse::Ok().json(body))
}

#[derive(Deserialize)]
struct LogBody {
    level: String,
    #[serde(default)]
    module: String,
    message: String,
}

/// Browser log ingestion: authenticated, CSRF-checked, rate-limited, bounded, with a provenance
/// prefix and line breaks escaped so one browser event is one log record.
async fn logs(
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<LogBody>,
) -> Result<HttpResponse, WebRefusal> {
    let msg = Authorize { cookie: cookie_of(&req), csrf: csrf_of(&req), kind: RequestKind::Log };
    handles.web_sessions.send(msg).await??;
    let body = body.into_inner();
    let module: String =
        body.module.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-')).take(50).collect();
    let text: String = body.message.chars().take(MAX_LOG_MESSAGE).collect();
    let line = escape_line_breaks(&text);
    match body.level.to_ascii_lowercase().as_str() {
        "error" | "fatal" => tracing::error!(target: "relay::browser", module = %module, "browser: {line}"),
        "warn" | "warning" => tracing::warn!(target: "relay::browser", module = %module, "browser: {line}"),
        "debug" => tracing::debug!(target: "relay::browser", module = %module, "browser: {line}"),
        _ => tracing::info!(target: "relay::browser", module = %module, "browser: {line}"),
    }
    Ok(HttpResponse::NoContent().finish())
}

/// Lets the shared renderer detect that it is served by Relay Web (absent on the data API).
async fn mode() -> HttpResponse {
    HttpResponse::Ok().json(serde_json::json!({ "mode": "relay-web", "cleartextHttp": true }))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/mode", &[(Verb::Get, |r| r.to(mode))]),
    Endpoint::new("/session", &[(Verb::Post, |r| r.to(sign_in))]),
    Endpoint::new("/session/refresh", &[(Verb::Post, |r| r.to(refresh))]),
    Endpoint::new("/session/resume", &[(Verb::Post, |r| r.to(resume))]),
    Endpoint::new("/session/logout", &[(Verb::Post, |r| r.to(logout))]),
    Endpoint::new("/connection", &[(Verb::Post, |r| r.to(connection))]),
    Endpoint::new("/logs", &[(Verb::Post, |r| r.to(logs))])
        .with(|r| r.app_data(crate::error::json_config(MAX_LOG_BODY))),
]);

/// Every gateway `/api` route (except the public liveness probe) needs a live web session;
/// state-changing ones also need the session's CSRF token. The session's grant goes into the
/// request's extensions: `auth::Authenticated` then accepts only app tokens bound to this
/// session, and a realtime stream ends when the session does.
pub async fn require_web_session(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    if req.path() != "/api/health" {
        let Some(handles) = req.app_data::<web::Data<Handles>>().cloned() else {
            return Ok(refuse(req, WebRefusal::from(actix::MailboxError::Closed)));
        };
        let kind = if is_state_changing(req.method()) { RequestKind::Write } else { RequestKind::Read };
        let msg = Authorize { cookie: cookie_of(req.request()), csrf: csrf_of(req.request()), kind };
        match handles.web_sessions.send(msg).await {
            Err(closed) => return Ok(refuse(req, WebRefusal::from(closed))),
            Ok(Err(refusal)) => return Ok(refuse(req, Problem(refusal))),
            Ok(Ok(grant)) => {
                req.extensions_mut().insert(grant);
            }
        }
    }
    Ok(next.call(req).await?.map_into_left_body())
}

/// A refusal answered as a response (not an error), so the outer middleware still adds the
/// security headers and `Cache-Control` to it like to every other gateway answer.
fn refuse<B>(req: ServiceRequest, refusal: WebRefusal) -> ServiceResponse<EitherBody<B>> {
    req.into_response(refusal.error_response()).map_into_right_body()
}
