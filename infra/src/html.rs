//! The server-side alert-body HTML sanitizer (issue #19): ammonia configured with exactly the
//! renderer's allowlist, which `domain::rich_html` holds as data and pure checks (tags, per-tag
//! attributes, the http/https/mailto link rule with `rel="noopener noreferrer"` forced, the five
//! `data-hl` names, the base64 raster data-URL image rule, the UI's one image class); comments,
//! unknown tags (unwrapped, text kept), every other attribute, relative URLs and the contents of
//! script, style, iframe, object, svg, math and the like go. [`clean_values`] applies it to a
//! validated write's rich-HTML fields inside `store::insert_row` / `store::update_row`, the one
//! place every record write (record API, offline replay, import, in-transaction writes) stores
//! its values, so no path stores an unsanitized body. A value that sanitizes differently is
//! stored in its cleaned form (and returned so); the content is never logged. What the UI itself
//! writes is a fixed point, byte for byte, except for harmless re-serialization of an image's
//! `alt` text (`&#39;` written as `'`); see the tests. A cleaned value longer than the field's
//! limit (escaping can lengthen hostile text) is refused as that field's length error, and a value
//! nested too deep or too escape-heavy to sanitize cheaply is refused before parsing.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::sync::LazyLock;

use ammonia::{Builder, UrlRelative};
use diesel::result::Error as DieselError;

use domain::collections::{CollectionSpec, FieldKind};
use domain::rich_html::{
    attribute_value, check_complexity, is_rich_html_field, CONTENT_DROPPED_TAGS, LINK_REL, TAGS, TAG_ATTRIBUTES,
    URL_SCHEMES,
};
use domain::validation::{SqlValue, ValidatedWrite};

static SANITIZER: LazyLock<Builder<'static>> = LazyLock::new(|| {
    let mut b = Builder::empty();
    b.tags(TAGS.iter().copied().collect())
        .tag_attributes(TAG_ATTRIBUTES.iter().map(|&(tag, attrs)| (tag, attrs.iter().copied().collect())).collect())
        .tag_attribute_values(HashMap::new())
        .set_tag_attribute_values(HashMap::new())
        .generic_attributes(HashSet::new())
        .allowed_classes(HashMap::new())
        .clean_content_tags(CONTENT_DROPPED_TAGS.iter().copied().collect())
        .url_schemes(URL_SCHEMES.iter().copied().collect())
        .url_relative(UrlRelative::Deny)
        .link_rel(Some(LINK_REL))
        .strip_comments(true)
        .id_prefix(None)
        .attribute_filter(|tag: &str, attr: &str, value: &str| attribute_value(tag, attr, value));
    b
});

/// `html` reduced to the allowlist; borrowed when nothing changed. Callers storing a value check
/// `domain::rich_html::check_complexity` first ([`clean_values`] does): the parser and serializer
/// cost grows with the square of nesting depth and of escape-heavy text runs.
pub fn sanitize(html: &str) -> Cow<'_, str> {
    let clean = SANITIZER.clean(html).to_string();
    if clean == html {
        Cow::Borrowed(html)
    } else {
        Cow::Owned(clean)
    }
}

/// A rich-HTML value refused at the choke point: too complex to sanitize
/// (`domain::rich_html::check_complexity`) or longer than the field's limit once sanitized.
/// `store::map_db_error` answers it as that field's validation error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HtmlRefused {
    pub field: &'static str,
    pub code: &'static str,
    pub message: String,
}

impl fmt::Display for HtmlRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for HtmlRefused {}

fn refuse(field: &'static str, code: &'static str, message: String) -> DieselError {
    DieselError::SerializationError(Box::new(HtmlRefused { field, code, message }))
}

/// The values `write` stores into `spec`'s table: its own, with every rich-HTML field
/// (`domain::rich_html::RICH_HTML_FIELDS`) sanitized. Errors as `DieselError` so the store's
/// transactions roll back and `map_db_error` names the field.
pub(crate) fn clean_values(spec: &CollectionSpec, write: &ValidatedWrite) -> Result<Vec<SqlValue>, DieselError> {
    write
        .values
        .iter()
        .map(|(name, value)| match value {
            SqlValue::Text(text) if is_rich_html_field(spec.name, name) => clean_field(spec, name, text),
            other => Ok(other.clone()),
        })
        .collect()
}

fn clean_field(spec: &CollectionSpec, field: &'static str, text: &str) -> Result<SqlValue, DieselError> {
    check_complexity(text).map_err(|e| refuse(field, "validation_html_too_complex", e.message()))?;
    let clean = match sanitize(text) {
        Cow::Borrowed(_) => return Ok(SqlValue::Text(text.to_string())),
        Cow::Owned(clean) => clean,
    };
    tracing::info!(collection = spec.name, field, "alert HTML outside the allowlist was cleaned before storing");
    let max_len = match spec.field(field).map(|f| f.kind) {
        Some(FieldKind::Text { max_len }) => max_len,
        _ => domain::collections::HTML_LEN,
    };
    if clean.chars().count() > max_len {
        let message = format!("Must be no more than {max_len} character(s).");
        return Err(refuse(field, "validation_max_text_constraint", message));
    }
    Ok(SqlValue::Text(clean))
}

#[cfg(test)]
#[path = "html_tests.rs"]
mod tests;
