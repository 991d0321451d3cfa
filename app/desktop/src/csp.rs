//! Narrows the CSP's `connect-src` to the configured server origin at run time. Tauri applies
//! `app.security.csp` from the runtime config as a response header on every HTML asset, so the
//! static `http://127.0.0.1:*` fallback in tauri.conf.json is replaced before the app is built.

use tauri::utils::config::{Config, Csp, CspDirectiveSources};

/// Sources always allowed for `connect-src`: the app origin and Tauri's IPC transports.
pub const BASE_CONNECT_SRC: &[&str] = &["'self'", "ipc:", "http://ipc.localhost"];

pub fn connect_src_for(server_origin: &str) -> Vec<String> {
    let mut v: Vec<String> = BASE_CONNECT_SRC.iter().map(|s| s.to_string()).collect();
    if let Ok(url) = url::Url::parse(server_origin) {
        let origin = url.origin();
        if origin.is_tuple() {
            v.push(origin.ascii_serialization());
        }
    }
    v
}

pub fn narrow_connect_src(config: &mut Config, server_origin: &str) {
    if let Some(Csp::DirectiveMap(map)) = config.app.security.csp.as_mut() {
        map.insert("connect-src".into(), CspDirectiveSources::List(connect_src_for(server_origin)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_src_is_the_server_origin_only() {
        assert_eq!(
            connect_src_for("http://127.0.0.1:8090"),
            ["'self'", "ipc:", "http://ipc.localhost", "http://127.0.0.1:8090"]
        );
        assert_eq!(connect_src_for("https://relay.example.com").last().unwrap(), "https://relay.example.com");
        assert_eq!(connect_src_for("not a url").len(), 3);
    }

    #[test]
    fn the_configured_csp_is_rewritten() {
        let mut config: Config = serde_json::from_str(include_str!("../tauri.conf.json")).unwrap();
        narrow_connect_src(&mut config, "http://127.0.0.1:9999");
        let csp = config.app.security.csp.unwrap().to_string();
        assert!(csp.contains("connect-src 'self' ipc: http://ipc.localhost http://127.0.0.1:9999"), "{csp}");
        assert!(!csp.contains("127.0.0.1:*"), "{csp}");
        for d in [
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            "frame-src 'none'",
            "default-src 'self'",
            "media-src 'self' blob:",
        ] {
            assert!(csp.contains(d), "{d} missing in {csp}");
        }
    }
}
