//! The release notes of Settings → About, kept beside the update state and never part of it:
//! loaded from the cache at start, refreshed in the background after each successful check
//! (after an on-demand one at most once per `notes_interval_ms`, `plan::notes_refresh_due`),
//! fetched on the worker thread through `infra::updater::ReleaseNotesFetcher` and written to the
//! cache through `BoundedWork`. A failed fetch or write keeps what was there and is logged by
//! code; nothing here touches the update state machine. [`ReleaseNotesSnapshot`] answers from
//! memory.

use actix::prelude::*;

use domain::updater::notes::ReleaseNote;
use infra::http::CancellationToken;
use infra::updater::{read_notes_cache, write_notes_cache};

use super::plan::notes_refresh_due;
use super::{UpdaterActor, NAME};

/// Desktop bridge (Settings → About): the release notes held in memory.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "ReleaseNotesState")]
pub struct ReleaseNotesSnapshot;

/// The release notes Relay has, newest version first, and when they were fetched (`None`
/// before any fetch or cache).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReleaseNotesState {
    pub releases: Vec<ReleaseNote>,
    pub fetched_at_ms: Option<i64>,
}

/// The notes' side of the actor.
#[derive(Debug, Default)]
pub(super) struct NotesJob {
    pub(super) state: ReleaseNotesState,
    /// A fetch or the first cache read runs.
    pub(super) running: bool,
    /// When the last refresh started (on the actor's clock).
    pub(super) last_started_ms: Option<i64>,
}

impl UpdaterActor {
    /// At start: the cached notes, unless a fetch already produced newer ones.
    pub(super) fn load_notes_cache(&mut self, ctx: &mut Context<Self>) {
        let dir = self.io.updates_dir.clone();
        self.run_file_job(
            ctx,
            move || read_notes_cache(&dir),
            |cached, act, _| {
                if let (Some(Some((releases, fetched_at_ms))), None) = (cached, act.notes.state.fetched_at_ms) {
                    act.notes.state = ReleaseNotesState { releases, fetched_at_ms: Some(fetched_at_ms) };
                }
            },
        );
    }

    /// After a successful check: refreshes the notes in the background when due.
    pub(super) fn refresh_notes(&mut self, on_demand: bool, ctx: &mut Context<Self>) {
        let now = self.subsystem.now_ms();
        let due = notes_refresh_due(now, self.notes.last_started_ms, on_demand, self.config.notes_interval_ms);
        if self.notes.running || !due {
            return;
        }
        self.notes.running = true;
        self.notes.last_started_ms = Some(now);
        self.refresh_settled();
        let io = self.io.clone();
        let rx = self.worker.run(async move { io.notes.fetch(&CancellationToken::new()).await });
        ctx.spawn(rx.into_actor(self).map(|result, act, ctx| {
            act.notes.running = false;
            match result {
                Ok(Ok(releases)) => {
                    let fetched_at_ms = act.subsystem.now_ms();
                    let (dir, cached) = (act.io.updates_dir.clone(), releases.clone());
                    act.notes.state = ReleaseNotesState { releases, fetched_at_ms: Some(fetched_at_ms) };
                    act.run_file_job(
                        ctx,
                        move || write_notes_cache(&dir, &cached, fetched_at_ms).map_err(|error| error.code()),
                        |written, _, _| {
                            if let Some(Err(code)) = written {
                                tracing::warn!(target: "relay::updater", code, "cannot write the release-notes cache");
                            }
                        },
                    );
                }
                // The fetcher logged its code; the previous notes stay.
                Ok(Err(_)) => {}
                Err(_) => tracing::warn!(target: "relay::updater", code = NAME, "the release-notes fetch did not run"),
            }
            act.refresh_settled();
        }));
    }
}

impl Handler<ReleaseNotesSnapshot> for UpdaterActor {
    type Result = MessageResult<ReleaseNotesSnapshot>;
    fn handle(&mut self, _: ReleaseNotesSnapshot, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.notes.state.clone())
    }
}
