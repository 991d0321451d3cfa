//! Black-box proof that `relay serve` never multicasts: mDNS advertising belongs to a LAN-bound
//! desktop, never to the headless server. The test re-runs itself in a new network namespace
//! (`unshare -n`, via `support::run_in_netns`) whose only interface is `lo`, carrying the private
//! address 192.168.77.10 so a LAN-bound server has a LAN-like interface an mDNS daemon would
//! use, and nothing leaves the machine. There it starts the real binary bound to 0.0.0.0 and,
//! once ready and again after signed-in traffic, reads the process's own sockets: the socket
//! inodes behind `/proc/<pid>/fd` must match no UDP socket in `/proc/<pid>/net/udp{,6}` (the
//! server needs none; an mDNS responder is one on port 5353), and the namespace (which only this
//! server uses) must hold no multicast group beyond the kernel's all-hosts membership in
//! `/proc/net/igmp` and `/proc/net/igmp6` (no 224.0.0.251 or ff02::fb).

use std::collections::HashSet;
use std::time::Duration;

use support::Relay;

const NETNS_MARKER: &str = "RELAY_MULTICAST_NETNS_CHILD";
const INNER_TEST: &str = "serve_opens_no_udp_socket_and_joins_no_group_inside_the_namespace";
const LAN_ADDRESS: &str = "192.168.77.10";
const MDNS_PORT_HEX: &str = ":14E9";

/// The inodes of the sockets process `pid` holds open (`socket:[N]` links in `/proc/<pid>/fd`).
fn socket_inodes(pid: u32) -> HashSet<String> {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .unwrap()
        .filter_map(|fd| std::fs::read_link(fd.ok()?.path()).ok())
        .filter_map(|link| {
            let link = link.to_string_lossy().into_owned();
            Some(link.strip_prefix("socket:[")?.strip_suffix(']')?.to_string())
        })
        .collect()
}

/// `(local address, inode)` of every UDP socket in the process's network namespace.
fn udp_sockets(pid: u32) -> Vec<(String, String)> {
    ["udp", "udp6"]
        .iter()
        .flat_map(|table| {
            let text = std::fs::read_to_string(format!("/proc/{pid}/net/{table}")).unwrap_or_default();
            text.lines()
                .skip(1)
                .filter_map(|line| {
                    let cols: Vec<&str> = line.split_whitespace().collect();
                    Some((cols.get(1)?.to_string(), cols.get(9)?.to_string()))
                })
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The multicast groups joined in this namespace, from `/proc/net/igmp` (IPv4, hex, host order
/// reversed) and `/proc/net/igmp6`, minus the all-hosts groups every multicast-capable interface
/// joins on its own (224.0.0.1 = `010000E0`, ff02::1 / ff01::1).
fn joined_groups() -> Vec<String> {
    let igmp = std::fs::read_to_string("/proc/net/igmp").unwrap_or_default();
    let igmp6 = std::fs::read_to_string("/proc/net/igmp6").unwrap_or_default();
    let v4 = igmp.lines().filter(|l| l.starts_with('\t')).filter_map(|l| l.split_whitespace().next());
    let v6 = igmp6.lines().filter_map(|l| l.split_whitespace().nth(2));
    let all_hosts = ["010000E0", "ff020000000000000000000000000001", "ff010000000000000000000000000001"];
    v4.chain(v6).filter(|g| !all_hosts.contains(g)).map(str::to_string).collect()
}

fn assert_no_multicast(relay: &Relay, when: &str) {
    let pid = relay.pid().expect("the server runs");
    let mine = socket_inodes(pid);
    assert!(!mine.is_empty(), "{when}: the server holds its listening sockets, so the fd scan works");
    let udp: Vec<_> = udp_sockets(pid).into_iter().filter(|(_, inode)| mine.contains(inode)).collect();
    assert!(udp.is_empty(), "{when}: relay serve holds UDP sockets {udp:?}\n{}", relay.stderr());
    let mdns: Vec<_> = udp_sockets(pid).into_iter().filter(|(local, _)| local.ends_with(MDNS_PORT_HEX)).collect();
    assert!(mdns.is_empty(), "{when}: something in the namespace listens on 5353: {mdns:?}");
    assert_eq!(joined_groups(), Vec::<String>::new(), "{when}: multicast groups were joined");
}

#[test]
fn relay_serve_never_multicasts() {
    let inner_test = support::test_path(module_path!(), INNER_TEST);
    support::run_in_netns(NETNS_MARKER, LAN_ADDRESS, &inner_test, Duration::from_secs(90));
}

#[tokio::test]
#[ignore = "runs only inside the network namespace made by relay_serve_never_multicasts"]
async fn serve_opens_no_udp_socket_and_joins_no_group_inside_the_namespace() {
    support::assert_in_test_netns(NETNS_MARKER);
    let tmp = tempfile::tempdir().unwrap();
    let relay = Relay::start_bound(&tmp.path().join("data"), "0.0.0.0", &[]);
    assert_no_multicast(&relay, "once ready");

    // Signed-in traffic on loopback and on the LAN-like address, then time for any late start.
    let token = relay.token().await;
    relay.create(&token, "contacts", &support::sample("contacts")).await;
    let port = relay.base.rsplit(':').next().unwrap().to_string();
    let res = support::client().get(format!("http://{LAN_ADDRESS}:{port}/api/health")).send().await.unwrap();
    assert_eq!(res.status(), 200);
    every_subsystem_started(&relay, &token).await;
    assert_no_multicast(&relay, "after requests");
}

/// Waits (10 s at most) until no subsystem in the health snapshot is still `starting`: whatever
/// the server starts late has started by then.
async fn every_subsystem_started(relay: &Relay, token: &str) {
    for _ in 0..100 {
        let health = relay.get_json(token, "/api/relay/health").await;
        let actors = health["actors"].as_object().expect("the health snapshot lists the subsystems");
        if !actors.is_empty() && actors.values().all(|a| a["state"] != "starting") {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("a subsystem was still starting after 10 s");
}
