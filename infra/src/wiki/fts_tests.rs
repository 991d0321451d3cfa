//! The domain's FTS5 `MATCH` expressions (`domain::wiki::fts_match_expression`) run on real
//! SQLite FTS5: hostile queries (quotes, operators, column filters, NEAR, parentheses) are
//! always valid syntax and match only as plain words, and the last word matches as a prefix.

use diesel::connection::SimpleConnection;
use diesel::sql_types::Text;
use diesel::{Connection, QueryableByName, RunQueryDsl, SqliteConnection};

use domain::wiki::{check_query, fts_match_expression};

#[derive(QueryableByName)]
struct Hit {
    #[diesel(sql_type = Text)]
    body: String,
}

fn search(conn: &mut SqliteConnection, typed: &str) -> Vec<String> {
    let query = check_query(typed).unwrap_or_else(|e| panic!("{typed:?}: {e}"));
    let expression = fts_match_expression(&query).unwrap();
    diesel::sql_query("SELECT body FROM passages WHERE passages MATCH ? ORDER BY bm25(passages), rowid")
        .bind::<Text, _>(&expression)
        .load::<Hit>(conn)
        .unwrap_or_else(|e| panic!("{typed:?} -> {expression:?} is not valid FTS5: {e}"))
        .into_iter()
        .map(|h| h.body)
        .collect()
}

#[test]
fn hostile_queries_are_valid_fts5_and_match_only_words() {
    let mut conn = SqliteConnection::establish(":memory:").unwrap();
    conn.batch_execute(
        "CREATE VIRTUAL TABLE passages USING fts5(body, tokenize = 'unicode61');
         INSERT INTO passages (body) VALUES ('reset the vpn concentrator'), ('vpn reset procedure for branch offices'),
           ('firewall rule review'), ('near miss report'), ('error err-42 on router'), ('col x y values');",
    )
    .unwrap();
    assert_eq!(
        search(&mut conn, "VPN reset"),
        ["reset the vpn concentrator", "vpn reset procedure for branch offices"]
    );
    assert_eq!(search(&mut conn, "vpn res"), search(&mut conn, "vpn reset"), "the last word is a prefix");
    assert_eq!(search(&mut conn, "ﬁrewall"), ["firewall rule review"], "NFKC");
    for hostile in [
        "foo\" OR bar*",
        "NEAR(vpn dns) NOT ^proxy col:x -y",
        "\"unterminated",
        "(vpn",
        "vpn OR firewall",
        "body:vpn",
        "* ^ - + : ( ) \" '",
        "ERR-42 v1.2.3",
    ] {
        let _ = check_query(hostile).map(|q| fts_match_expression(&q).map(|_| search(&mut conn, hostile)));
    }
    assert!(search(&mut conn, "vpn OR firewall").is_empty(), "OR is a word, not an operator");
    assert_eq!(search(&mut conn, "near miss"), ["near miss report"], "NEAR is a word");
}
