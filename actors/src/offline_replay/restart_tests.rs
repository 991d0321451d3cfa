//! [`CloseForRestart`]: the store is checkpointed and closed, every later use is refused with
//! [`RESTARTING`] and nothing is written; [`ReopenAfterRestartRefused`] opens it again with the
//! queued change intact.

use super::*;
use crate::testkit::TestCtx;
use serde_json::json;

fn contact(name: &str) -> Mutate {
    let mutation =
        json!({"collection": "contacts", "action": "create", "data": {"name": name, "email": "olga@example.com"}});
    Mutate(serde_json::from_value(mutation).unwrap())
}

#[actix_rt::test]
async fn closing_for_a_restart_checkpoints_closes_and_refuses_until_reopened() {
    let tmp = tempfile::tempdir().unwrap();
    let test = TestCtx::new();
    let config = OfflineReplayConfig { data_dir: tmp.path().to_path_buf(), server_origin: "http://127.0.0.1:9".into() };
    let actor = OfflineReplayActor::new(test.ctx(), config).start();
    let snapshot = CacheSnapshot { collection: "contacts".into(), records: vec![] };
    actor.send(snapshot.clone()).await.unwrap().unwrap();
    actor.send(contact("Offline Olga")).await.unwrap().unwrap();
    assert_eq!(actor.send(GetOfflineStatus).await.unwrap().pending_count, 1);

    actor.send(CloseForRestart).await.unwrap().unwrap();
    let offline = tmp.path().join(infra::offline_store::OFFLINE_DIR);
    for file in ["cache.db-journal", "queue.db-journal"] {
        assert!(!offline.join(file).exists(), "{file} after the checkpoint");
    }
    let refused = actor.send(contact("Too late")).await.unwrap().unwrap_err();
    assert_eq!(refused, OfflineError::Refused(RESTARTING.into()));
    assert_eq!(actor.send(snapshot.clone()).await.unwrap(), Err(OfflineError::Refused(RESTARTING.into())));
    let read = ReadCache { collection: "contacts".into() };
    assert_eq!(actor.send(read.clone()).await.unwrap(), Err(OfflineError::Refused(RESTARTING.into())));

    actor.send(ReopenAfterRestartRefused).await.unwrap();
    assert_eq!(actor.send(GetOfflineStatus).await.unwrap().pending_count, 1, "the queued change is intact");
    let cached = actor.send(read).await.unwrap().unwrap().expect("cached");
    assert_eq!(cached.records.len(), 1, "the refused write left nothing behind");
    actor.send(contact("After all")).await.unwrap().unwrap();
}
