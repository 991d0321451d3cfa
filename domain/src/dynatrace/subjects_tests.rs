//! Subject rules: execution ids, subject validation, which e-mail task is read (preferred
//! name, pending and failed executions, both task-list shapes), that only the subject leaves a
//! task input, and how notification events are read.

use super::*;
use serde_json::json;

fn email(state: &str) -> Value {
    json!({ "action": EMAIL_ACTION, "state": state, "input": { "to": ["noc@example.com"] } })
}

#[test]
fn execution_ids_are_bounded_url_safe_words() {
    for good in ["3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f", "a", "A_b-9", &"x".repeat(128)] {
        assert!(is_execution_id(good), "{good:?}");
    }
    for bad in ["", &"x".repeat(129), "a/b", "a?b", "a b", "a.b", "..", "é", "a\n"] {
        assert!(!is_execution_id(bad), "{bad:?}");
    }
}

#[test]
fn subjects_are_trimmed_bounded_and_free_of_templates_and_controls() {
    assert_eq!(
        validate_subject("  [P-123] CPU saturation on web-01 ✓ "),
        Some("[P-123] CPU saturation on web-01 ✓".into())
    );
    assert_eq!(validate_subject(&"é".repeat(1_000)), Some("é".repeat(1_000)));
    for bad in [
        "".to_string(),
        "   ".to_string(),
        "é".repeat(1_001),
        "Problem {{ event()['display_id'] }}".to_string(),
        "{% if x %}y{% endif %}".to_string(),
        "line\nbreak".to_string(),
        "tab\there".to_string(),
        "bell\u{7}".to_string(),
        "sep\u{2028}arator".to_string(),
    ] {
        assert_eq!(validate_subject(&bad), None, "{bad:?}");
    }
}

#[test]
fn the_preferred_successful_email_task_is_picked() {
    let tasks = json!({
        "a_first_mail": email("SUCCESS"),
        "email_noc": email("SUCCESS"),
        "query": { "action": "dynatrace.automations:execute-dql-query", "state": "RUNNING" }
    });
    assert_eq!(pick_email_task(&tasks), TaskPick::Succeeded { task_name: "email_noc".into() }, "email_noc first");
    let tasks = json!({ "a_mail": email("ERROR"), "b_mail": email("SUCCESS"), "email_noc": email("SKIPPED") });
    assert_eq!(pick_email_task(&tasks), TaskPick::Succeeded { task_name: "b_mail".into() }, "else the first success");
    let array = json!([
        { "name": "notify", "action": EMAIL_ACTION, "state": "SUCCESS" },
        { "action": EMAIL_ACTION, "state": "SUCCESS" },
        { "name": "email_noc", "action": EMAIL_ACTION, "state": "SUCCESS" }
    ]);
    assert_eq!(pick_email_task(&array), TaskPick::Succeeded { task_name: "email_noc".into() });
}

#[test]
fn unfinished_email_tasks_make_the_execution_pending() {
    for state in ["RUNNING", "WAITING", "IDLE", "", "something new"] {
        let tasks = json!({ "email_noc": email("SUCCESS"), "other_mail": email(state) });
        assert_eq!(pick_email_task(&tasks), TaskPick::Pending, "{state:?}");
    }
    let stateless = json!({ "email_noc": { "action": EMAIL_ACTION } });
    assert_eq!(pick_email_task(&stateless), TaskPick::Pending);
    let other_running = json!({ "email_noc": email("SUCCESS"), "q": { "action": "x", "state": "RUNNING" } });
    assert_eq!(pick_email_task(&other_running), TaskPick::Succeeded { task_name: "email_noc".into() });
}

#[test]
fn executions_without_email_or_success_say_so() {
    for tasks in [json!({}), json!([]), json!(null), json!({ "q": { "action": "dynatrace.slack:slack-send-message" } })]
    {
        assert_eq!(pick_email_task(&tasks), TaskPick::NoEmailTask, "{tasks}");
    }
    let failed =
        json!({ "email_noc": email("ERROR"), "b": email("CANCELLED"), "c": email("SKIPPED"), "d": email("DISCARDED") });
    assert_eq!(pick_email_task(&failed), TaskPick::Failed);
}

#[test]
fn only_the_validated_subject_leaves_a_task_input() {
    let input = json!({
        "to": ["noc@example.com"], "cc": [], "content": "body with secrets",
        "subject": "  [P-1] Disk full  "
    });
    assert_eq!(subject_from_task_input(&input), Some("[P-1] Disk full".into()));
    for input in [
        json!({ "content": "no subject" }),
        json!({ "subject": 5 }),
        json!({ "subject": "{{ event() }}" }),
        json!({ "input": { "subject": "nested is not the input" } }),
        json!("subject"),
    ] {
        assert_eq!(subject_from_task_input(&input), None, "{input}");
    }
}

#[test]
fn notification_records_are_read_and_bad_ones_skipped() {
    let record = json!({
        "problemId": "-58_1733047200000V2",
        "executionId": "3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f",
        "notificationStatus": "ACTIVE",
        "notificationTime": "2024-12-01T10:00:00.123456789Z"
    });
    assert_eq!(
        parse_notification_record(&record),
        Some(NotificationRef {
            problem_id: "-58_1733047200000V2".into(),
            execution_id: "3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f".into(),
            status: ProblemStatus::Open,
            time_ms: 1_733_047_200_123,
        })
    );
    let mut open = record.clone();
    open["notificationStatus"] = json!("OPEN");
    assert_eq!(parse_notification_record(&open).unwrap().status, ProblemStatus::Open);
    for status in [json!("CLOSED"), json!("RESOLVED"), json!(null)] {
        let mut closed = record.clone();
        closed["notificationStatus"] = status;
        assert_eq!(parse_notification_record(&closed).unwrap().status, ProblemStatus::Closed);
    }
    for (field, value) in [
        ("problemId", json!("")),
        ("problemId", json!("x".repeat(201))),
        ("problemId", json!(null)),
        ("executionId", json!("../tasks")),
        ("executionId", json!("")),
        ("executionId", json!(7)),
        ("notificationTime", json!(null)),
        ("notificationTime", json!("later")),
    ] {
        let mut bad = record.clone();
        bad[field] = value.clone();
        assert_eq!(parse_notification_record(&bad), None, "{field} = {value}");
    }
}

#[test]
fn the_background_budget_is_as_specified() {
    assert_eq!((MAX_UNCACHED_EXECUTIONS, MAX_CONCURRENT_EXECUTION_READS, SUBJECT_RUN_DEADLINE_MS), (25, 4, 10_000));
}
