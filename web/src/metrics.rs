//! Prometheus metrics over HTTP. The middleware (`record_data_api` on the data API,
//! `record_gateway` on Relay Web) reports every answered request to the metrics actor with
//! `do_send`: method, actix's matched route *pattern* (`match_pattern()`, never the raw path with
//! its ids), status and time to the response head; it holds no state and shares no lock between
//! workers. `GET /api/relay/metrics` (data API only; the gateway does not mount it) answers
//! loopback clients only: the TCP peer and the `Host` must both be loopback
//! (`domain::web_origin::is_loopback_request`), otherwise 403. Why loopback rather than a
//! token: `docs/security.md`.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::HOST;
use actix_web::middleware::Next;
use actix_web::{web, HttpRequest, HttpResponse};

use actors::metrics::{RecordRequest, RenderMetrics, Surface, CONTENT_TYPE};
use actors::Handles;
use domain::record::RecordError;
use domain::web_origin::is_loopback_request;

use crate::error::{ApiError, ApiResult};
use crate::route_table::{Endpoint, RouteTable, Verb};

/// The data API's request counter (wrapped around the whole app in `build_server`).
pub async fn record_data_api(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    record(Surface::DataApi, req, next).await
}

/// Relay Web's request counter (wrapped around the gateway app).
pub async fn record_gateway(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    record(Surface::Gateway, req, next).await
}

async fn record<B: MessageBody>(
    surface: Surface,
    req: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<B>, actix_web::Error> {
    let metrics = req.app_data::<web::Data<Handles>>().map(|h| h.metrics.clone());
    let method = req.method().as_str().to_owned();
    let started = Instant::now();
    let result = next.call(req).await;
    if let Some(metrics) = metrics {
        let (status, route) = match &result {
            Ok(res) => (res.status().as_u16(), res.request().match_pattern()),
            // An inner middleware refused (e.g. no web session); the request is gone with it.
            Err(e) => (e.as_response_error().status_code().as_u16(), None),
        };
        metrics.do_send(RecordRequest { surface, method, route, status, latency: started.elapsed() });
    }
    result
}

async fn metrics(req: HttpRequest, handles: web::Data<Handles>) -> ApiResult<HttpResponse> {
    // The raw Host header: never `connection_info()`, which believes Forwarded headers.
    let host = req.headers().get(HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !is_loopback_request(req.peer_addr().map(|a| a.ip()), host) {
        crate::refusal_log::refused(
            crate::refusal_log::Refusal::MetricsNotLoopback,
            req.peer_addr().map(|a| a.ip()),
            |suppressed| {
                tracing::info!(suppressed, "metrics request refused: not a loopback request");
            },
        );
        return Err(ApiError::from(RecordError::Forbidden));
    }
    let text = handles.metrics.send(RenderMetrics).await?.map_err(|e| {
        tracing::warn!(code = e.code(), "metrics render failed");
        ApiError::from(RecordError::Unavailable)
    })?;
    Ok(HttpResponse::Ok().content_type(CONTENT_TYPE).body(text))
}

pub(crate) const ROUTES: RouteTable =
    RouteTable::new(&[Endpoint::new("/relay/metrics", &[(Verb::Get, |r| r.to(metrics))])]);
