//! Category rules: name normalization (trim, collapse, length in characters, control
//! characters refused), the lowercase key, the undeletable `uncategorized` category, and the
//! document types with their stored values and labels, and a property that normalization is
//! idempotent.

use super::*;
use crate::problem::HttpProblem;
use proptest::prelude::*;

#[test]
fn names_are_trimmed_and_inner_whitespace_collapsed() {
    let name = normalize_category_name("  Network   Runbooks \u{00a0} EMEA ").unwrap();
    assert_eq!(name.name, "Network Runbooks EMEA");
    assert_eq!(name.key, "network runbooks emea");
    assert_eq!(normalize_category_name("ÉQUIPE Straße").unwrap().key, "équipe straße");
}

#[test]
fn names_differing_only_in_case_or_spacing_share_a_key() {
    let a = normalize_category_name("On-Call  Guides").unwrap();
    let b = normalize_category_name(" on-call guides").unwrap();
    assert_ne!(a.name, b.name);
    assert_eq!(a.key, b.key);
}

#[test]
fn empty_names_are_refused() {
    for raw in ["", "   ", "\u{3000}\u{00a0}"] {
        assert_eq!(normalize_category_name(raw), Err(CategoryError::EmptyName), "{raw:?}");
    }
}

#[test]
fn the_length_bound_counts_characters_after_normalization() {
    assert!(normalize_category_name(&"é".repeat(120)).is_ok());
    assert_eq!(normalize_category_name(&"é".repeat(121)), Err(CategoryError::NameTooLong));
    let padded = format!("  {}  ", "a".repeat(120));
    assert!(normalize_category_name(&padded).is_ok());
    let collapses_to_120 = format!("{}     {}", "a".repeat(60), "b".repeat(59));
    assert_eq!(normalize_category_name(&collapses_to_120).unwrap().name.chars().count(), 120);
}

#[test]
fn control_characters_and_line_breaks_are_refused() {
    for raw in ["a\tb", "a\nb", "a\rb", "a\u{0}b", "a\u{7f}b", "a\u{85}b", "a\u{2028}b", "a\u{2029}b", "trailing\n"] {
        assert_eq!(normalize_category_name(raw), Err(CategoryError::InvalidName), "{raw:?}");
    }
}

#[test]
fn only_user_categories_may_be_deleted() {
    assert!(can_delete(""));
    assert!(!can_delete(UNCATEGORIZED_KEY));
    assert!(!can_delete("some-future-system-key"));
    assert_eq!(check_delete(""), Ok(()));
    assert_eq!(check_delete("uncategorized"), Err(CategoryError::SystemCategory));
}

#[test]
fn document_types_round_trip_with_their_labels() {
    assert_eq!(DocumentType::ALL.len(), 2);
    for (kind, value, label) in
        [(DocumentType::Sop, "sop", "SOP Manual"), (DocumentType::Cheatsheet, "cheatsheet", "Quick Guide")]
    {
        assert_eq!(DocumentType::parse(value), Some(kind));
        assert_eq!(kind.as_str(), value);
        assert_eq!(kind.label(), label);
    }
    for unknown in ["", "SOP", "Sop", "manual", "cheat-sheet", " sop"] {
        assert_eq!(DocumentType::parse(unknown), None, "{unknown:?}");
    }
}

#[test]
fn errors_have_stable_codes_and_do_not_echo_the_name() {
    for (error, code) in [
        (CategoryError::EmptyName, "empty_category_name"),
        (CategoryError::NameTooLong, "category_name_too_long"),
        (CategoryError::InvalidName, "invalid_category_name"),
        (CategoryError::SystemCategory, "system_category"),
    ] {
        assert_eq!(error.code(), code);
        assert_eq!(HttpProblem::code(&error), code);
        assert_eq!(HttpProblem::status(&error), 400);
    }
    let refused = normalize_category_name(&format!("Secret{}", "x".repeat(200))).unwrap_err();
    assert!(!refused.to_string().contains("Secret"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn normalization_is_idempotent(raw in "\\PC{0,160}") {
        if let Ok(name) = normalize_category_name(&raw) {
            prop_assert_eq!(normalize_category_name(&name.name), Ok(name.clone()));
            prop_assert_eq!(name.key.clone(), name.name.to_lowercase());
            prop_assert!(!name.name.starts_with(' ') && !name.name.ends_with(' ') && !name.name.contains("  "));
        }
    }
}
