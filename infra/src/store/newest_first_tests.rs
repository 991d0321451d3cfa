//! The newest-first walk against the exact plan on a real store: every page it serves equals
//! the exact plan's (same rows, same order, ties on an equal `created` included), in stores
//! written in order and in stores where some rows' `created` is out of rowid order (rows written
//! with an earlier time, as an import of old records or a wall clock stepped back would, a
//! `created` changed afterwards, a row inserted below the largest rowid), where it must step
//! aside for the pages that depend on those rows; the triggers raise the frontier for exactly
//! the writes that break the order, and the migration computes it for rows already stored.

use diesel::connection::SimpleConnection;
use diesel::sql_types::Text;
use diesel::{QueryableByName, RunQueryDsl};
use diesel_migrations::MigrationHarness;
use proptest::prelude::*;
use serde_json::json;

use domain::collections::CONTACTS;
use domain::filter::{parse_filter, CmpOp, Expr, Literal};
use domain::record::{ListPage, ListQuery};
use domain::sort::parse_sort;
use domain::time::format_ms;
use domain::validation::{validate_write, WriteMode};

use super::super::plan_memo::NewestFirst;
use super::super::tests::store;
use super::super::RecordStore;
use crate::sql::SearchPlan;

#[derive(QueryableByName)]
struct Frontier {
    #[diesel(sql_type = diesel::sql_types::BigInt)]
    frontier: i64,
}

fn frontier(s: &RecordStore, collection: &str) -> i64 {
    let sql = "SELECT frontier FROM relay_created_order WHERE collection = ?";
    let rows: Vec<Frontier> = diesel::sql_query(sql).bind::<Text, _>(collection).load(&mut s.conn().unwrap()).unwrap();
    rows.first().expect("every searched collection has a frontier").frontier
}

fn create(s: &RecordStore, name: &str, now_ms: i64) -> String {
    let body = json!({"name": name, "email": format!("{}@example.com", name.replace(' ', ".")), "title": "NOC"});
    let write = validate_write(&CONTACTS, &body, WriteMode::Create).unwrap();
    s.create(&CONTACTS, &write, now_ms).unwrap()["id"].as_str().unwrap().to_string()
}

fn newest_first(filter: &str, per_page: u32, page: u32) -> ListQuery {
    newest_first_by(parse_filter(filter).unwrap(), per_page, page)
}

fn newest_first_by(filter: Expr, per_page: u32, page: u32) -> ListQuery {
    ListQuery { page, per_page, sort: parse_sort("-created").unwrap(), filter: Some(filter), skip_total: true }
}

fn like(field: &str, op: CmpOp, term: &str) -> Expr {
    Expr::Cmp { field: field.into(), op, value: Literal::Str(term.into()) }
}

fn ids(page: &ListPage) -> Vec<String> {
    page.items.iter().map(|r| r["id"].as_str().unwrap().to_string()).collect()
}

/// The list as the record API runs it and as the exact plan (a LIKE scan in the sort order)
/// answers it, and what `newest_first` did with the list (`None`: not tried).
fn listed_and_exact(s: &RecordStore, q: &ListQuery) -> (Vec<String>, Vec<String>, Option<NewestFirst>) {
    let before = s.memo.newest_first_counts();
    let listed = ids(&s.list(&CONTACTS, q).unwrap());
    let after = s.memo.newest_first_counts();
    let done = match [after[0] - before[0], after[1] - before[1], after[2] - before[2]] {
        [0, 0, 0] => None,
        [1, 0, 0] => Some(NewestFirst::Candidates),
        [0, 1, 0] => Some(NewestFirst::Walked),
        [0, 0, 1] => Some(NewestFirst::Refused),
        other => panic!("one list, one outcome at most: {other:?}"),
    };
    (listed, ids(&s.list_planned(&CONTACTS, q, SearchPlan::Scan).unwrap()), done)
}

const FILTERS: &[&str] = &[
    "name ~ 'Person 1'",
    "name ~ 'Person 29'",
    "name ~ 'erson'",
    "name ~ 'Person 123'",
    "name ~ 'nobody'",
    "name ~ 'Person 1' && email ~ '7@ex'",
    "name ~ 'Person 2' || email ~ 'n.1'",
    "name ~ 'Person 1' && name !~ '0'",
    "title = 'NOC' && name ~ 'PERSON 1%9'",
];

