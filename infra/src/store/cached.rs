//! Fixed-shape statements that SQLite prepares once per pooled connection. Diesel re-prepares
//! every `sql_query` on each call; a create's `INSERT ... RETURNING json_object(...)`, whose
//! prepare also compiles the collection's search-index trigger, cost more to prepare than to
//! run. Only statements whose text is fixed per collection go through here (insert, get by id,
//! the revision counter): never a filter, whose shapes a client chooses, because diesel's cache
//! keeps every distinct statement for the connection's life.

use diesel::query_builder::{AstPass, Query, QueryFragment, QueryId};
use diesel::sql_types::{BigInt, Double, Text, Untyped};
use diesel::sqlite::{Sqlite, SqliteConnection};
use diesel::{QueryResult, RunQueryDsl};

use domain::validation::SqlValue;

/// SQL text fixed per collection, with one `?` per bind value and no other `?` (identifiers come
/// from the collection specs), and its bind values, in order.
pub(crate) struct Cached<'a> {
    pub(crate) sql: &'a str,
    pub(crate) binds: Vec<SqlValue>,
}

impl QueryId for Cached<'_> {
    type QueryId = ();
    const HAS_STATIC_QUERY_ID: bool = false;
}

impl Query for Cached<'_> {
    type SqlType = Untyped;
}

impl QueryFragment<Sqlite> for Cached<'_> {
    fn walk_ast<'b>(&'b self, mut out: AstPass<'_, 'b, Sqlite>) -> QueryResult<()> {
        // `push_bind_param` writes the placeholder itself: the text goes in between.
        debug_assert_eq!(self.sql.matches('?').count(), self.binds.len(), "{}", self.sql);
        let mut parts = self.sql.split('?');
        out.push_sql(parts.next().unwrap_or_default());
        for (bind, part) in self.binds.iter().zip(parts) {
            match bind {
                SqlValue::Text(s) => out.push_bind_param::<Text, _>(s)?,
                SqlValue::Real(n) => out.push_bind_param::<Double, _>(n)?,
                SqlValue::Integer(i) => out.push_bind_param::<BigInt, _>(i)?,
            }
            out.push_sql(part);
        }
        Ok(())
    }
}

impl RunQueryDsl<SqliteConnection> for Cached<'_> {}

#[cfg(test)]
mod tests {
    use diesel::Connection;

    use super::*;
    use crate::store::{CountRow, JsonRow};

    #[test]
    fn binds_go_where_the_placeholders_are_and_the_statement_is_reused() {
        let mut conn = SqliteConnection::establish(":memory:").unwrap();
        for (a, b) in [("x", 1), ("y", 2)] {
            let binds = vec![SqlValue::Text(a.into()), SqlValue::Integer(b), SqlValue::Real(0.5)];
            let rows: Vec<JsonRow> =
                Cached { sql: "SELECT ? || '-' || ? || '-' || ? AS data", binds }.load(&mut conn).unwrap();
            assert_eq!(rows[0].data, format!("{a}-{b}-0.5"));
        }
        let rows: Vec<CountRow> = Cached { sql: "SELECT 7 AS n", binds: Vec::new() }.load(&mut conn).unwrap();
        assert_eq!(rows[0].n, 7);
    }
}
