//! The record API's request and error vocabulary, independent of HTTP: list parameters
//! (`page`, `perPage`, `sort`, `filter`, `skipTotal`) parsed and bounded, the page shape
//! returned to clients, realtime actions, and `RecordError`, whose variants map one-to-one onto
//! PocketBase-style error bodies `{status, message, data}` through its `HttpProblem` impl
//! (`data` is the field map for validation errors, `{}` otherwise).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::collections::CollectionSpec;
use crate::filter::{parse_filter, Expr};
use crate::problem::HttpProblem;
use crate::sort::{parse_sort, SortKey};

pub const DEFAULT_PER_PAGE: u32 = 30;
pub const MAX_PER_PAGE: u32 = 1000;
/// Highest page number accepted; bounds OFFSET arithmetic.
pub const MAX_PAGE: u32 = 1_000_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldError {
    pub code: &'static str,
    pub message: String,
}

pub type FieldErrors = BTreeMap<String, FieldError>;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordError {
    #[error("The requested resource wasn't found.")]
    NotFound,
    #[error("Missing collection context.")]
    UnknownCollection,
    #[error("Failed to validate the submitted data.")]
    Validation(FieldErrors),
    #[error("{0}")]
    BadRequest(String),
    #[error("The request requires valid record authorization token.")]
    Unauthorized,
    #[error("Failed to authenticate.")]
    InvalidCredentials,
    /// PocketBase's 403 wording; used for endpoints this client may never reach (metrics off loopback).
    #[error("You are not allowed to perform this request.")]
    Forbidden,
    #[error("Too many requests.")]
    RateLimited { retry_after_secs: u64 },
    #[error("Request entity too large.")]
    TooLarge,
    #[error("The service is temporarily unavailable.")]
    Unavailable,
    #[error("Something went wrong while processing your request.")]
    Internal,
}

impl HttpProblem for RecordError {
    fn status(&self) -> u16 {
        match self {
            RecordError::NotFound | RecordError::UnknownCollection => 404,
            RecordError::Validation(_) | RecordError::BadRequest(_) | RecordError::InvalidCredentials => 400,
            RecordError::Unauthorized => 401,
            RecordError::Forbidden => 403,
            RecordError::TooLarge => 413,
            RecordError::RateLimited { .. } => 429,
            RecordError::Unavailable => 503,
            RecordError::Internal => 500,
        }
    }

    fn code(&self) -> &'static str {
        match self {
            RecordError::NotFound => "not_found",
            RecordError::UnknownCollection => "unknown_collection",
            RecordError::Validation(_) => "validation_failed",
            RecordError::BadRequest(_) => "bad_request",
            RecordError::Unauthorized => "unauthorized",
            RecordError::InvalidCredentials => "invalid_credentials",
            RecordError::Forbidden => "forbidden",
            RecordError::RateLimited { .. } => "rate_limited",
            RecordError::TooLarge => "too_large",
            RecordError::Unavailable => "unavailable",
            RecordError::Internal => "internal",
        }
    }

    fn retry_after_secs(&self) -> Option<u64> {
        match self {
            RecordError::RateLimited { retry_after_secs } => Some(*retry_after_secs),
            _ => None,
        }
    }

    /// PocketBase's `data`: the field map for validation errors, `{}` otherwise (no `code` key,
    /// which clients would read as a field name).
    fn data(&self) -> serde_json::Value {
        match self {
            RecordError::Validation(fields) => serde_json::to_value(fields).unwrap_or_default(),
            _ => serde_json::json!({}),
        }
    }
}

impl RecordError {
    pub fn field(name: &str, code: &'static str, message: impl Into<String>) -> Self {
        let mut errors = FieldErrors::new();
        errors.insert(name.to_string(), FieldError { code, message: message.into() });
        RecordError::Validation(errors)
    }
}

/// Realtime action carried by record events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Create,
    Update,
    Delete,
    /// Many records changed at once (bulk import): subscribers should refetch the collection.
    Reload,
}

/// Validated list parameters for one collection.
#[derive(Debug, Clone, PartialEq)]
pub struct ListQuery {
    pub page: u32,
    pub per_page: u32,
    pub sort: Vec<SortKey>,
    pub filter: Option<Expr>,
    pub skip_total: bool,
}