#[test]
fn in_a_store_written_in_order_the_walk_serves_every_page_exactly() {
    let (_tmp, s) = store();
    // Three contacts per millisecond: ties on `created` are broken by the newer rowid.
    for i in 0..300 {
        create(&s, &format!("Person {i}"), 1_000 + i / 3);
    }
    assert_eq!(frontier(&s, "contacts"), 0, "written in order");
    let mut walked = 0;
    for filter in FILTERS {
        for (per_page, page) in [(1, 1), (7, 1), (7, 3), (30, 1), (30, 2), (30, 5), (1000, 1)] {
            let q = newest_first(filter, per_page, page);
            let (listed, exact, done) = listed_and_exact(&s, &q);
            assert!(
                matches!(done, Some(NewestFirst::Candidates | NewestFirst::Walked)),
                "{filter}, page {page} of {per_page}: served by the index ({done:?})"
            );
            walked += usize::from(done == Some(NewestFirst::Walked));
            assert_eq!(listed, exact, "{filter}, page {page} of {per_page}");
        }
    }
    assert!(walked >= 30, "broad terms take the walk ({walked} lists)");
    // A term with no more candidates than the page reads them all; a broader one walks.
    let outcome = |filter: &str, per_page: u32| listed_and_exact(&s, &newest_first(filter, per_page, 1)).2;
    assert_eq!(outcome("name ~ 'Person 123'", 30), Some(NewestFirst::Candidates));
    assert_eq!(outcome("name ~ 'Person 12'", 5), Some(NewestFirst::Walked), "11 candidates, a page of 5");
    assert_eq!(outcome("name ~ 'Person 12'", 11), Some(NewestFirst::Candidates), "11 candidates, a page of 11");
    // Not a rowid order: another sort, a total, a term the index cannot name.
    let by_name = ListQuery { sort: parse_sort("-created,name").unwrap(), ..newest_first("name ~ 'Person 1'", 30, 1) };
    let with_total = ListQuery { skip_total: false, ..newest_first("name ~ 'Person 1'", 30, 1) };
    for q in
        [by_name, with_total, newest_first("name ~ '12'", 30, 1), newest_first("name ~ 'Person' || title = 'x'", 30, 1)]
    {
        let (listed, exact, done) = listed_and_exact(&s, &q);
        assert_eq!((done, listed), (None, exact), "{q:?}");
    }
}

#[test]
fn rows_written_out_of_creation_order_leave_the_pages_below_them_to_the_exact_plan() {
    let (_tmp, s) = store();
    for i in 0..100 {
        create(&s, &format!("Person {i}"), 10_000 + i);
    }
    assert_eq!(frontier(&s, "contacts"), 0);
    // Older records written now (an import of old data, or a wall clock stepped back): rowids
    // 101-120, each created before every earlier row.
    for i in 100..120 {
        create(&s, &format!("Person {i}"), 5_000 + i);
    }
    assert_eq!(frontier(&s, "contacts"), 120);
    // The clock back on time: rowids 121-200 in order again, three per millisecond.
    for i in 120..200 {
        create(&s, &format!("Person {i}"), 20_000 + i / 3);
    }
    assert_eq!(frontier(&s, "contacts"), 120, "writes in order leave the frontier where it is");

    let (candidates, walked, refused) = (NewestFirst::Candidates, NewestFirst::Walked, NewestFirst::Refused);
    let cases = [
        // Filled above the frontier: the walk.
        ("name ~ 'erson'", 30, 1, walked),
        ("name ~ 'erson'", 10, 8, walked),
        ("name ~ 'Person 1'", 40, 2, walked),
        // Reaching below it (80 rows above it; `Person 10` only below it): the exact plan.
        ("name ~ 'erson'", 30, 3, refused),
        ("name ~ 'Person 1'", 50, 2, refused),
        ("name ~ 'Person 10'", 5, 1, refused),
        // No more candidates than the page: read them all, whatever their order.
        ("name ~ 'erson'", 1000, 1, candidates),
        ("name ~ 'Person 11'", 30, 1, candidates),
        ("name ~ 'nobody'", 30, 1, candidates),
    ];
    for (filter, per_page, page, expected) in cases {
        let (listed, exact, done) = listed_and_exact(&s, &newest_first(filter, per_page, page));
        assert_eq!(done, Some(expected), "{filter}, page {page} of {per_page}");
        assert_eq!(listed, exact, "{filter}, page {page} of {per_page}");
    }
    // The walk's own order would put the older rows 101-120 before rows 1-100; the exact plan
    // does not, and neither does the list.
    let all = listed_and_exact(&s, &newest_first("name ~ 'erson'", 1000, 1)).0;
    let names: Vec<String> =
        all.iter().map(|id| s.get(&CONTACTS, id).unwrap()["name"].as_str().unwrap().into()).collect();
    assert_eq!(
        (names[79].as_str(), names[80].as_str(), names[180].as_str()),
        ("Person 120", "Person 99", "Person 119")
    );
}

