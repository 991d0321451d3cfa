//! Serving the built shared renderer (`ui/dist`) same-origin: hashed assets as files and
//! `index.html` for every other non-API path (client-side routes). When no build exists a small
//! placeholder page explains how to build it, so the API is still usable.

use std::path::PathBuf;

use actix_files::{Files, NamedFile};
use actix_web::dev::{fn_service, ServiceRequest, ServiceResponse};
use actix_web::{web, HttpResponse};

const PLACEHOLDER: &str = "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Relay</title></head>\
<body><h1>Relay</h1><p>The server is running. The web UI has not been built: run <code>npm ci &amp;&amp; npm run build</code> \
in <code>ui/</code> and restart.</p></body></html>";

async fn placeholder() -> HttpResponse {
    HttpResponse::Ok().content_type("text/html; charset=utf-8").body(PLACEHOLDER)
}

pub fn routes(cfg: &mut web::ServiceConfig, ui_dir: Option<PathBuf>) {
    match ui_dir.filter(|d| d.join("index.html").is_file()) {
        Some(dir) => {
            let index = dir.join("index.html");
            cfg.service(Files::new("/", dir).index_file("index.html").prefer_utf8(true).default_handler(fn_service(
                move |req: ServiceRequest| {
                    let index = index.clone();
                    async move {
                        let (req, _) = req.into_parts();
                        // Client-side routes have no file extension; a missing asset (or a
                        // service-worker script, which Relay never ships) is a plain 404.
                        let last = req.path().rsplit('/').next().unwrap_or("");
                        if last.contains('.') {
                            return Ok(ServiceResponse::new(req, HttpResponse::NotFound().finish()));
                        }
                        let file = NamedFile::open_async(&index).await?;
                        Ok(ServiceResponse::new(req.clone(), file.into_response(&req)))
                    }
                },
            )));
        }
        None => {
            cfg.default_service(web::to(placeholder));
        }
    }
}
