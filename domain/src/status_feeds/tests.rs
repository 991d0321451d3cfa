//! Tests of the provider catalogue, item bounds and snapshot hashing.

use super::*;

fn item(id: &str, pub_date: Option<i64>) -> StatusItem {
    StatusItem {
        id: id.into(),
        provider: ProviderId::Aws,
        title: "  Increased   error rates ".into(),
        description: "d".into(),
        pub_date,
        link: "https://example.com/x".into(),
        severity: Severity::Warning,
        affected_scopes: vec![],
    }
}

#[test]
fn catalogue_lists_every_provider_once_with_matching_ids() {
    assert_eq!(PROVIDERS.len(), 17);
    assert_eq!(PROVIDER_IDS.len(), PROVIDERS.len());
    for (info, wire) in PROVIDERS.iter().zip(PROVIDER_IDS) {
        assert_eq!(info.id.as_str(), *wire);
        assert_eq!(ProviderId::parse(wire), Some(info.id));
        assert!(info.status_page.starts_with("https://"), "{wire}");
        assert_eq!(serde_json::to_value(info.id).unwrap(), serde_json::json!(wire));
    }
    assert_eq!(ProviderId::parse("AWS"), None);
    assert_eq!(ProviderId::Anthropic.info().label, "Claude");
    assert!(ProviderId::Anthropic.info().x_handle.is_none() && ProviderId::Salesforce.info().x_handle.is_none());
}

#[test]
fn bounded_items_respect_every_limit() {
    let mut long = item(&"i".repeat(MAX_ID_CHARS + 10), None);
    long.title = "é".repeat(MAX_TITLE_CHARS + 5);
    long.description = "x".repeat(MAX_DESCRIPTION_CHARS * 2);
    long.affected_scopes = vec!["s".repeat(MAX_SCOPE_CHARS + 1); MAX_SCOPES + 3];
    long.link = "http://plain.example/".into();
    let b = long.bounded();
    assert_eq!(b.id.chars().count(), MAX_ID_CHARS);
    assert_eq!(b.title.chars().count(), MAX_TITLE_CHARS);
    assert_eq!(b.description.chars().count(), MAX_DESCRIPTION_CHARS);
    assert_eq!(b.affected_scopes.len(), MAX_SCOPES);
    assert!(b.affected_scopes.iter().all(|s| s.chars().count() == MAX_SCOPE_CHARS));
    assert_eq!(b.link, "", "only https links survive");
    assert_eq!(item("a", None).bounded().title, "Increased error rates");
}

#[test]
fn finalize_sorts_newest_first_dedupes_and_caps() {
    let mut items: Vec<StatusItem> =
        (0..(MAX_ITEMS_PER_PROVIDER as i64 + 10)).map(|n| item(&n.to_string(), Some(n))).collect();
    items.push(item("undated", None));
    items.push(item("5", Some(1_000_000)));
    let done = finalize_items(items);
    assert_eq!(done.len(), MAX_ITEMS_PER_PROVIDER);
    assert_eq!(done[0].id, "5");
    assert_eq!(done.iter().filter(|i| i.id == "5").count(), 1);
    assert!(done.windows(2).all(|w| w[0].pub_date >= w[1].pub_date));
}

#[test]
fn content_hash_changes_only_with_visible_content() {
    let a = ProviderSnapshot {
        provider: ProviderId::Aws,
        items: vec![item("a", Some(1))],
        error: None,
        last_success: Some(1),
    };
    let mut b = a.clone();
    b.last_success = Some(99);
    assert_eq!(a.content_hash(), b.content_hash(), "a newer poll with the same items writes nothing");
    b.error = Some("timeout".into());
    assert_ne!(a.content_hash(), b.content_hash());
    assert_eq!(a.content_hash().len(), 64);
}

#[test]
fn error_messages_are_one_bounded_line() {
    let m = feed_error_message(&format!("line one\nline two {}", "x".repeat(900)));
    assert!(!m.contains('\n'));
    assert_eq!(m.chars().count(), MAX_ERROR_CHARS);
}

#[test]
fn every_catalogue_link_passes_the_external_link_policy() {
    use crate::external_links::check_external_link;
    for p in PROVIDERS {
        assert!(check_external_link(p.status_page).is_ok(), "{}", p.status_page);
        if let Some(handle) = p.x_handle {
            let x = format!("https://x.com/{handle}");
            assert!(check_external_link(&x).is_ok(), "{x}");
        }
        if let Some(slug) = p.downdetector {
            let dd = format!("https://downdetector.com/status/{slug}/");
            assert!(check_external_link(&dd).is_ok(), "{dd}");
        }
    }
}
