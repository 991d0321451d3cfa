//! `POST /api/relay/import/{collection}`: the Data Manager's bulk import. The body is
//! `{records, apply}`; the store actor plans, validates and (when asked and every row is valid)
//! applies it in one transaction. A preview answers 200; an apply that was refused because rows
//! failed answers 400 with the same report, so clients cannot mistake it for success.
//! `POST /api/relay/spreadsheet/rows?sheet=<name>`: the raw bytes of an `.xlsx` workbook (at
//! most 25 MB) read by the spreadsheet actor into `{sheet, columns, rows}` (every cell as text),
//! so Excel files reach the same parsing as CSV without a spreadsheet library in the renderer.
//! Both need a signed-in client and are mounted on the data API and the Relay Web gateway.

use actix_web::{web, HttpResponse};
use serde::Deserialize;
use serde_json::Value;

use actors::spreadsheet::{ReadSheet, ReadSheetError};
use actors::store::ImportRecords;
use actors::Handles;
use domain::spreadsheet::MAX_WORKBOOK_BYTES;

use crate::auth::Authenticated;
use crate::error::{json_config, ApiResult, Problem, RawBody};

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

#[derive(Deserialize)]
struct SheetQuery {
    sheet: Option<String>,
}

/// The workbook body (a body past `MAX_WORKBOOK_BYTES` is refused with 413 before it is read
/// to the end).
async fn spreadsheet_rows(
    _: Authenticated,
    handles: web::Data<Handles>,
    query: web::Query<SheetQuery>,
    RawBody(body): RawBody,
) -> Result<HttpResponse, Problem<ReadSheetError>> {
    let msg = ReadSheet { bytes: body.to_vec(), sheet: query.into_inner().sheet };
    let rows = handles.spreadsheet.send(msg).await.map_err(ReadSheetError::from)??;
    Ok(HttpResponse::Ok().json(rows))
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/relay/import/{collection}")
            .app_data(json_config(crate::MAX_IMPORT_BODY))
            .route(web::post().to(import)),
    )
    .service(
        web::resource("/relay/spreadsheet/rows")
            .app_data(web::PayloadConfig::new(MAX_WORKBOOK_BYTES))
            .route(web::post().to(spreadsheet_rows)),
    );
}
