//! The Wiki's full-text index in the store: a published document's passages written in one
//! transaction (replacing any earlier ones), and searches over them with SQLite FTS5 and BM25,
//! joined to the documents so only active ones answer, filtered by category, type or one
//! document; the index ranks alone first and only its best candidates are joined. The `MATCH`
//! expression comes only from `domain::wiki::fts_match_expression` (every word quoted, never an
//! operator), and every value is bound.

use diesel::sql_types::{BigInt, Double, Text};
use diesel::sqlite::SqliteConnection;
use diesel::{Connection, QueryableByName, RunQueryDsl};

use domain::wiki::Passage;

/// Replaces the passages of `document_id` with `passages` of the PDF `checksum`.
pub fn replace_passages(
    conn: &mut SqliteConnection,
    document_id: &str,
    checksum: &str,
    passages: &[Passage],
    index_version: u32,
) -> diesel::QueryResult<()> {
    conn.transaction(|c| {
        remove_passages(c, document_id)?;
        for p in passages {
            diesel::sql_query(
                "INSERT INTO relay_wiki_passages (documentId, checksum, pageNumber, passageNumber, headingId, heading, \
                 text, normalizedText, indexVersion) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind::<Text, _>(document_id)
            .bind::<Text, _>(checksum)
            .bind::<BigInt, _>(i64::from(p.page_number))
            .bind::<BigInt, _>(i64::from(p.passage_number))
            .bind::<Text, _>(p.heading_id.as_deref().unwrap_or(""))
            .bind::<Text, _>(p.heading.as_deref().unwrap_or(""))
            .bind::<Text, _>(&p.text)
            .bind::<Text, _>(&p.normalized_text)
            .bind::<BigInt, _>(i64::from(index_version))
            .execute(c)?;
        }
        Ok(())
    })
}

/// Removes every passage of `document_id`.
pub fn remove_passages(conn: &mut SqliteConnection, document_id: &str) -> diesel::QueryResult<usize> {
    diesel::sql_query("DELETE FROM relay_wiki_passages WHERE documentId = ?").bind::<Text, _>(document_id).execute(conn)
}

#[derive(QueryableByName)]
struct Count {
    #[diesel(sql_type = BigInt)]
    n: i64,
}

/// The whole words among `words` that are common in the index (`domain::wiki::is_common_word`:
/// in more than a fifth of all passages). Each word's passages are counted through the index
/// only up to `domain::wiki::common_word_count_limit`, so a word in every passage costs a fifth
/// of its list, not the whole of it (as a vocabulary lookup would).
pub fn common_words(conn: &mut SqliteConnection, words: &[String]) -> diesel::QueryResult<Vec<String>> {
    if words.is_empty() {
        return Ok(Vec::new());
    }
    let total: Vec<Count> = diesel::sql_query("SELECT COUNT(*) AS n FROM relay_wiki_passages").load(conn)?;
    let total = total.first().map_or(0, |r| r.n as u64);
    let Some(limit) = domain::wiki::common_word_count_limit(total) else { return Ok(Vec::new()) };
    let mut common = Vec::new();
    for word in words {
        let expression = domain::wiki::quote_fts_string(word);
        let passages = count_window(conn, &expression, &SearchFilter::default(), limit as usize)? as u64;
        if domain::wiki::is_common_word(passages, total) {
            common.push(word.clone());
        }
    }
    Ok(common)
}

/// What a search may be narrowed to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchFilter {
    pub document_id: Option<String>,
    pub category_id: Option<String>,
    pub document_type: Option<String>,
}

/// One matching passage of an active document, best first.
#[derive(Debug, Clone, PartialEq, QueryableByName)]
pub struct PassageHit {
    #[diesel(sql_type = Text, column_name = "documentId")]
    pub document_id: String,
    #[diesel(sql_type = Text)]
    pub title: String,
    #[diesel(sql_type = BigInt, column_name = "pageNumber")]
    pub page_number: i64,
    #[diesel(sql_type = Text)]
    pub heading: String,
    #[diesel(sql_type = Text)]
    pub text: String,
    #[diesel(sql_type = Text, column_name = "normalizedText")]
    pub normalized_text: String,
    #[diesel(sql_type = Double)]
    pub rank: f64,
}

/// How many index candidates the first round reads; each widening multiplies it by ten.
const FIRST_CANDIDATES: usize = 200;
/// Past this many candidates a search reads every match.
const MAX_CANDIDATES: usize = 20_000;
/// A query with more matches than this is broad: it is ranked among its most recently indexed
/// matches only (see [`search_passages`]).
pub const BROAD_MATCHES: usize = 4_000;

/// The best `limit` passages for the FTS5 `expression`, BM25-ranked. The index is asked for its
/// best candidates alone (FTS5 orders by rank itself, with no join per match), which are then
/// joined to their active documents and filtered; when filters leave fewer than `limit` and the
/// index had more, the candidate window widens (x10) up to every match. A one-document search
/// narrows the index to that document's rowids (its passages are written together).
///
/// FTS5 scores every match before it can rank (it has no top-k pruning), so a broad query (more
/// than [`BROAD_MATCHES`] matches: every word in most passages, or a short prefix typed so far)
/// is ranked among its [`BROAD_MATCHES`] most recently indexed matches, which bounds its cost;
/// when that sample leaves fewer than `limit` results after the filters, every match is ranked.
pub fn search_passages(
    conn: &mut SqliteConnection,
    expression: &str,
    filter: &SearchFilter,
    limit: usize,
) -> diesel::QueryResult<Vec<PassageHit>> {
    search_passages_within(conn, expression, filter, limit, BROAD_MATCHES)
}

