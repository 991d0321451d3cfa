//! Wiki reading routes for every signed-in client; handlers only translate. `GET
//! /api/relay/wiki/search?q=…[&documentId=…][&categoryId=…][&documentType=…][&limit=…]` answers
//! `{"items": [...]}` (passages with match kind, excerpt and highlight ranges); `GET
//! /api/relay/wiki/documents/{id}/pdf` streams an active document's PDF with byte ranges,
//! `Repr-Digest` (SHA-256) and `X-Relay-Checksum` so a reader can verify what it got (`?download=1`
//! asks for an attachment under the authored file name); `GET
//! /api/relay/wiki/documents/{id}/cover` answers its cover PNG. A trashed or unknown document is
//! 404. Publishing is not here: it is the typed `wiki.*` privileged commands. Mounted on the
//! data API and on the Relay Web gateway alike.

use actix_files::NamedFile;
use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use serde::Deserialize;

use actors::wiki::{OpenDocument, ReadCover, SearchRequest, SearchWiki, WikiActor, WikiError};
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::Problem;

type WikiResult = Result<HttpResponse, Problem<WikiError>>;

fn wiki(handles: &Handles) -> Result<&actix::Addr<WikiActor>, WikiError> {
    handles.wiki.as_ref().ok_or(WikiError::Unavailable)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SearchParams {
    q: String,
    document_id: Option<String>,
    category_id: Option<String>,
    document_type: Option<String>,
    limit: Option<usize>,
}

async fn search(_: Authenticated, handles: web::Data<Handles>, params: web::Query<SearchParams>) -> WikiResult {
    let p = params.into_inner();
    let request = SearchRequest {
        query: p.q,
        document_id: p.document_id,
        category_id: p.category_id,
        document_type: p.document_type,
        limit: p.limit,
    };
    let hits = wiki(&handles)?.send(SearchWiki(request)).await.map_err(WikiError::from)??;
    Ok(HttpResponse::Ok().json(serde_json::json!({ "items": hits })))
}

#[derive(Debug, Deserialize)]
struct PdfParams {
    download: Option<u8>,
}

fn hex_to_base64(hex: &str) -> String {
    let bytes: Vec<u8> =
        (0..hex.len() / 2).filter_map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).ok()).collect();
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn pdf(
    _: Authenticated,
    request: HttpRequest,
    handles: web::Data<Handles>,
    id: web::Path<String>,
    params: web::Query<PdfParams>,
) -> WikiResult {
    let opened =
        wiki(&handles)?.send(OpenDocument { document_id: id.into_inner() }).await.map_err(WikiError::from)??;
    let disposition = ContentDisposition {
        disposition: if params.download == Some(1) { DispositionType::Attachment } else { DispositionType::Inline },
        parameters: vec![DispositionParam::Filename(opened.file_name.clone())],
    };
    let file = NamedFile::from_file(opened.file, format!("{}.pdf", opened.checksum))
        .map_err(WikiError::io)?
        .set_content_type("application/pdf".parse().expect("a valid MIME type"))
        .set_content_disposition(disposition)
        .use_last_modified(false);
    let mut response = file.into_response(&request);
    let headers = response.headers_mut();
    let digest = format!("sha-256=:{}:", hex_to_base64(&opened.checksum));
    for (name, value) in [
        ("repr-digest", digest.as_str()),
        ("x-relay-checksum", opened.checksum.as_str()),
        ("x-content-type-options", "nosniff"),
        ("content-security-policy", "sandbox; default-src 'none'"),
        ("cache-control", "private, no-store"),
    ] {
        if let Ok(value) = actix_web::http::header::HeaderValue::from_str(value) {
            headers.insert(actix_web::http::header::HeaderName::from_static(name), value);
        }
    }
    Ok(response)
}

async fn cover(_: Authenticated, handles: web::Data<Handles>, id: web::Path<String>) -> WikiResult {
    let png = wiki(&handles)?.send(ReadCover { document_id: id.into_inner() }).await.map_err(WikiError::from)??;
    Ok(HttpResponse::Ok()
        .content_type("image/png")
        .insert_header(("X-Content-Type-Options", "nosniff"))
        .insert_header(("Cache-Control", "private, max-age=300"))
        .body(png))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.route("/relay/wiki/search", web::get().to(search))
        .route("/relay/wiki/documents/{id}/pdf", web::get().to(pdf))
        .route("/relay/wiki/documents/{id}/cover", web::get().to(cover));
}
