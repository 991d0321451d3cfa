//! The Wiki's IO: the published library's content-addressed files and upload staging
//! ([`files`]), the upload rows ([`uploads`]), the full-text index ([`search`]), a publisher's
//! source PDF on the server PC ([`source`]), and bounded work on untrusted PDFs: text,
//! page-count and outline extraction ([`extract`], [`outline`]) and the page-1 cover rendered by
//! poppler's `pdftoppm` ([`cover`]), both run in a worker process ([`worker`], which is how a
//! server must call them: `worker::extract_in_worker`). The rules (limits, chunk checks,
//! states) are `domain::wiki`'s; the wiki actor and the privileged commands decide what is
//! written and call these blocking functions off their threads.

pub mod cover;
pub mod extract;
pub mod files;
pub mod outline;
pub mod search;
pub mod source;
#[cfg(any(test, feature = "test-fixtures"))]
pub mod test_pdfs;
pub mod uploads;
pub mod worker;

#[cfg(test)]
#[path = "fts_tests.rs"]
mod fts_tests;
