//! Release-history parsing: kept and skipped releases, order and duplicates, bounds on titles
//! and bodies (a 20 KiB body cut on a character boundary), control characters, timestamps, the
//! HTTP facts and the cache round trip.

use serde_json::{json, Value};

use super::*;

fn release(tag: &str, body: &str) -> Value {
    json!({
        "tag_name": tag,
        "name": format!("Relay {tag}"),
        "draft": false,
        "prerelease": false,
        "published_at": "2026-03-01T10:00:02Z",
        "body": body,
        "html_url": "https://github.com/CrimsonSoul/Relay/releases/tag/x",
    })
}

fn versions(notes: &[ReleaseNote]) -> Vec<String> {
    notes.iter().map(|n| n.version.to_string()).collect()
}

fn facts(body: &[u8]) -> HttpFacts<'static> {
    HttpFacts {
        status: 200,
        content_type: Some("application/json; charset=utf-8"),
        content_length: Some(body.len() as u64),
        body_len: body.len() as u64,
    }
}

#[test]
fn drafts_prereleases_and_bad_tags_are_skipped_and_the_rest_sorted_newest_first() {
    let mut draft = release("v9.0.0", "draft");
    draft["draft"] = json!(true);
    let mut pre = release("v8.0.0", "pre");
    pre["prerelease"] = json!(true);
    let mut missing_flags = release("v7.0.0", "");
    missing_flags.as_object_mut().unwrap().remove("draft");
    let history = json!([
        release("v1.2.0", "a"),
        draft,
        pre,
        missing_flags,
        release("1.5.0", "no v"),
        release("v1.5.0-rc.1", "suffix"),
        release("v01.5.0", "leading zero"),
        release("V1.5.0", "capital"),
        "not an object",
        release("v1.10.0", "b"),
        release("v1.3.0", "c"),
    ]);
    let notes = parse_release_history(&history).unwrap();
    assert_eq!(versions(&notes), ["1.10.0", "1.3.0", "1.2.0"]);
    assert_eq!(notes[0].title, "Relay v1.10.0");
    assert_eq!(notes[0].published_at.as_deref(), Some("2026-03-01T10:00:02Z"));
    assert_eq!(notes[0].body, "b");
}

#[test]
fn duplicates_are_dropped_and_only_the_first_twenty_entries_are_used() {
    let notes = parse_release_history(&json!([release("v1.0.0", "first"), release("v1.0.0", "second")])).unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].body, "first");

    let many: Vec<Value> = (0..30).map(|i| release(&format!("v1.{i}.0"), "")).collect();
    let notes = parse_release_history(&Value::Array(many)).unwrap();
    assert_eq!(notes.len(), MAX_NOTES_RELEASES);
    assert_eq!(notes[0].version, Version::new(1, 19, 0));
    assert_eq!(notes[19].version, Version::new(1, 0, 0));
}

#[test]
fn anything_but_an_array_is_refused_with_a_typed_error() {
    for value in [json!({"tag_name": "v1.0.0"}), json!("x"), json!(null), json!(3)] {
        assert_eq!(parse_release_history(&value), Err(ReleaseNotesError::NotAList), "{value}");
    }
    assert_eq!(ReleaseNotesError::NotAList.code(), "release_history_not_a_list");
    assert_eq!(parse_release_history(&json!([])), Ok(vec![]));
}

#[test]
fn a_20_kib_body_is_cut_on_a_character_boundary_with_the_marker() {
    // 'é' is two bytes, so an odd cut point falls inside a character.
    let body = format!("x{}", "é".repeat(10 * 1024));
    assert!(body.len() > 20 * 1024);
    let cut = clean_body(&body);
    assert!(cut.len() <= MAX_NOTE_BODY_BYTES, "{}", cut.len());
    assert!(cut.len() >= MAX_NOTE_BODY_BYTES - TRUNCATED_MARKER.len() - 1);
    assert!(cut.ends_with("é\n\n…(truncated)"), "{}", &cut[cut.len() - 30..]);
    let exact = "a".repeat(MAX_NOTE_BODY_BYTES);
    assert_eq!(clean_body(&exact), exact, "a body at the limit is kept whole");
}

