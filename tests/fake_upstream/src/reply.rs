//! Response scripts: what the fake upstream sends for one request, byte by byte. A script can
//! misbehave on purpose (wrong `Content-Length`, headers and then silence, a body far larger
//! than memory) so clients can be tested against hostile servers. It never reads the request.

use std::time::Duration;

/// The body of a scripted reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Body {
    /// These exact bytes.
    Bytes(Vec<u8>),
    /// `len` copies of `byte`, generated while streaming (nothing of size `len` is allocated).
    Repeat { byte: u8, len: u64 },
}

impl Body {
    /// Number of payload bytes (before any chunked framing).
    pub fn len(&self) -> u64 {
        match self {
            Body::Bytes(b) => b.len() as u64,
            Body::Repeat { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// What the `Content-Length` header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Length {
    /// The true body length (omitted when the body is chunked).
    Auto,
    /// This number, whatever the body really is.
    Declared(u64),
    /// No header: the body is delimited by closing the connection (or by chunking).
    Omitted,
}

/// One scripted response. Build it with the constructors and chain the options:
///
/// ```
/// use fake_upstream::Reply;
/// use std::time::Duration;
/// let hostile = Reply::json(r#"{"ok":true}"#).declared_length(4096).delay_before_headers(Duration::from_millis(50));
/// # let _ = hostile;
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Body,
    pub(crate) length: Length,
    pub(crate) chunked: bool,
    pub(crate) delay: Duration,
    pub(crate) stall_after_headers: bool,
    pub(crate) stall_after_body_bytes: Option<u64>,
}

impl Reply {
    /// A reply with this status, no headers and an empty body.
    pub fn status(status: u16) -> Reply {
        Reply {
            status,
            headers: Vec::new(),
            body: Body::Bytes(Vec::new()),
            length: Length::Auto,
            chunked: false,
            delay: Duration::ZERO,
            stall_after_headers: false,
            stall_after_body_bytes: None,
        }
    }

    /// `200 OK` with `Content-Type: application/json` and this body.
    pub fn json(body: impl Into<String>) -> Reply {
        Reply::status(200).header("Content-Type", "application/json").body(body.into())
    }

    /// `200 OK` with this content type and body.
    pub fn content(content_type: &str, body: impl Into<Vec<u8>>) -> Reply {
        Reply::status(200).header("Content-Type", content_type).body(body)
    }

    /// A redirect (`301`, `302`, `303`, `307` or `308`) to `location`, which may be a path on
    /// this server (`/next`) or an absolute URL.
    pub fn redirect(status: u16, location: &str) -> Reply {
        Reply::status(status).header("Location", location)
    }

    /// Adds a header line, sent verbatim.
    pub fn header(mut self, name: &str, value: &str) -> Reply {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    /// Replaces the body.
    pub fn body(mut self, body: impl Into<Vec<u8>>) -> Reply {
        self.body = Body::Bytes(body.into());
        self
    }

    /// A body of `len` copies of `byte`, streamed without allocating `len` bytes.
    pub fn repeated_body(mut self, byte: u8, len: u64) -> Reply {
        self.body = Body::Repeat { byte, len };
        self
    }

    /// Sends the body with `Transfer-Encoding: chunked`.
    pub fn chunked(mut self) -> Reply {
        self.chunked = true;
        self
    }

    /// Declares `Content-Length: len` whatever the body really is.
    pub fn declared_length(mut self, len: u64) -> Reply {
        self.length = Length::Declared(len);
        self
    }

    /// Sends no `Content-Length` (the body then ends when the connection closes).
    pub fn without_length(mut self) -> Reply {
        self.length = Length::Omitted;
        self
    }

    /// Waits this long before sending anything.
    pub fn delay_before_headers(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }

    /// Sends the status line and headers, then nothing until the client hangs up (bounded by
    /// [`crate::Limits::max_stall`]).
    pub fn stall_after_headers(mut self) -> Reply {
        self.stall_after_headers = true;
        self
    }

    /// Sends the headers and the first `len` payload bytes of the body, then nothing until the
    /// client hangs up (bounded by [`crate::Limits::max_stall`]): a transfer cut off midway.
    pub fn stall_after_body_bytes(mut self, len: u64) -> Reply {
        self.stall_after_body_bytes = Some(len);
        self
    }

    /// The status line, headers and blank line.
    pub(crate) fn head(&self) -> Vec<u8> {
        let mut head = format!("HTTP/1.1 {} {}\r\n", self.status, reason(self.status));
        for (name, value) in &self.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        match self.length {
            Length::Auto if !self.chunked => head.push_str(&format!("Content-Length: {}\r\n", self.body.len())),
            Length::Declared(n) => head.push_str(&format!("Content-Length: {n}\r\n")),
            _ => {}
        }
        if self.chunked {
            head.push_str("Transfer-Encoding: chunked\r\n");
        }
        if !self.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("connection")) {
            head.push_str("Connection: close\r\n");
        }
        head.push_str("\r\n");
        head.into_bytes()
    }
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        204 => "No Content",
        301 => "Moved Permanently",
        302 => "Found",
        303 => "See Other",
        307 => "Temporary Redirect",
        308 => "Permanent Redirect",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        503 => "Service Unavailable",
        _ => "Status",
    }
}
