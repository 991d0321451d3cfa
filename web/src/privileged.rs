//! Privileged routes for paired devices. All of them require the ordinary app-user token first
//! (`Authenticated`), then the privileged actor applies its own checks:
//! `POST /api/relay/privileged/pair` redeems a pairing code for a device public key,
//! `POST /api/relay/privileged/reauth` (4 KiB body limit, its own rate limit) issues a fresh-
//! password proof, and `POST /api/relay/privileged/execute` runs one signed envelope.

use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use serde::Deserialize;

use actors::privileged::{CompletePairing, ExecuteSigned, PrivError, Reauth, MAX_REAUTH_BODY};
use actors::Handles;
use domain::envelope::{PublicJwk, MAX_ENVELOPE_BYTES};
use domain::record::RecordError;

use crate::auth::Authenticated;
use crate::error::{json_config, ApiError};

fn render(result: Result<serde_json::Value, PrivError>) -> HttpResponse {
    match result {
        Ok(body) => HttpResponse::Ok().json(body),
        Err(e) => {
            let mut res =
                HttpResponse::build(StatusCode::from_u16(e.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR));
            if let PrivError::RateLimited { retry_after_secs } = e {
                res.insert_header(("Retry-After", retry_after_secs.max(1).to_string()));
            }
            res.json(e.body())
        }
    }
}

fn unavailable(_: actix::MailboxError) -> ApiError {
    ApiError(RecordError::Unavailable)
}

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
) -> Result<HttpResponse, ApiError> {
    let b = body.into_inner();
    let msg = CompletePairing {
        username: b.username,
        code: b.code,
        public_jwk: b.public_jwk,
        label: b.label,
        hostname: b.hostname,
        source: crate::source_ip(&req),
    };
    let result = handles.privileged.send(msg).await.map_err(unavailable)?;
    Ok(render(result.map(|d| serde_json::to_value(d).unwrap_or_default())))
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
) -> Result<HttpResponse, ApiError> {
    let b = body.into_inner();
    let msg = Reauth {
        account_id: b.account_id,
        device_id: b.device_id,
        password: b.password,
        source: crate::source_ip(&req),
    };
    let result = handles.privileged.send(msg).await.map_err(unavailable)?;
    Ok(render(result.map(|(proof, expires_ms)| serde_json::json!({ "proof": proof, "expiresMs": expires_ms }))))
}

async fn execute(_: Authenticated, handles: web::Data<Handles>, body: web::Bytes) -> Result<HttpResponse, ApiError> {
    let result = handles.privileged.send(ExecuteSigned { body }).await.map_err(unavailable)?;
    Ok(render(result.map(|o| serde_json::to_value(o).unwrap_or_default())))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/relay/privileged/pair", web::post().to(pair))
        .service(
            web::resource("/relay/privileged/reauth")
                .app_data(json_config(MAX_REAUTH_BODY))
                .route(web::post().to(reauth)),
        )
        .service(
            web::resource("/relay/privileged/execute")
                .app_data(web::PayloadConfig::new(MAX_ENVELOPE_BYTES))
                .route(web::post().to(execute)),
        );
}
