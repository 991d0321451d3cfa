//! Privileged routes for paired devices. All of them require the ordinary app-user token first
//! (`Authenticated`), then the privileged actor applies its own checks:
//! `POST /api/relay/privileged/pair` redeems a pairing code for a device public key,
//! `POST /api/relay/privileged/reauth` (4 KiB body limit, its own rate limit) issues a fresh-
//! password proof, and `POST /api/relay/privileged/execute` runs one signed envelope (16 KiB,
//! read as `RawBody`). Refusals are `PrivError`s answered through `error::Problem`.

use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use actors::privileged::{CompletePairing, Reauth, RunCommand, Signed, MAX_REAUTH_BODY};
use actors::Handles;
use domain::envelope::{PublicJwk, MAX_ENVELOPE_BYTES};

use crate::auth::Authenticated;
use crate::error::{json_config, ApiError, Problem, RawBody};
use crate::route_table::{Endpoint, RouteTable, Verb};

/// A handler's error: the actor unreachable (`ApiError`, 503) or its refusal (`Problem<PrivError>`).
type PrivResult = Result<HttpResponse, actix_web::Error>;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PairBody {
    username: String,
    code: String,
    public_jwk: PublicJwk,
    #[serde(default)]
    label: String,
    #[serde(default)]
    hostname: String,
}

async fn pair(
    _: Authenticated,
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<PairBody>,
) -> PrivResult {
    let b = body.into_inner();
    let msg = CompletePairing {
        username: b.username,
        code: b.code,
        public_jwk: b.public_jwk,
        label: b.label,
        hostname: b.hostname,
        source: crate::source_ip(&req),
    };
    let device = handles.privileged.send(msg).await.map_err(ApiError::from)?.map_err(Problem)?;
    Ok(HttpResponse::Ok().json(serde_json::to_value(device).unwrap_or_default()))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ReauthBody {
    account_id: String,
    device_id: String,
    password: String,
}

async fn reauth(
    _: Authenticated,
    req: HttpRequest,
    handles: web::Data<Handles>,
    body: web::Json<ReauthBody>,
) -> PrivResult {
    let b = body.into_inner();
    let msg = Reauth {
        account_id: b.account_id,
        device_id: b.device_id,
        password: b.password,
        source: crate::source_ip(&req),
    };
    let (proof, expires_ms) = handles.privileged.send(msg).await.map_err(ApiError::from)?.map_err(Problem)?;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "proof": proof, "expiresMs": expires_ms })))
}

async fn execute(_: Authenticated, handles: web::Data<Handles>, RawBody(body): RawBody) -> PrivResult {
    let outcome = handles
        .privileged
        .send(RunCommand { origin: Signed { body } })
        .await
        .map_err(ApiError::from)?
        .map_err(Problem)?;
    Ok(HttpResponse::Ok().json(serde_json::to_value(outcome).unwrap_or_default()))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/privileged/pair", &[(Verb::Post, |r| r.to(pair))]),
    Endpoint::new("/relay/privileged/reauth", &[(Verb::Post, |r| r.to(reauth))])
        .with(|r| r.app_data(json_config(MAX_REAUTH_BODY))),
    Endpoint::new("/relay/privileged/execute", &[(Verb::Post, |r| r.to(execute))])
        .with(|r| r.app_data(web::PayloadConfig::new(MAX_ENVELOPE_BYTES))),
]);