pub(crate) fn search_passages_within(
    conn: &mut SqliteConnection,
    expression: &str,
    filter: &SearchFilter,
    limit: usize,
    broad_matches: usize,
) -> diesel::QueryResult<Vec<PassageHit>> {
    // Every search first ranks its newest `broad_matches` matches: that is exact whenever the
    // query has no more matches than that, and the bound when it has more.
    let newest = search_window(conn, expression, filter, limit, Scored::Newest(broad_matches))?;
    if newest.len() >= limit || count_window(conn, expression, filter, broad_matches + 1)? <= broad_matches {
        return Ok(newest);
    }
    let mut candidates = FIRST_CANDIDATES.max(limit);
    loop {
        let window = if candidates > MAX_CANDIDATES { None } else { Some(candidates) };
        let scored = window.map_or(Scored::Every, Scored::Best);
        let hits = search_window(conn, expression, filter, limit, scored)?;
        if hits.len() >= limit {
            return Ok(hits);
        }
        // Too few after the filters: widen only if the index had more than the window.
        if window.is_none_or(|w| count_window(conn, expression, filter, w).is_ok_and(|n| n < w)) {
            return Ok(hits);
        }
        candidates *= 10;
    }
}

/// Which matches a search window ranks and keeps as candidates.
#[derive(Debug, Clone, Copy)]
enum Scored {
    /// The best `n` of every match.
    Best(usize),
    /// Every match.
    Every,
    /// All of the `n` most recently indexed matches (highest rowids), best first.
    Newest(usize),
}

fn document_rowids(filter: &SearchFilter) -> &'static str {
    if filter.document_id.is_some() {
        " AND rowid BETWEEN (SELECT min(id) FROM relay_wiki_passages WHERE documentId = ?) \
         AND (SELECT max(id) FROM relay_wiki_passages WHERE documentId = ?)"
    } else {
        ""
    }
}

/// How many candidates the window held (at most `window`).
fn count_window(
    conn: &mut SqliteConnection,
    expression: &str,
    filter: &SearchFilter,
    window: usize,
) -> diesel::QueryResult<usize> {
    let sql = format!(
        "SELECT COUNT(*) AS n FROM (SELECT rowid FROM relay_wiki_passages_fts WHERE relay_wiki_passages_fts MATCH ?{} LIMIT ?)",
        document_rowids(filter)
    );
    let mut query = diesel::sql_query(sql).into_boxed().bind::<Text, _>(expression.to_string());
    if let Some(id) = &filter.document_id {
        query = query.bind::<Text, _>(id.clone()).bind::<Text, _>(id.clone());
    }
    let rows: Vec<Count> = query.bind::<BigInt, _>(window as i64).load(conn)?;
    Ok(rows.first().map_or(0, |r| r.n as usize))
}

fn search_window(
    conn: &mut SqliteConnection,
    expression: &str,
    filter: &SearchFilter,
    limit: usize,
    scored: Scored,
) -> diesel::QueryResult<Vec<PassageHit>> {
    let matches = format!(
        "SELECT rowid AS id, rank FROM relay_wiki_passages_fts WHERE relay_wiki_passages_fts MATCH ?{}",
        document_rowids(filter)
    );
    // FTS5 computes `rank` only for the rows the inner LIMIT lets through (rowid order is the
    // index's own), so the newest sample costs its size, not the number of matches.
    let top = match scored {
        Scored::Best(n) => format!("{matches} ORDER BY rank LIMIT {n}"),
        Scored::Every => format!("{matches} ORDER BY rank"),
        Scored::Newest(n) => format!("SELECT id, rank FROM ({matches} ORDER BY rowid DESC LIMIT {n})"),
    };
    // The candidates drive the join (CROSS JOIN keeps SQLite from walking every passage of
    // every document and probing the candidates instead).
    let mut sql = format!(
        "WITH top AS ({top}) \
         SELECT p.documentId, d.title, p.pageNumber, p.heading, p.text, p.normalizedText, top.rank AS rank \
         FROM top CROSS JOIN relay_wiki_passages p ON p.id = top.id \
         CROSS JOIN wiki_documents d ON d.id = p.documentId AND d.checksum = p.checksum \
         WHERE d.lifecycleState = 'active'"
    );
    let mut binds: Vec<&str> = Vec::new();
    for (column, value) in [("d.categoryId", &filter.category_id), ("d.documentType", &filter.document_type)] {
        if let Some(value) = value {
            sql.push_str(&format!(" AND {column} = ?"));
            binds.push(value);
        }
    }
    sql.push_str(" ORDER BY top.rank, p.documentId, p.pageNumber, p.passageNumber LIMIT ?");
    let mut query = diesel::sql_query(sql).into_boxed().bind::<Text, _>(expression.to_string());
    if let Some(id) = &filter.document_id {
        query = query.bind::<Text, _>(id.clone()).bind::<Text, _>(id.clone());
    }
    for value in binds {
        query = query.bind::<Text, _>(value.to_string());
    }
    query.bind::<BigInt, _>(limit as i64).load(conn)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
