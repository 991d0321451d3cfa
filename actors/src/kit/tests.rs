//! Kit tests: a trivial actor built only from the kit (defined here, started with one call)
//! reports to health, survives a panic in a guarded handler through its supervisor (restart
//! counted, state reset, last error redacted) and keeps serving afterwards, and reports a
//! degraded condition with a redacted reason, then its recovery, through its context.

use actix::prelude::*;

use super::*;
use crate::health::ActorState;
use crate::testkit::TestCtx;

struct Counter {
    subsystem: SubsystemCtx,
    count: usize,
    resets: usize,
}

impl Subsystem for Counter {
    const NAME: &'static str = "kit-counter";
    fn subsystem(&self) -> &SubsystemCtx {
        &self.subsystem
    }
    fn queue_depth(&self) -> usize {
        self.count
    }
    fn reset(&mut self) {
        self.count = 0;
        self.resets += 1;
    }
}

crate::subsystem_actor!(Counter);

#[derive(Message)]
#[rtype(result = "Result<usize, Panicked>")]
struct Bump {
    explode: bool,
}

#[derive(Message)]
#[rtype(result = "(usize, usize)")]
struct Read;

impl Handler<Bump> for Counter {
    type Result = Result<usize, Panicked>;
    fn handle(&mut self, msg: Bump, ctx: &mut Context<Self>) -> Self::Result {
        guarded(self, ctx, |a| {
            assert!(!msg.explode, "injected fault for ops@example.com password=hunter2");
            a.count += 1;
            a.count
        })
    }
}

impl Handler<Read> for Counter {
    type Result = MessageResult<Read>;
    fn handle(&mut self, _: Read, _: &mut Context<Self>) -> Self::Result {
        MessageResult((self.count, self.resets))
    }
}

#[actix_rt::test]
async fn a_kit_actor_reports_restarts_after_a_panic_and_keeps_serving() {
    let t = TestCtx::new();
    let ctx = t.ctx();
    let counter = start_supervised(move |_| Counter { subsystem: ctx, count: 0, resets: 0 });
    assert_eq!(counter.send(Bump { explode: false }).await.unwrap(), Ok(1));
    assert_eq!(counter.send(Bump { explode: false }).await.unwrap(), Ok(2));
    let running = t.health_of(Counter::NAME).await.expect("reported on start");
    assert_eq!((running.state, running.restarts), (ActorState::Running, 0));

    assert_eq!(counter.send(Bump { explode: true }).await.unwrap(), Err(Panicked));
    // The supervisor restarts the same actor value: `reset` ran, the count is back to zero.
    assert_eq!(counter.send(Read).await.unwrap(), (0, 1));
    assert_eq!(counter.send(Bump { explode: false }).await.unwrap(), Ok(1));
    let health = t.health_of(Counter::NAME).await.unwrap();
    assert_eq!(health.restarts, 1);
    let error = health.last_error.expect("the panic is recorded");
    assert!(error.contains("injected fault"), "{error}");
    assert!(!error.contains("hunter2") && !error.contains("ops@example.com"), "redacted: {error}");
}

#[test]
fn panic_messages_are_read_from_str_and_string_payloads() {
    let from_str = std::panic::catch_unwind(|| panic!("plain")).unwrap_err();
    assert_eq!(panic_message(from_str.as_ref()), "plain");
    let from_string = std::panic::catch_unwind(|| panic!("{}", String::from("formatted"))).unwrap_err();
    assert_eq!(panic_message(from_string.as_ref()), "formatted");
}

#[actix_rt::test]
async fn a_kit_actor_reports_degraded_with_a_reason_and_recovered_through_its_ctx() {
    use domain::work_condition::{ConditionCode, WorkCondition};
    let t = TestCtx::new();
    let ctx = t.ctx();
    let counter = start_supervised({
        let ctx = ctx.clone();
        move |_| Counter { subsystem: ctx, count: 0, resets: 0 }
    });
    counter.send(Read).await.unwrap(); // started, so its first report is in the health mailbox
    assert_eq!(t.health_of(Counter::NAME).await.map(|h| h.state), Some(ActorState::Running));
    let failing = WorkCondition::new(ConditionCode::ReadsFailing, "reads failing: token=hunter2 timed out");
    ctx.report_condition(Counter::NAME, Some(failing));
    let degraded = t.health_of(Counter::NAME).await.unwrap();
    assert_eq!(degraded.state, ActorState::Degraded);
    let reason = degraded.condition.unwrap().condition.reason;
    assert!(reason.contains("timed out") && !reason.contains("hunter2"), "redacted: {reason}");
    ctx.report_recovered(Counter::NAME);
    let recovered = t.health_of(Counter::NAME).await.unwrap();
    assert_eq!((recovered.state, recovered.condition), (ActorState::Running, None));
}
