//! Import bodies read against the record count and per-record bounds: refused where the bound is
//! reached (whatever follows is never read), records kept as ranges of the body they came in.

use serde_json::json;

use super::*;

fn body_of(text: String) -> Bytes {
    Bytes::from(text.into_bytes())
}

/// `{"records": [<records>…` with `count` copies of `record`, then `tail`.
fn records_body(record: &str, count: usize, tail: &str) -> Bytes {
    let records = vec![record; count].join(",");
    body_of(format!("{{\"records\":[{records}{tail}"))
}

#[test]
fn records_are_kept_as_ranges_of_the_body_and_parsed_one_at_a_time() {
    let body =
        body_of(r#"{"note": {"x": [1, 2]}, "records": [{"name": "Ada"}, 3, {"deep": "a"}], "apply": true}"#.into());
    let read = read_import_body(body.clone()).unwrap();
    assert!(read.apply);
    assert_eq!(read.records.len(), 3);
    assert_eq!(read.records.text.as_ptr(), body.as_ptr(), "the records are the body, not a copy");
    let values: Vec<_> = read.records.values().collect();
    assert_eq!(values, vec![Ok(json!({"name": "Ada"})), Ok(json!(3)), Ok(json!({"deep": "a"}))]);
    assert!(!read_import_body(body_of(r#"{"records": []}"#.into())).unwrap().apply, "apply defaults to false");

    let too_deep = format!("{{\"records\": [{}{}]}}", "[".repeat(200), "]".repeat(200));
    let read = read_import_body(body_of(too_deep)).unwrap();
    let refused = read.records.values().next().unwrap().unwrap_err();
    assert!(refused.starts_with("The record could not be read: recursion limit exceeded"), "{refused}");

    let given = vec![json!({"name": "Ada"}), json!({"name": "Bob"})];
    let from_values = RawRecords::from_values(&given);
    assert_eq!(from_values.values().collect::<Vec<_>>(), given.into_iter().map(Ok).collect::<Vec<_>>());
}

#[test]
fn the_record_past_the_count_is_refused_where_it_is_reached() {
    let at_limit = records_body("{}", MAX_IMPORT_RECORDS, "]}");
    assert_eq!(read_import_body(at_limit).unwrap().records.len(), MAX_IMPORT_RECORDS);
    // Broken JSON after the 10,001st record: refused for the count, so never read that far.
    let over = records_body("{}", MAX_IMPORT_RECORDS + 1, ", this is never read");
    let refused = read_import_body(over).unwrap_err();
    assert_eq!(refused, ImportError::TooManyRecords);
    assert_eq!(refused.to_string(), "At most 10000 records can be imported at once.");
}

#[test]
fn a_record_over_the_byte_bound_is_refused_with_its_row() {
    let padded = |bytes: usize| format!("{{\"name\":\"{}\"}}", "a".repeat(bytes - 11));
    assert_eq!(padded(MAX_IMPORT_RECORD_BYTES).len(), MAX_IMPORT_RECORD_BYTES);
    let fits = body_of(format!("{{\"records\":[{{}},{}]}}", padded(MAX_IMPORT_RECORD_BYTES)));
    assert_eq!(read_import_body(fits).unwrap().records.len(), 2);
    let over = body_of(format!("{{\"records\":[{{}},{}, this is never read", padded(MAX_IMPORT_RECORD_BYTES + 1)));
    assert_eq!(read_import_body(over), Err(ImportError::RecordTooLarge { row: 2 }));
}

#[test]
fn what_is_not_an_import_body_is_malformed() {
    for text in [
        "not json",
        "[]",
        r#"{"apply": true}"#,
        r#"{"records": {"name": "Ada"}}"#,
        r#"{"records": [{}], "records": [{}]}"#,
        r#"{"records": [{}], "apply": "yes"}"#,
        r#"{"records": [{}]} trailing"#,
        r#"{"records": [{"name": "unterminated}]}"#,
    ] {
        assert_eq!(read_import_body(body_of(text.into())), Err(ImportError::Malformed), "{text}");
    }
}