/// Raw list parameters as they arrive in a query string.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawListParams {
    pub page: Option<String>,
    pub per_page: Option<String>,
    pub sort: Option<String>,
    pub filter: Option<String>,
    pub skip_total: Option<String>,
}

fn parse_bounded(raw: &Option<String>, name: &str, default: u32, max: u32) -> Result<u32, RecordError> {
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(default),
        Some(s) => match s.parse::<u32>() {
            Ok(n) if n >= 1 => Ok(n.min(max)),
            _ => Err(RecordError::BadRequest(format!("Invalid {name} parameter."))),
        },
    }
}

/// `skipTotal` as PocketBase reads it (Go's `strconv.ParseBool`): absent or empty is false, any
/// other spelling outside that set is a bad request.
fn parse_skip_total(raw: &Option<String>) -> Result<bool, RecordError> {
    match raw.as_deref() {
        None | Some("") => Ok(false),
        Some("1" | "t" | "T" | "true" | "TRUE" | "True") => Ok(true),
        Some("0" | "f" | "F" | "false" | "FALSE" | "False") => Ok(false),
        Some(_) => Err(RecordError::BadRequest("Invalid skipTotal parameter.".into())),
    }
}

impl ListQuery {
    /// Parses and bounds list parameters, checking that every sort and filter field exists in
    /// the collection so unknown identifiers never reach SQL.
    pub fn parse(spec: &CollectionSpec, raw: &RawListParams) -> Result<ListQuery, RecordError> {
        let page = parse_bounded(&raw.page, "page", 1, MAX_PAGE)?;
        let per_page = parse_bounded(&raw.per_page, "perPage", DEFAULT_PER_PAGE, MAX_PER_PAGE)?;
        let sort = parse_sort(raw.sort.as_deref().unwrap_or(""))
            .map_err(|e| RecordError::BadRequest(format!("Invalid sort parameter: {e}.")))?;
        if let Some(bad) = sort.iter().find(|k| !spec.is_queryable(&k.field)) {
            return Err(RecordError::BadRequest(format!("Invalid sort field {:?}.", bad.field)));
        }
        let filter = match raw.filter.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(f) => {
                let expr =
                    parse_filter(f).map_err(|e| RecordError::BadRequest(format!("Invalid filter parameter: {e}.")))?;
                if let Some(bad) = expr.fields().into_iter().find(|f| !spec.is_queryable(f)) {
                    return Err(RecordError::BadRequest(format!("Invalid filter field {bad:?}.")));
                }
                Some(expr)
            }
        };
        let skip_total = parse_skip_total(&raw.skip_total)?;
        Ok(ListQuery { page, per_page, sort, filter, skip_total })
    }
}

/// One page of records in PocketBase's list shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListPage {
    pub page: u32,
    pub per_page: u32,
    pub total_items: i64,
    pub total_pages: i64,
    pub items: Vec<serde_json::Value>,
}

/// What ends a list page's text after its items (see [`ListPage::json_head`]).
pub const LIST_PAGE_END: &str = "]}";

impl ListPage {
    /// The text of this page (whose items are left out) up to its first item:
    /// `{"page":..,"perPage":..,"totalItems":..,"totalPages":..,"items":[`. Followed by the
    /// items, comma-separated, and [`LIST_PAGE_END`], it is the page serialized whole, byte for
    /// byte (the record API streams large pages this way).
    pub fn json_head(&self) -> String {
        let empty = ListPage { items: Vec::new(), ..self.clone() };
        let mut text = serde_json::to_string(&empty).expect("a page's counts serialize");
        debug_assert!(text.ends_with(&format!("[{LIST_PAGE_END}")));
        text.truncate(text.len() - LIST_PAGE_END.len());
        text
    }

