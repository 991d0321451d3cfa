//! The Wiki's IO on untrusted PDFs (issue #15): bounded text, page-count and outline
//! extraction ([`extract`], [`outline`]), the page-1 cover rendered by poppler's `pdftoppm`
//! ([`cover`]), and the worker process both run in ([`worker`]), which is how a server must
//! call them (`worker::extract_in_worker`). The limits come from `domain::wiki::limits`. No
//! store, no upload state and no search index live here; the wiki actor owns those and calls
//! these blocking functions off its thread.

pub mod cover;
pub mod extract;
pub mod outline;
#[cfg(any(test, feature = "test-fixtures"))]
pub mod test_pdfs;
pub mod worker;
