use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::process::{Command, Stdio};
use std::time::Instant;

use super::*;

fn resolved(instance: &str, addresses: &str, port: u16) -> ResolvedService {
    resolved_as(SERVICE_TYPE, instance, addresses, port)
}

fn resolved_as(ty: &str, instance: &str, addresses: &str, port: u16) -> ResolvedService {
    ServiceInfo::new(ty, instance, "noc.local.", addresses, port, None::<HashMap<String, String>>)
        .unwrap()
        .as_resolved_service()
}

fn event(instance: &str, addresses: &str, port: u16) -> ServiceEvent {
    ServiceEvent::ServiceResolved(Box::new(resolved(instance, addresses, port)))
}

#[test]
fn the_advertisement_carries_name_host_port_and_version_only() {
    let info = service_info("Relay on noc", "noc.local.", 8090).unwrap();
    assert_eq!(info.get_fullname(), "Relay on noc._relay._tcp.local.");
    assert_eq!(info.get_type(), SERVICE_TYPE);
    assert_eq!(info.get_hostname(), "noc.local.");
    assert_eq!(info.get_port(), 8090);
    // Addresses come from the daemon's (LAN-only) interfaces, never from the caller.
    assert!(info.get_addresses().is_empty() && info.is_addr_auto());
    let txt: Vec<(String, String)> =
        info.get_properties().iter().map(|p| (p.key().to_string(), p.val_str().to_string())).collect();
    assert_eq!(txt, [("v".to_string(), "1".to_string())]);
    // The real names a desktop would use are accepted by the library.
    let host = "NOC-PC.corp.example";
    let info = service_info(&instance_name(host), &mdns_host_name(host), 65535).unwrap();
    assert_eq!(info.get_fullname(), "Relay on NOC-PC\\.corp\\.example._relay._tcp.local.");
    assert_eq!(info.get_hostname(), "noc-pc.local.");
}

#[test]
fn privileged_ports_are_not_advertised() {
    for port in [0, 80, 443, MIN_SERVER_PORT - 1] {
        assert!(matches!(service_info("Relay on noc", "noc.local.", port), Err(DiscoveryError::Invalid(_))), "{port}");
    }
    assert!(service_info("Relay on noc", "noc.local.", MIN_SERVER_PORT).is_ok());
}

#[test]
fn only_private_and_loopback_ipv4_interfaces_are_used() {
    let cases: &[(IpAddr, bool)] = &[
        (Ipv4Addr::new(192, 168, 1, 4).into(), true),
        (Ipv4Addr::new(10, 1, 2, 3).into(), true),
        (Ipv4Addr::new(172, 20, 0, 1).into(), true),
        (Ipv4Addr::LOCALHOST.into(), true),
        (Ipv4Addr::new(203, 0, 113, 9).into(), false),
        (Ipv4Addr::new(100, 64, 0, 1).into(), false),
        (Ipv4Addr::new(169, 254, 1, 1).into(), false),
        (Ipv6Addr::LOCALHOST.into(), false),
        ("fe80::1".parse().unwrap(), false),
        ("fd00::1".parse().unwrap(), false),
    ];
    for (ip, want) in cases {
        assert_eq!(is_lan_interface(*ip), *want, "{ip}");
    }
}

#[test]
fn instance_names_come_from_relay_full_names_only() {
    let cases: &[(&str, Option<&str>)] = &[
        ("Relay on noc._relay._tcp.local.", Some("Relay on noc")),
        ("Relay on noc._RELAY._tcp.LOCAL.", Some("Relay on noc")),
        ("a.b._relay._tcp.local.", Some("a.b")),
        ("Relay on noc._http._tcp.local.", None),
        ("Relay on noc.x_relay._tcp.local.", None),
        ("._relay._tcp.local.", None),
        ("_relay._tcp.local.", None),
        ("", None),
        ("é._relay._tcp.local.", Some("é")),
    ];
    for (fullname, want) in cases {
        assert_eq!(instance_of(fullname), *want, "{fullname:?}");
    }
}

#[test]
fn resolved_events_become_domain_input_with_sorted_bounded_addresses() {
    let got = discovered_from(&resolved("Relay on noc", "192.168.1.9,10.0.0.2,fe80::1", 8090)).unwrap();
    assert_eq!(
        got,
        DiscoveredService {
            name: "Relay on noc".into(),
            host: "noc.local.".into(),
            addresses: vec!["10.0.0.2".parse().unwrap(), "192.168.1.9".parse().unwrap(), "fe80::1".parse().unwrap()],
            port: 8090,
        }
    );
    let many: Vec<String> = (1..=40).map(|i| format!("10.0.0.{i}")).collect();
    let got = discovered_from(&resolved("Relay on noc", &many.join(","), 8090)).unwrap();
    assert_eq!(got.addresses.len(), MAX_ADDRESSES_PER_SERVICE);
    assert!(discovered_from(&resolved_as("_http._tcp.local.", "Relay on noc", "10.0.0.1", 8090)).is_none());
}

