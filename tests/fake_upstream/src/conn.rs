//! One accepted connection: read one bounded HTTP/1.1 request, record it, play the matching
//! script, record what was actually written, close. It keeps no connection alive, decodes no
//! chunked request bodies and never reads more than the configured request size.

use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::reply::{Body, Reply};
use crate::{RecordedRequest, Served, Shared};

/// Bytes written per body write (also the size of the buffer a repeated body is cut from).
const PIECE: usize = 16 * 1024;

enum Refusal {
    /// The peer closed or stalled before sending a whole request.
    Gone,
    TooLarge,
    Malformed,
    ChunkedRequest,
}

pub(crate) async fn serve(mut stream: TcpStream, shared: Arc<Shared>) {
    let limits = shared.limits.clone();
    let read = tokio::time::timeout(limits.read_deadline, read_request(&mut stream, limits.max_request_bytes)).await;
    let request = match read {
        Ok(Ok(request)) => request,
        Ok(Err(Refusal::Gone)) | Err(_) => return,
        Ok(Err(refusal)) => {
            let status = match refusal {
                Refusal::TooLarge => 431,
                Refusal::ChunkedRequest => 501,
                _ => 400,
            };
            let _ = stream.write_all(&Reply::status(status).head()).await;
            let _ = stream.shutdown().await;
            // Drain (bounded) what the client is still sending, so closing does not reset the
            // connection before it has read the refusal.
            let mut scratch = [0u8; 4096];
            let _ = tokio::time::timeout(Duration::from_millis(200), async {
                while matches!(stream.read(&mut scratch).await, Ok(n) if n > 0) {}
            })
            .await;
            return;
        }
    };
    let (method, path) = (request.method.clone(), request.path().to_string());
    shared.record(request);
    let reply = shared.next_reply(&method, &path);
    let (body_bytes_sent, completed) = write_reply(&mut stream, &reply, limits.max_stall).await;
    shared.served(Served { method, path, status: reply.status, body_bytes_sent, completed });
}

async fn read_request(stream: &mut TcpStream, max: usize) -> Result<RecordedRequest, Refusal> {
    let mut buf = Vec::with_capacity(4096);
    let mut scratch = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        if buf.len() > max {
            return Err(Refusal::TooLarge);
        }
        let n = stream.read(&mut scratch).await.map_err(|_| Refusal::Gone)?;
        if n == 0 {
            return Err(Refusal::Gone);
        }
        buf.extend_from_slice(&scratch[..n]);
    };
    let head = std::str::from_utf8(&buf[..head_end]).map_err(|_| Refusal::Malformed)?.to_string();
    let mut lines = head.split("\r\n");
    let mut parts = lines.next().unwrap_or_default().split(' ');
    let (Some(method), Some(target), Some(version)) = (parts.next(), parts.next(), parts.next()) else {
        return Err(Refusal::Malformed);
    };
    let (method, target) = (method.to_string(), target.to_string());
    if !version.starts_with("HTTP/1.") || !target.starts_with('/') {
        return Err(Refusal::Malformed);
    }
    let mut headers = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let (name, value) = line.split_once(':').ok_or(Refusal::Malformed)?;
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    if headers.iter().any(|(n, _)| n == "transfer-encoding") {
        return Err(Refusal::ChunkedRequest);
    }
    let length = match headers.iter().find(|(n, _)| n == "content-length") {
        Some((_, v)) => v.parse::<usize>().map_err(|_| Refusal::Malformed)?,
        None => 0,
    };
    if head_end.saturating_add(length) > max {
        return Err(Refusal::TooLarge);
    }
    while buf.len() < head_end + length {
        let n = stream.read(&mut scratch).await.map_err(|_| Refusal::Gone)?;
        if n == 0 {
            return Err(Refusal::Gone);
        }
        buf.extend_from_slice(&scratch[..n]);
    }
    let body = buf[head_end..head_end + length].to_vec();
    Ok(RecordedRequest { method, target, headers, body })
}

/// Plays `reply`; returns the body payload bytes written and whether the whole script was sent.
async fn write_reply(stream: &mut TcpStream, reply: &Reply, max_stall: Duration) -> (u64, bool) {
    if !reply.delay.is_zero() {
        tokio::time::sleep(reply.delay).await;
    }
    if stream.write_all(&reply.head()).await.is_err() {
        return (0, false);
    }
    if reply.stall_after_headers {
        wait_for_hangup(stream, max_stall).await;
        return (0, false);
    }
    let mut sent = 0u64;
    let repeated;
    let mut pieces: Box<dyn Iterator<Item = &[u8]> + Send + '_> = match &reply.body {
        Body::Bytes(bytes) => Box::new(bytes.chunks(PIECE)),
        Body::Repeat { byte, len } => {
            repeated = vec![*byte; PIECE];
            let full = (*len / PIECE as u64) as usize;
            let rest = (*len % PIECE as u64) as usize;
            Box::new(std::iter::repeat_n(&repeated[..], full).chain(std::iter::once(&repeated[..rest])))
        }
    };
    for piece in pieces.by_ref().filter(|p| !p.is_empty()) {
        let piece = match reply.stall_after_body_bytes {
            Some(limit) if sent >= limit => {
                wait_for_hangup(stream, max_stall).await;
                return (sent, false);
            }
            Some(limit) => &piece[..piece.len().min((limit - sent) as usize)],
            None => piece,
        };
        let written = if reply.chunked {
            let mut framed = format!("{:x}\r\n", piece.len()).into_bytes();
            framed.extend_from_slice(piece);
            framed.extend_from_slice(b"\r\n");
            stream.write_all(&framed).await
        } else {
            stream.write_all(piece).await
        };
        if written.is_err() {
            return (sent, false);
        }
        sent += piece.len() as u64;
    }
    if reply.chunked && stream.write_all(b"0\r\n\r\n").await.is_err() {
        return (sent, false);
    }
    let completed = stream.flush().await.is_ok();
    let _ = stream.shutdown().await;
    (sent, completed)
}

/// Returns when the peer closes its side, errors, or `max_stall` passes.
async fn wait_for_hangup(stream: &mut TcpStream, max_stall: Duration) {
    let mut scratch = [0u8; 1024];
    let _ = tokio::time::timeout(max_stall, async {
        loop {
            match stream.read(&mut scratch).await {
                Ok(0) | Err(_) => break,
                Ok(_) => continue,
            }
        }
    })
    .await;
}
