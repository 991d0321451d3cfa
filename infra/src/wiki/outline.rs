//! The bounded outline (table of contents) reader behind [`super::extract::extract_pdf`]:
//! [`read_outline`] walks the catalog's `/Outlines` tree depth-first with an explicit stack and
//! a visited set (so `/First`/`/Next` cycles end), keeps at most `max_outline_nodes` entries with
//! cleaned titles of at most `max_outline_label_chars` characters, and resolves each entry's
//! destination (explicit, `/GoTo` action, or named through `/Dests` or the `/Names` tree) to a
//! 0-based page index when it can. It never fails: a broken outline yields fewer or no entries.

use std::collections::{HashMap, HashSet};

use lopdf::{Dictionary, Document, Object, ObjectId};
use serde::{Deserialize, Serialize};

use super::extract::ExtractLimits;

/// Most outline items visited (kept or not): bounds work on huge or hostile outlines.
const MAX_VISITED_ITEMS: usize = 10_000;
/// Deepest outline level kept (0 = top level); deeper items are skipped.
const MAX_OUTLINE_DEPTH: u32 = 32;
/// Most name-tree nodes and named destinations read to resolve named destinations.
const MAX_NAMED_DESTINATIONS: usize = 20_000;

/// One outline entry, in depth-first order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutlineNode {
    pub title: String,
    /// 0 for top-level entries.
    pub depth: u32,
    /// The 0-based page the entry points to, when that resolves to a page of this document.
    pub page_index: Option<u32>,
}

/// The outline of `doc`, bounded by `limits` (see the module doc).
pub(crate) fn read_outline(
    doc: &Document,
    page_index: &HashMap<ObjectId, u32>,
    limits: &ExtractLimits,
) -> Vec<OutlineNode> {
    let Some(catalog) = doc.catalog().ok() else { return Vec::new() };
    let Some(outlines) = catalog.get(b"Outlines").ok().and_then(|o| as_dict(doc, o)) else { return Vec::new() };
    let mut named: Option<HashMap<Vec<u8>, &Object>> = None;
    let mut nodes = Vec::new();
    let mut visited: HashSet<ObjectId> = HashSet::new();
    let mut stack: Vec<(ObjectId, u32)> = Vec::new();
    if let Ok(first) = outlines.get(b"First").and_then(Object::as_reference) {
        stack.push((first, 0));
    }
    while let Some((id, depth)) = stack.pop() {
        if nodes.len() >= limits.max_outline_nodes || visited.len() >= MAX_VISITED_ITEMS || !visited.insert(id) {
            continue;
        }
        let Ok(item) = doc.get_dictionary(id) else { continue };
        // Siblings after children: push the next sibling first so the children pop first.
        if let Ok(next) = item.get(b"Next").and_then(Object::as_reference) {
            stack.push((next, depth));
        }
        if depth < MAX_OUTLINE_DEPTH {
            if let Ok(first) = item.get(b"First").and_then(Object::as_reference) {
                stack.push((first, depth + 1));
            }
        }
        let title = item
            .get(b"Title")
            .ok()
            .and_then(|t| resolve(doc, t))
            .and_then(|t| lopdf::decode_text_string(t).ok())
            .map(|t| clean_title(&t, limits.max_outline_label_chars))
            .unwrap_or_default();
        if title.is_empty() {
            continue;
        }
        let destination = destination_of(doc, item);
        let page = destination.and_then(|d| page_of(doc, d, page_index, catalog, &mut named));
        nodes.push(OutlineNode { title, depth, page_index: page });
    }
    nodes
}

/// Control characters become spaces, runs of whitespace one space, and the result is trimmed
/// and cut to `max_chars` characters.
fn clean_title(raw: &str, max_chars: usize) -> String {
    raw.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(max_chars)
        .collect()
}

fn resolve<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Object> {
    doc.dereference(object).ok().map(|(_, o)| o)
}

fn as_dict<'a>(doc: &'a Document, object: &'a Object) -> Option<&'a Dictionary> {
    resolve(doc, object).and_then(|o| o.as_dict().ok())
}

/// The item's `/Dest`, or the `/D` of its `/GoTo` action.
fn destination_of<'a>(doc: &'a Document, item: &'a Dictionary) -> Option<&'a Object> {
    if let Ok(dest) = item.get(b"Dest") {
        return resolve(doc, dest);
    }
    let action = as_dict(doc, item.get(b"A").ok()?)?;
    if action.get(b"S").and_then(Object::as_name).ok()? != b"GoTo" {
        return None;
    }
    resolve(doc, action.get(b"D").ok()?)
}

/// The 0-based page an explicit (`[page /XYZ …]`) or named destination points to.
fn page_of<'a>(
    doc: &'a Document,
    destination: &'a Object,
    page_index: &HashMap<ObjectId, u32>,
    catalog: &'a Dictionary,
    named: &mut Option<HashMap<Vec<u8>, &'a Object>>,
) -> Option<u32> {
    let explicit = match destination {
        Object::Array(_) => destination,
        Object::Dictionary(d) => resolve(doc, d.get(b"D").ok()?)?,
        Object::Name(name) | Object::String(name, _) => {
            let table = named.get_or_insert_with(|| named_destinations(doc, catalog));
            let target = resolve(doc, table.get(name.as_slice())?)?;
            match target {
                Object::Dictionary(d) => resolve(doc, d.get(b"D").ok()?)?,
                other => other,
            }
        }
        _ => return None,
    };
    let page = explicit.as_array().ok()?.first()?.as_reference().ok()?;
    page_index.get(&page).copied()
}

/// The document's named destinations (the catalog's `/Dests` dictionary and the `/Names`
/// `/Dests` name tree), read iteratively and bounded by [`MAX_NAMED_DESTINATIONS`].
fn named_destinations<'a>(doc: &'a Document, catalog: &'a Dictionary) -> HashMap<Vec<u8>, &'a Object> {
    let mut table = HashMap::new();
    if let Some(dests) = catalog.get(b"Dests").ok().and_then(|d| as_dict(doc, d)) {
        for (name, value) in dests.iter().take(MAX_NAMED_DESTINATIONS) {
            table.insert(name.clone(), value);
        }
    }
    let root = catalog
        .get(b"Names")
        .ok()
        .and_then(|n| as_dict(doc, n))
        .and_then(|n| n.get(b"Dests").ok())
        .and_then(|d| as_dict(doc, d));
    let mut stack: Vec<&Dictionary> = root.into_iter().collect();
    let mut seen: HashSet<ObjectId> = HashSet::new();
    let mut read = 0usize;
    while let Some(node) = stack.pop() {
        read += 1;
        if read > MAX_NAMED_DESTINATIONS || table.len() >= MAX_NAMED_DESTINATIONS {
            break;
        }
        if let Some(Object::Array(pairs)) = node.get(b"Names").ok().and_then(|n| resolve(doc, n)) {
            for pair in pairs.chunks_exact(2) {
                if let Ok(key) = pair[0].as_str() {
                    table.insert(key.to_vec(), &pair[1]);
                }
            }
        }
        if let Some(Object::Array(kids)) = node.get(b"Kids").ok().and_then(|k| resolve(doc, k)) {
            for kid in kids {
                let Ok(id) = kid.as_reference() else { continue };
                if seen.insert(id) {
                    if let Ok(dict) = doc.get_dictionary(id) {
                        stack.push(dict);
                    }
                }
            }
        }
    }
    table
}