#[test]
fn browse_windows_are_capped() {
    assert_eq!(browse_window(Duration::from_secs(3)), Duration::from_secs(3));
    assert_eq!(browse_window(Duration::ZERO), Duration::ZERO);
    assert_eq!(browse_window(Duration::from_secs(3600)), MAX_BROWSE_WINDOW);
}

#[test]
fn the_collector_filters_dedupes_and_forgets_removed_services() {
    let mut c = BrowseCollector::new();
    assert!(c.push(ServiceEvent::SearchStarted(SERVICE_TYPE.into())));
    c.push(event("Relay on b", "192.168.1.9", 8090));
    c.push(event("Relay on a", "192.168.1.10", 8090));
    c.push(event("Relay on wan", "8.8.8.8", 8090));
    c.push(event("Relay on low", "192.168.1.11", 80));
    c.push(event("Relay on gone", "192.168.1.12", 8090));
    c.push(ServiceEvent::ServiceRemoved(SERVICE_TYPE.into(), "relay on GONE._relay._tcp.local.".into()));
    // A later resolution of the same service replaces the earlier one.
    c.push(event("Relay on b", "192.168.1.9", 9000));
    // An update that moves a service to a WAN address drops it.
    c.push(event("Relay on a", "192.168.1.10", 8090));
    c.push(event("Relay on a", "203.0.113.5", 8090));
    c.push(event("Relay on c", "10.0.0.3", 8090));
    let urls: Vec<String> = c.finish().into_iter().map(|s| format!("{} {}", s.name, s.url)).collect();
    assert_eq!(urls, ["Relay on b http://192.168.1.9:9000", "Relay on c http://10.0.0.3:8090"]);
}

#[test]
fn the_collector_is_bounded_in_services_and_events() {
    let mut c = BrowseCollector::new();
    let mut wanted = true;
    for i in 0..(MAX_BROWSE_RESULTS + 10) {
        wanted = c.push(event(&format!("Relay on {i}"), &format!("10.0.{}.{}", i / 200, i % 200 + 1), 8090));
    }
    assert!(!wanted);
    assert_eq!(c.len(), MAX_BROWSE_RESULTS);
    assert_eq!(c.finish().len(), MAX_BROWSE_RESULTS);

    // Services the filter would drop do not fill the result budget, but still spend events.
    let mut c = BrowseCollector::new();
    for i in 0..(MAX_BROWSE_EVENTS - 1) {
        assert!(c.push(event(&format!("Relay on {i}"), "8.8.8.8", 8090)));
    }
    assert!(c.is_empty());
    assert!(!c.push(ServiceEvent::SearchStarted(SERVICE_TYPE.into())), "event budget spent");
}

// --- Real round trip, isolated -------------------------------------------------------------
//
// The outer test re-runs this test binary inside a new network namespace (`unshare -n`) whose
// only interface is loopback; the inner test refuses to run anywhere else. Nothing is sent or
// bound on a real interface.

const NETNS_MARKER: &str = "RELAY_DISCOVERY_NETNS_CHILD";
const PARENT_NETNS: &str = "RELAY_DISCOVERY_PARENT_NETNS";
const INNER_TEST: &str = "discovery::tests::mdns_round_trip_inside_the_namespace";
const TEST_MDNS_PORT: u16 = 15353;
const TEST_HOSTNAME: &str = "relay-netns-test";
const BROWSE: Duration = Duration::from_secs(3);
const CHILD_DEADLINE: Duration = Duration::from_secs(90);

fn own_netns() -> String {
    std::fs::read_link("/proc/self/ns/net").map(|p| p.display().to_string()).unwrap_or_default()
}

/// Interface names in this process's network namespace (`/proc/self/net/dev`; `/sys/class/net`
/// would show the namespace sysfs was mounted in, not ours).
fn interfaces() -> Vec<String> {
    let dev = std::fs::read_to_string("/proc/self/net/dev").expect("read /proc/self/net/dev");
    dev.lines().skip(2).filter_map(|l| l.split(':').next()).map(|n| n.trim().to_string()).collect()
}

