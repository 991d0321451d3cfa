//! Problem normalization rules: a realistic Grail record end to end (down to the stored
//! record), status and end-time rules, the severity and impact mappings, timestamps in every
//! unit and RFC 3339, entity merging with its bounds, alerting profiles, text cleaning, and the
//! records that are refused.

use super::*;
use serde_json::json;

const START_MS: i64 = 1_733_047_200_123; // 2024-12-01 10:00:00.123Z

fn grail_record() -> Value {
    json!({
        "problemId": "-5811985547658430000_1733047200000V2",
        "displayId": "P-24121234",
        "title": "High failure rate\non checkout-service",
        "status": "ACTIVE",
        "severity": "ERROR",
        "impactLevel": ["SERVICES"],
        "startTime": "2024-12-01T10:00:00.123456789Z",
        "endTime": "2024-12-01T10:30:00.000000000Z",
        "rootCause": "SERVICE-5A3C1F2B9E0D4C7A",
        "rootCauseEntityName": "checkout-service",
        "affectedEntities": [
            { "id": "SERVICE-5A3C1F2B9E0D4C7A", "type": "dt.entity.service", "name": "checkout-service" },
            "PROCESS_GROUP_INSTANCE-1B2C3D4E5F607182"
        ],
        "affectedEntityIds": ["SERVICE-5A3C1F2B9E0D4C7A", "PROCESS_GROUP_INSTANCE-1B2C3D4E5F607182", "HOST-99"],
        "affectedEntityNames": ["checkout (classic)", "checkout-pgi", "web-01"],
        "affectedEntityTypes": ["SERVICE", "PROCESS_GROUP_INSTANCE", "HOST"],
        "relatedEntities": ["HOST-42"],
        "alertingProfiles": ["NOC", "Checkout team", "NOC"]
    })
}

fn with(field: &str, value: Value) -> Value {
    let mut record = grail_record();
    record[field] = value;
    record
}