#[test]
fn control_characters_are_removed_and_line_endings_normalised() {
    let note =
        release_note_from_json(&release("v1.0.0", "## Fixes\r\n- a\u{0}b\u{1b}[31m\tc\rd\u{7f}\u{85}e\n")).unwrap();
    assert_eq!(note.body, "## Fixes\n- ab[31m\tcde\n");
    let mut named = release("v1.0.0", "");
    named["name"] = json!("  Relay\u{0}\n1.0  ");
    assert_eq!(release_note_from_json(&named).unwrap().title, "Relay  1.0");
    named["name"] = json!("x".repeat(500));
    assert_eq!(release_note_from_json(&named).unwrap().title.chars().count(), MAX_NOTE_TITLE_CHARS);
    named["name"] = json!("   ");
    assert_eq!(release_note_from_json(&named).unwrap().title, "v1.0.0", "no name: the tag");
}

#[test]
fn html_stays_text_and_is_never_unescaped() {
    let note = release_note_from_json(&release("v1.0.0", "<script>x</script> &amp; [a](javascript:x)")).unwrap();
    assert_eq!(note.body, "<script>x</script> &amp; [a](javascript:x)");
}

#[test]
fn published_at_is_kept_only_in_githubs_shape() {
    for good in ["2026-03-01T10:00:02Z", "2026-03-01T10:00:02.123Z", "2026-03-01T10:00:02+02:00"] {
        assert!(is_rfc3339(good), "{good}");
    }
    for bad in
        ["2026-03-01", "2026-03-01 10:00:02Z", "2026-03-01T10:00:02", "2026-03-01T10:00:02.Z", "x".repeat(30).as_str()]
    {
        assert!(!is_rfc3339(bad), "{bad}");
    }
    let mut odd = release("v1.0.0", "");
    odd["published_at"] = json!("yesterday");
    assert_eq!(release_note_from_json(&odd).unwrap().published_at, None);
    odd["published_at"] = json!(12);
    assert_eq!(release_note_from_json(&odd), None, "a wrong type is no release");
}

#[test]
fn the_http_facts_bound_the_answer() {
    let body = json!([release("v1.0.0", "a")]).to_string().into_bytes();
    assert_eq!(evaluate_release_history(&facts(&body), &body).unwrap().len(), 1);
    let big = MAX_HISTORY_JSON_BYTES + 1;
    let declared = HttpFacts { content_length: Some(big), ..facts(&body) };
    assert_eq!(evaluate_release_history(&declared, &body), Err(ReleaseNotesError::TooLarge));
    let html = HttpFacts { content_type: Some("text/html"), ..facts(&body) };
    assert_eq!(evaluate_release_history(&html, &body), Err(ReleaseNotesError::Http(DiscoveryError::NotJson)));
    let status = HttpFacts { status: 404, ..facts(&body) };
    assert!(matches!(evaluate_release_history(&status, &body), Err(ReleaseNotesError::Http(_))));
    assert_eq!(evaluate_release_history(&facts(b"[oops"), b"[oops"), Err(ReleaseNotesError::InvalidJson));
    // Larger than discovery's 64 KiB is fine for the history.
    let long: Vec<Value> = (0..10).map(|i| release(&format!("v1.{i}.0"), &"y".repeat(15_000))).collect();
    let body = Value::Array(long).to_string().into_bytes();
    assert!(body.len() as u64 > super::super::release::MAX_RELEASE_JSON_BYTES);
    assert_eq!(evaluate_release_history(&facts(&body), &body).unwrap().len(), 10);
}

#[test]
fn the_cache_round_trips_and_a_corrupt_one_is_refused() {
    let notes = parse_release_history(&json!([release("v1.3.0", "# a\n\nb"), release("v1.2.0", "")])).unwrap();
    let bytes = notes_cache_json(&notes, 1_800_000_000_000).to_string().into_bytes();
    assert_eq!(parse_notes_cache(&bytes), Ok((notes, 1_800_000_000_000)));
    for corrupt in [&b"{"[..], b"[]", b"{\"releases\": []}", b"{\"fetched_at_ms\": 1, \"releases\": {}}"] {
        assert_eq!(parse_notes_cache(corrupt), Err(ReleaseNotesError::CacheMalformed));
    }
}
