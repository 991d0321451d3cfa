//! Dispatcher Radar routes (data API and Relay Web gateway): `GET /api/relay/radar` answers the
//! validated snapshot; `POST /api/relay/radar/refresh` reads the page now, limited per logical
//! session (`Authenticated::session`: the Relay Web session on the gateway, the password
//! sign-in on the data API, so a freshly minted token does not buy a new budget; on the
//! gateway also behind the web session and CSRF). No URL, cookie or target is read from the
//! request.

use actix_web::{web, HttpResponse};

use actors::radar::{GetRadar, RadarError, RefreshRadar};
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::Problem;
use crate::route_table::{Endpoint, RouteTable, Verb};

type RadarResult = Result<HttpResponse, Problem<RadarError>>;

fn unavailable(_: actix::MailboxError) -> Problem<RadarError> {
    Problem(RadarError::Unavailable)
}

async fn snapshot(_: Authenticated, handles: web::Data<Handles>) -> RadarResult {
    Ok(HttpResponse::Ok().json(handles.radar.send(GetRadar).await.map_err(unavailable)?))
}

async fn refresh(caller: Authenticated, handles: web::Data<Handles>) -> RadarResult {
    let snap = handles.radar.send(RefreshRadar { session: caller.session }).await.map_err(unavailable)??;
    Ok(HttpResponse::Ok().json(snap))
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/radar", &[(Verb::Get, |r| r.to(snapshot))]),
    Endpoint::new("/relay/radar/refresh", &[(Verb::Post, |r| r.to(refresh))]),
]);
