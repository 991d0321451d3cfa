//! Workflow matcher rules: the active event trigger, task selection (by name, the only one,
//! inactive and non-DQL tasks skipped, name lists bounded), the static-query checks, the source
//! and command rules, comment and string handling while splitting, how several filters
//! combine, and that the result still passes the matcher validation.

use super::*;
use serde_json::json;

fn dql_task(query: &str) -> Value {
    json!({ "action": DQL_QUERY_ACTION, "input": { "query": query } })
}

fn workflow_with(tasks: Value) -> Value {
    json!({
        "id": "3f2b1c9e-7d4a-4e2b-9c1d-0a1b2c3d4e5f",
        "title": "NOC problems",
        "tasks": tasks,
        "trigger": { "eventTrigger": { "isActive": true, "triggerConfiguration": { "type": "davis-problem" } } }
    })
}

fn matcher_of(query: &str) -> Result<String, WorkflowDqlError> {
    workflow_matcher(&workflow_with(json!({ "find_problems": dql_task(query) })), None)
}

#[test]
fn a_single_filter_becomes_the_matcher() {
    assert_eq!(
        matcher_of("fetch events, from:-2h | filter event.kind == \"DAVIS_PROBLEM\" | fields event.id"),
        Ok("event.kind == \"DAVIS_PROBLEM\"".into())
    );
    assert_eq!(matcher_of("fetch events | filter a == 1"), Ok("a == 1".into()));
}

#[test]
fn several_filters_are_joined_with_and() {
    let query = "fetch events, from:-30m, to:-1m\n\
                 | filter event.category == \"AVAILABILITY\"\n\
                 | filter matchesValue(entity_tags, \"team:noc\") or a == 2\n\
                 | sort timestamp desc\n\
                 | limit 10";
    assert_eq!(
        matcher_of(query),
        Ok("(event.category == \"AVAILABILITY\") and (matchesValue(entity_tags, \"team:noc\") or a == 2)".into())
    );
}

#[test]
fn comments_and_layout_are_dropped_while_strings_are_kept() {
    let query = "// NOC scope\n\
                 fetch events, from: -2h // recent\n\
                 | filter event.name == \"a | b // c /* d */\" /* block | comment */\n\
                 \t| filter\n    b == 2\n\
                 | fields event.id | fieldsAdd x = 1 | lookup [fetch logs]";
    assert_eq!(matcher_of(query), Ok("(event.name == \"a | b // c /* d */\") and (b == 2)".into()));
}

#[test]
fn the_workflow_needs_an_active_event_trigger() {
    let tasks = json!({ "t": dql_task("fetch events | filter a == 1") });
    for trigger in [
        json!({ "eventTrigger": { "isActive": false } }),
        json!({ "eventTrigger": {} }),
        json!({ "eventTrigger": { "isActive": "true" } }),
        json!({ "schedule": { "isActive": true } }),
        json!(null),
    ] {
        let mut workflow = workflow_with(tasks.clone());
        workflow["trigger"] = trigger.clone();
        assert_eq!(workflow_matcher(&workflow, None), Err(WorkflowDqlError::NoActiveEventTrigger), "{trigger}");
    }
}

#[test]
fn the_task_is_the_named_or_the_only_suitable_one() {
    let workflow = workflow_with(json!({
        "a_query": dql_task("fetch events | filter a == 1"),
        "b_query": dql_task("fetch events | filter b == 2"),
        "disabled": { "action": DQL_QUERY_ACTION, "active": false, "input": { "query": "fetch events | filter c == 3" } },
        "mail": { "action": "dynatrace.email:send-email", "input": { "query": "fetch events | filter d == 4" } },
        "no_query": { "action": DQL_QUERY_ACTION, "input": { "query": 5 } }
    }));
    assert_eq!(workflow_matcher(&workflow, Some(" b_query ")), Ok("b == 2".into()));
    assert_eq!(
        workflow_matcher(&workflow, None),
        Err(WorkflowDqlError::AmbiguousTask { names: "a_query, b_query".into() })
    );
    assert_eq!(
        workflow_matcher(&workflow, Some("disabled")),
        Err(WorkflowDqlError::TaskNotFound { names: "a_query, b_query".into() })
    );
    assert_eq!(workflow_matcher(&workflow, Some("")), workflow_matcher(&workflow, None), "a blank name is no name");

    let one = workflow_with(json!({
        "only": dql_task("fetch events | filter a == 1"),
        "off": { "action": DQL_QUERY_ACTION, "active": false, "input": { "query": "fetch events | filter x" } },
        "on": { "action": DQL_QUERY_ACTION, "active": true, "input": {} }
    }));
    assert_eq!(workflow_matcher(&one, None), Ok("a == 1".into()), "inactive and query-less tasks do not count");
    for tasks in [json!({}), json!([]), json!({ "mail": { "action": "dynatrace.email:send-email" } })] {
        assert_eq!(workflow_matcher(&workflow_with(tasks), Some("x")), Err(WorkflowDqlError::NoQueryTask));
    }
}

