//! The origin-only description of a URL (`scheme://host[:port]`) that every outbound-HTTP log
//! line and error message uses. It drops paths, queries, fragments and credentials; it never
//! returns any other part of the URL.

use url::Url;

/// `scheme://host[:port]` of a parsed URL (`scheme:` for URLs without an authority).
pub fn describe(url: &Url) -> String {
    match url.host_str() {
        Some(host) => match url.port() {
            Some(port) => format!("{}://{host}:{port}", url.scheme()),
            None => format!("{}://{host}", url.scheme()),
        },
        None => format!("{}:", url.scheme()),
    }
}

/// [`describe`] for text that may not parse (`<unparseable-url>` then).
pub fn describe_str(raw: &str) -> String {
    domain::redact::describe_url_for_log(raw)
}
