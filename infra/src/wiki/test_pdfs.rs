//! Test-only PDF generator: builds the files the extraction tests need byte by byte (a small
//! writer with a correct cross-reference table), so a fixture can be as hostile as a test needs
//! (100,000 nesting levels, reference cycles, a forged `/Encrypt`, truncation) without the
//! generator itself recursing or refusing. Compiled only for tests and the `test-fixtures`
//! feature; nothing here is used by a running server.

/// A PDF under construction: object bodies numbered from 1 in insertion order.
#[derive(Debug, Default)]
pub struct PdfBuilder {
    objects: Vec<Vec<u8>>,
    trailer_extra: String,
}

impl PdfBuilder {
    /// The number the next added object will get.
    pub fn next_id(&self) -> usize {
        self.objects.len() + 1
    }

    /// Adds an object body (without `N 0 obj`/`endobj`) and returns its number.
    pub fn add(&mut self, body: impl Into<Vec<u8>>) -> usize {
        self.objects.push(body.into());
        self.objects.len()
    }

    /// Replaces the body of object `id` (to close cycles).
    pub fn set(&mut self, id: usize, body: impl Into<Vec<u8>>) {
        self.objects[id - 1] = body.into();
    }

    /// Adds a stream object with `data` (uncompressed) and returns its number.
    pub fn add_stream(&mut self, data: &[u8]) -> usize {
        let mut body = format!("<< /Length {} >>\nstream\n", data.len()).into_bytes();
        body.extend_from_slice(data);
        body.extend_from_slice(b"\nendstream");
        self.add(body)
    }

    /// Extra trailer entries (e.g. `/Encrypt 9 0 R /ID [...]`).
    pub fn trailer(&mut self, extra: &str) {
        self.trailer_extra = extra.to_string();
    }