#[test]
fn task_name_lists_are_bounded() {
    let tasks: serde_json::Map<String, Value> =
        (0..40).map(|i| (format!("query_task_number_{i:02}"), dql_task("fetch events | filter a == 1"))).collect();
    let error = workflow_matcher(&workflow_with(Value::Object(tasks)), None).unwrap_err();
    let WorkflowDqlError::AmbiguousTask { names } = &error else { panic!("{error:?}") };
    assert!(names.chars().count() <= MAX_TASK_NAMES_CHARS);
    assert!(names.starts_with("query_task_number_00, query_task_number_01"));
    assert_eq!(error.code(), "ambiguous_task");
}

#[test]
fn only_static_queries_of_bounded_size_are_followed() {
    for query in [
        "fetch events | filter a == \"{{ event()['id'] }}\"",
        "fetch events, from:{{ x }} | filter a == 1",
        "fetch events | filter a == 1 {% if x %}",
        "fetch events | filter a == \"\"\"x\"\"\"",
    ] {
        assert_eq!(matcher_of(query), Err(WorkflowDqlError::DynamicQuery), "{query:?}");
    }
    let long = format!("fetch events | filter a == \"{}\"", "x".repeat(MAX_WORKFLOW_QUERY_CHARS));
    assert_eq!(matcher_of(&long), Err(WorkflowDqlError::QueryTooLong));
    for query in ["fetch events | filter a == \"open", "fetch events | filter a /* open", "fetch events | filter `a"] {
        assert_eq!(matcher_of(query), Err(WorkflowDqlError::UnclosedText), "{query:?}");
    }
}

#[test]
fn the_source_must_be_fetch_events_with_relative_bounds() {
    for query in [
        "fetch events, from:-2h, to:-5m | filter a == 1",
        "fetch events, from:2d | filter a == 1",
        "fetch events,from:-1w | filter a == 1",
        "fetch   events , to: -10s | filter a == 1",
    ] {
        assert_eq!(matcher_of(query), Ok("a == 1".into()), "{query:?}");
    }
    for query in [
        "fetch logs | filter a == 1",
        "fetch bizevents | filter a == 1",
        "fetch dt.davis.problems | filter a == 1",
        "fetch events, from:now()-2h | filter a == 1",
        "fetch events, from:\"2024-01-01T00:00:00Z\" | filter a == 1",
        "fetch events, from:-2y | filter a == 1",
        "fetch events, from:-h | filter a == 1",
        "fetch events, from:-2h, from:-3h | filter a == 1",
        "fetch events, bucket:{\"default_events\"} | filter a == 1",
        "fetch events, samplingRatio:10 | filter a == 1",
        "FETCH events | filter a == 1",
        "data record(a = 1) | filter a == 1",
        "filter a == 1",
        "",
    ] {
        assert_eq!(matcher_of(query), Err(WorkflowDqlError::UnsupportedSource), "{query:?}");
    }
}

#[test]
fn only_filters_may_precede_the_projection() {
    for query in [
        "fetch events | fieldsAdd x = 1 | filter a == 1",
        "fetch events | filter a == 1 | dedup event.id",
        "fetch events | filterOut a == 1",
        "fetch events | lookup [fetch logs], sourceField:a, lookupField:b | filter a == 1",
        "fetch events | filter a == 1 | append [fetch logs]",
        "fetch events | filter",
        "fetch events | filter a == 1 |",
        "fetch events | | filter a == 1",
    ] {
        assert_eq!(matcher_of(query), Err(WorkflowDqlError::UnsupportedCommand), "{query:?}");
    }
    for query in ["fetch events", "fetch events | fields a | filter a == 1", "fetch events | summarize count()"] {
        assert_eq!(matcher_of(query), Err(WorkflowDqlError::NoFilter), "{query:?}");
    }
    assert_eq!(matcher_of("fetch events | filter(a == 1)"), Ok("(a == 1)".into()));
}

#[test]
fn the_matcher_must_still_pass_validation() {
    for (query, reason) in [
        ("fetch events | filter event.id in [fetch logs]", "subqueries and brackets are not allowed"),
        ("fetch events | filter a == \"x\ny\"", "it contains line breaks, tabs or other control characters"),
        ("fetch events | filter a == ((1)", "parentheses are not balanced"),
        ("fetch events | filter data == 1", "query commands (fetch, lookup, join, data, append, load) are not allowed"),
    ] {
        assert_eq!(matcher_of(query), Err(WorkflowDqlError::MatcherRejected { reason }), "{query:?}");
    }
    let many: String = (0..300).map(|i| format!(" | filter field_{i} == 1")).collect();
    assert_eq!(
        matcher_of(&format!("fetch events{many}")),
        Err(WorkflowDqlError::MatcherRejected { reason: "it is longer than 2000 characters" })
    );
}

#[test]
fn errors_have_stable_codes_and_fixed_messages() {
    let error = matcher_of("fetch events | filter secret_field | parse x").unwrap_err();
    assert_eq!(error.code(), "unsupported_command");
    assert!(!error.to_string().contains("secret_field") && !error.to_string().contains("parse"));
    assert_eq!(WorkflowDqlError::NoActiveEventTrigger.code(), "no_active_event_trigger");
    assert_eq!(
        WorkflowDqlError::MatcherRejected { reason: "it is empty" }.to_string(),
        "The workflow query's filter is not accepted: it is empty"
    );
}
