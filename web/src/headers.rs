//! Security headers on every response: a strict Content-Security-Policy for the same-origin UI,
//! no framing, no MIME sniffing, a strict referrer policy, disabled powerful features, and
//! `no-store` caching for API responses. The data API answers cross-origin requests from the
//! desktop shell's own webview origins only (`tauri://localhost`, `http://tauri.localhost`);
//! every other origin gets no CORS headers. The Relay Web gateway sends none at all.

use actix_web::middleware::DefaultHeaders;

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
        .add(("Cross-Origin-Opener-Policy", "same-origin"))
        .add(("Cross-Origin-Resource-Policy", "same-origin"))
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
    use super::CONTENT_SECURITY_POLICY;

    #[test]
    fn media_may_be_same_origin_or_an_object_url() {
        // The alarm tone: the bundled MP3 (same origin) or this device's custom one (a blob: URL).
        assert!(CONTENT_SECURITY_POLICY.contains("; media-src 'self' blob:;"), "{CONTENT_SECURITY_POLICY}");
        assert!(!CONTENT_SECURITY_POLICY.contains("file:"), "{CONTENT_SECURITY_POLICY}");
    }
}
