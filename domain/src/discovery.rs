//! mDNS rules for finding Relay servers on the LAN: when a server advertises itself (only when
//! bound to an unspecified address, i.e. LAN access is on), the service type and the sanitized
//! instance and `.local.` host names it advertises, and the filter applied to browse results
//! before they are shown during client setup. The filter keeps only private or loopback IPv4
//! addresses so an mDNS advertiser cannot present a WAN (or link-local, multicast, IPv6) address
//! as a local Relay server, requires an unprivileged port and bounded, control-free names,
//! deduplicates by address and port, and returns a deterministically sorted list. No sockets are
//! touched here.

use std::collections::BTreeMap;
use std::net::{IpAddr, Ipv4Addr};

use crate::external_links::is_unsafe_text_char;

/// The DNS-SD service type Relay advertises and browses for.
pub const SERVICE_TYPE: &str = "_relay._tcp.local.";
/// Longest service name or host name accepted from a browse result, in bytes.
pub const MAX_DISCOVERED_NAME_LEN: usize = 255;
/// Lowest port a discovered server may use.
pub const MIN_SERVER_PORT: u16 = 1024;
/// Longest advertised instance name, in bytes (one DNS label).
pub const MAX_INSTANCE_NAME_LEN: usize = 63;
const INSTANCE_PREFIX: &str = "Relay on ";
const UNKNOWN_HOSTNAME: &str = "unknown-host";
const UNKNOWN_MDNS_HOST: &str = "relay-host";

/// Whether a server bound to `bind` should advertise itself: only when it listens on every
/// interface (`0.0.0.0` or `::`); a loopback-bound server is not reachable from the LAN.
pub fn should_advertise(bind: IpAddr) -> bool {
    bind.is_unspecified()
}

/// One resolved mDNS browse result, as reported by the mDNS library.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiscoveredService {
    pub name: String,
    pub host: String,
    pub addresses: Vec<IpAddr>,
    pub port: u16,
}

/// A Relay server offered to the operator during client setup. `host` is the IPv4 address the
/// URL points at; `url` is `http://<host>:<port>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct RelayServer {
    pub name: String,
    pub host: String,
    pub port: u16,
    pub url: String,
}

/// Private (10/8, 172.16/12, 192.168/16) or loopback (127/8) IPv4.
pub fn is_lan_ipv4(ip: Ipv4Addr) -> bool {
    ip.is_private() || ip.is_loopback()
}

/// The address a service is offered on: its first private address in advertised order, else its
/// first loopback address. IPv6 (including IPv4-mapped forms) is never used.
fn pick_address(addresses: &[IpAddr]) -> Option<Ipv4Addr> {
    let v4 = || {
        addresses.iter().filter_map(|ip| match ip {
            IpAddr::V4(v4) if is_lan_ipv4(*v4) => Some(*v4),
            _ => None,
        })
    };
    v4().find(|ip| ip.is_private()).or_else(|| v4().next())
}

fn is_clean_text(s: &str) -> bool {
    !s.trim().is_empty() && s.len() <= MAX_DISCOVERED_NAME_LEN && !s.chars().any(is_unsafe_text_char)
}

/// Filters browse results to the Relay servers worth offering. A service is dropped when its
/// name or host is empty, longer than 255 bytes or contains control characters, when its port
/// is below 1024, or when it has no private or loopback IPv4 address. Results that share an
/// address and port are merged, keeping the smallest name. Output is sorted by name, then
/// address, then port.
pub fn filter_discovered(found: &[DiscoveredService]) -> Vec<RelayServer> {
    let mut by_endpoint: BTreeMap<(Ipv4Addr, u16), &str> = BTreeMap::new();
    for service in found {
        if service.port < MIN_SERVER_PORT || !is_clean_text(&service.name) || !is_clean_text(&service.host) {
            continue;
        }
        let Some(ip) = pick_address(&service.addresses) else {
            continue;
        };
        let name = by_endpoint.entry((ip, service.port)).or_insert(service.name.as_str());
        if service.name.as_str() < *name {
            *name = service.name.as_str();
        }
    }
    let mut servers: Vec<(&str, Ipv4Addr, u16)> =
        by_endpoint.into_iter().map(|((ip, port), name)| (name, ip, port)).collect();
    servers.sort();
    servers
        .into_iter()
        .map(|(name, ip, port)| RelayServer {
            name: name.to_string(),
            host: ip.to_string(),
            port,
            url: format!("http://{ip}:{port}"),
        })
        .collect()
}

