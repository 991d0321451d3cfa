//! Executes an operational retention plan (`domain::retention`) on one collection: every step
//! of the plan in one IMMEDIATE write transaction, returning the deleted records so the caller
//! can publish their deletion. Steps select by creation time (`created` sorts as text) and the
//! `pinned` flag; "keep newest" orders by creation time then id, as the original did.

use diesel::sql_types::{BigInt, Text};
use diesel::RunQueryDsl;
use serde_json::Value;

use domain::collections::CollectionSpec;
use domain::record::RecordError;
use domain::retention::{Pinned, RetentionStep};
use domain::time::format_ms;

use super::{map_db_error, parse_rows, JsonRow, RecordStore};
use crate::sql::{quote_ident, record_json};

fn pinned_sql(pinned: Pinned) -> &'static str {
    match pinned {
        Pinned::Any => "1 = 1",
        Pinned::Only => "\"pinned\" = 1",
        Pinned::Not => "\"pinned\" = 0",
    }
}

impl RecordStore {
    /// Applies `steps` to `spec`'s table at `now_ms` in one write transaction.
    pub fn apply_retention(
        &self,
        spec: &CollectionSpec,
        steps: &[RetentionStep],
        now_ms: i64,
    ) -> Result<Vec<Value>, RecordError> {
        let table = quote_ident(spec.name);
        let returning = record_json(spec);
        let mut conn = self.conn()?;
        let rows = conn
            .immediate_transaction(|c| {
                let mut deleted: Vec<JsonRow> = Vec::new();
                for step in steps {
                    let rows: Vec<JsonRow> = match *step {
                        RetentionStep::OlderThan { pinned, .. } => {
                            let cutoff = format_ms(step.cutoff_ms(now_ms).unwrap_or(i64::MIN));
                            let sql = format!(
                                "DELETE FROM {table} WHERE {} AND \"created\" < ? RETURNING {returning} AS data",
                                pinned_sql(pinned)
                            );
                            diesel::sql_query(sql).bind::<Text, _>(cutoff).load(c)?
                        }
                        RetentionStep::KeepNewest { keep, pinned } => {
                            let sql = format!(
                                "DELETE FROM {table} WHERE rowid IN (SELECT rowid FROM {table} WHERE {} \
                                 ORDER BY \"created\" DESC, \"id\" DESC LIMIT -1 OFFSET ?) RETURNING {returning} AS data",
                                pinned_sql(pinned)
                            );
                            diesel::sql_query(sql).bind::<BigInt, _>(keep as i64).load(c)?
                        }
                    };
                    deleted.extend(rows);
                }
                Ok(deleted)
            })
            .map_err(|e| map_db_error(spec, e))?;
        parse_rows(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::store;
    use domain::collections::{ALERT_HISTORY, ONCALL_DISMISSALS};
    use domain::retention::OPERATIONAL_RETENTION;
    use domain::validation::{validate_write, WriteMode};
    use serde_json::json;

    const DAY: i64 = 24 * 60 * 60 * 1000;
    const NOW: i64 = 1_000 * DAY;

    fn plan(name: &str) -> &'static [RetentionStep] {
        OPERATIONAL_RETENTION.iter().find(|p| p.collection == name).unwrap().steps
    }

    #[test]
    fn alert_history_keeps_recent_and_bounded_pinned_and_unpinned() {
        let (_t, s) = store();
        let add = |pinned: bool, at: i64| {
            let w =
                validate_write(&ALERT_HISTORY, &json!({"subject": "x", "pinned": pinned}), WriteMode::Create).unwrap();
            s.create(&ALERT_HISTORY, &w, at).unwrap();
        };
        add(false, NOW - 91 * DAY);
        add(true, NOW - 400 * DAY);
        for i in 0..60 {
            add(false, NOW - DAY + i);
        }
        for i in 0..110 {
            add(true, NOW - DAY + i);
        }
        let deleted = s.apply_retention(&ALERT_HISTORY, plan("alert_history"), NOW).unwrap();
        assert_eq!(deleted.len(), 1 + 10 + 11, "old unpinned, 10 unpinned and 11 pinned beyond the budgets");
        let count = |filter: &str| {
            let raw = domain::record::RawListParams { filter: Some(filter.into()), ..Default::default() };
            let q = domain::record::ListQuery::parse(&ALERT_HISTORY, &raw).unwrap();
            s.list(&ALERT_HISTORY, &q).unwrap().total_items
        };
        assert_eq!((count("pinned = false"), count("pinned = true")), (50, 100));
        let oldest_pinned_kept = deleted.iter().all(|r| r["created"].as_str().unwrap() < "1972");
        assert!(!oldest_pinned_kept, "the newest are kept, the oldest go");
    }

    #[test]
    fn dismissals_older_than_seven_days_go_and_nothing_else() {
        let (_t, s) = store();
        for (key, at) in [("old", NOW - 8 * DAY), ("new", NOW - 6 * DAY)] {
            let w = validate_write(&ONCALL_DISMISSALS, &json!({"alertType": "x", "dateKey": key}), WriteMode::Create)
                .unwrap();
            s.create(&ONCALL_DISMISSALS, &w, at).unwrap();
        }
        let deleted = s.apply_retention(&ONCALL_DISMISSALS, plan("oncall_dismissals"), NOW).unwrap();
        assert_eq!(deleted.iter().map(|r| r["dateKey"].as_str().unwrap()).collect::<Vec<_>>(), ["old"]);
    }
}
