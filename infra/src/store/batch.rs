//! Group commit of record-API writes: several validated creates, updates and deletes applied in
//! one IMMEDIATE transaction, each inside its own savepoint, so one write's failure (a unique
//! violation, a missing id, refused HTML) rolls back only that write while the others commit
//! together. Each write still draws its own revision (deletes, as outside a batch, do not), and
//! the caller learns every write's outcome in order; if the transaction itself cannot begin or
//! commit, no write took effect and the whole batch fails with that one error. One commit per
//! batch writes the touched pages and the search index's new segment once instead of once per
//! write, which is where a busy writer spends its time.

use diesel::result::Error as DieselError;
use diesel::sqlite::SqliteConnection;
use diesel::Connection;
use serde_json::Value;

use domain::collections::CollectionSpec;
use domain::record::RecordError;
use domain::validation::ValidatedWrite;

use super::{delete_row, insert_new_row, map_db_error, update_row, RecordStore};

/// One validated write of a batch, at its own time.
#[derive(Debug, Clone)]
pub struct BatchedWrite {
    pub spec: &'static CollectionSpec,
    pub change: BatchedChange,
    pub now_ms: i64,
}

#[derive(Debug, Clone)]
pub enum BatchedChange {
    /// A new record; its id is the client's (validated) or a fresh one.
    Create(ValidatedWrite),
    /// The fields `write` names on record `id`.
    Update { id: String, write: ValidatedWrite },
    /// Record `id`; the outcome is the deleted record.
    Delete { id: String },
}

fn apply(conn: &mut SqliteConnection, write: &BatchedWrite) -> Result<Value, DieselError> {
    match &write.change {
        BatchedChange::Create(values) => insert_new_row(conn, write.spec, values, write.now_ms),
        BatchedChange::Update { id, write: values } => update_row(conn, write.spec, id, values, write.now_ms),
        BatchedChange::Delete { id } => delete_row(conn, write.spec, id),
    }
}

impl RecordStore {
    /// Applies `writes` in order in one transaction and returns each one's outcome (the stored or
    /// deleted record, or why it was refused). `Err` when the transaction failed as a whole:
    /// then nothing in the batch is stored.
    pub fn write_batch(&self, writes: &[BatchedWrite]) -> Result<Vec<Result<Value, RecordError>>, RecordError> {
        let mut conn = self.conn()?;
        let single_write = writes.len() == 1;
        let outcome = conn.immediate_transaction(|c| {
            let mut outcomes = Vec::with_capacity(writes.len());
            for write in writes {
                // Alone, a failed write simply rolls the transaction back.
                let applied = if single_write { apply(c, write) } else { c.transaction(|c| apply(c, write)) };
                match applied {
                    Ok(record) => outcomes.push(Ok(record)),
                    Err(error) if single_write => return Err(error),
                    Err(error) => outcomes.push(Err(map_db_error(write.spec, error))),
                }
            }
            Ok(outcomes)
        });
        match outcome {
            Ok(outcomes) => Ok(outcomes),
            Err(error) if single_write => Ok(vec![Err(map_db_error(writes[0].spec, error))]),
            Err(error) => Err(map_db_error(writes[0].spec, error)),
        }
    }
}

#[cfg(test)]
mod tests {
    use diesel::RunQueryDsl;
    use domain::collections::CONTACTS;
    use domain::record::{ListQuery, RawListParams};
    use domain::validation::{validate_write, WriteMode};
    use serde_json::json;

    use super::*;
    use crate::store::tests::store;

    fn create(body: Value, now_ms: i64) -> BatchedWrite {
        let write = validate_write(&CONTACTS, &body, WriteMode::Create).unwrap();
        BatchedWrite { spec: &CONTACTS, change: BatchedChange::Create(write), now_ms }
    }

