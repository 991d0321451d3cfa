//! Tests of the `wiki.*` command names and payload parsing.

use super::*;
use crate::privileged_command::{CommandParseError, PrivilegedCommand};
use crate::roles::Capability;

fn parse(name: &str, payload: serde_json::Value) -> Result<PrivilegedCommand, CommandParseError> {
    PrivilegedCommand::parse(name, &payload)
}

/// One canonical payload per `wiki.*` command, in [`WikiCommand::NAMES`] order.
pub(crate) fn canonical() -> Vec<(&'static str, serde_json::Value)> {
    vec![
        ("wiki.library", serde_json::json!({})),
        ("wiki.category.create", serde_json::json!({"name": "Network"})),
        ("wiki.category.rename", serde_json::json!({"categoryId": "a", "name": "N", "revision": 3})),
        ("wiki.category.reorder", serde_json::json!({"categoryIds": ["a", "b"]})),
        ("wiki.category.delete", serde_json::json!({"categoryId": "a", "reassignTo": "b", "revision": 1})),
        ("wiki.upload.begin", serde_json::json!({"files": [{"fileName": "a.pdf", "byteSize": 10, "checksum": "ab"}]})),
        ("wiki.upload.status", serde_json::json!({})),
        (
            "wiki.upload.chunk",
            serde_json::json!({"uploadId": "u", "batchId": "b", "index": 0, "byteSize": 4, "checksum": "ab"}),
        ),
        ("wiki.upload.cancel", serde_json::json!({"batchId": "b"})),
        ("wiki.publish", serde_json::json!({"uploadId": "u", "title": "T", "categoryId": "c", "documentType": "sop"})),
        ("wiki.replace", serde_json::json!({"documentId": "d", "uploadId": "u", "revision": 2})),
        (
            "wiki.retitle",
            serde_json::json!({"documentId": "d", "title": "T", "categoryId": "c", "documentType": "sop", "revision": 2}),
        ),
        ("wiki.trash", serde_json::json!({"documentId": "d", "revision": 2})),
        ("wiki.restore", serde_json::json!({"documentId": "d", "revision": 2})),
        ("wiki.delete", serde_json::json!({"documentId": "d", "revision": 2, "reauthProof": "p"})),
    ]
}

#[test]
fn every_wiki_name_parses_to_its_variant_and_needs_wiki_manage() {
    let samples = canonical();
    assert_eq!(samples.len(), WikiCommand::NAMES.len());
    for (name, payload) in samples {
        let command = parse(name, payload).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(command.name(), name);
        assert_eq!(command.capability(), Capability::WikiManage, "{name}");
        assert!(!command.local_only(), "{name}: laptops publish too");
        assert!(!command.needs_authority_revision(), "{name}");
        assert_eq!(command.on_the_web(), name != "wiki.upload.chunk", "{name}: Relay Web publishes too");
    }
}

#[test]
fn payloads_are_strict() {
    let missing = parse("wiki.trash", serde_json::json!({"documentId": "d"}));
    assert_eq!(missing, Err(CommandParseError::MissingField("revision")));
    let extra = parse("wiki.trash", serde_json::json!({"documentId": "d", "revision": 1, "force": true}));
    assert_eq!(extra, Err(CommandParseError::UnknownField));
    let typed = parse("wiki.trash", serde_json::json!({"documentId": "d", "revision": "1"}));
    assert_eq!(typed, Err(CommandParseError::InvalidField));
    let file_extra = parse(
        "wiki.upload.begin",
        serde_json::json!({"files": [{"fileName": "a.pdf", "byteSize": 1, "checksum": "x", "path": "/etc"}]}),
    );
    assert_eq!(file_extra, Err(CommandParseError::UnknownField), "no source path ever reaches the server");
    for unknown in ["wiki", "wiki.", "wiki.Publish", "wiki.upload.chunks", "wiki.purge"] {
        assert_eq!(parse(unknown, serde_json::json!({})), Err(CommandParseError::UnknownCommand), "{unknown}");
    }
}

#[test]
fn only_deleting_needs_a_fresh_password() {
    let delete =
        parse("wiki.delete", serde_json::json!({"documentId": "d", "revision": 2, "reauthProof": "p"})).unwrap();
    assert!(delete.needs_fresh_password());
    assert_eq!(delete.reauth_proof(), Some("p"));
    let trash = parse("wiki.trash", serde_json::json!({"documentId": "d", "revision": 2})).unwrap();
    assert!(!trash.needs_fresh_password());
    assert_eq!(trash.reauth_proof(), None);
}