#[test]
fn a_realistic_grail_record_normalizes_and_becomes_the_stored_record() {
    let problem = normalize_problem(&grail_record()).unwrap();
    assert_eq!(
        problem,
        Problem {
            problem_id: "-5811985547658430000_1733047200000V2".into(),
            display_id: "P-24121234".into(),
            title: "High failure rate on checkout-service".into(),
            status: ProblemStatus::Open,
            severity: Severity::Error,
            impact_level: ImpactLevel::Services,
            start_ms: START_MS,
            end_ms: None,
            root_cause_id: "SERVICE-5A3C1F2B9E0D4C7A".into(),
            root_cause_name: "checkout-service".into(),
            affected_entities: vec![
                EntityRef {
                    id: "SERVICE-5A3C1F2B9E0D4C7A".into(),
                    r#type: "dt.entity.service".into(),
                    name: "checkout-service".into()
                },
                EntityRef {
                    id: "PROCESS_GROUP_INSTANCE-1B2C3D4E5F607182".into(),
                    r#type: "PROCESS_GROUP_INSTANCE".into(),
                    name: "checkout-pgi".into()
                },
                EntityRef { id: "HOST-99".into(), r#type: "HOST".into(), name: "web-01".into() },
            ],
            alerting_profiles: vec!["NOC".into(), "Checkout team".into()],
        }
    );
    let record = problem.to_record("https://abc12345.apps.dynatrace.com", 1_733_050_000_000);
    assert_eq!(
        record,
        json!({
            "problemId": "-5811985547658430000_1733047200000V2",
            "displayId": "P-24121234",
            "title": "High failure rate on checkout-service",
            "status": "OPEN",
            "severity": "ERROR",
            "impactLevel": "SERVICES",
            "startTime": "2024-12-01 10:00:00.123Z",
            "endTime": "",
            "rootCauseId": "SERVICE-5A3C1F2B9E0D4C7A",
            "rootCauseName": "checkout-service",
            "affectedEntities": [
                { "id": "SERVICE-5A3C1F2B9E0D4C7A", "type": "dt.entity.service", "name": "checkout-service" },
                { "id": "PROCESS_GROUP_INSTANCE-1B2C3D4E5F607182", "type": "PROCESS_GROUP_INSTANCE", "name": "checkout-pgi" },
                { "id": "HOST-99", "type": "HOST", "name": "web-01" }
            ],
            "alertingProfiles": ["NOC", "Checkout team"],
            "environmentUrl": "https://abc12345.apps.dynatrace.com",
            "syncedAt": "2024-12-01 10:46:40.000Z"
        })
    );
    assert!(record.get("emailSubject").is_none() && record.get("emailSubjectStatus").is_none());
}

#[test]
fn closed_problems_keep_their_end_and_open_ones_never_have_one() {
    let closed = normalize_problem(&with("status", json!("CLOSED"))).unwrap();
    assert_eq!((closed.status, closed.end_ms), (ProblemStatus::Closed, Some(START_MS - 123 + 30 * 60_000)));
    assert_eq!(closed.to_record("u", 0)["endTime"], json!("2024-12-01 10:30:00.000Z"));
    for end in [json!(-1), json!(null), json!("-1"), json!(0)] {
        let mut record = with("status", json!("CLOSED"));
        record["endTime"] = end.clone();
        let problem = normalize_problem(&record).unwrap();
        assert_eq!(problem.end_ms, None, "a closed problem without an end keeps none: {end}");
        assert_eq!(problem.to_record("u", 0)["endTime"], json!(""));
    }
    let mut no_end = with("status", json!("CLOSED"));
    no_end.as_object_mut().unwrap().remove("endTime");
    assert_eq!(normalize_problem(&no_end).unwrap().end_ms, None);
    for open in ["ACTIVE", "active", " OPEN "] {
        let problem = normalize_problem(&with("status", json!(open))).unwrap();
        assert_eq!((problem.status, problem.end_ms), (ProblemStatus::Open, None), "{open}");
    }
    for closed in ["CLOSED", "RESOLVED", ""] {
        assert_eq!(normalize_problem(&with("status", json!(closed))).unwrap().status, ProblemStatus::Closed);
    }
    let mut no_status = grail_record();
    no_status.as_object_mut().unwrap().remove("status");
    assert_eq!(normalize_problem(&no_status).unwrap().status, ProblemStatus::Closed);
}

#[test]
fn severities_map_to_the_seven_relay_values() {
    for (raw, severity) in [
        ("AVAILABILITY", Severity::Availability),
        ("ERROR", Severity::Error),
        ("SLOWDOWN", Severity::Performance),
        ("PERFORMANCE", Severity::Performance),
        ("RESOURCE_CONTENTION", Severity::ResourceContention),
        ("CUSTOM_ALERT", Severity::CustomAlert),
        ("MONITORING_UNAVAILABLE", Severity::MonitoringUnavailable),
        ("INFO", Severity::Info),
        ("slowdown", Severity::Performance),
        ("SOMETHING_NEW", Severity::Info),
        ("", Severity::Info),
    ] {
        assert_eq!(normalize_problem(&with("severity", json!(raw))).unwrap().severity, severity, "{raw}");
    }
    assert_eq!(normalize_problem(&with("severity", json!(null))).unwrap().severity, Severity::Info);
    let names: Vec<&str> = [
        Severity::Availability,
        Severity::CustomAlert,
        Severity::Error,
        Severity::Info,
        Severity::MonitoringUnavailable,
        Severity::Performance,
        Severity::ResourceContention,
    ]
    .iter()
    .map(|s| s.as_str())
    .collect();
    assert_eq!(
        names,
        [
            "AVAILABILITY",
            "CUSTOM_ALERT",
            "ERROR",
            "INFO",
            "MONITORING_UNAVAILABLE",
            "PERFORMANCE",
            "RESOURCE_CONTENTION"
        ]
    );
}

#[test]
fn impact_level_is_the_first_value_when_known_else_environment() {
    for (raw, level) in [
        (json!("APPLICATION"), ImpactLevel::Application),
        (json!(["INFRASTRUCTURE", "SERVICES"]), ImpactLevel::Infrastructure),
        (json!("services"), ImpactLevel::Services),
        (json!(["SYNTHETIC"]), ImpactLevel::Environment),
        (json!(["ENVIRONMENT", "SERVICES"]), ImpactLevel::Environment),
        (json!([]), ImpactLevel::Environment),
        (json!(null), ImpactLevel::Environment),
        (json!(3), ImpactLevel::Environment),
    ] {
        assert_eq!(normalize_problem(&with("impactLevel", raw.clone())).unwrap().impact_level, level, "{raw}");
    }
    assert_eq!(ImpactLevel::Environment.as_str(), "ENVIRONMENT");
}

#[test]
fn timestamps_are_read_in_every_unit_and_rfc3339() {
    let ms = 1_733_047_200_123_i64;
    for (raw, expected) in [
        (json!(1_733_047_200), Some(ms - 123)),
        (json!(1_733_047_200.123), Some(ms)),
        (json!(ms), Some(ms)),
        (json!(ms * 1_000 + 456), Some(ms)),
        (json!(ms * 1_000_000 + 456_789), Some(ms)),
        (json!("1733047200123"), Some(ms)),
        (json!(" 1733047200123456789 "), Some(ms)),
        (json!("1733047200"), Some(ms - 123)),
        (json!("2024-12-01T10:00:00.123456789Z"), Some(ms)),
        (json!("2024-12-01T11:00:00.123+01:00"), Some(ms)),
        (json!("2024-12-01 10:00:00.123Z"), Some(ms)),
        (json!(-1), None),
        (json!("-1"), None),
        (json!(0), None),
        (json!(""), None),
        (json!("soon"), None),
        (json!("1.2.3"), None),
        (json!("NaN"), None),
        (json!("inf"), None),
        (json!(true), None),
        (json!(null), None),
        (json!([ms]), None),
        (json!(1e30), None),
    ] {
        assert_eq!(timestamp_ms(&raw), expected, "{raw}");
    }
}

#[test]
fn entities_merge_by_id_with_names_defaulting_to_the_id() {
    let record = json!({
        "problemId": "p", "startTime": START_MS,
        "affectedEntities": [
            "HOST-1",
            { "id": "HOST-1", "name": "web-1" },
            { "entityId": "SERVICE-2", "entityType": "SERVICE" },
            { "type": "no id" },
            ""
        ],
        "affectedEntityIds": "HOST-3",
        "affectedEntityNames": [],
        "affectedEntityTypes": "HOST"
    });
    let entities = normalize_problem(&record).unwrap().affected_entities;
    let triples: Vec<(&str, &str, &str)> =
        entities.iter().map(|e| (e.id.as_str(), e.r#type.as_str(), e.name.as_str())).collect();
    assert_eq!(triples, [("HOST-1", "", "web-1"), ("SERVICE-2", "SERVICE", "SERVICE-2"), ("HOST-3", "HOST", "HOST-3")]);
}

#[test]
fn entities_and_profiles_are_bounded() {
    let ids: Vec<String> = (0..150).map(|i| format!("HOST-{i}")).collect();
    let long = "é".repeat(600);
    let record = json!({
        "problemId": "p", "startTime": START_MS,
        "affectedEntities": [{ "id": long, "type": long, "name": format!("a\u{0}b\n{long}") }],
        "affectedEntityIds": ids,
        "alertingProfiles": (0..150).map(|i| format!("profile {i}")).chain([long.clone()]).collect::<Vec<_>>()
    });
    let problem = normalize_problem(&record).unwrap();
    assert_eq!(problem.affected_entities.len(), MAX_ENTITIES);
    let first = &problem.affected_entities[0];
    assert_eq!((first.id.chars().count(), first.r#type.chars().count()), (MAX_VALUE_CHARS, MAX_VALUE_CHARS));
    assert_eq!(first.name.chars().count(), MAX_VALUE_CHARS);
    assert!(first.name.starts_with("ab é"), "control characters are stripped: {:?}", &first.name[..5]);
    assert_eq!(problem.affected_entities[99].id, "HOST-98");
    assert_eq!(problem.alerting_profiles.len(), MAX_ALERTING_PROFILES);
    assert_eq!(normalize_problem(&with("alertingProfiles", json!(" NOC "))).unwrap().alerting_profiles, ["NOC"]);
    let long_profile = normalize_problem(&with("alertingProfiles", json!([long]))).unwrap().alerting_profiles;
    assert_eq!(long_profile[0].chars().count(), MAX_VALUE_CHARS);
}

#[test]
fn texts_are_cleaned_and_cut() {
    let mut record = with("title", json!(format!("\u{1b}[31m{}", "t".repeat(2_000))));
    record["displayId"] = json!("P-1\u{7f}2");
    record["rootCause"] = json!({ "id": "HOST-7" });
    record["rootCauseEntityName"] = json!("   ");
    let problem = normalize_problem(&record).unwrap();
    assert_eq!(problem.title.chars().count(), MAX_TITLE_CHARS);
    assert!(problem.title.starts_with("[31mttt"));
    assert_eq!(problem.display_id, "P-12");
    assert_eq!(problem.root_cause_id, "HOST-7");
    assert_eq!(problem.root_cause_name, "", "no name and no matching entity");
}

#[test]
fn root_cause_names_prefer_the_smartscape_name_then_fall_back() {
    let mut record = grail_record();
    record["rootCauseName"] = json!("classic name");
    assert_eq!(normalize_problem(&record).unwrap().root_cause_name, "checkout-service");
    record.as_object_mut().unwrap().remove("rootCauseEntityName");
    assert_eq!(normalize_problem(&record).unwrap().root_cause_name, "classic name");
    record.as_object_mut().unwrap().remove("rootCauseName");
    record["rootCause"] = json!("HOST-99");
    assert_eq!(normalize_problem(&record).unwrap().root_cause_name, "web-01", "the affected entity's name");
    let long_name = normalize_problem(&with("rootCauseEntityName", json!("n".repeat(1_500)))).unwrap();
    assert_eq!(long_name.root_cause_name.chars().count(), MAX_ROOT_CAUSE_NAME_CHARS);
}

#[test]
fn records_without_an_id_or_start_are_refused() {
    assert_eq!(normalize_problem(&json!([])), Err(NormalizeError::NotAnObject));
    for id in [json!(null), json!(""), json!(" \n "), json!({}), json!(["x"])] {
        assert_eq!(normalize_problem(&with("problemId", id.clone())), Err(NormalizeError::MissingProblemId), "{id}");
    }
    assert!(normalize_problem(&with("problemId", json!("x".repeat(200)))).is_ok());
    assert_eq!(normalize_problem(&with("problemId", json!("x".repeat(201)))), Err(NormalizeError::ProblemIdTooLong));
    for start in [json!(null), json!(-1), json!("yesterday")] {
        assert_eq!(
            normalize_problem(&with("startTime", start.clone())),
            Err(NormalizeError::MissingStartTime),
            "{start}"
        );
    }
    assert_eq!(NormalizeError::MissingStartTime.code(), "missing_start_time");
}
