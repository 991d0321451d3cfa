//! Branding and image routes; handlers only translate. `GET /api/relay/branding/logo/{kind}`
//! (`company` or `footer`, any signed-in client) answers the stored PNG as `image/png` with
//! `X-Content-Type-Options: nosniff`, 204 when none is set, 404 for another kind. `POST /api/relay/images/alert-body` (signed-in
//! client, raw body of at most 5 MiB) answers `{"dataUrl": "data:image/png;base64,…"}` (or
//! `image/jpeg`). Setting and removing logos is not on HTTP: it is the server-local
//! `relay branding` control operation. Refusals are `BrandingError`s answered through
//! `error::Problem`. Mounted on the data API and on the Relay Web gateway alike.

use actix_web::{web, HttpResponse};

use actors::branding::{BrandingError, GetLogo, PrepareBodyImage};
use actors::Handles;
use domain::images::{LogoKind, MAX_BODY_INPUT_BYTES};

use crate::auth::Authenticated;
use crate::error::{Problem, RawBody};
use crate::route_table::{Endpoint, RouteTable, Verb};

type BrandingResult = Result<HttpResponse, Problem<BrandingError>>;

fn branding(handles: &Handles) -> Result<&actix::Addr<actors::branding::BrandingActor>, BrandingError> {
    handles.branding.as_ref().ok_or(BrandingError::Unavailable)
}

async fn logo(_: Authenticated, handles: web::Data<Handles>, kind: web::Path<String>) -> BrandingResult {
    let kind = LogoKind::parse(&kind).ok_or(BrandingError::NotFound)?;
    let png = branding(&handles)?.send(GetLogo { kind }).await.map_err(BrandingError::from)??;
    // No logo set is an answer, not an error: 204 (a browser logs every 404 as a console error).
    let Some(png) = png else { return Ok(HttpResponse::NoContent().finish()) };
    Ok(HttpResponse::Ok().content_type("image/png").insert_header(("X-Content-Type-Options", "nosniff")).body(png))
}

async fn alert_body(_: Authenticated, handles: web::Data<Handles>, RawBody(body): RawBody) -> BrandingResult {
    let msg = PrepareBodyImage { bytes: body.to_vec() };
    let image = branding(&handles)?.send(msg).await.map_err(BrandingError::from)??;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "dataUrl": image.data_url() })))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/branding/logo/{kind}", &[(Verb::Get, |r| r.to(logo))]),
    Endpoint::new("/relay/images/alert-body", &[(Verb::Post, |r| r.to(alert_body))])
        .with(|r| r.app_data(web::PayloadConfig::new(MAX_BODY_INPUT_BYTES))),
]);
