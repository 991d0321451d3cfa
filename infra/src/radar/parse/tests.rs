//! Radar parser tables: each row class, sign-in detection, unrecognised pages, bounds.

use super::*;
use domain::radar::{QueueDepth, RadarSnapshot, StatusColor, UNRECOGNISED_PAGE};

const BOARD: &[u8] = include_bytes!("../../../../tests/vectors/radar/board.html");

fn board(html: &str) -> RadarSnapshot {
    match parse_page(html.as_bytes()) {
        RadarPage::Board(snap) => snap,
        other => panic!("not a board: {other:?}"),
    }
}

fn q(name: &str, depth: i64) -> QueueDepth {
    QueueDepth { name: name.into(), depth }
}

#[test]
fn the_recorded_board_parses_into_every_part() {
    let RadarPage::Board(snap) = parse_page(BOARD) else { panic!("board expected") };
    assert_eq!(snap.color, StatusColor::Yellow);
    assert_eq!(snap.current_time.as_deref(), Some("12/03/2026 14:05:31"));
    let metrics: Vec<(&str, Option<&str>, StatusColor)> =
        snap.metrics.iter().map(|m| (m.label.as_str(), m.value.as_deref(), m.tone)).collect();
    assert_eq!(
        metrics,
        vec![
            ("Card Services", Some("1,204"), StatusColor::Green),
            ("Auth Declines", Some("37"), StatusColor::Red),
            ("EDW", None, StatusColor::Unknown),
        ]
    );
    assert_eq!(snap.dispatchers.len(), 2, "the one-cell name row is a section title");
    assert_eq!(snap.dispatchers[0].name, "DISPATCH-01");
    assert_eq!(snap.dispatchers[0].tone, StatusColor::Green, "tone from the row class");
    assert_eq!(snap.dispatchers[1].tone, StatusColor::Red, "tone from the name cell");
    assert_eq!(snap.dispatchers[0].last_schedule_date, "12/03/2026 14:05");
    assert_eq!(snap.dispatchers[1].last_pub_sub_date, "12/03/2026 14:04");
    assert_eq!(snap.dispatchers[0].queues, vec![q("INBOUND", 12), q("RETRY & HOLD", 1050)]);
    assert_eq!(snap.dispatchers[1].queues, vec![q("INBOUND", 0)], "the n/a row is skipped");
    assert_eq!(snap.papa, vec![q("PAPA-AUTH", 5), q("PAPA-SETTLE", -2)]);
    assert_eq!((snap.xcenter.ok, snap.xcenter.pending), (Some(3410), Some(17)));
    assert!(snap.has_signal());
}

#[test]
fn xcenter_counts_are_read_only_inside_their_table() {
    let html = r#"<table><tr><td class="statusBar green">x</td></tr>
        <tr><td class="left ok">OK</td><td class="right">99</td></tr></table>"#;
    let snap = board(html);
    assert_eq!(snap.xcenter.ok, None);
}

#[test]
fn depth_rows_outside_a_list_are_not_guessed() {
    let html = r#"<table><tr><td class="statusBar red"></td></tr><tr><td>STRAY</td><td>5</td></tr></table>"#;
    let snap = board(html);
    assert!(snap.papa.is_empty() && snap.dispatchers.is_empty());
    assert_eq!(snap.color, StatusColor::Red);
}

#[test]
fn the_colour_can_come_from_bgcolor_or_style() {
    assert_eq!(
        board(r#"<table><tr><td class="statusBar" bgcolor="magenta">!</td></tr></table>"#).color,
        StatusColor::Magenta
    );
    assert_eq!(
        board(r#"<table><tr><td class="statusBar" style="background-color: red">!</td></tr></table>"#).color,
        StatusColor::Red
    );
    assert_eq!(board(r#"<table><tr><td class="statusBar">!</td></tr></table>"#).color, StatusColor::Unknown);
}

#[test]
fn sign_in_pages_are_detected_by_content() {
    for page in [
        r#"<form action="/adfs/ls"><input type="PASSWORD" name="p"></form>"#,
        r#"<form id="loginForm"><input name="u"></form>"#,
        r#"<form name="LogonForm" action="/x"></form>"#,
        r#"<form action="/CWDashboard/Account/Login?ReturnUrl=%2F"></form>"#,
    ] {
        assert_eq!(parse_page(page.as_bytes()), RadarPage::SignIn, "{page}");
    }
}

#[test]
fn a_page_without_signal_is_unrecognised_and_keeps_the_previous_board() {
    let previous = RadarSnapshot { color: StatusColor::Green, last_updated: 5, ..Default::default() };
    let snap = board("<html><body><h1>Maintenance</h1><table><tr><td>a</td><td>1</td></tr></table></body></html>");
    let kept = RadarSnapshot::accept(snap, &previous, 10);
    assert_eq!(kept.error.as_deref(), Some(UNRECOGNISED_PAGE));
    assert_eq!((kept.color, kept.last_updated), (StatusColor::Green, 5));
}

#[test]
fn oversized_pages_and_long_lists_are_bounded() {
    assert_eq!(parse_page(&vec![b' '; MAX_PAGE_BYTES + 1]), RadarPage::TooLarge);
    let mut html = String::from(r#"<table><tr><td class="headingLeft">Q</td></tr>"#);
    for i in 0..500 {
        html.push_str(&format!("<tr><td>Q{i}</td><td>{i}</td></tr>"));
    }
    html.push_str(r#"</table><table><tr><td class="name">D</td><td>a</td><td>b</td></tr>"#);
    for i in 0..200 {
        html.push_str(&format!(r#"<tr><td class="name">D{i}</td><td>a</td><td>b</td></tr>"#));
    }
    html.push_str("</table>");
    let snap = board(&html);
    assert_eq!(snap.dispatchers.len(), domain::radar::MAX_DISPATCHERS);
    assert_eq!(snap.dispatchers[0].queues.len(), domain::radar::MAX_QUEUES);
    let long_name = "N".repeat(5_000);
    let snap = board(&format!(r#"<table><tr><td class="name">{long_name}</td><td>a</td><td>b</td></tr></table>"#));
    assert_eq!(snap.dispatchers[0].name.chars().count(), domain::radar::MAX_TEXT_CHARS);
}

#[test]
fn hostile_markup_never_panics() {
    for page in ["", "<", "<table><tr><td class=", "<tr><td class='name'>x</td></tr>", "\u{0}\u{feff}<table>"] {
        let _ = parse_page(page.as_bytes());
    }
    let deep = "<table><tr><td>".repeat(2_000);
    let _ = parse_page(deep.as_bytes());
}
