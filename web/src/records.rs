//! The PocketBase-compatible record routes: list, view, create, update (PATCH) and delete under
//! `/api/collections/{collection}/records`. Each handler requires `Authenticated`, turns the
//! request into a store message and renders the reply; the store actor enforces the collection
//! allowlist, the list parameter rules and validation.
//!
//! A list page is answered a batch at a time (issue #39.5), so one request's memory is a batch
//! of about [`LIST_BATCH_BYTES`], never the page (1,000 records of 700 KB would be 1.4 GB read,
//! parsed and written whole): a reader first returns the page's ids and counts, then renders
//! the records in batches (`actors::store::{ListRecordIds, RenderRecords}`). A page that fits in
//! one batch (every ordinary page) is sent as before, with its length. A larger one is streamed
//! (chunked): the next batch is rendered only when the connection asks for more body, that is
//! when the client has taken the previous one, and each batch holds a reader connection only
//! while it renders, so a slow client holds neither a connection nor more than a batch. The
//! bytes are the same either way: `{"page":..,"perPage":..,"totalItems":..,"totalPages":..,
//! "items":[...]}`, each item as `serde_json` writes the record. A record deleted after the ids
//! were read is left out (the page then holds fewer items than it promised; `totalItems` is the
//! count taken with the ids; see `infra::store`). A batch that fails after the first bytes went
//! out ends the stream with an error, which closes the connection: the client sees a cut-off
//! body, never a shorter page that parses.

use std::collections::HashMap;
use std::sync::Arc;

use actix_web::http::header::ContentType;
use actix_web::{web, HttpResponse};
use bytes::Bytes;
use futures_util::stream::{self, StreamExt};
use serde_json::Value;

use actors::store::{
    CreateRecord, DeleteRecord, GetRecord, ListRecordIds, PageIds, RenderRecords, RenderedBatch, UpdateRecord,
};
use actors::Handles;
use domain::record::{RawListParams, LIST_PAGE_END};

use crate::auth::Authenticated;
use crate::error::{json_config, ApiResult};
use crate::route_table::{Endpoint, RouteTable, Verb};

fn list_params(mut q: HashMap<String, String>) -> RawListParams {
    RawListParams {
        page: q.remove("page"),
        per_page: q.remove("perPage"),
        sort: q.remove("sort"),
        filter: q.remove("filter"),
        skip_total: q.remove("skipTotal"),
    }
}

/// About how much record text one batch of a list page holds (one record more at most; a
/// record is at most about 1 MiB, `MAX_RECORD_BODY` plus its system fields).
pub(crate) const LIST_BATCH_BYTES: usize = 4 * 1024 * 1024;

async fn render(
    handles: &Handles,
    collection: &str,
    ids: &Arc<[String]>,
    from: usize,
) -> Result<RenderedBatch, crate::ApiError> {
    let msg = RenderRecords { collection: collection.to_string(), ids: ids.clone(), from, max_bytes: LIST_BATCH_BYTES };
    Ok(handles.store.send(msg).await??)
}

/// A batch's text (`,{..},{..}`) as a body chunk: its leading comma dropped when it holds the
/// page's first item.
fn chunk(batch: RenderedBatch, first_item_sent: &mut bool) -> Bytes {
    let text = Bytes::from(batch.text);
    if batch.items == 0 || *first_item_sent {
        return text;
    }
    *first_item_sent = true;
    text.slice(1..)
}

async fn list(
    _: Authenticated,
    handles: web::Data<Handles>,
    collection: web::Path<String>,
    query: web::Query<HashMap<String, String>>,
) -> ApiResult<HttpResponse> {
    let collection = collection.into_inner();
    let msg = ListRecordIds { collection: collection.clone(), params: list_params(query.into_inner()) };
    let PageIds { page, ids } = handles.store.send(msg).await??;
    let ids: Arc<[String]> = ids.into();
    let head = page.json_head();
    let first = render(&handles, &collection, &ids, 0).await?;
    let mut first_item_sent = false;
    let next = first.next;
    let first = chunk(first, &mut first_item_sent);
    if next >= ids.len() {
        let mut body = Vec::with_capacity(head.len() + first.len() + LIST_PAGE_END.len());
        body.extend_from_slice(head.as_bytes());
        body.extend_from_slice(&first);
        body.extend_from_slice(LIST_PAGE_END.as_bytes());
        return Ok(HttpResponse::Ok().content_type(ContentType::json()).body(body));
    }
    // Polled only when the connection's write buffer has room: one batch in flight at most.
    let rest = stream::unfold((handles, collection, ids, next, first_item_sent), |state| async move {
        let (handles, collection, ids, from, mut first_item_sent) = state;
        if from >= ids.len() {
            return None;
        }
        match render(&handles, &collection, &ids, from).await {
            Ok(batch) => {
                let next = batch.next;
                let text = chunk(batch, &mut first_item_sent);
                Some((Ok(text), (handles, collection, ids, next, first_item_sent)))
            }
            Err(e) => {
                tracing::warn!(collection, error = %e, "list page cut off: a batch could not be read");
                let end = ids.len();
                Some((Err(std::io::Error::other(e.to_string())), (handles, collection, ids, end, first_item_sent)))
            }
        }
    });
    let body = stream::iter([Ok(Bytes::from(head)), Ok(first)])
        .chain(rest)
        .chain(stream::once(async { Ok(Bytes::from_static(LIST_PAGE_END.as_bytes())) }));
    Ok(HttpResponse::Ok().content_type(ContentType::json()).streaming(body))
}

async fn view(
    _: Authenticated,
    handles: web::Data<Handles>,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    let (collection, id) = path.into_inner();
    Ok(HttpResponse::Ok().json(handles.store.send(GetRecord { collection, id }).await??))
}

async fn create(
    _: Authenticated,
    handles: web::Data<Handles>,
    collection: web::Path<String>,
    body: web::Json<Value>,
) -> ApiResult<HttpResponse> {
    let msg = CreateRecord { collection: collection.into_inner(), body: body.into_inner() };
    Ok(HttpResponse::Ok().json(handles.store.send(msg).await??))
}

async fn update(
    _: Authenticated,
    handles: web::Data<Handles>,
    path: web::Path<(String, String)>,
    body: web::Json<Value>,
) -> ApiResult<HttpResponse> {
    let (collection, id) = path.into_inner();
    let msg = UpdateRecord { collection, id, body: body.into_inner() };
    Ok(HttpResponse::Ok().json(handles.store.send(msg).await??))
}

async fn delete(
    _: Authenticated,
    handles: web::Data<Handles>,
    path: web::Path<(String, String)>,
) -> ApiResult<HttpResponse> {
    let (collection, id) = path.into_inner();
    handles.store.send(DeleteRecord { collection, id }).await??;
    Ok(HttpResponse::NoContent().finish())
}

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/collections/{collection}/records", &[(Verb::Get, |r| r.to(list)), (Verb::Post, |r| r.to(create))])
        .with(|r| r.app_data(json_config(crate::MAX_RECORD_BODY))),
    Endpoint::new(
        "/collections/{collection}/records/{id}",
        &[(Verb::Get, |r| r.to(view)), (Verb::Patch, |r| r.to(update)), (Verb::Delete, |r| r.to(delete))],
    )
    .with(|r| r.app_data(json_config(crate::MAX_RECORD_BODY))),
]);
