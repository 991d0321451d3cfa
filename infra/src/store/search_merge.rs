//! Merging the trigram search indexes' segments. FTS5 keeps each index as a set of b-tree
//! segments: every write transaction adds a small one, and `automerge` folds them together only
//! in groups of four per level, so an index filled by many small transactions (the record API's
//! group commits) holds about a dozen, and every `MATCH` looks each of its terms up in every
//! segment (at 100,000 contacts a one-match phrase took 0.65 ms over 11 segments and 0.10 ms
//! over one). [`RecordStore::merge_search_step`] runs one bounded step of FTS5's incremental
//! `merge` command (at most [`MERGE_STEP_PAGES`] pages written; the negative form, which merges
//! the segments of every level into one), and [`RecordStore::search_segments`] counts them. The
//! store actor decides when to run steps (writes quiet, one step per writer message, so writes
//! interleave: `actors::store::search_merge`). Merging rewrites the index's own b-trees only and
//! never changes what a search finds.

use diesel::sql_types::BigInt;
use diesel::RunQueryDsl;

use domain::record::RecordError;
use domain::search::SearchIndex;

use super::{CountRow, RecordStore};
use crate::db::DbConn;
use crate::sql::quote_ident;

/// The most index pages one merge step writes (about 6 ms on the reference machine).
pub const MERGE_STEP_PAGES: i64 = 64;

fn internal(index: &SearchIndex, what: &'static str) -> impl FnOnce(diesel::result::Error) -> RecordError {
    let table = index.table;
    move |e| {
        tracing::error!(index = table, error = %e, "{what} failed");
        RecordError::Internal
    }
}

fn count(conn: &mut DbConn, sql: &str) -> Result<i64, diesel::result::Error> {
    Ok(diesel::sql_query(sql).load::<CountRow>(conn)?.first().map_or(0, |r| r.n))
}

impl RecordStore {
    /// How many b-tree segments `index` holds now (0 for an empty index).
    pub fn search_segments(&self, index: &SearchIndex) -> Result<u32, RecordError> {
        let mut conn = self.conn()?;
        let sql = format!("SELECT count(DISTINCT segid) AS n FROM {}", quote_ident(&format!("{}_idx", index.table)));
        let n = count(&mut conn, &sql).map_err(internal(index, "search segment count"))?;
        Ok(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// One step of merging `index`'s segments into one, in its own write transaction. True when
    /// the step did work (more may remain); false when there was nothing left to merge. Only the
    /// store's writer thread calls it.
    pub fn merge_search_step(&self, index: &SearchIndex) -> Result<bool, RecordError> {
        let mut conn = self.conn()?;
        let fts = quote_ident(index.table);
        let merge = format!("INSERT INTO {fts} ({fts}, rank) VALUES ('merge', ?)");
        // FTS5's documented test: the command changed two or more rows when it merged anything.
        let changes = "SELECT total_changes() AS n";
        let before = count(&mut conn, changes).map_err(internal(index, "search merge"))?;
        diesel::sql_query(merge)
            .bind::<BigInt, _>(-MERGE_STEP_PAGES)
            .execute(&mut conn)
            .map_err(internal(index, "search merge"))?;
        let after = count(&mut conn, changes).map_err(internal(index, "search merge"))?;
        Ok(after - before >= 2)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use domain::collections::CONTACTS;
    use domain::filter::{CmpOp, Expr, Literal};
    use domain::record::{ListPage, ListQuery};
    use domain::search::index_for;
    use domain::sort::parse_sort;
    use domain::validation::{validate_write, WriteMode};

    use super::super::tests::store;
    use crate::sql::SearchPlan;

    fn search(s: &super::RecordStore, term: &str) -> (Vec<String>, i64) {
        let filter = Expr::Cmp { field: "name".into(), op: CmpOp::Like, value: Literal::Str(term.into()) };
        let q = ListQuery {
            page: 1,
            per_page: 1000,
            sort: parse_sort("-created").unwrap(),
            filter: Some(filter),
            skip_total: false,
        };
        let page: ListPage = s.list_planned(&CONTACTS, &q, SearchPlan::Indexed).unwrap();
        (page.items.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect(), page.total_items)
    }

    #[test]
    fn merging_leaves_one_segment_and_every_search_answers_the_same() {
        let (_tmp, s) = store();
        let index = index_for(&CONTACTS, "name").unwrap();
        assert_eq!(s.search_segments(index).unwrap(), 0, "an empty index has no segment");
        // One transaction per contact, as the record API writes them one at a time.
        for i in 0..300 {
            let body = json!({"name": format!("Person {i}"), "email": format!("p{i}@example.com")});
            s.create(&CONTACTS, &validate_write(&CONTACTS, &body, WriteMode::Create).unwrap(), 1_000 + i).unwrap();
        }
        let id = search(&s, "Person 7").0[0].clone();
        s.delete(&CONTACTS, &id).unwrap();
        let fragmented = s.search_segments(index).unwrap();
        assert!(fragmented >= 4, "300 small transactions leave several segments ({fragmented})");
        let terms = ["Person 1", "Person 299", "son 4", "Person 7", "erson", "nobody"];
        let before: Vec<_> = terms.iter().map(|t| search(&s, t)).collect();

        let mut steps = 0;
        while s.merge_search_step(index).unwrap() {
            steps += 1;
            assert!(steps < 1_000, "merging ends");
        }
        assert!(steps >= 1, "the fragmented index was merged");
        assert_eq!(s.search_segments(index).unwrap(), 1, "one segment is left");
        assert!(!s.merge_search_step(index).unwrap(), "a merged index has nothing left to merge");
        let after: Vec<_> = terms.iter().map(|t| search(&s, t)).collect();
        assert_eq!(after, before, "merging never changes an answer");
        assert_eq!(after[0].1, 111, "Person 1, 10-19, 100-199");
        let sql = "INSERT INTO relay_fts_contacts (relay_fts_contacts, rank) VALUES ('integrity-check', 1)";
        diesel::connection::SimpleConnection::batch_execute(&mut *s.conn().unwrap(), sql).expect("index intact");
    }
}
