//! Realtime subscription topics: `collection/*` or `collection/<recordId>`, optionally followed
//! by the SDK's `?options=...` suffix, which is kept in the event name but ignored for matching.
//! Only managed collections can be subscribed to, and lists are bounded.

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

fn parse_one(raw: &str) -> Option<Subscription> {
    if raw.len() > MAX_TOPIC_LEN || raw.chars().any(|c| c.is_control()) {
        return None;
    }
    let topic = raw.split_once('?').map_or(raw, |(t, _)| t);
    let (collection, target) = topic.split_once('/')?;
    let spec = domain::collections::collection(collection)?;
    let record_id = match target {
        "*" => None,
        id if is_record_id(id) => Some(id.to_string()),
        _ => return None,
    };
    Some(Subscription { raw: raw.to_string(), collection: spec.name, record_id })
}

/// Validates a client's full subscription list.
pub fn parse_subscriptions(raw: &[String]) -> Result<Vec<Subscription>, RecordError> {
    if raw.len() > MAX_SUBSCRIPTIONS {
        return Err(RecordError::BadRequest(format!("At most {MAX_SUBSCRIPTIONS} subscriptions are allowed.")));
    }
    raw.iter()
        .map(|r| parse_one(r).ok_or_else(|| RecordError::BadRequest("Invalid subscription topic.".into())))
        .collect()
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
        .unwrap();
        assert!(subs[0].matches("contacts", "anything1234567"));
        assert!(!subs[0].matches("servers", "x"));
        assert!(subs[1].matches("servers", "abcdefghij12345"));
        assert!(!subs[1].matches("servers", "zzzzzzzzzzzzzzz"));
        assert_eq!(subs[2].raw, "notes/*?options=%7B%7D");
        assert!(subs[2].matches("notes", "x"));
    }

    #[test]
    fn rejects_unknown_collections_bad_ids_and_oversized_lists() {
        for bad in
            ["users/*", "contacts", "contacts/", "contacts/../x", "contacts/*\n", "_superusers/*", "sqlite_master/*"]
        {
            assert!(parse_subscriptions(&[bad.to_string()]).is_err(), "{bad}");
        }
        let many: Vec<String> = (0..=MAX_SUBSCRIPTIONS).map(|_| "contacts/*".to_string()).collect();
        assert!(parse_subscriptions(&many).is_err());
        assert!(parse_subscriptions(&[]).unwrap().is_empty());
    }
}
