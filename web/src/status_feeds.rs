//! Service status routes (data API and Relay Web gateway): `GET /api/relay/status` answers what
//! the Status tab shows, `POST /api/relay/status/refresh` asks the status-feeds actor for a poll
//! now (limited server-wide; `429` with `Retry-After` when too soon). Both need a signed-in
//! client (on the gateway, a live web session; the refresh a CSRF token as every gateway
//! write). Handlers only translate: no URL, provider or option is read from the request.

use actix_web::{web, HttpResponse};

use actors::status_feeds::{GetStatus, RequestRefresh, StatusFeedsError};
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::Problem;
use crate::route_table::{Endpoint, RouteTable, Verb};

type StatusResult = Result<HttpResponse, Problem<StatusFeedsError>>;

fn unavailable(_: actix::MailboxError) -> Problem<StatusFeedsError> {
    Problem(StatusFeedsError::Unavailable)
}

async fn status(_: Authenticated, handles: web::Data<Handles>) -> StatusResult {
    let view = handles.status_feeds.send(GetStatus).await.map_err(unavailable)?;
    Ok(HttpResponse::Ok().json(view))
}

async fn refresh(_: Authenticated, handles: web::Data<Handles>) -> StatusResult {
    let outcome = handles.status_feeds.send(RequestRefresh).await.map_err(unavailable)??;
    Ok(HttpResponse::Accepted().json(outcome))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/status", &[(Verb::Get, |r| r.to(status))]),
    Endpoint::new("/relay/status/refresh", &[(Verb::Post, |r| r.to(refresh))]),
]);
