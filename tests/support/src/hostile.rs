//! Hostile inputs shared by the black-box tests and the memory bench (`tests/bench/
//! hostile_memory.rs`), issue #39: a workbook whose one shared string is read by many cells (a
//! few KiB on the wire, hundreds of MB once each cell copies it), import bodies of many records,
//! and an SSE stream that reads `PB_CONNECT` and then never reads again.

use std::io::{Cursor, Read, Write};
use std::time::Duration;

use rust_xlsxwriter::Workbook;

/// A one-column sheet ("name", then `cells` rows) whose body cells all read one shared string
/// of `text_len` "x"s (written short with rust_xlsxwriter, then lengthened in
/// `xl/sharedStrings.xml` with the zip crate; it deflates to almost nothing).
pub fn one_shared_string_read_by(cells: u32, text_len: usize) -> Vec<u8> {
    let mut book = Workbook::new();
    let sheet = book.add_worksheet();
    sheet.write_string(0, 0, "name").unwrap();
    for row in 1..=cells {
        sheet.write_string(row, 0, "SHARED").unwrap();
    }
    let bytes = book.save_to_buffer().unwrap();
    let mut source = zip::ZipArchive::new(Cursor::new(bytes)).unwrap();
    let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for i in 0..source.len() {
        let mut entry = source.by_index(i).unwrap();
        let mut content = String::new();
        entry.read_to_string(&mut content).unwrap();
        if entry.name() == "xl/sharedStrings.xml" {
            content = content.replace("<t>SHARED</t>", &format!("<t>{}</t>", "x".repeat(text_len)));
        }
        out.start_file(entry.name(), zip::write::SimpleFileOptions::default()).unwrap();
        out.write_all(content.as_bytes()).unwrap();
    }
    out.finish().unwrap().into_inner()
}

/// `{"records": [...], "apply": true}` with `count` copies of `record` (raw JSON).
pub fn import_body_of(record: &str, count: usize) -> Vec<u8> {
    let mut body = Vec::with_capacity(count * (record.len() + 1) + 32);
    body.extend_from_slice(b"{\"apply\": true, \"records\": [");
    for i in 0..count {
        if i > 0 {
            body.push(b',');
        }
        body.extend_from_slice(record.as_bytes());
    }
    body.extend_from_slice(b"]}");
    body
}

/// A raw SSE stream to `server` (`127.0.0.1:port`) from `127.0.0.<host>` with a small receive
/// buffer: reads up to `PB_CONNECT` and returns the socket (to be left unread) and the client id.
pub async fn stalled_stream(server: std::net::SocketAddr, host: u8) -> (tokio::net::TcpStream, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    socket.bind(std::net::SocketAddr::from(([127, 0, 0, host], 0))).unwrap();
    let mut stream = socket.connect(server).await.unwrap();
    stream.write_all(format!("GET /api/realtime HTTP/1.1\r\nHost: {server}\r\n\r\n").as_bytes()).await.unwrap();
    let mut seen = Vec::new();
    let mut buf = [0u8; 1024];
    let id = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the stream ended before PB_CONNECT");
            seen.extend_from_slice(&buf[..n]);
            let text = String::from_utf8_lossy(&seen);
            if let Some(at) = text.find("\"clientId\":\"") {
                let rest = &text[at + 12..];
                if let Some(end) = rest.find('"') {
                    return rest[..end].to_string();
                }
            }
        }
    })
    .await
    .expect("PB_CONNECT within 5 s");
    (stream, id)
}

/// An alert whose body is about `bytes` of text (the largest legal body is ~750,000 characters).
pub fn large_alert(subject: &str, bytes: usize) -> serde_json::Value {
    serde_json::json!({"severity": "ISSUE", "subject": subject, "bodyHtml": format!("<p>{}</p>", "x".repeat(bytes))})
}
