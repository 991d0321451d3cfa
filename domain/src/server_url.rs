//! Rules for the Relay server URL a client connects to: the URL must be a pure origin (no
//! credentials, path, query or fragment); HTTPS is always allowed; plain HTTP only for trusted
//! LAN targets (loopback, private and link-local addresses, `.local` names and single-label
//! machine names) unless the operator explicitly opts into insecure public HTTP.

use std::net::IpAddr;

use url::{Host, Url};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServerUrlError {
    #[error("enter a valid http(s) URL")]
    Invalid,
    #[error("the server URL must be an origin only (no credentials, path, query or fragment)")]
    NotAnOrigin,
    #[error("plain HTTP is only allowed for LAN servers; use HTTPS or allow insecure HTTP explicitly")]
    InsecurePublicHttp,
}

fn is_lan_ip(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80
        }
    }
}

/// Whether a host is a trusted LAN target for plain HTTP.
pub fn is_lan_host(host: &Host<&str>) -> bool {
    match host {
        Host::Ipv4(v4) => is_lan_ip(IpAddr::V4(*v4)),
        Host::Ipv6(v6) => is_lan_ip(IpAddr::V6(*v6)),
        Host::Domain(d) => {
            let d = d.trim_end_matches('.').to_ascii_lowercase();
            d == "localhost" || d.ends_with(".local") || (!d.is_empty() && !d.contains('.'))
        }
    }
}

/// Validates a server URL and returns its normalized origin (e.g. `http://noc-1.local:8090`).
pub fn check_server_url(raw: &str, allow_insecure_http: bool) -> Result<String, ServerUrlError> {
    let raw = raw.trim();
    if raw.len() > 2048 || raw.chars().any(|c| c.is_control() || c.is_whitespace()) {
        return Err(ServerUrlError::Invalid);
    }
    let url = Url::parse(raw).map_err(|_| ServerUrlError::Invalid)?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ServerUrlError::Invalid);
    }
    if !url.username().is_empty() || url.password().is_some() || url.query().is_some() || url.fragment().is_some() {
        return Err(ServerUrlError::NotAnOrigin);
    }
    if url.path() != "/" && !url.path().is_empty() {
        return Err(ServerUrlError::NotAnOrigin);
    }
    let host = url.host().ok_or(ServerUrlError::Invalid)?;
    if url.scheme() == "http" && !allow_insecure_http && !is_lan_host(&host) {
        return Err(ServerUrlError::InsecurePublicHttp);
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_https_anywhere_and_http_on_the_lan() {
        for (raw, origin) in [
            ("https://relay.example.com", "https://relay.example.com"),
            ("https://relay.example.com:8443/", "https://relay.example.com:8443"),
            ("http://127.0.0.1:8090", "http://127.0.0.1:8090"),
            ("http://192.168.1.20:8090", "http://192.168.1.20:8090"),
            ("http://10.1.2.3", "http://10.1.2.3"),
            ("http://172.16.0.9:8090", "http://172.16.0.9:8090"),
            ("http://169.254.10.10", "http://169.254.10.10"),
            ("http://noc-desk.local:8090", "http://noc-desk.local:8090"),
            ("http://nocdesk:8090", "http://nocdesk:8090"),
            ("http://[fd00::1]:8090", "http://[fd00::1]:8090"),
            ("http://[fe80::1]:8090", "http://[fe80::1]:8090"),
            ("http://[::1]:8090", "http://[::1]:8090"),
        ] {
            assert_eq!(check_server_url(raw, false).as_deref(), Ok(origin), "{raw}");
        }
    }

    #[test]
    fn rejects_public_http_non_origins_and_junk() {
        for raw in [
            "http://relay.example.com",
            "http://8.8.8.8:8090",
            "http://172.32.0.1",
            "http://[2001:db8::1]",
            "http://192.168.1.1.nip.io",
        ] {
            assert_eq!(check_server_url(raw, false), Err(ServerUrlError::InsecurePublicHttp), "{raw}");
            assert!(check_server_url(raw, true).is_ok(), "explicit opt-in allows {raw}");
        }
        for raw in [
            "https://user:pw@relay.example.com",
            "https://relay.example.com/api",
            "https://relay.example.com?x=1",
            "https://relay.example.com#f",
        ] {
            assert_eq!(check_server_url(raw, false), Err(ServerUrlError::NotAnOrigin), "{raw}");
        }
        for raw in
            ["", "relay", "ftp://relay.local", "javascript:alert(1)", "https://relay .com", "https://re\nlay.com"]
        {
            assert_eq!(check_server_url(raw, true), Err(ServerUrlError::Invalid), "{raw}");
        }
    }
}