/// Raw SQL on each searched collection: the frontier after each statement.
#[test]
fn the_frontier_rises_for_exactly_the_writes_that_break_creation_order() {
    let (_tmp, s) = store();
    let at = |second: &str| format!("'2026-01-01 00:00:{second}Z'");
    for index in domain::search::SEARCH_INDEXES {
        let table = index.collection;
        let insert = |id: &str, created: &str| {
            format!("INSERT INTO {table} (id, created, updated, revision) VALUES ('{id}', {created}, '', 1)")
        };
        let insert_at = |rowid: i64, id: &str, created: &str| {
            format!("INSERT INTO {table} (rowid, id, created, updated, revision) VALUES ({rowid}, '{id}', {created}, '', 1)")
        };
        let steps = [
            (insert("a", &at("01.000")), 0),
            (insert("b", &at("01.000")), 0), // an equal `created` is a tie, broken by rowid
            (insert("c", &at("03.000")), 0),
            (format!("UPDATE {table} SET updated = 'x', revision = 2 WHERE id = 'c'"), 0),
            (format!("DELETE FROM {table} WHERE id = 'c'"), 0),
            (insert("d", &at("02.000")), 0), // takes rowid 3 again, after every stored row
            (format!("UPDATE {table} SET created = created WHERE id = 'a'"), 0),
            (insert("e", &at("00.500")), 4), // created before rows 1-3
            (insert("f", &at("09.000")), 4),
            (format!("UPDATE {table} SET created = {} WHERE id = 'a'", at("08.000")), 5),
            (insert_at(100, "g", &at("10.000")), 5), // the largest rowid and `created`
            (insert_at(50, "h", &at("11.000")), 100), // below the largest rowid
            (format!("DELETE FROM {table}"), 100),
        ];
        for (sql, expected) in steps {
            s.conn().unwrap().batch_execute(&sql).unwrap();
            assert_eq!(frontier(&s, table), expected, "{table}: {sql}");
        }
    }
    #[derive(QueryableByName)]
    struct Name {
        #[diesel(sql_type = Text)]
        name: String,
    }
    let sql = "SELECT collection AS name FROM relay_created_order ORDER BY collection";
    let kept: Vec<Name> = diesel::sql_query(sql).load(&mut s.conn().unwrap()).unwrap();
    let mut searched: Vec<&str> = domain::search::SEARCH_INDEXES.iter().map(|i| i.collection).collect();
    searched.sort();
    assert_eq!(
        kept.iter().map(|n| n.name.as_str()).collect::<Vec<_>>(),
        searched,
        "one frontier per searched collection"
    );
}

#[test]
fn the_migration_computes_the_frontier_of_the_rows_already_stored() {
    let (_tmp, s) = store();
    let mut conn = s.conn().unwrap();
    // Back to the store before the frontier (one step per later migration).
    for _ in 0..100 {
        if conn.revert_last_migration(crate::db::MIGRATIONS).unwrap().to_string() == "20261208000001" {
            break;
        }
    }
    let row = |id: &str, second: &str| format!("('{id}', '2026-01-01 00:00:{second}.000Z', '', 1)");
    let rows = [row("a", "01"), row("b", "03"), row("c", "02"), row("d", "03"), row("e", "04")].join(", ");
    conn.batch_execute(&format!("INSERT INTO contacts (id, created, updated, revision) VALUES {rows}")).unwrap();
    let in_order = [row("a", "01"), row("b", "01"), row("c", "02")].join(", ");
    conn.batch_execute(&format!("INSERT INTO servers (id, created, updated, revision) VALUES {in_order}")).unwrap();
    conn.run_pending_migrations(crate::db::MIGRATIONS).unwrap();
    drop(conn);
    // Row 3 was created before row 2; nothing else is out of order.
    assert_eq!((frontier(&s, "contacts"), frontier(&s, "servers"), frontier(&s, "notes")), (3, 0, 0));
    let sql = "INSERT INTO servers (id, created, updated, revision) VALUES ('z', '2025-01-01 00:00:00.000Z', '', 1)";
    s.conn().unwrap().batch_execute(sql).unwrap();
    assert_eq!(frontier(&s, "servers"), 4, "the triggers are back");
}

