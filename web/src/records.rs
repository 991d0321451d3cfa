//! The PocketBase-compatible record routes: list, view, create, update (PATCH) and delete under
//! `/api/collections/{collection}/records`. Each handler requires `Authenticated`, turns the
//! request into a store message and renders the reply; the store actor enforces the collection
//! allowlist, the list parameter rules and validation.

use std::collections::HashMap;

use actix_web::{web, HttpResponse};
use serde_json::Value;

use actors::store::{CreateRecord, DeleteRecord, GetRecord, ListRecords, UpdateRecord};
use actors::Handles;
use domain::record::RawListParams;

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

async fn list(
    _: Authenticated,
    handles: web::Data<Handles>,
    collection: web::Path<String>,
    query: web::Query<HashMap<String, String>>,
) -> ApiResult<HttpResponse> {
    let msg = ListRecords { collection: collection.into_inner(), params: list_params(query.into_inner()) };
    Ok(HttpResponse::Ok().json(handles.store.send(msg).await??))
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
