//! Host-header and Origin validation for the Relay Web gateway. A request is accepted only when
//! its `Host` names this machine (its hostname, `<hostname>.local`, `localhost`) or one of its
//! loopback or private interface addresses, on the gateway's port; state-changing requests must
//! also carry an `Origin` that is exactly `http://<allowed host>:<port>`. Parsing is strict: no
//! userinfo, paths, whitespace, percent-encoding, trailing dots, or non-canonical IP forms.
//! [`is_loopback_request`] is the stricter rule of loopback-only endpoints (metrics): the TCP
//! peer and the `Host` must both be this machine's loopback.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostName {
    Name(String),
    Ip(IpAddr),
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    #[error("malformed host")]
    Malformed,
    #[error("host not allowed")]
    NotAllowed,
}

/// The names and addresses this gateway answers to, and its port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AllowedHosts {
    pub names: Vec<String>,
    pub addresses: Vec<IpAddr>,
    pub port: u16,
}

/// Whether an interface address may be used to reach the gateway (loopback or private only).
pub fn is_local_address(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
        IpAddr::V6(v6) => {
            let first = v6.segments()[0];
            v6.is_loopback() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80
        }
    }
}

impl AllowedHosts {
    /// Builds the allowlist from the machine hostname and its interface addresses; public
    /// interface addresses are never allowed.
    pub fn new(hostname: &str, interface_addresses: &[IpAddr], port: u16) -> AllowedHosts {
        let mut names = vec!["localhost".to_string()];
        let host = hostname.trim().to_ascii_lowercase();
        if is_dns_name(&host) {
            names.push(host.clone());
            if !host.ends_with(".local") && !host.contains('.') {
                names.push(format!("{host}.local"));
            }
        }
        let mut addresses: Vec<IpAddr> = vec![IpAddr::V4(Ipv4Addr::LOCALHOST), IpAddr::V6(Ipv6Addr::LOCALHOST)];
        addresses.extend(interface_addresses.iter().copied().filter(is_local_address));
        addresses.sort();
        addresses.dedup();
        AllowedHosts { names, addresses, port }
    }

    fn allows(&self, host: &HostName) -> bool {
        match host {
            HostName::Name(n) => self.names.iter().any(|a| a == n),
            HostName::Ip(ip) => self.addresses.contains(ip),
        }
    }

    /// Checks a `Host` header: an allowed host with the gateway's port (a `Host` without a port
    /// means port 80, which browsers send only when the gateway really listens there).
    pub fn check_host(&self, raw: &str) -> Result<HostName, OriginError> {
        let (host, port) = parse_authority(raw)?;
        if !self.allows(&host) || port.unwrap_or(80) != self.port {
            return Err(OriginError::NotAllowed);
        }
        Ok(host)
    }

    /// Checks an `Origin` header: exactly `http://<allowed host>[:port]` with the gateway port.
    pub fn check_origin(&self, raw: &str) -> Result<HostName, OriginError> {
        let authority = raw.strip_prefix("http://").ok_or(OriginError::NotAllowed)?;
        let (host, port) = parse_authority(authority)?;
        if !self.allows(&host) || port.unwrap_or(80) != self.port {
            return Err(OriginError::NotAllowed);
        }
        Ok(host)
    }
}

fn is_dns_name(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        })
}

/// Parses `host[:port]` (IPv6 in brackets). Hostnames are lowercased; everything unusual is
/// rejected rather than normalized.
pub fn parse_authority(raw: &str) -> Result<(HostName, Option<u16>), OriginError> {
    if raw.is_empty()
        || raw.len() > 300
        || !raw.is_ascii()
        || raw.bytes().any(|b| b <= b' ' || b"/\\@%?#,;".contains(&b))
    {
        return Err(OriginError::Malformed);
    }
    let (host_part, port_part) = if let Some(rest) = raw.strip_prefix('[') {
        let (inside, after) = rest.split_once(']').ok_or(OriginError::Malformed)?;
        let ip: Ipv6Addr = inside.parse().map_err(|_| OriginError::Malformed)?;
        if inside != ip.to_string() {
            return Err(OriginError::Malformed);
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or(OriginError::Malformed)?),
        };
        (HostName::Ip(IpAddr::V6(ip)), port)
    } else {
        let (h, p) = match raw.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (raw, None),
        };
        if h.contains(':') {
            return Err(OriginError::Malformed);
        }
        let lower = h.to_ascii_lowercase();
        let host = if lower.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            let ip: Ipv4Addr = lower.parse().map_err(|_| OriginError::Malformed)?;
            if lower != ip.to_string() {
                return Err(OriginError::Malformed);
            }
            HostName::Ip(IpAddr::V4(ip))
        } else if is_dns_name(&lower) {
            HostName::Name(lower)
        } else {
            return Err(OriginError::Malformed);
        };
        (host, p)
    };
    let port = match port_part {
        None => None,
        Some(p) if !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()) && !p.starts_with('0') => {
            Some(p.parse::<u16>().map_err(|_| OriginError::Malformed)?)
        }
        Some(_) => return Err(OriginError::Malformed),
    };
    Ok((host_part, port))
}

