//! The Wiki's full-text index in the store: a published document's passages written in one
//! transaction (replacing any earlier ones), and searches over them with SQLite FTS5 and BM25,
//! joined to the documents so only active ones answer, filtered by category, type or one
//! document. The `MATCH` expression comes only from `domain::wiki::fts_match_expression`
//! (every word quoted, never an operator), and every value is bound.

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

/// The best `limit` passages for the FTS5 `expression`, BM25-ranked.
pub fn search_passages(
    conn: &mut SqliteConnection,
    expression: &str,
    filter: &SearchFilter,
    limit: usize,
) -> diesel::QueryResult<Vec<PassageHit>> {
    let mut sql = String::from(
        "SELECT p.documentId, d.title, p.pageNumber, p.heading, p.text, p.normalizedText, \
         bm25(relay_wiki_passages_fts) AS rank FROM relay_wiki_passages_fts \
         JOIN relay_wiki_passages p ON p.id = relay_wiki_passages_fts.rowid \
         JOIN wiki_documents d ON d.id = p.documentId AND d.checksum = p.checksum \
         WHERE relay_wiki_passages_fts MATCH ? AND d.lifecycleState = 'active'",
    );
    let mut binds: Vec<&str> = vec![expression];
    for (column, value) in [
        ("p.documentId", &filter.document_id),
        ("d.categoryId", &filter.category_id),
        ("d.documentType", &filter.document_type),
    ] {
        if let Some(value) = value {
            sql.push_str(&format!(" AND {column} = ?"));
            binds.push(value);
        }
    }
    sql.push_str(" ORDER BY rank, p.documentId, p.pageNumber, p.passageNumber LIMIT ?");
    let mut query = diesel::sql_query(sql).into_boxed();
    for value in binds {
        query = query.bind::<Text, _>(value);
    }
    query.bind::<BigInt, _>(limit as i64).load(conn)
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
