//! Tests of the collection descriptors: the allowlist, SQL-safe names, write and read rules.

use super::*;

#[test]
fn allowlist_contains_exactly_the_managed_collections() {
    assert_eq!(MANAGED.len(), 22);
    assert!(collection("contacts").is_some());
    for name in ["users", "_superusers", "sqlite_master", "relay_meta", "Contacts", ""] {
        assert!(collection(name).is_none(), "{name}");
    }
}

#[test]
fn names_and_ids_are_unique_and_sql_safe() {
    let ident = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    let mut names: Vec<&str> = MANAGED.iter().map(|c| c.name).collect();
    let mut ids: Vec<&str> = MANAGED.iter().map(|c| c.id).collect();
    names.sort();
    names.dedup();
    ids.sort();
    ids.dedup();
    assert_eq!(names.len(), MANAGED.len());
    assert_eq!(ids.len(), MANAGED.len());
    for c in MANAGED {
        assert!(ident(c.name));
        for f in c.fields {
            assert!(ident(f.name), "{}.{}", c.name, f.name);
            assert!(!SYSTEM_FIELDS.contains(&f.name));
        }
        for u in c.unique {
            assert!(c.field(u).is_some());
        }
    }
}

#[test]
fn write_rules_permit_exactly_their_operations() {
    use WriteOp::*;
    let table = [
        (Writes::Clients, [true, true, true]),
        (Writes::CreateUpdate, [true, true, false]),
        (Writes::AppendOnly, [true, false, false]),
        (Writes::ServerOnly, [false, false, false]),
    ];
    for (writes, expected) in table {
        assert_eq!([Create, Update, Delete].map(|op| writes.permits(op)), expected, "{writes:?}");
    }
    assert_eq!(DYNATRACE_PROBLEM_STATES.writes, Writes::CreateUpdate);
    assert_eq!(DYNATRACE_PROBLEM_NOTES.writes, Writes::AppendOnly);
    assert_eq!(DYNATRACE_PROBLEMS.writes, Writes::ServerOnly);
}

#[test]
fn queryable_fields_include_system_fields_only_for_declared_collections() {
    assert!(CONTACTS.is_queryable("created"));
    assert!(CONTACTS.is_queryable("email"));
    assert!(!CONTACTS.is_queryable("password"));
    assert!(!CONTACTS.is_queryable("rowid"));
}

#[test]
fn only_active_wiki_documents_are_readable() {
    let active = serde_json::json!({"id": "a", "lifecycleState": "active"});
    let trashed = serde_json::json!({"id": "b", "lifecycleState": "trashed"});
    let missing = serde_json::json!({"id": "c"});
    assert!(WIKI_DOCUMENTS.reads.admits(&active));
    assert!(!WIKI_DOCUMENTS.reads.admits(&trashed));
    assert!(!WIKI_DOCUMENTS.reads.admits(&missing));
    assert!(WIKI_CATEGORIES.reads.admits(&trashed), "categories have no read rule");
    assert_eq!(WIKI_DOCUMENTS.writes, Writes::ServerOnly);
    assert_eq!(WIKI_CATEGORIES.writes, Writes::ServerOnly);
    for c in MANAGED {
        if let Reads::FieldEquals { field, .. } = c.reads {
            assert!(c.field(field).is_some(), "{}: read rule on an undeclared field", c.name);
        }
    }
}
