//! A subscriber's frame queue and the bytes it holds. Bytes are counted from the moment a frame
//! is queued until the connection's writer asks for the *next* frame: the HTTP writer takes a
//! frame (in 16 KiB slices, `web::realtime`) and asks again only once its own buffer has drained
//! below 32 KiB (actix-http's `MAX_BUFFER_SIZE`), so the frame a stalled peer is not reading
//! stays counted against the subscriber's byte bound (`RealtimeLimits::buffer_bytes`) and such a
//! subscriber is dropped as slow like one whose queue fills up. A receiver that is dropped gives
//! back everything it still held.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc::{self, error::TryRecvError};

use super::Frame;

/// Bytes a subscriber holds: queued, or handed to its writer and not yet asked past.
#[derive(Debug, Clone, Default)]
pub(super) struct PendingBytes(Arc<AtomicUsize>);

impl PendingBytes {
    /// Counts `len` more bytes; returns the count before them.
    pub(super) fn add(&self, len: usize) -> usize {
        self.0.fetch_add(len, Ordering::AcqRel)
    }

    pub(super) fn release(&self, len: usize) {
        if len > 0 {
            self.0.fetch_sub(len, Ordering::AcqRel);
        }
    }

    pub(super) fn get(&self) -> usize {
        self.0.load(Ordering::Acquire)
    }
}

/// The receiving end of a client's frame queue; the web layer turns it into the SSE body.
/// Dropping it ends the stream and, at the next sweep, frees the client's slot.
pub struct FrameReceiver {
    rx: mpsc::Receiver<Frame>,
    pub(super) pending: PendingBytes,
    /// The last frame handed out, still counted until the next one is asked for.
    in_flight: usize,
}

impl FrameReceiver {
    pub(super) fn new(rx: mpsc::Receiver<Frame>, pending: PendingBytes) -> FrameReceiver {
        FrameReceiver { rx, pending, in_flight: 0 }
    }

    /// The next frame. Asking for it means the previous one was written out, so its bytes are
    /// given back now; this frame's stay counted until the next call.
    pub async fn recv(&mut self) -> Option<Frame> {
        self.pending.release(std::mem::take(&mut self.in_flight));
        let frame = self.rx.recv().await?;
        self.in_flight = frame.len();
        Some(frame)
    }

    /// [`recv`](Self::recv) without waiting.
    pub fn try_recv(&mut self) -> Result<Frame, TryRecvError> {
        self.pending.release(std::mem::take(&mut self.in_flight));
        let frame = self.rx.try_recv()?;
        self.in_flight = frame.len();
        Ok(frame)
    }

    /// Bytes queued or being written (the last frame handed out).
    pub fn queued_bytes(&self) -> usize {
        self.pending.get()
    }
}

impl Drop for FrameReceiver {
    fn drop(&mut self) {
        self.rx.close();
        let mut held = std::mem::take(&mut self.in_flight);
        while let Ok(frame) = self.rx.try_recv() {
            held += frame.len();
        }
        self.pending.release(held);
    }
}
