//! Applying an import plan. Existing records are indexed once by the collection's upsert key;
//! each planned row then becomes an update of the first matching record or an insert (and a
//! later row with the same key in the same file updates the record the earlier row created).
//! An applied import runs in one IMMEDIATE transaction: it lands whole or not at all. A preview
//! runs the same classification without writing. Alert sends keep their threads: rows go in by
//! their exported update number and the threads they name are rebased onto the new ids
//! (`store::alert_threads`).

use std::collections::HashMap;

use diesel::sql_types::Text;
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};
use serde_json::Value;

use domain::import::ImportPlan;
use domain::record::{Action, RecordError};

use crate::sql::quote_ident;
use crate::store::alert_threads::{import_order, ImportedThreads};
use crate::store::{insert_row, map_db_error, update_row, RecordStore};

#[derive(Debug, Clone, PartialEq)]
pub struct ImportOutcome {
    pub creates: usize,
    pub updates: usize,
    /// Records written with their action (empty for a preview), for realtime publication.
    pub written: Vec<(Action, Value)>,
}

#[derive(QueryableByName)]
struct KeyRow {
    #[diesel(sql_type = Text)]
    id: String,
    #[diesel(sql_type = Text)]
    k: String,
}

fn key_index(conn: &mut SqliteConnection, plan: &ImportPlan) -> Result<HashMap<String, String>, diesel::result::Error> {
    let Some(key) = plan.key else { return Ok(HashMap::new()) };
    let sql = format!("SELECT id, {} AS k FROM {} ORDER BY rowid", quote_ident(key.field), quote_ident(plan.spec.name));
    let rows: Vec<KeyRow> = diesel::sql_query(sql).load(conn)?;
    let mut index = HashMap::with_capacity(rows.len());
    for row in rows {
        let k = key.normalize(&row.k);
        if !k.is_empty() {
            index.entry(k).or_insert(row.id);
        }
    }
    Ok(index)
}

fn run(
    conn: &mut SqliteConnection,
    plan: &ImportPlan,
    apply: bool,
    now_ms: i64,
) -> Result<ImportOutcome, diesel::result::Error> {
    let mut index = key_index(conn, plan)?;
    let mut outcome = ImportOutcome { creates: 0, updates: 0, written: Vec::new() };
    let mut threads = ImportedThreads::default();
    for index_in_plan in import_order(plan.spec, plan.rows.iter().map(|row| &row.create)) {
        let row = &plan.rows[index_in_plan];
        let existing = row.key.as_ref().and_then(|k| index.get(k)).cloned();
        match existing {
            Some(id) => {
                outcome.updates += 1;
                if apply {
                    outcome.written.push((Action::Update, update_row(conn, plan.spec, &id, &row.update, now_ms)?));
                }
            }
            None => {
                outcome.creates += 1;
                let id = crate::ids::record_id();
                if apply {
                    let create = threads.rebase(plan.spec, &id, &row.create);
                    outcome.written.push((Action::Create, insert_row(conn, plan.spec, &id, &create, now_ms)?));
                }
                if let Some(k) = &row.key {
                    index.insert(k.clone(), id);
                }
            }
        }
    }
    Ok(outcome)
}

impl RecordStore {
    /// Classifies (and with `apply`, writes) a plan that has no row errors.
    pub fn import(&self, plan: &ImportPlan, apply: bool, now_ms: i64) -> Result<ImportOutcome, RecordError> {
        let mut conn = self.conn()?;
        let result = if apply {
            conn.immediate_transaction(|c| run(c, plan, true, now_ms))
        } else {
            run(&mut conn, plan, false, now_ms)
        };
        result.map_err(|e| map_db_error(plan.spec, e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::store;
    use domain::import::plan_import;
    use domain::record::{ListQuery, RawListParams};
    use serde_json::json;

    fn all(s: &RecordStore, collection: &str) -> Vec<Value> {
        let spec = domain::collections::collection(collection).unwrap();
        let raw = RawListParams { per_page: Some("1000".into()), sort: Some("name".into()), ..Default::default() };
        s.list(spec, &ListQuery::parse(spec, &raw).unwrap()).unwrap().items
    }

    #[test]
    fn upserts_by_case_insensitive_email_and_inserts_the_rest() {
        let (_t, s) = store();
        let seed = plan_import("contacts", &[json!({"name": "Ada", "email": "ada@x.io", "title": "old"})]).unwrap();
        s.import(&seed, true, 1).unwrap();
        let rows = [
            json!({"name": "Ada L", "email": "ADA@x.io"}),
            json!({"name": "Bob", "email": "bob@x.io"}),
            json!({"name": "Bobby", "email": "Bob@X.io", "title": "dup in file"}),
            json!({"name": "No Mail"}),
        ];
        let plan = plan_import("contacts", &rows).unwrap();
        let preview = s.import(&plan, false, 2).unwrap();
        assert_eq!((preview.creates, preview.updates, preview.written.len()), (2, 2, 0));
        assert_eq!(all(&s, "contacts").len(), 1, "a preview writes nothing");
        let applied = s.import(&plan, true, 3).unwrap();
        assert_eq!((applied.creates, applied.updates, applied.written.len()), (2, 2, 4));
        let names: Vec<String> = all(&s, "contacts").iter().map(|r| r["name"].as_str().unwrap().to_string()).collect();
        assert_eq!(names, vec!["Ada L", "Bobby", "No Mail"]);
        let ada = all(&s, "contacts").into_iter().find(|r| r["name"] == "Ada L").unwrap();
        assert_eq!(ada["title"], "old", "an update only changes the fields the row carries");
    }

    #[test]
    fn collections_without_a_key_always_insert() {
        let (_t, s) = store();
        let plan = plan_import("oncall", &[json!({"team": "Net"}), json!({"team": "Net"})]).unwrap();
        s.import(&plan, true, 1).unwrap();
        s.import(&plan, true, 2).unwrap();
        assert_eq!(all(&s, "oncall").len(), 4);
    }
}
