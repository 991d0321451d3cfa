//! DQL rules: the exact text of every query (snapshot equality per scope and lookback), the
//! lookback clamp, and injection resistance: profile names and cursors full of quotes,
//! backslashes, pipes, line breaks, comments and commands stay inside one string literal, so
//! the query's command structure is the same as with harmless values. A property test checks
//! that every `dql_string` reads back to its input.

use super::*;
use proptest::prelude::*;

const FIELDS: &str = "| fields problemId=event.id, displayId=display_id, title=event.name, status=event.status, \
severity=event.category, impactLevel=dt.davis.impact_level, startTime=event.start, endTime=event.end, \
rootCause=root_cause.smartscape_entity, rootCauseEntityName=root_cause_entity_name, \
affectedEntities=smartscape.affected_entities, affectedEntityIds=affected_entity_ids, \
affectedEntityNames=affected_entity_names, affectedEntityTypes=affected_entity_types, \
relatedEntities=smartscape.related_entities, alertingProfiles=labels.alerting_profile";

/// Reads the DQL string literal at the start of `s`: its decoded text and the bytes it spans.
/// A raw line break, an unknown escape or a missing closing quote is no literal.
fn read_literal(s: &str) -> Option<(String, usize)> {
    let mut chars = s.char_indices();
    if chars.next()?.1 != '"' {
        return None;
    }
    let mut text = String::new();
    while let Some((at, c)) = chars.next() {
        match c {
            '"' => return Some((text, at + 1)),
            '\n' | '\r' => return None,
            '\\' => match chars.next()?.1 {
                '\\' => text.push('\\'),
                '"' => text.push('"'),
                'n' => text.push('\n'),
                'r' => text.push('\r'),
                't' => text.push('\t'),
                'u' => {
                    let hex: String = (0..4).map(|_| chars.next().map(|(_, h)| h)).collect::<Option<_>>()?;
                    text.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                _ => return None,
            },
            c => text.push(c),
        }
    }
    None
}

/// The query with every string literal replaced by `"…"`, and the literals' texts in order.
fn skeleton(query: &str) -> (String, Vec<String>) {
    let (mut shape, mut literals, mut rest) = (String::new(), Vec::new(), query);
    while let Some(at) = rest.find('"') {
        shape.push_str(&rest[..at]);
        let (text, len) = read_literal(&rest[at..]).expect("a well-formed literal");
        shape.push_str("\"…\"");
        literals.push(text);
        rest = &rest[at + len..];
    }
    shape.push_str(rest);
    (shape, literals)
}

fn hostile() -> Vec<String> {
    [
        "\" | fetch logs | filter \"",
        "\\\" ) ) | fetch logs //",
        "a\nb\r\n| fetch logs\n",
        "/* x */ data record() | append [fetch logs]",
        "\\",
        "\"",
        "tab\there\u{0}\u{1b}\u{7f}\u{85}\u{2028}",
        "{{ event }} {% raw %}",
        "ünïcödé ✓ 🚨",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

#[test]
fn the_problems_query_for_every_problem_is_exact() {
    let expected = [
        "fetch dt.davis.problems, from:-365d",
        "| dedup event.id, sort:{timestamp desc}",
        "| filter not(dt.davis.is_duplicate)",
        FIELDS,
        "| sort startTime desc",
        "| limit 10000",
    ]
    .join("\n");
    assert_eq!(problems_query(Lookback::Reconcile, &Scope::All), expected);
    let incremental = problems_query(Lookback::Minutes(15), &Scope::All);
    assert_eq!(incremental, expected.replace("from:-365d", "from:-15m"));
}

#[test]
fn the_problems_query_for_alerting_profiles_is_exact() {
    let scope = Scope::AlertingProfiles(vec!["NOC".into(), "DB \"team\"".into()]);
    let expected = [
        "fetch dt.davis.problems, from:-30m",
        "| dedup event.id, sort:{timestamp desc}",
        "| filter not(dt.davis.is_duplicate)",
        "| filter iAny(in(labels.alerting_profile[], array(\"NOC\", \"DB \\\"team\\\"\")))",
        FIELDS,
        "| sort startTime desc",
        "| limit 10000",
    ]
    .join("\n");
    assert_eq!(problems_query(Lookback::Minutes(30), &scope), expected);
}

#[test]
fn the_problems_query_for_a_custom_matcher_is_exact() {
    let scope = Scope::CustomMatcher("event.name == \"CPU\"".into());
    let expected = [
        "fetch dt.davis.problems, from:-365d",
        "| dedup event.id, sort:{timestamp desc}",
        "| filter not(dt.davis.is_duplicate)",
        "| filter event.id in [ fetch events, from:-365d | filter event.kind == \"DAVIS_PROBLEM\" \
| filter (event.name == \"CPU\") | fields event.id ]",
        FIELDS,
        "| sort startTime desc",
        "| limit 10000",
    ]
    .join("\n");
    assert_eq!(problems_query(Lookback::Reconcile, &scope), expected);
    let incremental = problems_query(Lookback::Minutes(12), &scope);
    assert_eq!(incremental.matches("from:-12m").count(), 2, "the subquery reads the same lookback");
}

#[test]
fn reconcile_pages_follow_the_problem_id_cursor() {
    let first = problems_page_query(Lookback::Reconcile, &Scope::All, None);
    assert_eq!(
        first,
        problems_query(Lookback::Reconcile, &Scope::All).replace("sort startTime desc", "sort problemId asc")
    );
    let next = problems_page_query(Lookback::Reconcile, &Scope::All, Some("-58_17V2"));
    assert_eq!(
        next,
        first.replace(
            "| filter not(dt.davis.is_duplicate)\n",
            "| filter not(dt.davis.is_duplicate)\n| filter event.id > \"-58_17V2\"\n"
        )
    );
}

#[test]
fn other_queries_are_exact() {
    assert_eq!(connection_test_query(), "fetch dt.davis.problems, from:-2h\n| summarize count = count()");
    let expected = [
        "fetch bizevents, from:-365d",
        "| filter event.type == \"noc.notification\" and event.provider == \"noc-workflow\"",
        "| filter isNotNull(execution_id) and isNotNull(problem.event_id)",
        "| dedup problem.event_id, sort:{timestamp desc}",
        "| fields problemId=problem.event_id, executionId=execution_id, notificationStatus=problem.status, \
notificationTime=timestamp",
        "| sort problemId asc",
        "| limit 10000",
    ]
    .join("\n");
    assert_eq!(notifications_query(Lookback::Reconcile, None), expected);
    let paged = notifications_query(Lookback::Minutes(20), Some("P-1"));
    let paged_expected = expected
        .replace("from:-365d", "from:-20m")
        .replace("| sort problemId asc", "| filter problemId > \"P-1\"\n| sort problemId asc");
    assert_eq!(paged, paged_expected);
    assert!(alerting_profile_catalog_query().starts_with("fetch dt.davis.problems, from:-365d\n"));
    assert!(profile_field_health_query().contains("countIf(isNotNull(labels.alerting_profile))"));
    assert_eq!(Lookback::Minutes(0).from_option(), "from:-1m");
}

#[test]
fn hostile_profile_names_stay_inside_their_literals() {
    let benign: Vec<String> = (0..hostile().len()).map(|i| format!("p{i}")).collect();
    for lookback in [Lookback::Reconcile, Lookback::Minutes(10)] {
        let (benign_shape, _) = skeleton(&problems_query(lookback, &Scope::AlertingProfiles(benign.clone())));
        let (shape, literals) = skeleton(&problems_query(lookback, &Scope::AlertingProfiles(hostile())));
        assert_eq!(shape, benign_shape, "the command structure is unchanged");
        assert_eq!(literals, hostile(), "each name reads back as exactly one literal");
        assert_eq!(shape.matches('|').count(), 6);
    }
}

#[test]
fn hostile_cursors_stay_inside_their_literals() {
    for cursor in hostile() {
        let (shape, literals) = skeleton(&notifications_query(Lookback::Minutes(10), Some(&cursor)));
        let (benign_shape, _) = skeleton(&notifications_query(Lookback::Minutes(10), Some("x")));
        assert_eq!(shape, benign_shape, "{cursor:?}");
        assert_eq!(literals.last(), Some(&cursor));
        let page = problems_page_query(Lookback::Reconcile, &Scope::All, Some(&cursor));
        let (page_shape, page_literals) = skeleton(&page);
        assert_eq!(page_shape, skeleton(&problems_page_query(Lookback::Reconcile, &Scope::All, Some("x"))).0);
        assert_eq!(page_literals, vec![cursor.clone()]);
    }
}

#[test]
fn dql_string_escapes_exactly_the_dangerous_characters() {
    assert_eq!(dql_string(""), "\"\"");
    assert_eq!(dql_string("plain ü ✓"), "\"plain ü ✓\"");
    assert_eq!(dql_string("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_eq!(dql_string("\n\r\t"), "\"\\n\\r\\t\"");
    assert_eq!(dql_string("\u{0}\u{1b}\u{7f}\u{85}\u{2028}"), "\"\\u0000\\u001b\\u007f\\u0085\\u2028\"");
    assert_eq!(dql_string("| fetch logs // x"), "\"| fetch logs // x\"");
}

#[test]
fn incremental_lookback_covers_the_gap_with_overlap_within_bounds() {
    const MIN: i64 = 60_000;
    let now = 1_796_216_231_000;
    assert_eq!(incremental_lookback_minutes(now, None), 1440);
    assert_eq!(incremental_lookback_minutes(now, Some(now)), 10, "never below 10 minutes");
    assert_eq!(incremental_lookback_minutes(now, Some(now - MIN)), 10);
    assert_eq!(incremental_lookback_minutes(now, Some(now - 5 * MIN)), 10);
    assert_eq!(incremental_lookback_minutes(now, Some(now - 6 * MIN)), 11, "gap plus five minutes");
    assert_eq!(incremental_lookback_minutes(now, Some(now - 6 * MIN - 1)), 12, "a partial minute counts");
    assert_eq!(incremental_lookback_minutes(now, Some(now - 60 * MIN)), 65);
    assert_eq!(incremental_lookback_minutes(now, Some(now - 1435 * MIN)), 1440);
    assert_eq!(incremental_lookback_minutes(now, Some(now - 3 * 1440 * MIN)), 1440, "capped at 24 h");
    assert_eq!(incremental_lookback_minutes(now, Some(now + 30 * MIN)), 10, "a future success counts as now");
    assert_eq!(incremental_lookback_minutes(i64::MAX, Some(i64::MIN)), 1440);
}

proptest! {
    #![proptest_config(ProptestConfig { failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn dql_string_always_reads_back_to_its_input(text in any::<String>()) {
        let literal = dql_string(&text);
        prop_assert!(!literal.contains('\n') && !literal.contains('\r'));
        prop_assert!(!literal.chars().any(crate::dynatrace::is_forbidden_char));
        let (decoded, len) = read_literal(&literal).expect("a literal");
        prop_assert_eq!(len, literal.len(), "the first unescaped quote closes the literal at its end");
        prop_assert_eq!(decoded, text);
    }

    #[test]
    fn hostile_profile_names_never_change_the_query_structure(
        names in prop::collection::vec(r#"[a-z"\\|/*\[\]()\n\r{}% ]{0,20}"#, 1..5)
    ) {
        let benign: Vec<String> = (0..names.len()).map(|i| format!("p{i}")).collect();
        let (shape, literals) = skeleton(&problems_query(Lookback::Reconcile, &Scope::AlertingProfiles(names.clone())));
        let (benign_shape, _) = skeleton(&problems_query(Lookback::Reconcile, &Scope::AlertingProfiles(benign)));
        prop_assert_eq!(shape, benign_shape);
        prop_assert_eq!(literals, names);
    }
}
