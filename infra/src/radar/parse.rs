//! The Radar page parser: sign-in detection, then one pass over the table rows. Row meaning
//! comes from cell classes: `statusBar` (overall colour), `clock` (the page's time),
//! `cardServices` (a `Label: value` metric per cell), `headingLeft`/`headingRight` (a new queue
//! run; runs attach to dispatchers in order), a `name` cell in a row of three or more cells (a
//! dispatcher with its schedule and pub/sub dates), a `Message Type | Depth` heading (the PAPA
//! list follows), and two-or-more-cell rows ending in a count (a depth row of the current list).
//! XCenter counts are read only inside the table titled "XCenter Counts" (`td.left.ok` /
//! `td.left.pending` followed by `td.right`).

use scraper::{ElementRef, Html, Selector};

use domain::radar::{
    bounded_text, parse_count, Dispatcher, Metric, QueueDepth, RadarSnapshot, StatusColor, MAX_DISPATCHERS,
    MAX_METRICS, MAX_PAPA, MAX_QUEUES,
};

/// Largest page parsed; the fetch caps the body at this size too.
pub const MAX_PAGE_BYTES: usize = 2 * 1024 * 1024;
/// Rows looked at (the rest are ignored).
pub const MAX_ROWS: usize = 4_000;
/// Cells looked at per row.
pub const MAX_CELLS_PER_ROW: usize = 32;
/// Characters of a cell's text looked at.
const MAX_CELL_SCAN_CHARS: usize = 1_024;

/// What a page turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RadarPage {
    /// The dashboard (its signal may still be empty; `RadarSnapshot::accept` decides).
    Board(RadarSnapshot),
    /// A sign-in form: the session expired.
    SignIn,
    /// Larger than [`MAX_PAGE_BYTES`].
    TooLarge,
}

struct Cell<'a> {
    element: ElementRef<'a>,
    classes: String,
    text: String,
}

impl Cell<'_> {
    fn has_class(&self, name: &str) -> bool {
        self.classes.split_whitespace().any(|c| c.eq_ignore_ascii_case(name))
    }
}

fn selector(css: &str) -> Selector {
    Selector::parse(css).expect("static selectors parse")
}

fn cell_text(element: ElementRef<'_>) -> String {
    let mut text = String::new();
    for piece in element.text() {
        text.push_str(piece);
        text.push(' ');
        if text.len() > MAX_CELL_SCAN_CHARS * 4 {
            break;
        }
    }
    bounded_text(&text.chars().take(MAX_CELL_SCAN_CHARS).collect::<String>())
}

