//! RSS 2.0 and Atom (AWS, Azure, Microsoft 365) through quick-xml's streaming reader, so the
//! non-standard `<status>` element is read like any other child. Bounded: at most
//! [`MAX_ITEMS_READ`] items are read, each element's text is kept up to [`MAX_TEXT_BYTES`], and
//! nesting deeper than [`MAX_DEPTH`] is an error. CDATA and entities are text; descriptions are
//! HTML and are reduced to plain text. Fallbacks are the original's: description -> summary ->
//! content, pubDate -> updated -> published, link text or `href`, guid -> id -> link, and an
//! id of `<provider>-<date>-<title[0..40]>` without any. Severity is
//! `rules::rss_item_severity`; AWS placeholders and AWS items older than
//! `RECENT_WINDOW_MS` are dropped. It does not fetch and does not finalize.

use domain::status_feeds::{rules, ProviderId, StatusItem, RECENT_WINDOW_MS};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};

use super::text::{html_to_text, parse_date_ms};
use super::FeedParseError;

/// Items (or entries) read from one feed; later ones are not read.
pub const MAX_ITEMS_READ: usize = 200;
/// Text kept per element (bytes, cut at a character boundary).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// Deepest element nesting accepted.
pub const MAX_DEPTH: usize = 32;

/// The raw fields of one `<item>`/`<entry>`, as the feed wrote them.
#[derive(Debug, Default)]
struct RawItem {
    title: String,
    description: String,
    summary: String,
    content: String,
    pub_date: String,
    updated: String,
    published: String,
    link: String,
    href: String,
    guid: String,
    id: String,
    status: Option<String>,
}

impl RawItem {
    fn field(&mut self, name: &str) -> Option<&mut String> {
        Some(match name {
            "title" => &mut self.title,
            "description" => &mut self.description,
            "summary" => &mut self.summary,
            "content" | "encoded" => &mut self.content,
            "pubDate" => &mut self.pub_date,
            "updated" => &mut self.updated,
            "published" => &mut self.published,
            "link" => &mut self.link,
            "guid" => &mut self.guid,
            "id" => &mut self.id,
            "status" => self.status.get_or_insert_with(String::new),
            _ => return None,
        })
    }
}

fn first_non_empty<'a>(candidates: &[&'a str]) -> &'a str {
    candidates.iter().map(|c| c.trim()).find(|c| !c.is_empty()).unwrap_or("")
}

/// Appends `text` to `buf` without letting it pass [`MAX_TEXT_BYTES`].
fn push_bounded(buf: &mut String, text: &str) {
    let room = MAX_TEXT_BYTES.saturating_sub(buf.len());
    if text.len() <= room {
        buf.push_str(text);
    } else {
        let mut end = room;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        buf.push_str(&text[..end]);
    }
}

fn href_of(start: &BytesStart<'_>) -> Option<String> {
    let mut href = None;
    let mut alternate = true;
    for attr in start.attributes().flatten() {
        match attr.key.local_name().as_ref() {
            "href" => href = attr.normalized_value(XmlVersion::Implicit1_0).ok().map(|v| v.trim().to_string()),
            "rel" => alternate = attr.value.trim() == "alternate",
            _ => {}
        }
    }
    href.filter(|_| alternate)
}

