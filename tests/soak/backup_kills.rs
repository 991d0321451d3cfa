//! The backup kill -9 soak of issue #12 (`cargo bench -p relay --bench backup_kills`): 100 rounds,
//! each starting the real (release) server on one data directory while writers add contacts,
//! running a random backup operation (create, verify of an existing archive, or restore of one
//! on the running server), and killing the server with SIGKILL at a random moment of it. After
//! each kill the server is started again and checked: every write acknowledged before the kill
//! is served (a restore that committed instead serves exactly its archive's contacts), no
//! working directory, partial archive or restore journal is left, and the server serves. The
//! report (rounds per operation, kills that landed before the operation finished, restores
//! committed or undone, lost writes, half-swapped directories) is printed and written to
//! `target/backup-kills.md`. Environment: `BACKUP_KILLS_ROUNDS` (default 100).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;
use serde_json::json;
use support::backup::{archives, backup_env, backup_leftovers, contact_ids_in};
use support::{client, Relay};

#[derive(Default)]
struct Tally {
    rounds: usize,
    by_op: [usize; 3],
    cut_short: usize,
    restores_committed: usize,
    restores_undone: usize,
    lost_writes: usize,
    half_swapped: usize,
    acked_writes: usize,
}

const OPS: [&str; 3] = ["create", "verify", "restore"];

/// Contact ids served now (all pages).
async fn served_ids(relay: &Relay) -> BTreeSet<String> {
    let token = relay.token().await;
    let mut ids = BTreeSet::new();
    for page in 1.. {
        let body = relay.get_json(&token, &format!("/api/collections/contacts/records?perPage=500&page={page}")).await;
        let items = body["items"].as_array().unwrap();
        ids.extend(items.iter().map(|c| c["id"].as_str().unwrap().to_string()));
        if items.len() < 500 {
            break;
        }
    }
    ids
}

/// Writers adding contacts until `stop`; returns the ids the server acknowledged.
fn start_writers(relay: &Relay, token: String, stop: Arc<AtomicBool>) -> Vec<tokio::task::JoinHandle<Vec<String>>> {
    (0..4)
        .map(|w| {
            let (url, token, stop) = (relay.url("/api/collections/contacts/records"), token.clone(), stop.clone());
            tokio::spawn(async move {
                let http = client();
                let mut acked = Vec::new();
                let mut i = 0;
                while !stop.load(Ordering::Relaxed) {
                    i += 1;
                    let body = json!({"name": format!("Writer {w} #{i}"), "email": format!("w{w}.{i}@example.com")});
                    let Ok(res) = http.post(&url).header("Authorization", &token).json(&body).send().await else {
                        break;
                    };
                    if res.status() != 200 {
                        break;
                    }
                    let Ok(record) = res.json::<serde_json::Value>().await else { break };
                    acked.push(record["id"].as_str().unwrap().to_string());
                    tokio::time::sleep(Duration::from_millis(5)).await;
                }
                acked
            })
        })
        .collect()
}

