//! Host and Origin validation for every gateway request. A `Host` that is not this machine's
//! name or one of its loopback/private addresses on the gateway port gets 421; a foreign or
//! missing `Origin` on a state-changing request (or a foreign one on any request, or a
//! cross-site `Sec-Fetch-Site`) gets 403. Refusals are logged with the offending value's
//! shape only (never full URLs).

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HOST, ORIGIN};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::{web, HttpResponse, ResponseError};

use domain::web_origin::AllowedHosts;

#[derive(Debug)]
pub struct Refused {
    status: StatusCode,
    message: &'static str,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message)
    }
}

impl ResponseError for Refused {
    fn status_code(&self) -> StatusCode {
        self.status
    }
    fn error_response(&self) -> HttpResponse {
        HttpResponse::build(self.status)
            .json(serde_json::json!({ "status": self.status.as_u16(), "message": self.message, "data": {} }))
    }
}

pub fn is_state_changing(method: &Method) -> bool {
    !matches!(*method, Method::GET | Method::HEAD)
}

fn check(allowed: &AllowedHosts, req: &ServiceRequest) -> Result<(), Refused> {
    let headers = req.headers();
    let host = headers.get(HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if allowed.check_host(host).is_err() {
        tracing::warn!(host_len = host.len(), "relay web: refused a request for a foreign Host");
        return Err(Refused { status: StatusCode::MISDIRECTED_REQUEST, message: "This host name is not served here." });
    }
    match headers.get(ORIGIN).map(|o| o.to_str().unwrap_or("")) {
        Some(origin) if allowed.check_origin(origin).is_err() => {
            tracing::warn!(origin = %domain::redact::describe_url_for_log(origin), "relay web: refused a cross-origin request");
            return Err(Refused { status: StatusCode::FORBIDDEN, message: "Cross-origin requests are not allowed." });
        }
        None if is_state_changing(req.method()) => {
            return Err(Refused {
                status: StatusCode::FORBIDDEN,
                message: "State-changing requests must carry an Origin.",
            });
        }
        _ => {}
    }
    if headers.get("sec-fetch-site").and_then(|v| v.to_str().ok()) == Some("cross-site") {
        return Err(Refused { status: StatusCode::FORBIDDEN, message: "Cross-site requests are not allowed." });
    }
    Ok(())
}

pub async fn host_and_origin(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let allowed = req
        .app_data::<web::Data<AllowedHosts>>()
        .cloned()
        .ok_or(Refused { status: StatusCode::INTERNAL_SERVER_ERROR, message: "gateway misconfigured" })?;
    match check(&allowed, &req) {
        // Answered as a normal response (not an error) so the security headers still apply.
        Err(refused) => Ok(req.into_response(refused.error_response()).map_into_right_body()),
        Ok(()) => next.call(req).await.map(ServiceResponse::map_into_left_body),
    }
}