/// Reads the raw items of an RSS 2.0 or Atom document.
fn read_items(bytes: &[u8]) -> Result<Vec<RawItem>, FeedParseError> {
    let mut reader = Reader::from_reader(bytes);
    reader.config_mut().allow_dangling_amp = true;
    let mut items = Vec::new();
    let mut depth = 0usize;
    let mut is_feed = false;
    // The open item and its depth, and the name of the direct child being read and its depth.
    let mut item: Option<(usize, RawItem)> = None;
    let mut field: Option<(usize, String)> = None;
    loop {
        let event = reader.read_event().map_err(|_| FeedParseError::Xml)?;
        let text: Option<std::borrow::Cow<'_, str>> = match event {
            Event::Start(start) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(FeedParseError::TooDeep(MAX_DEPTH));
                }
                let name = start.local_name();
                let name = name.as_ref();
                if depth == 1 {
                    is_feed = matches!(name, "rss" | "feed" | "RDF");
                }
                if let Some((at, raw)) = &mut item {
                    if depth == *at + 1 {
                        if name == "link" {
                            if let Some(href) = href_of(&start) {
                                set_first(&mut raw.href, href);
                            }
                        }
                        field = Some((depth, name.to_string()));
                    }
                } else if matches!(name, "item" | "entry") {
                    item = Some((depth, RawItem::default()));
                }
                None
            }
            Event::Empty(start) => {
                if let Some((at, raw)) = &mut item {
                    if depth == *at && start.local_name().as_ref() == "link" {
                        if let Some(href) = href_of(&start) {
                            set_first(&mut raw.href, href);
                        }
                    }
                }
                None
            }
            Event::End(_) => {
                if field.as_ref().is_some_and(|(at, _)| *at == depth) {
                    field = None;
                }
                if item.as_ref().is_some_and(|(at, _)| *at == depth) {
                    if let Some((_, raw)) = item.take() {
                        items.push(raw);
                    }
                    if items.len() >= MAX_ITEMS_READ {
                        break;
                    }
                }
                depth = depth.saturating_sub(1);
                None
            }
            Event::Text(t) => Some(t.xml10_content()),
            Event::CData(t) => Some(t.xml10_content()),
            Event::GeneralRef(r) => Some(match r.resolve_char_ref() {
                Ok(Some(c)) => c.to_string().into(),
                _ => match &*r {
                    "amp" => "&".into(),
                    "lt" => "<".into(),
                    "gt" => ">".into(),
                    "quot" => "\"".into(),
                    "apos" => "'".into(),
                    // An HTML entity in a description: kept for the HTML decoder.
                    other => format!("&{other};").into(),
                },
            }),
            Event::Eof => break,
            _ => None,
        };
        if let (Some(text), Some((_, raw)), Some((_, name))) = (text, &mut item, &field) {
            if let Some(buf) = raw.field(name) {
                push_bounded(buf, &text);
            }
        }
    }
    if !is_feed {
        return Err(FeedParseError::NotAFeed);
    }
    Ok(items)
}

/// Keeps the first non-empty value.
fn set_first(slot: &mut String, value: String) {
    if slot.is_empty() {
        *slot = value;
    }
}

/// Parses an RSS 2.0 or Atom feed of `provider` into items (not yet finalized).
pub fn parse(provider: ProviderId, bytes: &[u8], now_ms: i64) -> Result<Vec<StatusItem>, FeedParseError> {
    let mut out = Vec::new();
    for raw in read_items(bytes)? {
        // Titles are text: markup that XML unescaping produced stays visible, entities decode.
        let title = html_to_text(&raw.title.replace('<', "&lt;"));
        let description = html_to_text(first_non_empty(&[&raw.description, &raw.summary, &raw.content]));
        let date_raw = first_non_empty(&[&raw.pub_date, &raw.updated, &raw.published]);
        let pub_date = parse_date_ms(date_raw);
        if provider == ProviderId::Aws {
            if rules::is_aws_placeholder(&title, &description) {
                continue;
            }
            if pub_date.is_some_and(|at| at < now_ms - RECENT_WINDOW_MS) {
                continue;
            }
        }
        let link = first_non_empty(&[&raw.link, &raw.href]).to_string();
        let id = match first_non_empty(&[&raw.guid, &raw.id, &link]) {
            "" => {
                let head: String = title.chars().take(40).collect();
                format!("{}-{date_raw}-{head}", provider.as_str())
            }
            id => id.to_string(),
        };
        let status = raw.status.as_deref().map(str::trim);
        let severity = rules::rss_item_severity(status, &title, &description);
        out.push(StatusItem {
            id,
            provider,
            title,
            description,
            pub_date,
            link,
            severity,
            affected_scopes: Vec::new(),
        });
    }
    Ok(out)
}

#[cfg(test)]
#[path = "rss_tests.rs"]
mod tests;