fn cells(row: ElementRef<'_>) -> Vec<Cell<'_>> {
    row.children()
        .filter_map(ElementRef::wrap)
        .filter(|e| matches!(e.value().name(), "td" | "th"))
        .take(MAX_CELLS_PER_ROW)
        .map(|element| Cell {
            element,
            classes: element.value().attr("class").unwrap_or("").to_string(),
            text: cell_text(element),
        })
        .collect()
}

fn is_sign_in(doc: &Html) -> bool {
    if doc
        .select(&selector("input"))
        .any(|i| i.value().attr("type").is_some_and(|t| t.eq_ignore_ascii_case("password")))
    {
        return true;
    }
    doc.select(&selector("form")).any(|form| {
        ["action", "id", "name"].iter().any(|attr| {
            form.value().attr(attr).is_some_and(|v| {
                let v = v.to_ascii_lowercase();
                v.contains("login") || v.contains("logon") || v.contains("signin")
            })
        })
    })
}

/// The colour of a status cell: a colour class, else a colour word in `bgcolor` or the style.
fn status_color(cell: &Cell<'_>) -> StatusColor {
    let from_classes = StatusColor::from_classes(&cell.classes);
    if from_classes != StatusColor::Unknown {
        return from_classes;
    }
    let attrs = [cell.element.value().attr("bgcolor"), cell.element.value().attr("style")];
    attrs
        .into_iter()
        .flatten()
        .flat_map(|v| v.split(|c: char| !c.is_ascii_alphanumeric()).map(str::to_string).collect::<Vec<_>>())
        .find_map(|word| StatusColor::from_token(&word))
        .unwrap_or_default()
}

fn is_xcenter_table(table: ElementRef<'_>) -> bool {
    table.text().take(64).collect::<String>().to_ascii_lowercase().contains("xcenter counts")
}

#[derive(PartialEq)]
enum List {
    None,
    Queues,
    Papa,
}

/// Parses a fetched page.
pub fn parse_page(body: &[u8]) -> RadarPage {
    if body.len() > MAX_PAGE_BYTES {
        return RadarPage::TooLarge;
    }
    let doc = Html::parse_document(&String::from_utf8_lossy(body));
    if is_sign_in(&doc) {
        return RadarPage::SignIn;
    }
    let mut snap = RadarSnapshot::default();
    let xcenter_tables: Vec<_> =
        doc.select(&selector("table")).filter(|t| is_xcenter_table(*t)).map(|t| t.id()).collect();
    // The innermost XCenter table only (an outer layout table also contains the words).
    let innermost: Vec<_> = xcenter_tables
        .iter()
        .copied()
        .filter(|id| {
            !xcenter_tables.iter().any(|other| {
                other != id && doc.tree.get(*other).is_some_and(|node| node.ancestors().any(|a| a.id() == *id))
            })
        })
        .collect();
    let mut runs: Vec<Vec<QueueDepth>> = Vec::new();
    let mut papa_open = false;
    let mut list = List::None;
    for row in doc.select(&selector("tr")).take(MAX_ROWS) {
        let in_xcenter = row.ancestors().any(|a| innermost.contains(&a.id()));
        let row_cells = cells(row);
        if in_xcenter {
            read_xcenter(&row_cells, &mut snap);
            continue;
        }
        if row_cells.is_empty() {
            continue;
        }
        if let Some(bar) = row_cells.iter().find(|c| c.has_class("statusBar")) {
            snap.color = status_color(bar);
            continue;
        }
        if let Some(clock) = row_cells.iter().find(|c| c.has_class("clock")) {
            let time = clock.text.trim_start_matches("Current Time:").trim();
            snap.current_time = (!time.is_empty()).then(|| time.to_string());
            continue;
        }
        let metric_cells: Vec<&Cell<'_>> = row_cells.iter().filter(|c| c.has_class("cardServices")).collect();
        if !metric_cells.is_empty() {
            for cell in metric_cells {
                if snap.metrics.len() >= MAX_METRICS || cell.text.is_empty() {
                    continue;
                }
                let (label, value) = match cell.text.split_once(':') {
                    Some((label, value)) => (label.trim(), value.trim()),
                    None => (cell.text.as_str(), ""),
                };
                let value = value.chars().any(|c| c.is_ascii_digit()).then(|| value.to_string());
                snap.metrics.push(Metric {
                    label: label.to_string(),
                    value,
                    tone: StatusColor::from_classes(&cell.classes),
                });
            }
            continue;
        }
        if row_cells.iter().any(|c| c.has_class("headingLeft") || c.has_class("headingRight")) {
            runs.push(Vec::new());
            list = List::Queues;
            continue;
        }
        let labels: Vec<String> = row_cells.iter().map(|c| c.text.to_ascii_lowercase()).collect();
        if labels.len() >= 2 && labels[0] == "message type" && labels[1] == "depth" {
            papa_open = true;
            list = List::Papa;
            continue;
        }
        if let Some(name) = row_cells.iter().find(|c| c.has_class("name")) {
            if row_cells.len() >= 3 && snap.dispatchers.len() < MAX_DISPATCHERS && !name.text.is_empty() {
                let row_classes = row.value().attr("class").unwrap_or("");
                let tone = match StatusColor::from_classes(&name.classes) {
                    StatusColor::Unknown => StatusColor::from_classes(row_classes),
                    tone => tone,
                };
                snap.dispatchers.push(Dispatcher {
                    name: name.text.clone(),
                    tone,
                    last_schedule_date: row_cells[1].text.clone(),
                    last_pub_sub_date: row_cells[2].text.clone(),
                    queues: Vec::new(),
                });
            }
            list = List::None; // a section title, or a dispatcher whose queues follow a heading
            continue;
        }
        if row_cells.iter().all(|c| c.element.value().name() == "th") {
            continue; // header labels
        }
        if row_cells.len() >= 2 {
            let (Some(depth), name) = (parse_count(&row_cells[row_cells.len() - 1].text), row_cells[0].text.clone())
            else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            match list {
                List::Queues => {
                    if let Some(run) = runs.last_mut().filter(|r| r.len() < MAX_QUEUES) {
                        run.push(QueueDepth { name, depth });
                    }
                }
                List::Papa if papa_open && snap.papa.len() < MAX_PAPA => snap.papa.push(QueueDepth { name, depth }),
                _ => {}
            }
        }
    }
    for (dispatcher, run) in snap.dispatchers.iter_mut().zip(runs) {
        dispatcher.queues = run;
    }
    RadarPage::Board(snap)
}

fn read_xcenter(row: &[Cell<'_>], snap: &mut RadarSnapshot) {
    for (i, cell) in row.iter().enumerate() {
        if !cell.has_class("left") {
            continue;
        }
        let Some(value) =
            row.get(i + 1).filter(|next| next.has_class("right")).and_then(|next| parse_count(&next.text))
        else {
            continue;
        };
        if cell.has_class("ok") {
            snap.xcenter.ok = Some(value);
        } else if cell.has_class("pending") {
            snap.xcenter.pending = Some(value);
        }
    }
}

#[cfg(test)]
mod tests;
