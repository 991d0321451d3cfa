//! PocketBase's realtime transport over HTTP. `GET /api/realtime` opens an SSE stream from the
//! TCP peer's address (never a forwarded header; the actor caps streams per source) whose
//! frames come from the bounded queue the realtime actor hands out (the first frame is
//! `PB_CONNECT`; each frame goes out as its per-client head and its shared body, in 16 KiB
//! zero-copy slices so a stalled peer cannot make the writer copy a whole large frame); dropping the
//! stream unregisters the client, and the actor ending the queue ends the response. An idle
//! stream writes a one-line SSE comment every second so a vanished peer is noticed promptly. `POST /api/realtime` sets the
//! client's subscriptions and requires a valid token, so unauthenticated streams never see data.
//! On the Relay Web gateway a stream also ends when the web session that opened it ends (logout,
//! replacement, expiry), so a logged-out browser stops receiving events at once.

use actix::Addr;
use actix_web::{web, HttpMessage, HttpRequest, HttpResponse};
use bytes::Bytes;
use futures_util::{stream, StreamExt};
use serde::Deserialize;
use tokio::sync::watch;

use actors::realtime::{Connect, Connected, Disconnect, RealtimeActor, SetSubscriptions};
use actors::web_sessions::WebGrant;
use actors::Handles;

use crate::auth::Authenticated;
use crate::error::ApiResult;
use crate::route_table::{Endpoint, RouteTable, Verb};

/// An idle stream writes an SSE comment this often. actix-web only notices a vanished peer when
/// a write fails (actix/actix-web#1313), so without it a closed stream would hold its slot until
/// the next realtime ping; with it the slot is freed within a few seconds.
const LIVENESS_INTERVAL: std::time::Duration = std::time::Duration::from_secs(1);

/// A frame's shared data goes to the writer in slices of at most this many bytes. The writer
/// copies each chunk into its own buffer and asks for the next only once that buffer is under
/// 32 KiB, so a peer that stops reading pins at most about this much more per stream; the rest
/// stays in the one copy every subscriber shares (a 700 KB record to 896 stalled streams: about
/// 50 MB instead of 630 MB).
const WRITE_SLICE_BYTES: usize = 16 * 1024;

/// `body` as zero-copy slices of at most [`WRITE_SLICE_BYTES`].
fn write_slices(body: Bytes) -> impl Iterator<Item = Bytes> {
    let len = body.len();
    (0..len).step_by(WRITE_SLICE_BYTES).map(move |start| body.slice(start..(start + WRITE_SLICE_BYTES).min(len)))
}

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

/// Resolves when the gateway web session behind a stream ends; never on the data API.
async fn session_ended(ended: &mut Option<watch::Receiver<()>>) {
    match ended {
        // The sender is never used to send: `changed` resolves only when the session drops it.
        Some(ended) => {
            let _ = ended.changed().await;
        }
        None => std::future::pending().await,
    }
}

async fn connect(req: HttpRequest, handles: web::Data<Handles>) -> ApiResult<HttpResponse> {
    let ended = req.extensions().get::<WebGrant>().map(|grant| grant.ended.clone());
    let Connected { client_id, frames } = handles.realtime.send(Connect { source: crate::source_ip(&req) }).await??;
    let guard = DisconnectOnDrop { realtime: handles.realtime.clone(), client_id };
    let stream = stream::unfold((frames, ended, guard), |(mut frames, mut ended, guard)| async move {
        let next = tokio::select! {
            next = tokio::time::timeout(LIVENESS_INTERVAL, frames.recv()) => next,
            _ = session_ended(&mut ended) => return None,
        };
        let chunks = match next {
            Ok(Some(frame)) => std::iter::once(frame.head).chain(write_slices(frame.body)).collect(),
            Ok(None) => return None,
            Err(_idle) => vec![Bytes::from_static(b":\n\n")],
        };
        Some((stream::iter(chunks.into_iter().map(Ok::<Bytes, actix_web::Error>)), (frames, ended, guard)))
    })
    .flatten();
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

pub(crate) const ROUTES: RouteTable = RouteTable::new(&[Endpoint::new(
    "/realtime",
    &[(Verb::Get, |r| r.to(connect)), (Verb::Post, |r| r.to(set_subscriptions))],
)]);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_goes_out_in_zero_copy_slices_that_add_up_to_it() {
        let body = Bytes::from(vec![7u8; 3 * WRITE_SLICE_BYTES + 5]);
        let slices: Vec<Bytes> = write_slices(body.clone()).collect();
        assert_eq!(
            slices.iter().map(Bytes::len).collect::<Vec<_>>(),
            [WRITE_SLICE_BYTES, WRITE_SLICE_BYTES, WRITE_SLICE_BYTES, 5]
        );
        assert_eq!(slices.concat(), body.to_vec());
        assert_eq!(slices[1].as_ptr(), body[WRITE_SLICE_BYTES..].as_ptr(), "slices share the body's memory");
        assert_eq!(write_slices(Bytes::new()).count(), 0);
    }
}
