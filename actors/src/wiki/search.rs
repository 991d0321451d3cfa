//! Wiki search for the wiki actor: indexing a published document's passages (built by
//! `domain::wiki::build_document_passages` from the pages its upload's extraction kept, under
//! the passage budget) and answering a query with at most 20 passages (50 within one document),
//! each with its match kind and a highlighted excerpt as character ranges (never HTML); whole
//! words found in most passages are left out of the index query when another word remains. An
//! indexing failure marks the document's search state `failed` and leaves it readable; a
//! document left `pending` (server stopped before indexing, store unavailable) is indexed again
//! from its stored PDF by the actor's sweep.

use serde::Serialize;
use serde_json::{json, Value};

use domain::collections::WIKI_DOCUMENTS;
use domain::validation::SqlValue;
use domain::wiki::limits::SEARCH_INDEX_VERSION;
use domain::wiki::OutlineEntry;
use domain::wiki::{
    build_document_passages, check_query, clamp_result_limit, excerpt, match_kind, PassageBudget, PassageLimits,
    SearchScope, SearchTerms,
};
use infra::store::{get_in, select_in, update_in};
use infra::wiki::search::{common_words, remove_passages, replace_passages, search_passages, SearchFilter};
use infra::wiki::uploads;

use super::pipeline::{outline_from_json, Pipeline, PAGES_FILE};
use super::{IndexDocument, WikiError};

/// Most bytes of extracted page text read back for indexing (the extraction budget of
/// 8,000,000 UTF-16 units, as UTF-8 JSON).
const MAX_PAGES_FILE_BYTES: u64 = 40 * 1024 * 1024;
/// How long a published document may stay `pending` before a sweep indexes it again from its
/// stored PDF ([`reindex_stale_pending`]).
pub(super) const PENDING_INDEX_GRACE_MS: i64 = 5 * 60 * 1000;
/// Stale pending documents re-indexed per sweep (each is one worker extraction).
const REINDEX_PER_SWEEP: i64 = 3;

/// A search as asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SearchRequest {
    pub query: String,
    pub document_id: Option<String>,
    pub category_id: Option<String>,
    pub document_type: Option<String>,
    pub limit: Option<usize>,
}

/// One passage that matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub document_id: String,
    pub title: String,
    pub page_number: i64,
    pub heading: String,
    pub match_kind: &'static str,
    pub excerpt: String,
    /// Character ranges of `excerpt` to highlight, as `[start, end)` pairs.
    pub highlights: Vec<[usize; 2]>,
}

fn read_pages(pipeline: &Pipeline, upload_id: &str) -> Option<Vec<String>> {
    let path = pipeline.files.upload_dir(upload_id).ok()?.join(PAGES_FILE);
    let bytes = infra::datadir::read_private_file(&path).ok()??;
    if bytes.len() as u64 > MAX_PAGES_FILE_BYTES {
        return None;
    }
    serde_json::from_slice(&bytes).ok()
}

/// Indexes one published document; returns its updated record (for realtime), or `None` when
/// the document is gone. The upload's staging is removed either way.
pub(super) fn index_document(pipeline: &Pipeline, msg: &IndexDocument) -> Option<Value> {
    let outcome = index_inner(pipeline, msg);
    if let Err(e) = pipeline.files.remove_upload(&msg.upload_id) {
        tracing::warn!(error = %e, "published upload staging not removed; the sweep retries");
    }
    match outcome {
        Ok(record) => record,
        Err(e) => {
            tracing::warn!(code = domain::problem::HttpProblem::code(&e), "wiki indexing failed");
            None
        }
    }
}

fn index_inner(pipeline: &Pipeline, msg: &IndexDocument) -> Result<Option<Value>, WikiError> {
    let mut conn = pipeline.pool.get().map_err(|_| WikiError::Unavailable)?;
    let Some(document) = get_in(&mut conn, &WIKI_DOCUMENTS, &msg.document_id).map_err(|_| WikiError::Internal)? else {
        return Ok(None);
    };
    let upload = uploads::load_upload(&mut conn, &msg.upload_id)?;
    let outline = upload.map(|u| outline_from_json(&u.outline)).unwrap_or_default();
    drop(conn);
    let pages = read_pages(pipeline, &msg.upload_id);
    store_index(pipeline, &document, pages.as_deref(), &outline).map(Some)
}

