//! The Wiki's IO: the published library's content-addressed files and upload staging
//! ([`files`]). The rules (limits, chunk checks, states) are `domain::wiki`'s; the wiki actor
//! and the privileged commands decide what is written.

pub mod files;

#[cfg(test)]
#[path = "fts_tests.rs"]
mod fts_tests;