    pub fn new(query: &ListQuery, total: Option<i64>, items: Vec<serde_json::Value>) -> ListPage {
        let (total_items, total_pages) = match total {
            Some(t) => (t, (t + query.per_page as i64 - 1) / query.per_page as i64),
            None => (-1, -1),
        };
        ListPage { page: query.page, per_page: query.per_page, total_items, total_pages, items }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collections::CONTACTS;
    use crate::problem::problem_body;

    fn raw(page: &str, per_page: &str, sort: &str, filter: &str) -> RawListParams {
        let opt = |s: &str| (!s.is_empty()).then(|| s.to_string());
        RawListParams {
            page: opt(page),
            per_page: opt(per_page),
            sort: opt(sort),
            filter: opt(filter),
            skip_total: None,
        }
    }

    #[test]
    fn defaults_and_bounds() {
        let q = ListQuery::parse(&CONTACTS, &RawListParams::default()).unwrap();
        assert_eq!((q.page, q.per_page, q.sort.len(), q.filter.is_none()), (1, 30, 0, true));
        let q = ListQuery::parse(&CONTACTS, &raw("3", "5000", "", "")).unwrap();
        assert_eq!((q.page, q.per_page), (3, MAX_PER_PAGE));
        for bad in ["0", "-1", "x", "1.5"] {
            assert!(ListQuery::parse(&CONTACTS, &raw(bad, "", "", "")).is_err(), "{bad}");
            assert!(ListQuery::parse(&CONTACTS, &raw("", bad, "", "")).is_err(), "{bad}");
        }
    }

    #[test]
    fn skip_total_reads_like_pocketbase() {
        let parse = |v: Option<&str>| {
            let raw = RawListParams { skip_total: v.map(String::from), ..Default::default() };
            ListQuery::parse(&CONTACTS, &raw).map(|q| q.skip_total)
        };
        for yes in ["1", "t", "T", "true", "TRUE", "True"] {
            assert_eq!(parse(Some(yes)), Ok(true), "{yes}");
        }
        for no in [None, Some(""), Some("0"), Some("f"), Some("false"), Some("False")] {
            assert_eq!(parse(no), Ok(false), "{no:?}");
        }
        for bad in ["yes", "2", " 1", "tRuE"] {
            assert_eq!(parse(Some(bad)).unwrap_err().status(), 400, "{bad}");
        }
    }

    #[test]
    fn unknown_fields_in_sort_or_filter_are_rejected() {
        assert!(ListQuery::parse(&CONTACTS, &raw("", "", "-created,name", "email ~ 'x'")).is_ok());
        for (s, f) in [("rowid", ""), ("", "password = 'x'"), ("", "sqlite_master = 1"), ("name;", "")] {
            let err = ListQuery::parse(&CONTACTS, &raw("", "", s, f)).unwrap_err();
            assert_eq!(err.status(), 400, "{s} {f}");
        }
    }

    #[test]
    fn page_shape_and_error_bodies() {
        let q = ListQuery::parse(&CONTACTS, &raw("2", "10", "", "")).unwrap();
        let p = ListPage::new(&q, Some(21), vec![]);
        assert_eq!((p.total_items, p.total_pages), (21, 3));
        let whole = ListPage::new(&q, Some(21), vec![serde_json::json!({"a": 1}), serde_json::json!([2])]);
        let streamed = format!("{}{{\"a\":1}},[2]{LIST_PAGE_END}", whole.json_head());
        assert_eq!(streamed, serde_json::to_string(&whole).unwrap());
        assert_eq!(whole.json_head(), r#"{"page":2,"perPage":10,"totalItems":21,"totalPages":3,"items":["#);
        let v = serde_json::to_value(ListPage::new(&q, None, vec![])).unwrap();
        assert_eq!(v["totalItems"], -1);
        assert_eq!(v["perPage"], 10);
        let body = problem_body(&RecordError::field("name", "validation_required", "Missing required value."));
        assert_eq!(
            body,
            serde_json::json!({"status": 400, "message": "Failed to validate the submitted data.",
                "data": {"name": {"code": "validation_required", "message": "Missing required value."}}})
        );
        let limited = RecordError::RateLimited { retry_after_secs: 3 };
        assert_eq!((limited.status(), limited.code(), limited.retry_after_secs()), (429, "rate_limited", Some(3)));
        assert_eq!(
            problem_body(&RecordError::NotFound),
            serde_json::json!({"status": 404, "message": "The requested resource wasn't found.", "data": {}})
        );
        assert_eq!(RecordError::NotFound.retry_after_secs(), None);
    }
}