#[test]
fn mdns_round_trip_in_an_isolated_network_namespace() {
    let exe = std::env::current_exe().unwrap();
    let script = "ip link set lo up && ip link set lo multicast on && exec \"$@\"";
    let mut child = Command::new("unshare")
        .args(["-n", "--", "bash", "-c", script, "bash"])
        .arg(&exe)
        .args([INNER_TEST, "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(NETNS_MARKER, "1")
        .env(PARENT_NETNS, own_netns())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run unshare -n (needs root or CAP_SYS_ADMIN, util-linux and iproute2)");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > CHILD_DEADLINE {
            let _ = child.kill();
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report = format!("stdout:\n{stdout}\nstderr:\n{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "namespaced mDNS test failed ({:?}):\n{report}", out.status);
    assert!(stdout.contains("1 passed"), "the inner test did not run:\n{report}");
}

fn ours(servers: &[RelayServer]) -> Vec<&RelayServer> {
    servers.iter().filter(|s| s.name == format!("Relay on {TEST_HOSTNAME}")).collect()
}

/// Browses until `done` holds for the servers advertised under the test hostname, at most three
/// windows of `BROWSE`.
async fn browse_until(browser: &Addr<DiscoveryActor>, done: impl Fn(&[&RelayServer]) -> bool) -> Vec<RelayServer> {
    let mut last = Vec::new();
    for _ in 0..3 {
        last = browser.send(Browse { window: BROWSE }).await.unwrap().unwrap();
        if done(&ours(&last)) {
            break;
        }
    }
    last
}

#[test]
#[ignore = "runs only inside the network namespace made by mdns_round_trip_in_an_isolated_network_namespace"]
fn mdns_round_trip_inside_the_namespace() {
    assert_eq!(std::env::var(NETNS_MARKER).as_deref(), Ok("1"), "refusing to run outside the test namespace");
    let parent = std::env::var(PARENT_NETNS).unwrap_or_default();
    assert!(!parent.is_empty() && own_netns() != parent, "refusing: not in a new network namespace");
    assert_eq!(interfaces(), ["lo"], "refusing: this namespace has interfaces other than lo");

    let system = actix::System::new();
    system.block_on(async {
        let config = MdnsConfig { port: TEST_MDNS_PORT };
        let server = DiscoveryActor::with_hostname(config, TEST_HOSTNAME, None).unwrap().start();
        let browser = DiscoveryActor::with_hostname(config, "relay-netns-browser", None).unwrap().start();

        server.send(Advertise { port: 18090 }).await.unwrap().unwrap();
        server.send(Advertise { port: 18090 }).await.unwrap().unwrap(); // idempotent
        let bad = server.send(Advertise { port: 80 }).await.unwrap();
        assert!(matches!(bad, Err(DiscoveryError::Invalid(_))), "{bad:?}");

        // One browse at a time: a second one sent meanwhile is refused.
        let (first, second) =
            tokio::join!(browser.send(Browse { window: BROWSE }), browser.send(Browse { window: BROWSE }));
        assert_eq!(second.unwrap(), Err(DiscoveryError::Busy));
        let first = first.unwrap().unwrap();
        let found = if ours(&first).is_empty() { browse_until(&browser, |s| !s.is_empty()).await } else { first };
        let found = ours(&found);
        assert_eq!(found.len(), 1, "{found:?}");
        let s = found[0];
        assert!(s.host.starts_with("127."), "{s:?}");
        assert_eq!((s.port, s.url.clone()), (18090, format!("http://{}:18090", s.host)));

        // Another port replaces the registration.
        server.send(Advertise { port: 18091 }).await.unwrap().unwrap();
        let fresh = DiscoveryActor::with_hostname(config, "relay-netns-fresh", None).unwrap().start();
        let found = browse_until(&fresh, |s| s.iter().any(|s| s.port == 18091)).await;
        let ports: Vec<u16> = ours(&found).iter().map(|s| s.port).collect();
        assert_eq!(ports, [18091], "{found:?}");

        // Withdrawn: a fresh browser finds nothing, and the first browser saw the goodbye.
        server.send(StopAdvertising).await.unwrap().unwrap();
        let after = DiscoveryActor::with_hostname(config, "relay-netns-after", None).unwrap().start();
        let found = after.send(Browse { window: BROWSE }).await.unwrap().unwrap();
        assert!(ours(&found).is_empty(), "still advertised after StopAdvertising: {found:?}");
        let found = browser.send(Browse { window: BROWSE }).await.unwrap().unwrap();
        assert!(ours(&found).is_empty(), "the browser kept a withdrawn server: {found:?}");

        // Quit: Shutdown stops the actor and its daemon.
        for addr in [&server, &browser, &fresh, &after] {
            addr.send(Shutdown).await.unwrap();
        }
        assert!(server.send(Advertise { port: 18092 }).await.is_err(), "the actor stopped");
    });
}
