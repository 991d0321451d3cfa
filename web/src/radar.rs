//! Dispatcher Radar routes (data API and Relay Web gateway): `GET /api/relay/radar` answers the
//! validated snapshot; `POST /api/relay/radar/refresh` reads the page now, limited per logical
//! session (the caller's app token, hashed; on the gateway also behind the web session and
//! CSRF). No URL, cookie or target is read from the request.

use actix_web::{web, HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

use actors::radar::{GetRadar, RadarError, RefreshRadar};
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::Problem;

type RadarResult = Result<HttpResponse, Problem<RadarError>>;

fn unavailable(_: actix::MailboxError) -> Problem<RadarError> {
    Problem(RadarError::Unavailable)
}

/// The logical session a refresh counts against: a digest of the bearer token (never stored).
fn session_key(req: &HttpRequest) -> String {
    let token = crate::auth::bearer(req).unwrap_or_default();
    Sha256::digest(token.as_bytes()).iter().take(16).map(|b| format!("{b:02x}")).collect()
}

async fn snapshot(_: Authenticated, handles: web::Data<Handles>) -> RadarResult {
    Ok(HttpResponse::Ok().json(handles.radar.send(GetRadar).await.map_err(unavailable)?))
}

async fn refresh(_: Authenticated, req: HttpRequest, handles: web::Data<Handles>) -> RadarResult {
    let snap = handles.radar.send(RefreshRadar { session_key: session_key(&req) }).await.map_err(unavailable)??;
    Ok(HttpResponse::Ok().json(snap))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/relay/radar", web::get().to(snapshot)).route("/relay/radar/refresh", web::post().to(refresh));
}