    /// The file, with `/Root root 0 R`.
    pub fn finish(&self, root: usize) -> Vec<u8> {
        let mut out = b"%PDF-1.7\n%\xE2\xE3\xCF\xD3\n".to_vec();
        let mut offsets = Vec::with_capacity(self.objects.len());
        for (i, body) in self.objects.iter().enumerate() {
            offsets.push(out.len());
            out.extend_from_slice(format!("{} 0 obj\n", i + 1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len();
        out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", self.objects.len() + 1).as_bytes());
        for offset in offsets {
            out.extend_from_slice(format!("{offset:010} 00000 n \n").as_bytes());
        }
        out.extend_from_slice(
            format!(
                "trailer\n<< /Size {} /Root {root} 0 R {} >>\nstartxref\n{xref}\n%%EOF\n",
                self.objects.len() + 1,
                self.trailer_extra
            )
            .as_bytes(),
        );
        out
    }
}

/// Escapes `text` for a PDF literal string.
fn literal(text: &str) -> String {
    text.replace('\\', "\\\\").replace('(', "\\(").replace(')', "\\)")
}

/// A content stream showing `lines` one below the other in the Helvetica font `/F1`.
pub fn text_content(lines: &[String]) -> Vec<u8> {
    let mut content = String::from("BT /F1 12 Tf 72 720 Td 14 TL\n");
    for line in lines {
        content.push_str(&format!("({}) Tj T*\n", literal(line)));
    }
    content.push_str("ET\n");
    content.into_bytes()
}

/// Catalog (object 1), page tree (object 2) and font (object 3) with one page per content
/// stream; `catalog_extra` is added to the catalog. Returns the builder and the page ids.
pub fn document(contents: &[Vec<u8>], catalog_extra: &str) -> (PdfBuilder, Vec<usize>) {
    let mut pdf = PdfBuilder::default();
    let catalog = pdf.add(Vec::new());
    let pages = pdf.add(Vec::new());
    let font = pdf.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
    let mut page_ids = Vec::with_capacity(contents.len());
    for content in contents {
        let stream = pdf.add_stream(content);
        let page = pdf.add(format!(
            "<< /Type /Page /Parent {pages} 0 R /MediaBox [0 0 612 792] \
             /Resources << /Font << /F1 {font} 0 R >> >> /Contents {stream} 0 R >>"
        ));
        page_ids.push(page);
    }
    let kids: Vec<String> = page_ids.iter().map(|p| format!("{p} 0 R")).collect();
    pdf.set(pages, format!("<< /Type /Pages /Kids [{}] /Count {} >>", kids.join(" "), page_ids.len()));
    pdf.set(catalog, format!("<< /Type /Catalog /Pages {pages} 0 R {catalog_extra} >>"));
    (pdf, page_ids)
}

/// `count` pages, page `n` (1-based) showing "Page n".
pub fn pages(count: usize) -> Vec<u8> {
    let contents: Vec<Vec<u8>> = (1..=count).map(|n| text_content(&[format!("Page {n}")])).collect();
    let (pdf, _) = document(&contents, "");
    pdf.finish(1)
}

/// Three pages of text with an outline: "Introduction" (page 0) with the child "Scope"
/// (page 1, through a `/GoTo` action), then "Procedures" (page 2, through a named destination
/// in the catalog's `/Dests`).
pub fn multi_page_with_outline() -> Vec<u8> {
    let contents = [
        text_content(&["Introduction to the NOC runbook".into(), "Read this first.".into()]),
        text_content(&["Scope of the procedures".into()]),
        text_content(&["Procedures: restart the collector".into()]),
    ];
    let (mut pdf, page_ids) = document(&contents, "");
    let outlines = pdf.next_id();
    let (intro, scope, procedures) = (outlines + 1, outlines + 2, outlines + 3);
    pdf.add(format!("<< /Type /Outlines /First {intro} 0 R /Last {procedures} 0 R /Count 3 >>"));
    pdf.add(format!(
        "<< /Title (Introduction) /Parent {outlines} 0 R /Next {procedures} 0 R /First {scope} 0 R \
         /Last {scope} 0 R /Count 1 /Dest [{} 0 R /Fit] >>",
        page_ids[0]
    ));
    pdf.add(format!(
        "<< /Title <FEFF00530063006F00700065> /Parent {intro} 0 R /A << /S /GoTo /D [{} 0 R /XYZ 0 792 0] >> >>",
        page_ids[1]
    ));
    pdf.add(format!("<< /Title (Procedures) /Parent {outlines} 0 R /Prev {intro} 0 R /Dest /procs >>"));
    pdf.set(
        1,
        format!(
            "<< /Type /Catalog /Pages 2 0 R /Outlines {outlines} 0 R /Dests << /procs [{} 0 R /Fit] >> >>",
            page_ids[2]
        ),
    );
    pdf.finish(1)
}

/// The outline fixture with a standard security handler in the trailer.
pub fn encrypted() -> Vec<u8> {
    let contents = [text_content(&["Secret page".into()])];
    let (mut pdf, _) = document(&contents, "");
    let hex32 = "00112233445566778899AABBCCDDEEFF00112233445566778899AABBCCDDEEFF";
    let encrypt = pdf.add(format!("<< /Filter /Standard /V 1 /R 2 /Length 40 /O <{hex32}> /U <{hex32}> /P -4 >>"));
    pdf.trailer(&format!(
        "/Encrypt {encrypt} 0 R /ID [<0123456789ABCDEF0123456789ABCDEF> <0123456789ABCDEF0123456789ABCDEF>]"
    ));
    pdf.finish(1)
}

/// The outline fixture cut off after 40% of its bytes.
pub fn truncated() -> Vec<u8> {
    let mut bytes = multi_page_with_outline();
    bytes.truncate(bytes.len() * 2 / 5);
    bytes
}

/// A `%PDF-` header followed by 8 KiB of deterministic garbage.
pub fn header_then_garbage() -> Vec<u8> {
    let mut bytes = b"%PDF-1.7\n".to_vec();
    let mut state: u32 = 0x2545_5044;
    for _ in 0..8192 {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        bytes.push((state >> 24) as u8);
    }
    bytes
}

/// One page whose text is `chars` ASCII characters (lines of 100).
pub fn page_with_chars(chars: usize) -> Vec<u8> {
    let line = "abcdefghij".repeat(10);
    let mut lines: Vec<String> = std::iter::repeat_n(line, chars / 100).collect();
    if !chars.is_multiple_of(100) {
        lines.push("x".repeat(chars % 100));
    }
    let (pdf, _) = document(&[text_content(&lines)], "");
    pdf.finish(1)
}

/// `pages` pages each showing `items` empty strings in one `TJ` array (text items without
/// text).
pub fn many_text_items(pages: usize, items: usize) -> Vec<u8> {
    let mut content = b"BT /F1 12 Tf [".to_vec();
    content.extend(std::iter::repeat_n(b"() ".as_slice(), items).flatten());
    content.extend_from_slice(b"] TJ ET\n");
    let contents = vec![content; pages];
    let (pdf, _) = document(&contents, "");
    pdf.finish(1)
}

/// One page of text whose page dictionary holds arrays nested `levels` deep and whose catalog
/// points to dictionaries nested `levels` deep.
pub fn deeply_nested(levels: usize) -> Vec<u8> {
    let contents = [text_content(&["Nested".into()])];
    let (mut pdf, page_ids) = document(&contents, "");
    let mut arrays = Vec::with_capacity(levels * 2);
    arrays.extend(std::iter::repeat_n(b'[', levels));
    arrays.extend(std::iter::repeat_n(b']', levels));
    let deep_arrays = pdf.add(arrays);
    let mut dicts = Vec::with_capacity(levels * 6);
    dicts.extend(std::iter::repeat_n(b"<< /A ".as_slice(), levels).flatten());
    dicts.extend_from_slice(b"1");
    dicts.extend(std::iter::repeat_n(b" >>".as_slice(), levels).flatten());
    let deep_dicts = pdf.add(dicts);
    let page = page_ids[0];
    pdf.set(
        page,
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> \
             /Contents {} 0 R /Deep {deep_arrays} 0 R >>",
            page - 1
        ),
    );
    pdf.set(1, format!("<< /Type /Catalog /Pages 2 0 R /Deep {deep_dicts} 0 R >>"));
    pdf.finish(1)
}

/// Reference cycles everywhere extraction walks: the page tree lists itself among its kids,
/// the page's resources are a reference chain that loops, and the outline's `/Next` and
/// `/First` lead back to earlier items.
pub fn reference_cycles() -> Vec<u8> {
    let contents = [text_content(&["Cycle".into()]), text_content(&["Second".into()])];
    let (mut pdf, page_ids) = document(&contents, "");
    let loop_a = pdf.next_id();
    let loop_b = loop_a + 1;
    pdf.add(format!("{loop_b} 0 R"));
    pdf.add(format!("{loop_a} 0 R"));
    pdf.set(
        page_ids[1],
        format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources {loop_a} 0 R /Contents {} 0 R >>",
            page_ids[1] - 1
        ),
    );
    pdf.set(2, format!("<< /Type /Pages /Kids [{} 0 R 2 0 R {} 0 R] /Count 3 >>", page_ids[0], page_ids[1]));
    let outlines = pdf.next_id();
    let (first, second) = (outlines + 1, outlines + 2);
    pdf.add(format!("<< /Type /Outlines /First {first} 0 R >>"));
    pdf.add(format!("<< /Title (One) /Next {second} 0 R /First {first} 0 R /Dest [{} 0 R /Fit] >>", page_ids[0]));
    pdf.add(format!("<< /Title (Two) /Next {first} 0 R /Dest [{} 0 R /Fit] >>", page_ids[1]));
    pdf.set(1, format!("<< /Type /Catalog /Pages 2 0 R /Outlines {outlines} 0 R >>"));
    pdf.finish(1)
}

/// One page and a flat outline of `items` entries whose titles are `title_chars` long.
pub fn long_outline(items: usize, title_chars: usize) -> Vec<u8> {
    let (mut pdf, page_ids) = document(&[text_content(&["Outline".into()])], "");
    let outlines = pdf.next_id();
    pdf.add(format!("<< /Type /Outlines /First {} 0 R >>", outlines + 1));
    for i in 0..items {
        let id = pdf.next_id();
        let next = if i + 1 < items { format!("/Next {} 0 R", id + 1) } else { String::new() };
        let title = format!("{i:05} {}", "t".repeat(title_chars.saturating_sub(6)));
        pdf.add(format!("<< /Title ({title}) {next} /Dest [{} 0 R /Fit] >>", page_ids[0]));
    }
    pdf.set(1, format!("<< /Type /Catalog /Pages 2 0 R /Outlines {outlines} 0 R >>"));
    pdf.finish(1)
}
