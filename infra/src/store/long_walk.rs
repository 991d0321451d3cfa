//! The index for a newest-first list without a total whose `~` term is too broad for the usual
//! limit. Without a total, a term with more than `domain::search::INDEX_MAX_CANDIDATES`
//! candidates is scanned in the sort order, on the assumption that its matches are spread over
//! the table and the scan fills a page after a few rows. When the newest matches are old rows
//! (`Person 1` among 100,000 contacts created in order: the newest match is 80,000 rows down),
//! the scan walks most of the table, slower than the list with its total, which reads the
//! candidates. For a list sorted by `-created`, [`rescue_long_walk`] estimates the walk from the
//! candidate that would end the page (the `page_end`-th newest by rowid; rows are numbered as
//! they are created, so rowid order stands in for `created` here: an estimate for choosing a
//! plan, never for an answer) and, when the walk costs more than reading the candidates
//! (`domain::search::index_beats_walk`), reads them (up to the with-total limit) and narrows by
//! them. Both plans select exactly the same rows.

use diesel::sql_types::{BigInt, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{QueryableByName, RunQueryDsl};

use domain::search::{index_beats_walk, SearchIndex, INDEX_MAX_CANDIDATES, WALKED_ROWS_PER_CANDIDATE};

use super::candidates;
use super::plan_memo::PlanMemo;
use crate::sql::{quote_ident, Narrowing};

#[derive(QueryableByName)]
struct RowidRow {
    #[diesel(sql_type = BigInt)]
    rowid: i64,
}

/// The rowid of the `k`-th newest candidate of `query` on `index` (FTS5 reads its matches
/// backwards without sorting); `None` when there are fewer (or the index cannot answer).
fn kth_newest_candidate(conn: &mut SqliteConnection, index: &SearchIndex, query: &str, k: u64) -> Option<i64> {
    let fts = quote_ident(index.table);
    let sql = format!("SELECT rowid FROM {fts} WHERE {fts} MATCH ? ORDER BY rowid DESC LIMIT 1 OFFSET ?");
    let offset = i64::try_from(k.max(1) - 1).unwrap_or(i64::MAX);
    match diesel::sql_query(sql).bind::<Text, _>(query).bind::<BigInt, _>(offset).load::<RowidRow>(conn) {
        Ok(rows) => rows.first().map(|r| r.rowid),
        Err(e) => {
            tracing::error!(index = index.table, error = %e, "search index query failed");
            None
        }
    }
}

/// For a term the size rule sent to a scan in a `-created` list without a total whose page ends
/// at row `page_end`, in a table whose largest rowid is `max_rowid`: the rowids to narrow by
/// instead (at most `max_candidates` of them) when the scan would walk more rows than reading
/// them costs; `None` to keep the scan. A term whose candidates were too many to beat its walk
/// is remembered in `memo` like any overflow, so the next list does not read them again.
pub(super) fn rescue_long_walk(
    conn: &mut SqliteConnection,
    index: &SearchIndex,
    query: &str,
    page_end: u64,
    max_rowid: u64,
    max_candidates: u32,
    memo: &PlanMemo,
) -> Option<Narrowing> {
    // Recently found to have more candidates than its walk was worth: scan at once.
    if memo.known_to_overflow(index.table, query, INDEX_MAX_CANDIDATES + 1) {
        return None;
    }
    let walk = match kth_newest_candidate(conn, index, query, page_end) {
        Some(rowid) => max_rowid.saturating_sub(u64::try_from(rowid).unwrap_or(0)),
        None => max_rowid,
    };
    // The term overflowed the usual limit: a walk no longer than that many candidates cost
    // stays a scan without reading them.
    if !index_beats_walk(INDEX_MAX_CANDIDATES + 1, walk) {
        return None;
    }
    // Only as many candidates as beat the walk are worth reading; a term known to have more
    // (recently, `memo`) is not read again.
    let worth = u32::try_from(walk / WALKED_ROWS_PER_CANDIDATE).unwrap_or(u32::MAX).min(max_candidates);
    if memo.known_to_overflow(index.table, query, worth) {
        return None;
    }
    let (n, rowids) = candidates(conn, index, query, worth)?;
    if n <= worth && index_beats_walk(n, walk) {
        Some(Narrowing::Rowids(rowids))
    } else {
        memo.overflowed(index.table, query, worth);
        None
    }
}
