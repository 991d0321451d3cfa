//! `POST /api/relay/import/{collection}`: the Data Manager's bulk import. The body is
//! `{records, apply}` (at most 32 MiB), read by `infra::import_body` without building it: more
//! than 10,000 records or one record over 1 MiB is 413 where it is reached, and the records go to
//! the store actor as JSON text that it plans, validates and (when asked and every row is valid)
//! applies in one transaction, parsing one record at a time. A preview answers 200; an apply that
//! was refused because rows failed answers 400 with the same report, so clients cannot mistake
//! it for success.
//! `POST /api/relay/spreadsheet/rows?sheet=<name>`: the raw bytes of an `.xlsx` workbook (at
//! most 25 MB) read by the spreadsheet actor into `{sheet, columns, rows}` (every cell as text),
//! so Excel files reach the same parsing as CSV without a spreadsheet library in the renderer.
//! Both need a signed-in client and are mounted on the data API and the Relay Web gateway.

use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use serde::Deserialize;

use actors::spreadsheet::{ReadSheet, ReadSheetError};
use actors::store::ImportRecords;
use actors::Handles;
use domain::import::ImportError;
use domain::record::RecordError;
use domain::spreadsheet::MAX_WORKBOOK_BYTES;
use infra::import_body::read_import_body;

use crate::auth::Authenticated;
use crate::error::{Problem, RawBody};
use crate::route_table::{Endpoint, RouteTable, Verb};

/// The import body (a body past `MAX_IMPORT_BODY` is refused with 413 before it is read to the
/// end); it must be declared JSON, as the JSON extractor required before.
async fn import(
    _: Authenticated,
    req: HttpRequest,
    handles: web::Data<Handles>,
    collection: web::Path<String>,
    RawBody(body): RawBody,
) -> Result<HttpResponse, Problem<ImportError>> {
    if !declared_json(&req) {
        return Err(Problem(RecordError::BadRequest("The request body must be application/json.".into()).into()));
    }
    let body = read_import_body(body)?;
    let requested = body.apply;
    let msg = ImportRecords { collection: collection.into_inner(), records: body.records, apply: requested };
    let planned = handles.store.send(msg).await.map_err(|_| RecordError::Unavailable);
    let report = planned.and_then(|report| report).map_err(ImportError::from)?;
    let mut res = if requested && !report.applied { HttpResponse::BadRequest() } else { HttpResponse::Ok() };
    Ok(res.json(report))
}

/// `application/json` or a `+json` type, as actix's JSON extractor accepts.
fn declared_json(req: &HttpRequest) -> bool {
    match req.mime_type() {
        Ok(Some(mime)) => mime.subtype().as_str() == "json" || mime.suffix().is_some_and(|s| s.as_str() == "json"),
        _ => false,
    }
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

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[
    Endpoint::new("/relay/import/{collection}", &[(Verb::Post, |r| r.to(import))])
        .with(|r| r.app_data(web::PayloadConfig::new(crate::MAX_IMPORT_BODY))),
    Endpoint::new("/relay/spreadsheet/rows", &[(Verb::Post, |r| r.to(spreadsheet_rows))])
        .with(|r| r.app_data(web::PayloadConfig::new(MAX_WORKBOOK_BYTES))),
]);