/// Loopback-only endpoints (`GET /api/relay/metrics`): the TCP peer (never a forwarded-for
/// header) must be a loopback address (IPv4-mapped forms included), and the `Host` must be
/// `localhost` or a loopback literal, so a page that rebinds its own DNS name to 127.0.0.1
/// still cannot read the answer. A missing peer is refused.
pub fn is_loopback_request(peer: Option<IpAddr>, host: &str) -> bool {
    let peer_ok = peer.is_some_and(|ip| ip.to_canonical().is_loopback());
    let host_ok = match parse_authority(host) {
        Ok((HostName::Name(name), _)) => name == "localhost",
        Ok((HostName::Ip(ip), _)) => ip.is_loopback(),
        Err(_) => false,
    };
    peer_ok && host_ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn loopback_requests_need_a_loopback_peer_and_a_loopback_host() {
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        for (peer, host) in [
            (ip("127.0.0.1"), "127.0.0.1:8090"),
            (ip("127.0.0.2"), "localhost:8090"),
            (ip("::1"), "[::1]:8090"),
            (ip("::ffff:127.0.0.1"), "localhost"),
        ] {
            assert!(is_loopback_request(peer, host), "{peer:?} {host}");
        }
        for (peer, host) in [
            (ip("192.168.1.20"), "127.0.0.1:8090"),
            (ip("10.0.0.5"), "localhost:8090"),
            (ip("::ffff:192.0.2.1"), "localhost"),
            (None, "localhost"),
            (ip("127.0.0.1"), "relay.example:8090"),
            (ip("127.0.0.1"), "localhost.evil.example"),
            (ip("127.0.0.1"), "noc-1:8090"),
            (ip("127.0.0.1"), "192.168.1.20:8090"),
            (ip("127.0.0.1"), "0177.0.0.1"),
            (ip("127.0.0.1"), ""),
        ] {
            assert!(!is_loopback_request(peer, host), "{peer:?} {host}");
        }
    }

    fn allowed() -> AllowedHosts {
        let ifaces: Vec<IpAddr> =
            ["192.168.1.20", "10.0.0.5", "203.0.113.7", "fd00::20"].iter().map(|s| s.parse().unwrap()).collect();
        AllowedHosts::new("NOC-Desk", &ifaces, 8091)
    }

    #[test]
    fn accepts_the_machine_its_private_addresses_and_loopback() {
        let a = allowed();
        for host in [
            "localhost:8091",
            "LOCALHOST:8091",
            "noc-desk:8091",
            "noc-desk.local:8091",
            "127.0.0.1:8091",
            "[::1]:8091",
            "192.168.1.20:8091",
            "10.0.0.5:8091",
            "[fd00::20]:8091",
        ] {
            assert!(a.check_host(host).is_ok(), "{host}");
        }
        for origin in ["http://noc-desk:8091", "http://192.168.1.20:8091", "http://[::1]:8091", "http://localhost:8091"]
        {
            assert!(a.check_origin(origin).is_ok(), "{origin}");
        }
    }

    #[test]
    fn rejects_spoofed_lookalike_public_and_malformed_hosts() {
        let a = allowed();
        for host in [
            "evil.com:8091",
            "noc-desk.evil.com:8091",
            "noc-desk.local.evil:8091",
            "localhost.:8091",
            "noc-desk:8090",
            "203.0.113.7:8091",
            "8.8.8.8:8091",
            "192.168.1.21:8091",
            "0177.0.0.1:8091",
            "127.1:8091",
            "2130706433:8091",
            "0x7f.0.0.1:8091",
            "[::ffff:127.0.0.1]:8091",
            "[0:0:0:0:0:0:0:1]:8091",
            "[fd00::20]:08091",
            "localhost:8091:8091",
            "user@localhost:8091",
            "localhost:8091/x",
            "local host:8091",
            "localhost%00:8091",
            "",
            "[::1",
            "::1:8091",
            "localhost:",
            "localhost:99999",
            "xn--nc-desk-xyz:8091",
            "127.0.0.1",
            "localhost",
            "noc-desk",
            "10.0.0.5",
        ] {
            assert!(a.check_host(host).is_err(), "{host}");
        }
        for origin in [
            "https://noc-desk:8091",
            "http://noc-desk:8091/",
            "http://evil.com:8091",
            "null",
            "http://noc-desk",
            "http://noc-desk:80",
            "http://127.0.0.1:8092",
            "http://noc-desk.evil:8091",
            "file://",
        ] {
            assert!(a.check_origin(origin).is_err(), "{origin}");
        }
    }

    #[test]
    fn public_interface_addresses_are_never_allowed() {
        let a = allowed();
        assert!(!a.addresses.contains(&"203.0.113.7".parse().unwrap()));
        assert!(a.names.contains(&"noc-desk.local".to_string()));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]
        #[test]
        fn parser_never_panics_and_accepts_only_allowlisted_hosts(raw in "\\PC{0,40}") {
            let a = allowed();
            if let Ok(host) = a.check_host(&raw) {
                prop_assert!(a.allows(&host));
            }
            let _ = a.check_origin(&raw);
            let _ = parse_authority(&raw);
        }

        #[test]
        fn random_domains_are_rejected(label in "[a-z0-9-]{1,20}", tld in "[a-z]{2,6}") {
            let a = allowed();
            let host = format!("{label}.{tld}:8091");
            prop_assume!(!a.names.iter().any(|n| host.starts_with(&format!("{n}:"))));
            prop_assert!(a.check_host(&host).is_err());
        }
    }
}
