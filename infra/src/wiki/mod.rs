//! The Wiki's IO: the published library's content-addressed files and upload staging
//! ([`files`]), the upload rows ([`uploads`]) and the full-text index ([`search`]). The rules (limits, chunk checks, states) are `domain::wiki`'s; the wiki actor
//! and the privileged commands decide what is written.

pub mod files;
pub mod search;
pub mod uploads;

#[cfg(test)]
#[path = "fts_tests.rs"]
mod fts_tests;