/// One write of a random history: a contact created with the clock moved by `step` ms (negative:
/// stepped back; zero: the same millisecond), a contact deleted, or a contact's `created`
/// changed by SQL.
#[derive(Debug, Clone)]
enum Write {
    Create { name: String, step: i64 },
    Delete(prop::sample::Index),
    SetCreated(prop::sample::Index, i64),
}

fn write() -> impl Strategy<Value = Write> {
    let name = (prop::sample::select(&["Person", "person", "Zoë", "PERSON x", "Per_son"][..]), 0..40u32)
        .prop_map(|(prefix, n)| format!("{prefix} {n}"));
    prop_oneof![
        12 => (name, prop_oneof![8 => 0..4i64, 1 => -3000..0i64]).prop_map(|(name, step)| Write::Create { name, step }),
        2 => any::<prop::sample::Index>().prop_map(Write::Delete),
        1 => (any::<prop::sample::Index>(), -3000..3000i64).prop_map(|(at, shift)| Write::SetCreated(at, shift)),
    ]
}

const TERMS: &[&str] =
    &["Person 1", "erson 2", "zoë", "Person", "son 3", "x 1", "Per_son", "nobody", "ERSON 1%", "n.1@"];

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn the_newest_first_walk_equals_the_exact_plan(
        writes in prop::collection::vec(write(), 1..60),
        filters in prop::collection::vec((0..TERMS.len(), 0..TERMS.len(), 0..4u8), 1..6),
        pages in prop::collection::vec((1..6u32, 1..5u32), 1..4),
    ) {
        let (_tmp, s) = store();
        let (mut now, mut live) = (1_000_000i64, Vec::<(String, i64)>::new());
        for w in &writes {
            match w {
                Write::Create { name, step } => {
                    now += step;
                    live.push((create(&s, name, now), now));
                }
                Write::Delete(at) if !live.is_empty() => {
                    s.delete(&CONTACTS, &live.remove(at.index(live.len())).0).unwrap();
                }
                Write::SetCreated(at, shift) if !live.is_empty() => {
                    let picked = at.index(live.len());
                    let (id, created) = &mut live[picked];
                    *created += shift;
                    let sql = format!("UPDATE contacts SET created = '{}' WHERE id = '{id}'", format_ms(*created));
                    s.conn().unwrap().batch_execute(&sql).unwrap();
                }
                _ => {}
            }
        }
        let in_order = frontier(&s, "contacts") == 0;
        for (a, b, join) in filters {
            let (a, b) = (TERMS[a], TERMS[b]);
            let filter = match join {
                0 => like("name", CmpOp::Like, a),
                1 => Expr::And(Box::new(like("name", CmpOp::Like, a)), Box::new(like("email", CmpOp::Like, b))),
                2 => Expr::Or(Box::new(like("name", CmpOp::Like, a)), Box::new(like("email", CmpOp::Like, b))),
                _ => Expr::And(Box::new(like("name", CmpOp::Like, a)), Box::new(like("name", CmpOp::NotLike, b))),
            };
            for &(per_page, page) in &pages {
                let (listed, exact, done) = listed_and_exact(&s, &newest_first_by(filter.clone(), per_page, page));
                prop_assert_eq!(&listed, &exact, "{:?} page {} of {}: {:?}", filter, page, per_page, done);
                prop_assert!(done.is_some(), "{:?}: every filter here has a search condition", filter);
                if in_order {
                    prop_assert_ne!(done, Some(NewestFirst::Refused), "{:?} in a store written in order", filter);
                }
                // With its total the list never takes the walk; page and total equal the exact plan's.
                let q = ListQuery { skip_total: false, ..newest_first_by(filter.clone(), per_page, page) };
                let (listed, exact) = (s.list(&CONTACTS, &q).unwrap(), s.list_planned(&CONTACTS, &q, SearchPlan::Scan).unwrap());
                prop_assert_eq!((ids(&listed), listed.total_items), (ids(&exact), exact.total_items), "{:?} with its total", filter);
            }
        }
    }
}