/// A restore journal, stage or original directory left beside the store.
fn half_swapped(data: &Path) -> bool {
    !backup_leftovers(data).is_empty() || !data.join("store").join("relay.db").is_file()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    let rounds: usize = std::env::var("BACKUP_KILLS_ROUNDS").ok().and_then(|v| v.parse().ok()).unwrap_or(100);
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    let mut rng = rand::rng();
    let mut tally = Tally::default();
    let started = Instant::now();
    // Every id acknowledged so far that must still be served (reset by a committed restore).
    let mut must_serve: BTreeSet<String> = BTreeSet::new();
    let mut last_round = String::new();
    for round in 0..rounds {
        let mut relay = Relay::start_in(&data, &[]);
        let served = served_ids(&relay).await;
        let lost = must_serve.difference(&served).count();
        if lost > 0 {
            eprintln!("\nround {round}: {lost} acknowledged writes missing after the previous round: {last_round}");
        }
        if round > 0 && half_swapped(&data) {
            tally.half_swapped += 1;
        }
        tally.lost_writes += lost;
        must_serve = served;

        let existing = archives(&data);
        let op = if existing.is_empty() { 0 } else { rng.random_range(0..OPS.len()) };
        let archive = existing.get(rng.random_range(0..existing.len().max(1))).cloned().unwrap_or_default();
        let archive_ids = (op == 2).then(|| contact_ids_in(&data.join("backups").join(&archive)));
        let before_op = must_serve.clone();

        let stop = Arc::new(AtomicBool::new(false));
        let token = relay.token().await;
        let mut writers = start_writers(&relay, token, stop.clone());
        tokio::time::sleep(Duration::from_millis(rng.random_range(20..200))).await;
        // A restore replaces what was written before it: its writers stop first, so the round's
        // writes tell a committed restore (none served) from an undone one (all served).
        let mut acked = Vec::new();
        if op == 2 {
            stop.store(true, Ordering::Relaxed);
            for w in writers.drain(..) {
                acked.extend(w.await.unwrap());
            }
        }
        let cli_data = data.clone();
        let args: Vec<String> = match op {
            0 => vec!["create".into()],
            1 => vec!["verify".into(), archive.clone()],
            _ => vec!["restore".into(), archive.clone(), "--yes".into()],
        };
        let cli = std::thread::spawn(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            backup_env(&cli_data, &args, &[])
        });
        tokio::time::sleep(Duration::from_millis(rng.random_range(0..1_500))).await;
        relay.kill_hard();
        stop.store(true, Ordering::Relaxed);
        for w in writers {
            acked.extend(w.await.unwrap());
        }
        let finished = cli.join().unwrap().status.success();
        tally.rounds += 1;
        tally.by_op[op] += 1;
        tally.cut_short += usize::from(!finished);
        tally.acked_writes += acked.len();
        let acked_this_round: BTreeSet<String> = acked.iter().cloned().collect();
        last_round = format!("{} of {archive:?}, finished {finished}, {} acked", OPS[op], acked.len());
        must_serve.extend(acked);

        // A restore that committed serves its archive (plus what was written after its restart)
        // and none of the data it replaced; one that was undone loses nothing acknowledged.
        if let Some(archive_ids) = archive_ids {
            let mut check = Relay::start_in(&data, &[]);
            let served = served_ids(&check).await;
            check.stop();
            let written: Vec<&String> = acked_this_round.iter().collect();
            let replaced: Vec<&String> =
                if written.is_empty() { before_op.difference(&archive_ids).collect() } else { written };
            let committed = !replaced.is_empty() && replaced.iter().all(|id| !served.contains(*id));
            last_round.push_str(&format!(", restore committed {committed}, replaced {}", replaced.len()));
            if committed {
                tally.restores_committed += 1;
                tally.lost_writes += archive_ids.difference(&served).count();
                must_serve = served;
            } else {
                tally.restores_undone += 1;
            }
        }
        print!("\rround {}/{rounds}", round + 1);
    }
    let mut relay = Relay::start_in(&data, &[]);
    let served = served_ids(&relay).await;
    tally.lost_writes += must_serve.difference(&served).count();
    tally.half_swapped += usize::from(half_swapped(&data));
    relay.stop();
    let report = format!(
        "| measure | value |\n| --- | --- |\n| rounds (server killed with SIGKILL once each) | {} |\n\
         | create / verify / restore rounds | {} / {} / {} |\n| kills that landed before the operation finished | {} |\n\
         | restores committed / undone by the next start | {} / {} |\n| writes acknowledged during the rounds | {} |\n\
         | acknowledged writes lost | {} |\n| half-swapped or leftover directories after a start | {} |\n| wall time | {:.0} s |\n",
        tally.rounds,
        tally.by_op[0],
        tally.by_op[1],
        tally.by_op[2],
        tally.cut_short,
        tally.restores_committed,
        tally.restores_undone,
        tally.acked_writes,
        tally.lost_writes,
        tally.half_swapped,
        started.elapsed().as_secs_f64(),
    );
    println!("\n{report}");
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/backup-kills.md");
    let _ = std::fs::write(out, &report);
    assert_eq!(tally.lost_writes, 0, "acknowledged writes were lost");
    assert_eq!(tally.half_swapped, 0, "a start left a half-swapped directory");
}
