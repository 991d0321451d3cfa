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

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/collections/{collection}/records")
            .app_data(json_config(crate::MAX_RECORD_BODY))
            .route(web::get().to(list))
            .route(web::post().to(create)),
    )
    .service(
        web::resource("/collections/{collection}/records/{id}")
            .app_data(json_config(crate::MAX_RECORD_BODY))
            .route(web::get().to(view))
            .route(web::patch().to(update))
            .route(web::delete().to(delete)),
    );
}
