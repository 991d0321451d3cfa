//! Presence rules: presence ids are per session and never the tab id, and the registry's bounds
//! (per session, per source, in all) refuse new tabs while every row in scope is active and let
//! idle rows give their place; forgotten rows free theirs.

use std::net::IpAddr;

use super::*;

const A: &str = "session-a";
const B: &str = "session-b";

fn ip(last: u8) -> Option<IpAddr> {
    Some(IpAddr::from([10, 0, 0, last]))
}

fn limits(per_session: usize, per_source: usize, total: usize) -> PresenceLimits {
    PresenceLimits { per_session, per_source, total, idle_after_ms: 45_000 }
}

#[test]
fn a_presence_id_belongs_to_one_session_and_hides_the_tab_id() {
    let id = presence_id(A, "tab-1");
    assert_eq!(id, presence_id(A, "tab-1"), "stable for the tab");
    assert_eq!(id.len(), 32);
    assert!(!id.contains("tab-1"));
    assert_ne!(presence_id(B, "tab-1"), id, "another session's heartbeat with the same tab id");
    assert_ne!(presence_id(B, &id), id, "or with the presence id itself, read from the list");
    assert_ne!(presence_id(A, "tab-2"), id);
}

#[test]
fn tab_ids_are_trimmed_and_bounded() {
    assert_eq!(checked_tab_id("  tab-1 "), Some("tab-1"));
    assert_eq!(checked_tab_id(&"x".repeat(MAX_TAB_ID_LEN)).map(str::len), Some(MAX_TAB_ID_LEN));
    for bad in ["", "   ", "a\nb", "a\u{7}b", &"x".repeat(MAX_TAB_ID_LEN + 1)] {
        assert_eq!(checked_tab_id(bad), None, "{bad:?}");
    }
}

#[test]
fn a_session_holds_at_most_its_cap_of_active_tabs() {
    let mut registry = PresenceRegistry::new(limits(8, 32, 1_000));
    for tab in 0..8 {
        assert_eq!(registry.admit(&presence_id(A, &format!("t{tab}")), A, ip(1), 0), Ok(vec![]));
    }
    for tab in 8..2_000 {
        let refused = registry.admit(&presence_id(A, &format!("t{tab}")), A, ip(1), 1_000);
        assert_eq!(refused, Err(PresenceLimit::PerSession(8)), "tab {tab}");
    }
    assert_eq!(registry.len(), 8);
    assert_eq!(registry.admit(&presence_id(A, "t3"), A, ip(1), 2_000), Ok(vec![]), "a known tab still beats");
    assert_eq!(registry.admit(&presence_id(B, "t9"), B, ip(2), 2_000), Ok(vec![]), "other sessions unaffected");
    assert_eq!(registry.len(), 9);
}

#[test]
fn an_idle_tab_gives_its_place_to_a_new_one_least_recently_seen_first() {
    let mut registry = PresenceRegistry::new(limits(2, 32, 1_000));
    let (first, second, third) = (presence_id(A, "t1"), presence_id(A, "t2"), presence_id(A, "t3"));
    registry.admit(&first, A, ip(1), 0).unwrap();
    registry.admit(&second, A, ip(1), 10_000).unwrap();
    assert_eq!(registry.admit(&third, A, ip(1), 45_000), Err(PresenceLimit::PerSession(2)), "both still active");
    assert_eq!(registry.admit(&third, A, ip(1), 45_001), Ok(vec![first.clone()]), "the first went idle");
    assert_eq!(registry.len(), 2);
    assert_eq!(registry.admit(&first, A, ip(1), 45_002), Err(PresenceLimit::PerSession(2)), "now it is new again");
}

#[test]
fn a_source_address_and_the_whole_registry_are_bounded_too() {
    let mut registry = PresenceRegistry::new(limits(8, 3, 5));
    for (n, session) in ["s1", "s2", "s3"].into_iter().enumerate() {
        registry.admit(&presence_id(session, "tab"), session, ip(1), n as i64).unwrap();
    }
    let refused = registry.admit(&presence_id("s4", "tab"), "s4", ip(1), 10);
    assert_eq!(refused, Err(PresenceLimit::PerSource(3)), "new sessions from one address");
    registry.admit(&presence_id("s5", "tab"), "s5", ip(2), 10).unwrap();
    registry.admit(&presence_id("s6", "tab"), "s6", ip(3), 10).unwrap();
    let refused = registry.admit(&presence_id("s7", "tab"), "s7", ip(4), 10);
    assert_eq!(refused, Err(PresenceLimit::Total(5)));
    assert_eq!(registry.len(), 5, "a refusal changes nothing");
    let admitted = registry.admit(&presence_id("s7", "tab"), "s7", ip(4), 50_000).unwrap();
    assert_eq!(admitted, vec![presence_id("s1", "tab")], "the least recently seen idle row anywhere");
}

#[test]
fn forgotten_rows_free_their_place() {
    let mut registry = PresenceRegistry::new(limits(1, 32, 1_000));
    registry.admit(&presence_id(A, "t1"), A, ip(1), 0).unwrap();
    registry.admit(&presence_id(B, "t1"), B, ip(1), 500_000).unwrap();
    assert_eq!(registry.forget_unseen_since(400_000), 1);
    assert_eq!(registry.len(), 1);
    assert_eq!(registry.admit(&presence_id(A, "t2"), A, ip(1), 500_001), Ok(vec![]));
}