/// The advertised instance name, `Relay on <hostname>`: whitespace in the hostname (tabs and
/// line breaks included) collapses to single spaces and is trimmed, other control and bidi
/// characters are removed, an empty result becomes `unknown-host`, and the whole name is cut to
/// 63 bytes on a character boundary (without a trailing space).
pub fn instance_name(hostname: &str) -> String {
    let cleaned: String = hostname
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|c| !is_unsafe_text_char(*c))
        .collect();
    let cleaned = crate::text::collapse_whitespace(&cleaned);
    let host = if cleaned.is_empty() { UNKNOWN_HOSTNAME } else { cleaned.as_str() };
    let mut name = format!("{INSTANCE_PREFIX}{host}");
    if name.len() > MAX_INSTANCE_NAME_LEN {
        let mut end = MAX_INSTANCE_NAME_LEN;
        while !name.is_char_boundary(end) {
            end -= 1;
        }
        name.truncate(end);
        name.truncate(name.trim_end().len());
    }
    name
}

/// The `.local.` host name put in the advertisement's SRV record: the first label of the
/// machine's hostname, lower-cased, keeping only ASCII letters, digits and `-` (other characters
/// are dropped, leading and trailing `-` trimmed), cut to 63 bytes; `relay-host` when nothing is
/// left. Example: `NOC-PC.corp.example` becomes `noc-pc.local.`.
pub fn mdns_host_name(hostname: &str) -> String {
    let first = hostname.trim().split('.').next().unwrap_or_default();
    let label: String = first
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-')
        .map(|c| c.to_ascii_lowercase())
        .take(MAX_INSTANCE_NAME_LEN)
        .collect();
    let label = label.trim_matches('-');
    let label = if label.is_empty() { UNKNOWN_MDNS_HOST } else { label };
    format!("{label}.local.")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::Ipv6Addr;

    fn svc(name: &str, host: &str, addresses: &[&str], port: u16) -> DiscoveredService {
        DiscoveredService {
            name: name.into(),
            host: host.into(),
            addresses: addresses.iter().map(|a| a.parse().unwrap()).collect(),
            port,
        }
    }

    fn endpoints(found: &[DiscoveredService]) -> Vec<String> {
        filter_discovered(found).into_iter().map(|s| s.url).collect()
    }

    #[test]
    fn advertises_only_on_unspecified_bind() {
        let cases: &[(IpAddr, bool)] = &[
            (Ipv4Addr::UNSPECIFIED.into(), true),
            (Ipv6Addr::UNSPECIFIED.into(), true),
            (Ipv4Addr::LOCALHOST.into(), false),
            (Ipv6Addr::LOCALHOST.into(), false),
            (Ipv4Addr::new(192, 168, 1, 10).into(), false),
            (Ipv4Addr::BROADCAST.into(), false),
        ];
        for (bind, want) in cases {
            assert_eq!(should_advertise(*bind), *want, "{bind}");
        }
    }

    #[test]
    fn address_classes() {
        let cases: &[(&str, Option<&str>)] = &[
            ("10.0.0.1", Some("http://10.0.0.1:8090")),
            ("10.255.255.254", Some("http://10.255.255.254:8090")),
            ("172.16.0.1", Some("http://172.16.0.1:8090")),
            ("172.31.255.1", Some("http://172.31.255.1:8090")),
            ("192.168.1.20", Some("http://192.168.1.20:8090")),
            ("127.0.0.1", Some("http://127.0.0.1:8090")),
            ("127.8.9.10", Some("http://127.8.9.10:8090")),
            ("172.15.255.255", None),
            ("172.32.0.1", None),
            ("192.169.0.1", None),
            ("11.0.0.1", None),
            ("8.8.8.8", None),
            ("203.0.113.7", None),
            ("100.64.0.1", None),
            ("169.254.10.20", None),
            ("0.0.0.0", None),
            ("255.255.255.255", None),
            ("224.0.0.251", None),
            ("239.255.255.250", None),
            ("::1", None),
            ("fe80::1", None),
            ("fd00::1", None),
            ("2001:db8::1", None),
            ("::ffff:192.168.1.20", None),
        ];
        for (addr, want) in cases {
            let got = endpoints(&[svc("Relay on noc", "noc.local", &[addr], 8090)]);
            assert_eq!(got, want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{addr}");
        }
    }

    #[test]
    fn address_choice_prefers_private_then_loopback() {
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["8.8.8.8", "192.168.1.5"], Some("192.168.1.5")),
            (&["fe80::1", "127.0.0.1", "10.1.1.1"], Some("10.1.1.1")),
            (&["127.0.0.1", "8.8.8.8"], Some("127.0.0.1")),
            (&["10.0.0.2", "10.0.0.1"], Some("10.0.0.2")),
            (&["8.8.8.8", "::1"], None),
            (&[], None),
        ];
        for (addrs, want) in cases {
            let got: Vec<String> =
                filter_discovered(&[svc("r", "h", addrs, 8090)]).into_iter().map(|s| s.host).collect();
            assert_eq!(got, want.iter().map(|s| s.to_string()).collect::<Vec<_>>(), "{addrs:?}");
        }
    }

    #[test]
    fn ports() {
        let cases: &[(u16, bool)] =
            &[(0, false), (80, false), (443, false), (1023, false), (1024, true), (8090, true), (65535, true)];
        for (port, keep) in cases {
            let got = filter_discovered(&[svc("r", "h", &["10.0.0.1"], *port)]);
            assert_eq!(got.len() == 1, *keep, "{port}");
        }
    }

    #[test]
    fn names_and_hosts_are_bounded_and_clean() {
        let long = "a".repeat(MAX_DISCOVERED_NAME_LEN + 1);
        let max = "a".repeat(MAX_DISCOVERED_NAME_LEN);
        let cases: &[(&str, &str, bool)] = &[
            ("Relay on noc", "noc.local", true),
            ("Relay on Zoë", "zoe.local", true),
            (&max, &max, true),
            (&long, "noc.local", false),
            ("Relay on noc", &long, false),
            ("", "noc.local", false),
            ("   ", "noc.local", false),
            ("Relay on noc", "", false),
            ("Relay\non noc", "noc.local", false),
            ("Relay on noc\u{0}", "noc.local", false),
            ("Relay on \u{1b}[31mnoc", "noc.local", false),
            ("Relay on \u{202e}con", "noc.local", false),
            ("Relay on noc\u{2028}", "noc.local", false),
            ("Relay on noc", "noc\r.local", false),
            ("Relay on noc", "noc\u{85}.local", false),
        ];
        for (name, host, keep) in cases {
            let got = filter_discovered(&[svc(name, host, &["192.168.0.9"], 8090)]);
            assert_eq!(got.len() == 1, *keep, "{name:?} / {host:?}");
        }
    }

    #[test]
    fn dedupe_and_sorting() {
        let found = [
            svc("Relay on b", "b.local", &["192.168.1.9"], 8090),
            svc("Relay on a", "a.local", &["192.168.1.10"], 8090),
            svc("Relay on z", "z.local", &["192.168.1.9"], 8090),
            svc("Relay on a", "a.local", &["192.168.1.10"], 8090),
            svc("Relay on a", "a.local", &["192.168.1.10"], 9000),
            svc("Relay on c", "c.local", &["8.8.8.8"], 8090),
            svc("Relay on a", "a.local", &["192.168.1.2"], 8090),
        ];
        let want = vec![
            RelayServer {
                name: "Relay on a".into(),
                host: "192.168.1.2".into(),
                port: 8090,
                url: "http://192.168.1.2:8090".into(),
            },
            RelayServer {
                name: "Relay on a".into(),
                host: "192.168.1.10".into(),
                port: 8090,
                url: "http://192.168.1.10:8090".into(),
            },
            RelayServer {
                name: "Relay on a".into(),
                host: "192.168.1.10".into(),
                port: 9000,
                url: "http://192.168.1.10:9000".into(),
            },
            RelayServer {
                name: "Relay on b".into(),
                host: "192.168.1.9".into(),
                port: 8090,
                url: "http://192.168.1.9:8090".into(),
            },
        ];
        assert_eq!(filter_discovered(&found), want);
        // Input order does not change the result.
        let mut reversed = found.to_vec();
        reversed.reverse();
        assert_eq!(filter_discovered(&reversed), want);
        assert!(filter_discovered(&[]).is_empty());
    }

    #[test]
    fn mdns_host_names() {
        let cases: &[(&str, &str)] = &[
            ("NOC-PC", "noc-pc.local."),
            ("noc-pc.corp.example", "noc-pc.local."),
            ("  noc  ", "noc.local."),
            ("noc pc", "nocpc.local."),
            ("Zoë", "zo.local."),
            ("-noc-", "noc.local."),
            ("noc\u{0}\u{1b}[31m", "noc31m.local."),
            ("\u{202e}cod", "cod.local."),
            ("", "relay-host.local."),
            (".local", "relay-host.local."),
            ("ë", "relay-host.local."),
        ];
        for (host, want) in cases {
            assert_eq!(mdns_host_name(host), *want, "{host:?}");
        }
        let long = mdns_host_name(&"h".repeat(100));
        assert_eq!(long, format!("{}.local.", "h".repeat(MAX_INSTANCE_NAME_LEN)));
    }

    #[test]
    fn instance_names() {
        let long = "h".repeat(100);
        let cases: &[(&str, &str)] = &[
            ("NOC-PC", "Relay on NOC-PC"),
            ("  noc pc  ", "Relay on noc pc"),
            ("noc\tpc\n", "Relay on noc pc"),
            ("noc\u{0}\u{1b}pc", "Relay on nocpc"),
            ("\u{202e}cod.exe", "Relay on cod.exe"),
            ("", "Relay on unknown-host"),
            ("\n\t ", "Relay on unknown-host"),
            ("a   b", "Relay on a b"),
        ];
        for (host, want) in cases {
            assert_eq!(instance_name(host), *want, "{host:?}");
        }
        let name = instance_name(&long);
        assert_eq!(name.len(), MAX_INSTANCE_NAME_LEN);
        assert!(name.starts_with("Relay on hhh"));
        // Multi-byte characters are cut on a boundary, never split.
        let name = instance_name(&"é".repeat(60));
        assert!(name.len() <= MAX_INSTANCE_NAME_LEN && name.len() >= MAX_INSTANCE_NAME_LEN - 1, "{name}");
        assert!(name.ends_with('é'));
        // A cut that would leave a trailing space drops it.
        let name = instance_name(&format!("{} x", "h".repeat(MAX_INSTANCE_NAME_LEN - INSTANCE_PREFIX.len() - 1)));
        assert!(!name.ends_with(' ') && name.len() == MAX_INSTANCE_NAME_LEN - 1, "{name:?}");
        assert_eq!(SERVICE_TYPE, "_relay._tcp.local.");
    }
}
