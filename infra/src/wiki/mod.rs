//! The Wiki's IO: the published library's content-addressed files and upload staging
//! ([`files`]), the upload rows ([`uploads`]), the full-text index ([`search`]) and a
//! publisher's source PDF on the server PC ([`source`]). The rules (limits, chunk checks,
//! states) are `domain::wiki`'s; the wiki actor and the privileged commands decide what is
//! written.

pub mod files;
pub mod search;
pub mod source;
pub mod uploads;

#[cfg(test)]
#[path = "fts_tests.rs"]
mod fts_tests;
