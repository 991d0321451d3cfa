//! PocketBase's realtime transport over HTTP. `GET /api/realtime` opens an SSE stream whose
//! frames come from a bounded channel registered with the realtime actor (the first frame is
//! `PB_CONNECT`); dropping the stream unregisters the client. `POST /api/realtime` sets the
//! client's subscriptions and requires a valid token, so unauthenticated streams never see data.

use actix::Addr;
use actix_web::{web, HttpResponse};
use bytes::Bytes;
use futures_util::StreamExt;
use serde::Deserialize;
use tokio_stream::wrappers::ReceiverStream;

use actors::realtime::{Connect, Disconnect, RealtimeActor, SetSubscriptions, SUBSCRIBER_BUFFER};
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::ApiResult;

/// Unregisters the client when the response stream is dropped (the peer went away).
struct DisconnectOnDrop {
    realtime: Addr<RealtimeActor>,
    client_id: String,
}

impl Drop for DisconnectOnDrop {
    fn drop(&mut self) {
        self.realtime.do_send(Disconnect { client_id: std::mem::take(&mut self.client_id) });
    }
}

async fn connect(handles: web::Data<Handles>) -> ApiResult<HttpResponse> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Bytes>(SUBSCRIBER_BUFFER);
    let client_id = handles.realtime.send(Connect { frames: tx }).await??;
    let guard = DisconnectOnDrop { realtime: handles.realtime.clone(), client_id };
    let stream = ReceiverStream::new(rx).map(move |frame| {
        let _keep_until_stream_drops = &guard;
        Ok::<Bytes, actix_web::Error>(frame)
    });
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header(("Cache-Control", "no-store"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream))
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SubscriptionRequest {
    client_id: String,
    #[serde(default)]
    subscriptions: Vec<String>,
}

async fn set_subscriptions(
    _: Authenticated,
    handles: web::Data<Handles>,
    body: web::Json<SubscriptionRequest>,
) -> ApiResult<HttpResponse> {
    let body = body.into_inner();
    let msg = SetSubscriptions { client_id: body.client_id, subscriptions: body.subscriptions };
    handles.realtime.send(msg).await??;
    Ok(HttpResponse::NoContent().finish())
}

pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/realtime").route(web::get().to(connect)).route(web::post().to(set_subscriptions)));
}