/// Builds and stores the passages of `document` from its extracted `pages` (`None`: the
/// extraction's pages are missing or unreadable) and records the outcome as its search state
/// (`ready`, or `failed` with a fixed code and no passages). Returns the updated record.
fn store_index(
    pipeline: &Pipeline,
    document: &Value,
    pages: Option<&[String]>,
    outline: &[OutlineEntry],
) -> Result<Value, WikiError> {
    let document_id = document["id"].as_str().unwrap_or_default();
    let checksum = document["checksum"].as_str().unwrap_or_default();
    let error = match pages {
        None => Some("extraction-failed"),
        Some(pages) => {
            let numbered = pages.iter().enumerate().map(|(i, text)| (i as u32 + 1, text.as_str()));
            let mut budget = PassageBudget::default();
            match build_document_passages(numbered, outline, &PassageLimits::default(), &mut budget) {
                Err(_) => Some("extraction-failed"),
                Ok(passages) if passages.is_empty() => Some("no-searchable-text"),
                Ok(passages) => {
                    let mut conn = pipeline.pool.get().map_err(|_| WikiError::Unavailable)?;
                    match replace_passages(&mut conn, document_id, checksum, &passages, SEARCH_INDEX_VERSION) {
                        Ok(()) => None,
                        Err(e) => {
                            tracing::error!(error = %e, "wiki passages not stored");
                            Some("storage-unavailable")
                        }
                    }
                }
            }
        }
    };
    let mut conn = pipeline.pool.get().map_err(|_| WikiError::Unavailable)?;
    if error.is_some() {
        let _ = remove_passages(&mut conn, document_id);
    }
    let now = pipeline.clock.now_ms();
    let body = json!({
        "searchIndexState": if error.is_some() { "failed" } else { "ready" },
        "searchIndexError": error.unwrap_or(""),
        "searchIndexedAt": domain::time::format_ms(now),
    });
    update_in(&mut conn, &WIKI_DOCUMENTS, document_id, &body, now).map_err(|_| WikiError::Internal)
}

/// Re-indexes, from their stored PDFs, documents that have been `pending` for longer than
/// [`PENDING_INDEX_GRACE_MS`] (at most [`REINDEX_PER_SWEEP`] per call, oldest first). Indexing
/// normally settles seconds after publishing; a server stopped in between, a lost message or a
/// store that was unavailable would otherwise leave a document out of search for good. The PDF
/// is extracted again by the pipeline's extractor (the bounded worker in production); a PDF
/// that is missing or fails extraction marks the document `failed`. Returns the updated records.
pub(super) fn reindex_stale_pending(pipeline: &Pipeline) -> Result<Vec<Value>, WikiError> {
    let cutoff = domain::time::format_ms(pipeline.clock.now_ms().saturating_sub(PENDING_INDEX_GRACE_MS));
    let stale = {
        let mut conn = pipeline.pool.get().map_err(|_| WikiError::Unavailable)?;
        select_in(
            &mut conn,
            &WIKI_DOCUMENTS,
            "\"searchIndexState\" = 'pending' AND \"updated\" < ?",
            &[SqlValue::Text(cutoff)],
            "\"updated\" ASC",
            REINDEX_PER_SWEEP,
        )
        .map_err(|_| WikiError::Internal)?
    };
    let mut updated = Vec::with_capacity(stale.len());
    for document in stale {
        let checksum = document["checksum"].as_str().unwrap_or_default();
        let extracted = pipeline.files.pdf_path(checksum).ok().and_then(|pdf| pipeline.extractor.extract(&pdf).ok());
        let record = match extracted {
            Some(extracted) => store_index(pipeline, &document, Some(&extracted.pages), &extracted.outline)?,
            None => store_index(pipeline, &document, None, &[])?,
        };
        tracing::info!(
            state = record["searchIndexState"].as_str().unwrap_or_default(),
            "stale pending Wiki document re-indexed"
        );
        updated.push(record);
    }
    Ok(updated)
}

/// Answers one search.
pub(super) fn search(pipeline: &Pipeline, request: &SearchRequest) -> Result<Vec<SearchHit>, WikiError> {
    let query = check_query(&request.query).map_err(|e| WikiError::InvalidQuery(e.to_string()))?;
    let terms = SearchTerms::from_query(&query).map_err(|e| WikiError::InvalidQuery(e.to_string()))?;
    let scope = if request.document_id.is_some() { SearchScope::OneDocument } else { SearchScope::AllDocuments };
    let limit = clamp_result_limit(scope, request.limit);
    let filter = SearchFilter {
        document_id: request.document_id.clone(),
        category_id: request.category_id.clone(),
        document_type: request.document_type.clone(),
    };
    let mut conn = pipeline.pool.get().map_err(|_| WikiError::Unavailable)?;
    let whole_words = &terms.tokens()[..terms.tokens().len().saturating_sub(1)];
    let common = common_words(&mut conn, whole_words).unwrap_or_default();
    let searched = terms.without_common(|word| common.iter().any(|c| c == word));
    let hits = search_passages(&mut conn, &searched.fts_match_expression(), &filter, limit).map_err(|e| {
        tracing::error!(error = %e, "wiki search failed");
        WikiError::Unavailable
    })?;
    Ok(hits
        .into_iter()
        .map(|hit| {
            let shown = excerpt(&hit.text, &terms);
            SearchHit {
                match_kind: match_kind(&hit.normalized_text, &terms).as_str(),
                document_id: hit.document_id,
                title: hit.title,
                page_number: hit.page_number,
                heading: hit.heading,
                highlights: shown.highlights.iter().map(|r| [r.start, r.end]).collect(),
                excerpt: shown.text,
            }
        })
        .collect())
}
