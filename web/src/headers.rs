//! Security headers on every response: a strict Content-Security-Policy for the same-origin UI,
//! no framing, no MIME sniffing, a strict referrer policy, disabled powerful features, and
//! `no-store` caching for API responses. `Cross-Origin-Opener-Policy` goes only to pages opened
//! by a host the browser deems trustworthy (`localhost`, loopback addresses): on a plain-HTTP LAN
//! name browsers ignore it and log a console error on every page load ([`opener_policy`]). The data API answers cross-origin requests from the
//! desktop shell's own webview origins only (`tauri://localhost`, `http://tauri.localhost`);
//! every other origin gets no CORS headers. The Relay Web gateway sends none at all.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::{DefaultHeaders, Next};

pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self' data: blob:; media-src 'self' blob:; font-src 'self'; connect-src 'self'; object-src 'none'; \
base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

pub fn security_headers() -> DefaultHeaders {
    DefaultHeaders::new()
        .add(("Content-Security-Policy", CONTENT_SECURITY_POLICY))
        .add(("X-Content-Type-Options", "nosniff"))
        .add(("X-Frame-Options", "DENY"))
        .add(("Referrer-Policy", "strict-origin-when-cross-origin"))
        .add(("Permissions-Policy", "geolocation=(), camera=(), microphone=(), payment=(), usb=()"))
        .add(("Cross-Origin-Resource-Policy", "same-origin"))
}

/// Whether a browser treats `http://<host>` as a potentially trustworthy origin (W3C Secure
/// Contexts: `localhost` and its subdomains, 127.0.0.0/8, `[::1]`); `host` may carry a port.
pub fn is_trustworthy_http_host(host: &str) -> bool {
    let name = match host.strip_prefix('[') {
        Some(rest) => rest.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(name, _port)| name),
    };
    let name = name.to_ascii_lowercase();
    if name == "localhost" || name.ends_with(".localhost") {
        return true;
    }
    name.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Adds `Cross-Origin-Opener-Policy: same-origin` where the browser honours it (see the module
/// doc); every other security header is [`security_headers`]'.
pub async fn opener_policy(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    // The Host header itself, never X-Forwarded-Host (Relay has no proxy in front).
    let host = req.headers().get(actix_web::http::header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    let trustworthy = is_trustworthy_http_host(host);
    let mut res = next.call(req).await?;
    if trustworthy {
        res.headers_mut()
            .insert(HeaderName::from_static("cross-origin-opener-policy"), HeaderValue::from_static("same-origin"));
    }
    Ok(res)
}

/// The desktop webview's origins (Tauri 2 on Linux/macOS and on Windows).
pub const DESKTOP_ORIGINS: &[&str] = &["tauri://localhost", "http://tauri.localhost"];

/// CORS for the data API: exactly the desktop shell's origins, no credentials, the methods and
/// headers the record API needs. Requests from other origins pass through without CORS headers
/// (browsers then refuse to expose the response), so same-origin use is unaffected.
pub fn desktop_cors() -> actix_cors::Cors {
    DESKTOP_ORIGINS
        .iter()
        .fold(actix_cors::Cors::default(), |cors, origin| cors.allowed_origin(origin))
        .allowed_methods(["GET", "POST", "PATCH", "DELETE"])
        .allowed_headers([actix_web::http::header::AUTHORIZATION, actix_web::http::header::CONTENT_TYPE])
        // The Wiki PDF's checksum headers, so the desktop window verifies what it downloaded.
        .expose_headers(["x-relay-checksum", "repr-digest"])
        .block_on_origin_mismatch(false)
        .max_age(600)
}

#[cfg(test)]
mod tests {
    use super::{is_trustworthy_http_host, CONTENT_SECURITY_POLICY};

    #[test]
    fn only_loopback_and_localhost_hosts_are_trustworthy_over_http() {
        for host in [
            "localhost",
            "localhost:8090",
            "relay.localhost:1",
            "127.0.0.1:8090",
            "127.3.4.5",
            "[::1]:8091",
            "LOCALHOST",
        ] {
            assert!(is_trustworthy_http_host(host), "{host}");
        }
        for host in
            ["relay-server.lan:8090", "vm.local:8091", "10.0.0.7:8090", "[fe80::1]:8090", "localhost.evil.net", ""]
        {
            assert!(!is_trustworthy_http_host(host), "{host}");
        }
    }

    #[test]
    fn media_may_be_same_origin_or_an_object_url() {
        // The alarm tone: the bundled MP3 (same origin) or this device's custom one (a blob: URL).
        assert!(CONTENT_SECURITY_POLICY.contains("; media-src 'self' blob:;"), "{CONTENT_SECURITY_POLICY}");
        assert!(!CONTENT_SECURITY_POLICY.contains("file:"), "{CONTENT_SECURITY_POLICY}");
    }
}
