//! `POST /api/relay/import/{collection}`: the Data Manager's bulk import. The body is
//! `{records, apply}`; the store actor plans, validates and (when asked and every row is valid)
//! applies it in one transaction. A preview answers 200; an apply that was refused because rows
//! failed answers 400 with the same report, so clients cannot mistake it for success.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::Value;

use actors::store::ImportRecords;
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::{json_config, ApiResult};

#[derive(Deserialize)]
struct ImportBody {
    records: Vec<Value>,
    #[serde(default)]
    apply: bool,
}

async fn import(
    _: Authenticated,
    handles: web::Data<Handles>,
    collection: web::Path<String>,
    body: web::Json<ImportBody>,
) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let requested = body.apply;
    let msg = ImportRecords { collection: collection.into_inner(), records: body.records, apply: requested };
    let report = handles.store.send(msg).await??;
    let mut res = if requested && !report.applied { HttpResponse::BadRequest() } else { HttpResponse::Ok() };
    Ok(res.json(report))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/relay/import/{collection}")
            .app_data(json_config(crate::MAX_IMPORT_BODY))
            .route(web::post().to(import)),
    );
}
