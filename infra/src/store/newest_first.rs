//! A newest-first page of a `~` search read along the search index in rowid order (issue #41
//! item 2). The exact plan for `sort=-created` finds the newest matches by reading every
//! candidate's `created` or by walking the `created` index down to them, both of which grow with
//! the table. FTS5 returns a term's matches in descending rowid order and can stop after a page,
//! and rows are numbered as they are written; [`walk`] reads the page that way whenever the
//! database can show, in the same statement, that rowid order is `created` order for every row
//! the page depends on, and otherwise leaves the list to the exact plan. A search with no more
//! candidates than the page needs (a one-match term, a page deep enough to hold every match) is
//! cheaper still read whole: its candidates are bound like any narrowed term's and the page
//! query sorts them by `created`, which assumes no order at all.
//!
//! **The fact it relies on.** Each searched collection has a frontier `F` (the
//! `relay_created_order` table, kept by triggers: migration `2026-12-08-000001_created_order`):
//! for every row `b` with rowid above `F`, every row `a` with a smaller rowid has
//! `created(a) <= created(b)`. It holds because the migration computed `F` from the stored rows
//! and every change since kept it: an insert whose `created` is below the largest stored one, or
//! whose rowid is below the largest rowid, raises `F` to the largest rowid (nothing above it
//! is left to vouch for); any other insert takes the largest rowid with the largest `created`,
//! so it precedes no stored row and follows only rows created no later; a change of `created`
//! raises `F` to the largest rowid; other updates touch neither rowid nor `created`; a delete
//! removes rows, never an ordering between the rest; `F` never falls. Rowids never change (the
//! search index is keyed by them too). The writers of `created` are all `store::insert_row`,
//! with the writer's clock at the time of the insert (record API, group commit, import, Servers
//! sync, offline replay's conflict log, the privileged Wiki writes), so `F` stays 0 unless the
//! wall clock steps back or rows come from outside (SQL, tests); then the pages that reach down
//! to `F` take the exact plan.
//!
//! **Why the page is exact.** One statement reads `F` and the newest `k = page × perPage`
//! matches with rowid above `F` (candidates from the index in descending rowid order, each
//! checked against the whole filter). If it found `k`, let `r` be the smallest: every found row
//! has rowid `>= r > F`, so no row below it was created later, and a row created at the same
//! instant sorts after it by the `rowid DESC` tie-break; every match not found has a rowid below
//! `r`. So the found rows are exactly the first `k` rows of `created DESC, rowid DESC`, and the
//! page is the last `perPage` of them (the page query sorts them again). If it found fewer and
//! `F` is 0, it read every match: the same argument covers all of them. Otherwise matches below
//! `F` might belong on the page, and the list uses the exact plan. The index is a pre-filter
//! here as everywhere ([`search_condition`]); the filter itself decides what matches.

use diesel::sql_types::{BigInt, Nullable, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};

use domain::collections::CollectionSpec;
use domain::filter::Expr;
use domain::record::ListQuery;

use domain::search::INDEX_MAX_CANDIDATES;
use domain::validation::SqlValue;

use super::plan_memo::{NewestFirst, PlanMemo};
use super::{bind_all, candidates};
use crate::sql::{compile_filter_with, quote_ident, readable, search_condition, Narrowing, Where};

#[derive(QueryableByName)]
struct Walked {
    #[diesel(sql_type = BigInt)]
    n: i64,
    #[diesel(sql_type = Text)]
    rowids: String,
    #[diesel(sql_type = Nullable<BigInt>)]
    frontier: Option<i64>,
}

/// Whether `q` is sorted newest first and by nothing else (the only order a rowid walk serves).
fn newest_first(q: &ListQuery) -> bool {
    matches!(q.sort.as_slice(), [key] if key.field == "created" && key.descending)
}

/// The filter that selects `q`'s page (filter `expr` on `spec`) by the rowids the index gave,
/// bound as a JSON array, with the filter itself kept (rows may change before the page is
/// read); `None` when the list is not a newest-first search the index can narrow, or the walk
/// could not show its page exact (see the module documentation). A search with no more
/// candidates than the page needs reads them all, in the index's cheap ascending order, and the
/// page query sorts them by `created`: no order is assumed, and the walk would have read them
/// all anyway (backwards, which costs FTS5 more for a phrase whose trigrams are common). The
/// caller restricts the filter to readable records as for any other plan.
pub(super) fn walk(
    conn: &mut SqliteConnection,
    spec: &CollectionSpec,
    q: &ListQuery,
    expr: &Expr,
    memo: &PlanMemo,
) -> Option<Where> {
    if !newest_first(q) {
        return None;
    }
    let (index, query) = search_condition(spec, expr)?;
    let filter = compile_filter_with(spec, expr, &mut |_, _| Narrowing::Scan).ok()?;
    let table = quote_ident(spec.name);
    let narrowed = |rowids: String, filter: Where| {
        let mut binds = vec![SqlValue::Text(rowids)];
        binds.extend(filter.binds);
        Where { sql: format!("({table}.rowid IN (SELECT value FROM json_each(?)) AND {})", filter.sql), binds }
    };
    let page_end = i64::from(q.page).saturating_mul(i64::from(q.per_page));
    let few = u32::try_from(page_end).unwrap_or(u32::MAX).min(INDEX_MAX_CANDIDATES);
    if let Some((n, rowids)) = candidates(conn, index, &query, few) {
        if n <= few {
            memo.newest_first(NewestFirst::Candidates);
            return Some(narrowed(rowids, filter));
        }
    }
    let checked = readable(spec, filter.clone());
    let fts = quote_ident(index.table);
    let frontier = format!("(SELECT \"frontier\" FROM \"relay_created_order\" WHERE \"collection\" = '{}')", spec.name);
    let sql = format!(
        "SELECT count(*) AS n, json_group_array(r) AS rowids, {frontier} AS frontier FROM \
         (SELECT m.r AS r FROM (SELECT rowid AS r FROM {fts} WHERE {fts} MATCH ? AND rowid > {frontier} \
         ORDER BY rowid DESC) AS m JOIN {table} ON {table}.rowid = m.r WHERE {} ORDER BY m.r DESC LIMIT ?)",
        checked.sql
    );
    let walked = bind_all(diesel::sql_query(sql).into_boxed().bind::<Text, _>(query), &checked.binds)
        .bind::<BigInt, _>(page_end)
        .load::<Walked>(conn);
    let walked = match walked {
        Ok(rows) => rows.into_iter().next()?,
        Err(e) => {
            tracing::error!(index = index.table, error = %e, "newest-first search walk failed");
            return None;
        }
    };
    if walked.n < page_end && walked.frontier != Some(0) {
        memo.newest_first(NewestFirst::Refused);
        return None;
    }
    memo.newest_first(NewestFirst::Walked);
    Some(narrowed(walked.rowids, filter))
}

#[cfg(test)]
#[path = "newest_first_tests.rs"]
mod tests;
