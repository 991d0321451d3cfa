//! Wiki reading routes for every signed-in client; handlers only translate. `GET
//! /api/relay/wiki/search?q=…[&documentId=…][&categoryId=…][&documentType=…][&limit=…]` answers
//! `{"items": [...]}` (passages with match kind, excerpt and highlight ranges); `GET
//! /api/relay/wiki/documents/{id}/pdf` streams an active document's PDF with byte ranges,
//! `Repr-Digest` (SHA-256) and `X-Relay-Checksum` so a reader can verify what it got (`?download=1`
//! asks for an attachment under the authored file name, neutralized by
//! `domain::wiki::display_file_name`); `GET
//! /api/relay/wiki/documents/{id}/cover` answers its cover PNG. A trashed or unknown document is
//! 404. Mounted on the data API and on the Relay Web gateway alike. Publishing is the typed
//! `wiki.*` privileged commands; a paired laptop sends an upload's chunks to `POST
//! /api/relay/wiki/chunks` (data API only), each with its signed `wiki.upload.chunk` claim.

use actix_files::NamedFile;
use actix_web::http::header::{ContentDisposition, DispositionParam, DispositionType};
use actix_web::{web, HttpRequest, HttpResponse};
use base64::Engine;
use serde::Deserialize;

use actors::privileged::{PrivError, RunCommand, Signed};
use actors::wiki::{
    IncomingChunk, OpenDocument, ReadCover, SearchRequest, SearchWiki, Sender, StoreChunk, WikiActor, WikiError,
};
use actors::Handles;
use domain::envelope::{Envelope, MAX_ENVELOPE_BYTES};
use domain::privileged_command::PrivilegedCommand;
use domain::wiki::command::WikiCommand;

use crate::auth::Authenticated;
use crate::error::{Problem, RawBody};
use crate::route_table::{Endpoint, RouteTable, Verb};

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
        // A name stored before the upload rules refused format characters and device names is
        // neutralized here, so a download never saves as `CON.pdf` or reads reversed.
        parameters: vec![DispositionParam::Filename(domain::wiki::display_file_name(&opened.file_name))],
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

/// The chunk route's signed claim: base64 of the envelope JSON, in this header.
const ENVELOPE_HEADER: &str = "x-relay-envelope";

fn claim_of(request: &HttpRequest) -> Result<(bytes::Bytes, Envelope), WikiError> {
    let header = request.headers().get(ENVELOPE_HEADER).ok_or(WikiError::MissingClaim)?;
    let raw =
        base64::engine::general_purpose::STANDARD.decode(header.as_bytes()).map_err(|_| WikiError::MissingClaim)?;
    if raw.len() > MAX_ENVELOPE_BYTES {
        return Err(WikiError::MissingClaim);
    }
    let envelope: Envelope = serde_json::from_slice(&raw).map_err(|_| WikiError::MissingClaim)?;
    // Only this command may ride on the chunk route: any other is refused before it is run.
    if envelope.command != "wiki.upload.chunk" {
        return Err(WikiError::MissingClaim);
    }
    Ok((bytes::Bytes::from(raw), envelope))
}

/// `POST /api/relay/wiki/chunks` (data API only; paired laptops): the chunk's bytes as the raw
/// body (at most 4 MiB) and its signed `wiki.upload.chunk` claim in `X-Relay-Envelope`. The
/// privileged pipeline verifies and audits the claim (account, device, role, signature, request
/// id); the wiki actor checks the bytes against the claim and the upload, then stores them.
async fn chunk(
    _: Authenticated,
    request: HttpRequest,
    handles: web::Data<Handles>,
    RawBody(body): RawBody,
) -> Result<HttpResponse, actix_web::Error> {
    let (raw, envelope) = claim_of(&request).map_err(Problem)?;
    let outcome = handles
        .privileged
        .send(RunCommand { origin: Signed { body: raw } })
        .await
        .map_err(|e| Problem(WikiError::from(e)))?;
    // A refused claim is answered as the privileged pipeline's refusal.
    let outcome = outcome.map_err(Problem)?;
    if outcome.status != "done" {
        return Err(Problem(PrivError::RequestConflict).into());
    }
    // The claim the pipeline just verified, typed (its payload is strict).
    let command =
        PrivilegedCommand::parse(&envelope.command, &envelope.payload).map_err(|_| Problem(WikiError::MissingClaim))?;
    let PrivilegedCommand::Wiki(WikiCommand::UploadChunk { upload_id, batch_id, index, byte_size, checksum }) = command
    else {
        return Err(Problem(WikiError::MissingClaim).into());
    };
    let chunk = IncomingChunk {
        upload_id,
        batch_id,
        index: index.as_f64().unwrap_or(f64::NAN),
        byte_size,
        checksum,
        bytes: body.to_vec(),
    };
    let sender = Sender { account_id: envelope.account_id, device_id: envelope.device_id };
    let wiki = wiki(&handles).map_err(Problem)?;
    let progress = wiki.send(StoreChunk { sender, chunk }).await.map_err(|e| Problem(WikiError::from(e)))?;
    Ok(HttpResponse::Ok().json(&progress.map_err(Problem)?))
}

/// The chunk route, mounted on the data API only (the gateway has no privileged routes).
pub(crate) const UPLOAD_ROUTES: RouteTable =
    RouteTable::new(&[Endpoint::new("/relay/wiki/chunks", &[(Verb::Post, |r| r.to(chunk))])
        .with(|r| r.app_data(web::PayloadConfig::new(domain::wiki::limits::UPLOAD_CHUNK_BYTES as usize)))]);

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/wiki/search", &[(Verb::Get, |r| r.to(search))]),
    Endpoint::new("/relay/wiki/documents/{id}/pdf", &[(Verb::Get, |r| r.to(pdf))]),
    Endpoint::new("/relay/wiki/documents/{id}/cover", &[(Verb::Get, |r| r.to(cover))]),
]);
