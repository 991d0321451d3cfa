//! App-user authentication routes and the `Authenticated` extractor. Sign-in
//! (`auth-with-password`) and refresh go to the auth actor; every protected handler takes an
//! `Authenticated` argument, which reads the `Authorization` header (PocketBase style, or
//! `Bearer`) and asks the auth actor to verify it before the handler body runs. On the Relay Web
//! gateway the request carries its web session's grant (put there by the session check), and
//! only a token bound to that session verifies; on the data API no grant is present, so tokens
//! bound to any web session are refused there (and by `auth-refresh`, which only the data API
//! mounts). A verified request knows its logical session (`Authenticated::session`: the Relay
//! Web session, or the password sign-in its token descends from), which stays the same across
//! every token minted for it.

use std::future::Future;
use std::pin::Pin;

use actix_web::http::header::AUTHORIZATION;
use actix_web::{web, FromRequest, HttpMessage, HttpRequest, HttpResponse};
use serde::Deserialize;

use actors::auth::{Login, RefreshToken, VerifyToken};
use actors::web_sessions::WebGrant;
use actors::Handles;
use domain::record::RecordError;
use infra::token::LogicalSession;

use crate::error::{ApiError, ApiResult, Problem};
use crate::route_table::{Endpoint, RouteTable, Verb};

/// Proof that the request carried a valid app-user token, and the logical session it belongs to.
#[derive(Debug, Clone)]
pub struct Authenticated {
    pub session: LogicalSession,
}

/// The request's app token (`Authorization: Bearer <t>` or the bare token), if any.
pub(crate) fn bearer(req: &HttpRequest) -> Option<String> {
    let raw = req.headers().get(AUTHORIZATION)?.to_str().ok()?.trim();
    let token = raw.strip_prefix("Bearer ").unwrap_or(raw).trim();
    (!token.is_empty()).then(|| token.to_string())
}

impl FromRequest for Authenticated {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, Self::Error>>>>;

    fn from_request(req: &HttpRequest, _: &mut actix_web::dev::Payload) -> Self::Future {
        let token = bearer(req);
        let handles = req.app_data::<web::Data<Handles>>().cloned();
        let web_session = req.extensions().get::<WebGrant>().map(|grant| grant.binding.clone());
        Box::pin(async move {
            let (Some(token), Some(handles)) = (token, handles) else {
                return Err(Problem(RecordError::Unauthorized));
            };
            let session = handles.auth.send(VerifyToken { token, web_session }).await??;
            Ok(Authenticated { session })
        })
    }
}

#[derive(Deserialize)]
struct PasswordLogin {
    identity: String,
    password: String,
}

async fn auth_with_password(
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<PasswordLogin>,
) -> ApiResult<HttpResponse> {
    let source = crate::source_ip(&req);
    let body = body.into_inner();
    let reply = handles.auth.send(Login { identity: body.identity, password: body.password, source }).await??;
    Ok(HttpResponse::Ok().json(reply))
}

async fn auth_refresh(req: HttpRequest, handles: web::Data<Handles>) -> ApiResult<HttpResponse> {
    let token = bearer(&req).ok_or(Problem(RecordError::Unauthorized))?;
    let reply = handles.auth.send(RefreshToken { token }).await??;
    Ok(HttpResponse::Ok().json(reply))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/collections/users/auth-with-password", &[(Verb::Post, |r| r.to(auth_with_password))]),
    Endpoint::new("/collections/users/auth-refresh", &[(Verb::Post, |r| r.to(auth_refresh))]),
]);
