//! `POST /api/relay/spreadsheet/rows` against the real `relay` binary: an Excel workbook (built
//! with rust_xlsxwriter, the format Excel writes) comes back as the named sheet's text rows to a
//! signed-in client on the data API and, with its session and CSRF token, on the Relay Web
//! gateway; without a token it is 401, without CSRF on the gateway 403; a zip bomb and a CSV
//! renamed .xlsx are refused with their stable codes, and the server keeps serving afterwards.
//! Workbooks whose one shared string is read by many cells (issue #39: 6 KiB on the wire,
//! hundreds of MB once every cell copied it) are refused with the server's peak RSS (`VmHWM`)
//! rising by less than `MAX_PEAK_RISE_KIB`.

use std::io::{Cursor, Write};

use rust_xlsxwriter::Workbook;
use serde_json::{json, Value};
use support::hostile::one_shared_string_read_by;
use support::{client, Relay};

fn servers_workbook() -> Vec<u8> {
    let mut book = Workbook::new();
    let notes = book.add_worksheet();
    notes.set_name("Notes").unwrap();
    notes.write_string(0, 0, "exported for the sync").unwrap();
    let sheet = book.add_worksheet();
    sheet.set_name("Servers").unwrap();
    for (col, name) in ["name", "os", "owner"].iter().enumerate() {
        sheet.write_string(0, col as u16, *name).unwrap();
    }
    sheet.write_string(1, 0, "web-01").unwrap();
    sheet.write_string(1, 1, "Linux").unwrap();
    sheet.write_number(2, 0, 4711).unwrap();
    sheet.write_string(2, 2, "NOC").unwrap();
    book.save_to_buffer().unwrap()
}

/// A valid workbook with one more entry that inflates to 129 MiB of zeros.
fn zip_bomb() -> Vec<u8> {
    let mut out = zip::ZipWriter::new_append(Cursor::new(servers_workbook())).unwrap();
    out.start_file("xl/media/padding.bin", zip::write::SimpleFileOptions::default()).unwrap();
    let chunk = vec![0u8; 1 << 20];
    for _ in 0..129 {
        out.write_all(&chunk).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// How much the server's peak RSS may rise while it refuses the hostile workbooks (each is read
/// whole, 25 MB at most, and calamine holds the shared strings once).
const MAX_PEAK_RISE_KIB: u64 = 64 * 1024;

fn expected_rows() -> Value {
    json!({
        "sheet": "Servers",
        "columns": ["name", "os", "owner"],
        "rows": [{"name": "web-01", "os": "Linux", "owner": ""}, {"name": "4711", "os": "", "owner": "NOC"}],
    })
}

#[tokio::test]
async fn a_workbook_reads_into_the_named_sheets_rows_for_signed_in_clients_only() {
    let relay = Relay::start();
    let token = relay.token().await;
    let url = relay.url("/api/relay/spreadsheet/rows?sheet=servers");
    let post = |body: Vec<u8>, token: Option<&str>| {
        let mut req = client().post(&url).body(body);
        if let Some(token) = token {
            req = req.header("Authorization", token);
        }
        req.send()
    };

    let res = post(servers_workbook(), Some(&token)).await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), expected_rows());

    assert_eq!(post(servers_workbook(), None).await.unwrap().status(), 401, "no token");

    let res = post(zip_bomb(), Some(&token)).await.unwrap();
    assert_eq!(res.status(), 413);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["data"]["code"], "expands_too_much", "{body}");

    let res = post(b"name,os\nweb-01,Linux\n".to_vec(), Some(&token)).await.unwrap();
    assert_eq!(res.status(), 415);
    let body: Value = res.json().await.unwrap();
    assert_eq!(body["message"], "The file is not an Excel .xlsx workbook.", "{body}");

    let unnamed = client().post(relay.url("/api/relay/spreadsheet/rows")).header("Authorization", &token);
    let res = unnamed.body(servers_workbook()).send().await.unwrap();
    assert_eq!(res.status(), 422, "two sheets and none asked for");
    assert_eq!(res.json::<Value>().await.unwrap()["data"]["code"], "which_sheet");

    let res = post(servers_workbook(), Some(&token)).await.unwrap();
    assert_eq!(res.status(), 200, "still served after the refusals");
}

