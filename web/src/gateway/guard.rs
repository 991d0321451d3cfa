//! Host and Origin validation for every gateway request. A `Host` that is not this machine's
//! name or one of its loopback/private addresses on the gateway port gets 421; a foreign or
//! missing `Origin` on a state-changing request (or a foreign one on any request, or a
//! cross-site `Sec-Fetch-Site`) gets 403. Refusals are `Refused` values answered through
//! `error::Problem`, and are logged with the offending value's shape only (never full URLs).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HOST, ORIGIN};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{web, ResponseError};

use domain::problem::HttpProblem;
use domain::web_origin::AllowedHosts;

use crate::error::Problem;

/// Why the gateway refused a request before routing it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("This host name is not served here.")]
    ForeignHost,
    #[error("Cross-origin requests are not allowed.")]
    CrossOrigin,
    #[error("State-changing requests must carry an Origin.")]
    MissingOrigin,
    #[error("Cross-site requests are not allowed.")]
    CrossSite,
    #[error("gateway misconfigured")]
    Misconfigured,
}

impl HttpProblem for Refused {
    fn status(&self) -> u16 {
        match self {
            Refused::ForeignHost => 421,
            Refused::CrossOrigin | Refused::MissingOrigin | Refused::CrossSite => 403,
            Refused::Misconfigured => 500,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Refused::ForeignHost => "foreign_host",
            Refused::CrossOrigin => "cross_origin",
            Refused::MissingOrigin => "missing_origin",
            Refused::CrossSite => "cross_site",
            Refused::Misconfigured => "internal",
        }
    }
}

pub fn is_state_changing(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD)
}

fn check(allowed: &AllowedHosts, req: &ServiceRequest) -> Result<(), Refused> {
    let headers = req.headers();
    let host = headers.get(HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if allowed.check_host(host).is_err() {
        crate::refusal_log::refused(
            crate::refusal_log::Refusal::ForeignHost,
            req.peer_addr().map(|a| a.ip()),
            |suppressed| {
                tracing::warn!(host_len = host.len(), suppressed, "relay web: refused a request for a foreign Host");
            },
        );
        return Err(Refused::ForeignHost);
    }
    match headers.get(ORIGIN).map(|o| o.to_str().unwrap_or("")) {
        Some(origin) if allowed.check_origin(origin).is_err() => {
            crate::refusal_log::refused(
                crate::refusal_log::Refusal::CrossOrigin,
                req.peer_addr().map(|a| a.ip()),
                |suppressed| {
                    let origin = domain::redact::describe_url_for_log(origin);
                    tracing::warn!(origin = %origin, suppressed, "relay web: refused a cross-origin request");
                },
            );
            return Err(Refused::CrossOrigin);
        }
        None if is_state_changing(req.method()) => {
            return Err(Refused::MissingOrigin);
        }
        _ => {}
    }
    if headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) == Some("cross-site") {
        return Err(Refused::CrossSite);
    }
    Ok(())
}

pub async fn host_and_origin(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let allowed = req.app_data::<web::Data<AllowedHosts>>().cloned().ok_or(Problem(Refused::Misconfigured))?;
    match check(&allowed, &req) {
        // Answered as a normal response (not an error) so the security headers still apply.
        Err(refused) => Ok(req.into_response(Problem(refused).error_response()).map_into_right_body()),
        Ok(()) => next.call(req).await.map(ServiceResponse::map_into_left_body),
    }
}