    fn all_names(s: &RecordStore) -> Vec<String> {
        let q = ListQuery::parse(&CONTACTS, &RawListParams { sort: Some("name".into()), ..Default::default() });
        let page = s.list(&CONTACTS, &q.unwrap()).unwrap();
        page.items.iter().map(|r| r["name"].as_str().unwrap().to_string()).collect()
    }

    #[test]
    fn a_failed_write_rolls_back_alone_and_the_rest_commit_in_order() {
        let (_tmp, s) = store();
        let first = s.write_batch(&[create(json!({"id": "aaaaaaaaaaaaaaa", "name": "Ada"}), 1)]).unwrap();
        assert!(first[0].is_ok(), "{first:?}");
        let update = |id: &str, name: &str| BatchedWrite {
            spec: &CONTACTS,
            change: BatchedChange::Update {
                id: id.into(),
                write: validate_write(&CONTACTS, &json!({"name": name}), WriteMode::Update).unwrap(),
            },
            now_ms: 3,
        };
        let outcomes = s
            .write_batch(&[
                create(json!({"name": "Grace"}), 2),
                // The same id again: a unique violation, rolled back to its savepoint only.
                create(json!({"id": "aaaaaaaaaaaaaaa", "name": "Impostor"}), 2),
                update("aaaaaaaaaaaaaaa", "Ada L."),
                update("zzzzzzzzzzzzzzz", "Nobody"),
                BatchedWrite { spec: &CONTACTS, change: BatchedChange::Delete { id: "nothere".into() }, now_ms: 3 },
                create(json!({"name": "Linus"}), 4),
            ])
            .unwrap();
        assert!(outcomes[0].is_ok());
        assert!(matches!(&outcomes[1], Err(RecordError::Validation(e)) if e.contains_key("id")), "{:?}", outcomes[1]);
        assert_eq!(outcomes[2].as_ref().unwrap()["name"], "Ada L.");
        assert_eq!(outcomes[3], Err(RecordError::NotFound));
        assert_eq!(outcomes[4], Err(RecordError::NotFound));
        assert_eq!(all_names(&s), ["Ada L.", "Grace", "Linus"]);
        let revisions: Vec<i64> = [&outcomes[0], &outcomes[2], &outcomes[5]]
            .iter()
            .map(|r| r.as_ref().unwrap()["revision"].as_i64().unwrap())
            .collect();
        // A refused write gives its revision back with its savepoint: the committed ones are
        // consecutive.
        assert!(revisions.windows(2).all(|w| w[1] == w[0] + 1), "{revisions:?}");
    }

    #[test]
    fn a_lone_write_that_fails_reports_its_own_error() {
        let (_tmp, s) = store();
        s.write_batch(&[create(json!({"id": "bbbbbbbbbbbbbbb", "name": "Ada"}), 1)]).unwrap();
        let again = s.write_batch(&[create(json!({"id": "bbbbbbbbbbbbbbb", "name": "Twin"}), 2)]).unwrap();
        assert!(matches!(&again[0], Err(RecordError::Validation(_))), "{again:?}");
        assert_eq!(all_names(&s), ["Ada"]);
    }

    #[test]
    fn a_batch_whose_transaction_cannot_begin_stores_nothing() {
        let (_tmp, s) = store();
        // Another connection holds the write lock past the busy timeout, so BEGIN IMMEDIATE fails.
        let mut blocker = s.conn().unwrap();
        diesel::sql_query("BEGIN IMMEDIATE").execute(&mut *blocker).unwrap();
        let mut quick = s.conn().unwrap();
        diesel::sql_query("PRAGMA busy_timeout = 10").execute(&mut *quick).unwrap();
        drop(quick);
        let failed = s.write_batch(&[create(json!({"name": "A"}), 1), create(json!({"name": "B"}), 1)]);
        diesel::sql_query("ROLLBACK").execute(&mut *blocker).unwrap();
        drop(blocker);
        assert!(failed.is_err(), "{failed:?}");
        assert!(all_names(&s).is_empty());
    }
}