#[tokio::test]
async fn relay_web_reads_workbooks_with_its_session_and_csrf_token() {
    let relay = Relay::start_web();
    let base = relay.web.clone().unwrap().replace("127.0.0.1", "localhost");
    let web = support::web_session(&base).await;
    let post = |path: &str| client().post(format!("{base}{path}")).header("Origin", &base);
    let rows = "/api/relay/spreadsheet/rows?sheet=servers";
    let signed = || post(rows).header("Cookie", &web.cookie).header("Authorization", &web.token);
    let res = signed().body(servers_workbook()).send().await.unwrap();
    assert_eq!(res.status(), 403, "the gateway needs the CSRF token on every POST");
    let res = signed().header("X-Relay-CSRF", &web.csrf).body(servers_workbook()).send().await.unwrap();
    assert_eq!(res.status(), 200);
    assert_eq!(res.json::<Value>().await.unwrap(), expected_rows());
}

#[tokio::test]
async fn one_long_shared_string_read_by_many_cells_is_refused_with_peak_memory_bounded() {
    let relay = Relay::start();
    let token = relay.token().await;
    let url = relay.url("/api/relay/spreadsheet/rows?sheet=servers");
    // Long enough for the unbounded reader this replaced (hundreds of MB per request).
    let wait = std::time::Duration::from_secs(120);
    let post = |body: Vec<u8>| client().post(&url).header("Authorization", &token).timeout(wait).body(body).send();
    assert_eq!(post(servers_workbook()).await.unwrap().status(), 200, "warm-up");

    // 4 MiB of text read by 100 cells (over Excel's 32,767 characters per cell), and Excel's
    // longest cell read by 10,000 cells (within every per-cell bound, 328 MB of text in all).
    let long_string = one_shared_string_read_by(100, 4 << 20);
    assert!(long_string.len() < 16 << 10, "{} bytes on the wire", long_string.len());
    let many_readers = one_shared_string_read_by(10_000, 32_767);
    let peak_before = relay.peak_rss_kib();
    let long_res = post(long_string).await.unwrap();
    let long_answer = (long_res.status().as_u16(), long_res.json::<Value>().await.unwrap_or_default());
    let many_res = post(many_readers).await.unwrap();
    let many_answer = (many_res.status().as_u16(), many_res.json::<Value>().await.unwrap_or_default());
    let peak_after = relay.peak_rss_kib();
    eprintln!("server VmHWM {peak_before} KiB before, {peak_after} KiB after the hostile workbooks");
    assert!(
        peak_after - peak_before < MAX_PEAK_RISE_KIB,
        "peak RSS rose {} KiB (bound {MAX_PEAK_RISE_KIB} KiB)",
        peak_after - peak_before
    );

    assert_eq!(long_answer.0, 422, "{:?}", long_answer.1);
    assert_eq!(long_answer.1["data"]["code"], "cell_too_long");
    assert_eq!(long_answer.1["message"], "Cell A2 holds more than 32767 characters, Excel's own limit for a cell.");
    assert_eq!(many_answer.0, 413, "{:?}", many_answer.1);
    assert_eq!(many_answer.1["data"]["code"], "too_much_text");
    assert_eq!(
        many_answer.1["message"],
        "The sheet's rows come to more than 32 MB of text; split it into smaller sheets."
    );

    let res = post(servers_workbook()).await.unwrap();
    assert_eq!(res.status(), 200, "still served after the refusals");
    assert_eq!(res.json::<Value>().await.unwrap(), expected_rows());
}
