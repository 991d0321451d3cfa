//! Realtime subscription topics: `collection/*` or `collection/<recordId>`, optionally followed
//! by the SDK's `?options=...` suffix, which is kept in the event name but ignored for matching.
//! Lists are bounded and each topic must be well formed (length, no control characters,
//! `name/*` or `name/<recordId>`); a list holding one malformed topic is refused whole. A
//! well-formed topic naming a collection Relay does not manage is ignored, as PocketBase does,
//! so the rest of the list still applies; it is counted, never echoed. Repeated topics are kept
//! once (PocketBase keys subscriptions by topic), so a client cannot multiply deliveries.

use domain::record::RecordError;
use domain::validation::is_record_id;

pub const MAX_SUBSCRIPTIONS: usize = 100;
pub const MAX_TOPIC_LEN: usize = 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    /// The subscription exactly as the client sent it; used as the SSE event name.
    pub raw: String,
    pub collection: &'static str,
    /// `None` for `*`.
    pub record_id: Option<String>,
}

impl Subscription {
    pub fn matches(&self, collection: &str, id: &str) -> bool {
        self.collection == collection && self.record_id.as_deref().is_none_or(|r| r == id)
    }
}

/// One topic: `Err(())` when malformed, `Ok(None)` when well formed but naming a collection
/// Relay does not manage.
fn parse_one(raw: &str) -> Result<Option<Subscription>, ()> {
    if raw.len() > MAX_TOPIC_LEN || raw.chars().any(|c| c.is_control()) {
        return Err(());
    }
    let topic = raw.split_once('?').map_or(raw, |(t, _)| t);
    let (collection, target) = topic.split_once('/').ok_or(())?;
    let record_id = match target {
        "*" => None,
        id if is_record_id(id) => Some(id.to_string()),
        _ => return Err(()),
    };
    if collection.is_empty() {
        return Err(());
    }
    Ok(domain::collections::collection(collection).map(|spec| Subscription {
        raw: raw.to_string(),
        collection: spec.name,
        record_id,
    }))
}

/// A validated subscription list: the distinct managed topics, in first-seen order, and how
/// many well-formed topics were ignored because they name no managed collection.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ParsedSubscriptions {
    pub subscriptions: Vec<Subscription>,
    pub ignored_unknown: usize,
}

/// Validates a client's full subscription list (see the module doc for what is refused, what
/// is ignored and what is merged).
pub fn parse_subscriptions(raw: &[String]) -> Result<ParsedSubscriptions, RecordError> {
    if raw.len() > MAX_SUBSCRIPTIONS {
        return Err(RecordError::BadRequest(format!("At most {MAX_SUBSCRIPTIONS} subscriptions are allowed.")));
    }
    let mut parsed = ParsedSubscriptions::default();
    for r in raw {
        match parse_one(r).map_err(|()| RecordError::BadRequest("Invalid subscription topic.".into()))? {
            Some(sub) if parsed.subscriptions.iter().any(|s| s.raw == sub.raw) => {}
            Some(sub) => parsed.subscriptions.push(sub),
            None => parsed.ignored_unknown += 1,
        }
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_collection_and_record_topics() {
        let subs = parse_subscriptions(&[
            "contacts/*".into(),
            "servers/abcdefghij12345".into(),
            "notes/*?options=%7B%7D".into(),
        ])
        .unwrap()
        .subscriptions;
        assert!(subs[0].matches("contacts", "anything1234567"));
        assert!(!subs[0].matches("servers", "x"));
        assert!(subs[1].matches("servers", "abcdefghij12345"));
        assert!(!subs[1].matches("servers", "zzzzzzzzzzzzzzz"));
        assert_eq!(subs[2].raw, "notes/*?options=%7B%7D");
        assert!(subs[2].matches("notes", "x"));
    }

    #[test]
    fn unknown_collections_are_ignored_and_the_rest_kept() {
        let raw: Vec<String> =
            ["contacts/*", "nosuch/*", "users/*", "_superusers/*", "sqlite_master/*"].map(String::from).into();
        let parsed = parse_subscriptions(&raw).unwrap();
        assert_eq!(parsed.subscriptions.iter().map(|s| s.raw.as_str()).collect::<Vec<_>>(), ["contacts/*"]);
        assert_eq!(parsed.ignored_unknown, 4);
    }

    #[test]
    fn repeated_topics_are_kept_once() {
        let mut raw: Vec<String> = (0..MAX_SUBSCRIPTIONS - 1).map(|_| "alert_history/*".to_string()).collect();
        raw.push("alert_history/*?options=%7B%7D".into());
        let subs = parse_subscriptions(&raw).unwrap().subscriptions;
        assert_eq!(
            subs.iter().map(|s| s.raw.as_str()).collect::<Vec<_>>(),
            ["alert_history/*", "alert_history/*?options=%7B%7D"]
        );
    }

    #[test]
    fn rejects_malformed_topics_and_oversized_lists() {
        for bad in ["contacts", "contacts/", "contacts/../x", "contacts/*\n", "/*", "nosuch/../x"] {
            let with_good = vec!["contacts/*".to_string(), bad.to_string()];
            assert!(parse_subscriptions(&with_good).is_err(), "{bad}");
        }
        assert!(parse_subscriptions(&["x".repeat(MAX_TOPIC_LEN + 1)]).is_err());
        let many: Vec<String> = (0..=MAX_SUBSCRIPTIONS).map(|_| "contacts/*".to_string()).collect();
        assert!(parse_subscriptions(&many).is_err());
        assert!(parse_subscriptions(&[]).unwrap().subscriptions.is_empty());
    }
}
