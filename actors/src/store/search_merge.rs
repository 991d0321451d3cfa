//! Keeping the search indexes compact. Every write transaction adds a small segment to the FTS5
//! index it touches, and searches slow down with each (`infra::store::search_merge`). The
//! `StoreActor` notes every write it sends to the writer; on each tick of its timer
//! (`MergePolicy::tick`) it counts the ticks since the last write and since the last round, and
//! when writes have been quiet it sends the writer one [`MergeSearchIndexes`] step, then the
//! next as soon as that one returns, until no index has anything left to merge. A write
//! arriving meanwhile ends the round (it waits at most one step, a few milliseconds); the next
//! quiet moment resumes it. Whether a round starts is `domain::search_merge::MergePolicy`'s rule.

use actix::prelude::*;

use domain::record::RecordError;
use domain::search::SEARCH_INDEXES;
use domain::search_merge::MergePolicy;

use super::executor::StoreExecutor;
use super::StoreActor;

/// One merge step on the writer thread: the first index with segments to merge (due by the
/// policy, or any while a round is under way) gets one bounded step.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "Result<MergeStep, RecordError>")]
pub struct MergeSearchIndexes {
    pub policy: MergePolicy,
    pub quiet_ticks: u32,
    pub ticks_since_round: Option<u32>,
    pub in_round: bool,
}

/// What a step found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MergeStep {
    /// One step of merging was done; more may remain.
    Merged,
    /// An index has segments to merge, but not yet (the policy's interval).
    NotYet,
    /// Nothing to merge.
    Clean,
}

/// The store actor's view of merging.
#[derive(Debug, Default)]
pub(super) struct MergeState {
    /// A write has happened since the last finished round.
    dirty: bool,
    quiet_ticks: u32,
    ticks_since_round: Option<u32>,
    step_at_writer: bool,
    in_round: bool,
    steps_this_round: u32,
    /// Writes sent to the writer so far (a step started before a write sees it changed).
    writes: u64,
    /// The writer's answers so far, by outcome: what tests wait on instead of sleeping.
    #[cfg(test)]
    pub(super) answers: MergeAnswers,
}

/// How many merge steps the writer answered, by outcome (tests only).
#[cfg(test)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MergeAnswers {
    pub merged: u64,
    pub not_yet: u64,
    pub clean: u64,
}

/// The merge answers the store actor has seen (tests only).
#[cfg(test)]
#[derive(Debug, Message)]
#[rtype(result = "MergeAnswers")]
pub(crate) struct GetMergeAnswers;

#[cfg(test)]
impl Handler<GetMergeAnswers> for StoreActor {
    type Result = MessageResult<GetMergeAnswers>;
    fn handle(&mut self, _: GetMergeAnswers, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.merge.answers)
    }
}

impl MergeState {
    pub(super) fn note_write(&mut self) {
        self.dirty = true;
        self.quiet_ticks = 0;
        self.writes += 1;
    }
}

impl StoreActor {
    /// The timer's tick: count, then start a step if writes are quiet and the writer is free.
    pub(super) fn merge_tick(&mut self, ctx: &mut Context<Self>) {
        let m = &mut self.merge;
        m.quiet_ticks = m.quiet_ticks.saturating_add(1);
        m.ticks_since_round = m.ticks_since_round.map(|t| t.saturating_add(1));
        if m.dirty && !m.step_at_writer && m.quiet_ticks >= self.merge_policy.quiet_ticks {
            self.send_merge_step(ctx);
        }
    }

    fn send_merge_step(&mut self, ctx: &mut Context<Self>) {
        if !self.writes.is_idle() || self.writer_in_flight > 0 {
            return;
        }
        let m = &mut self.merge;
        let step = MergeSearchIndexes {
            policy: self.merge_policy,
            quiet_ticks: m.quiet_ticks,
            ticks_since_round: m.ticks_since_round,
            in_round: m.in_round,
        };
        m.step_at_writer = true;
        let writes_before = m.writes;
        ctx.spawn(self.writer.send(step).into_actor(self).map(move |result, act, ctx| {
            let m = &mut act.merge;
            m.step_at_writer = false;
            let written_meanwhile = m.writes != writes_before;
            #[cfg(test)]
            match &result {
                Ok(Ok(MergeStep::Merged)) => m.answers.merged += 1,
                Ok(Ok(MergeStep::NotYet)) => m.answers.not_yet += 1,
                Ok(Ok(MergeStep::Clean)) => m.answers.clean += 1,
                Ok(Err(_)) | Err(_) => {}
            }
            match result {
                Ok(Ok(MergeStep::Merged)) => {
                    m.in_round = true;
                    m.steps_this_round += 1;
                    if !written_meanwhile && m.steps_this_round < act.merge_policy.max_steps_per_round {
                        act.send_merge_step(ctx);
                    } else if m.steps_this_round >= act.merge_policy.max_steps_per_round {
                        m.steps_this_round = 0;
                    }
                }
                Ok(Ok(MergeStep::NotYet)) => {}
                Ok(Ok(MergeStep::Clean)) => {
                    if m.in_round {
                        tracing::debug!(steps = m.steps_this_round, "search indexes merged");
                        m.ticks_since_round = Some(0);
                    }
                    m.in_round = false;
                    m.steps_this_round = 0;
                    m.dirty = written_meanwhile;
                }
                // Logged and reported by the executor; the next round starts after the interval.
                Ok(Err(_)) | Err(_) => {
                    m.in_round = false;
                    m.steps_this_round = 0;
                    m.ticks_since_round = Some(0);
                }
            }
        }));
    }
}

impl Handler<MergeSearchIndexes> for StoreExecutor {
    type Result = Result<MergeStep, RecordError>;

    fn handle(&mut self, step: MergeSearchIndexes, _: &mut SyncContext<Self>) -> Self::Result {
        self.run(|s| {
            let mut found = MergeStep::Clean;
            for index in SEARCH_INDEXES {
                let segments = s.store.search_segments(index)?;
                if segments < 2 {
                    continue;
                }
                if step.in_round || step.policy.round_due(segments, step.quiet_ticks, step.ticks_since_round) {
                    if s.store.merge_search_step(index)? {
                        return Ok(MergeStep::Merged);
                    }
                } else {
                    found = MergeStep::NotYet;
                }
            }
            Ok(found)
        })
    }
}
