//! SQL text built from collection descriptors and parsed queries. Identifiers come only from
//! the static collection specs (already restricted to `[A-Za-z0-9_]`) and are double-quoted;
//! every user-supplied value becomes a bound parameter, never SQL text. This module also builds
//! the `json_object(...)` projection that turns a row into the record JSON clients see. A `~`
//! term on a field with a trigram index (`domain::search`) may be compiled to a candidate
//! pre-filter (the index's MATCH, or the rowids it selected, read beforehand) AND the unchanged
//! LIKE, so every [`SearchPlan`] selects exactly the rows of a scan; the caller decides term by
//! term how it is narrowed ([`Narrowing`]). `!~` always scans.

use domain::collections::{CollectionSpec, FieldKind, JsonShape, Reads};
use domain::filter::{CmpOp, Expr, Literal};
use domain::search::{index_for, match_query, SearchIndex};
use domain::sort::SortKey;
use domain::validation::SqlValue;

/// A WHERE clause (without the keyword) and its bind values in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Where {
    pub sql: String,
    pub binds: Vec<SqlValue>,
}

/// `clause` narrowed to the records clients may read (`CollectionSpec::reads`): the record API's
/// lists and views always pass through here, so a hidden record is never listed, counted or
/// viewed.
pub fn readable(spec: &CollectionSpec, clause: Where) -> Where {
    match spec.reads {
        Reads::All => clause,
        Reads::FieldEquals { field, value } => {
            let mut binds = clause.binds;
            binds.push(SqlValue::Text(value.to_string()));
            Where { sql: format!("({}) AND {} = ?", clause.sql, quote_ident(field)), binds }
        }
    }
}

pub fn quote_ident(name: &str) -> String {
    debug_assert!(name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    format!("\"{name}\"")
}

fn field_kind(spec: &CollectionSpec, field: &str) -> Option<FieldKind> {
    match field {
        "id" | "created" | "updated" => Some(FieldKind::Text { max_len: 0 }),
        "revision" => Some(FieldKind::Number { min: 0.0, max: f64::MAX, integer: true }),
        _ => spec.field(field).map(|f| f.kind),
    }
}

/// The stored "empty" value a `null` literal compares against for a field kind.
fn null_value(kind: FieldKind) -> SqlValue {
    match kind {
        FieldKind::Number { .. } | FieldKind::Bool => SqlValue::Integer(0),
        FieldKind::Json { shape: JsonShape::StringArray { .. } | JsonShape::ObjectArray { .. } } => {
            SqlValue::Text("[]".into())
        }
        FieldKind::Json { shape: JsonShape::Object { .. } } => SqlValue::Text("null".into()),
        _ => SqlValue::Text(String::new()),
    }
}

fn literal_value(kind: FieldKind, lit: &Literal) -> SqlValue {
    match (kind, lit) {
        (_, Literal::Null) => null_value(kind),
        (FieldKind::Bool, Literal::Bool(b)) => SqlValue::Integer(*b as i64),
        (FieldKind::Bool, Literal::Str(s)) => SqlValue::Integer((s == "true" || s == "1") as i64),
        (_, Literal::Bool(b)) => SqlValue::Text(b.to_string()),
        (_, Literal::Num(n)) => SqlValue::Real(*n),
        (_, Literal::Str(s)) => SqlValue::Text(s.clone()),
    }
}

/// How `~` terms are compiled. Only a term on an indexed field with a run of at least three
/// characters can use the trigram index at all; of those, `Indexed` uses it for every one,
/// `Scan` for none (the reference the property tests compare against), and `Selective` for
/// those the index narrows to at most `max_candidates` rows (the store reads their rowids first
/// and binds them, so the page and the total read no index): a term matching much of the table
/// is faster as a scan in the sort order, which stops after a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchPlan {
    Indexed,
    Scan,
    Selective {
        max_candidates: u32,
    },
    /// `Selective` with the limit for the collection's size and whether the total is counted
    /// (`domain::search::max_index_candidates`): what the record list uses.
    BySize,
}

/// How one indexable `~` term is narrowed before its LIKE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Narrowing {
    /// Not at all: the LIKE alone (a scan).
    Scan,
    /// By the index's MATCH, as a subquery of the statement.
    Match,
    /// By the rowids the index selected, read beforehand, bound as a JSON array. At 100,000
    /// contacts an `IN (SELECT rowid ... MATCH ?)` subquery with the LIKE cost several times the
    /// MATCH alone, and the page and the total each ran it again.
    Rowids(String),
}

/// Chooses, per indexable `~` term (its index and FTS5 query), how it is narrowed.
pub type UseIndex<'a> = dyn FnMut(&SearchIndex, &str) -> Narrowing + 'a;

/// PocketBase `~` pattern for a literal of any kind (see `domain::search::like_pattern`).
fn like_pattern(lit: &Literal) -> String {
    let raw = match lit {
        Literal::Str(s) => s.clone(),
        Literal::Num(n) => n.to_string(),
        Literal::Bool(b) => b.to_string(),
        Literal::Null => String::new(),
    };
    domain::search::like_pattern(&raw)
}

/// `field LIKE pattern` narrowed by the field's trigram index, when it can be and `use_index`
/// agrees.
fn indexed_like(spec: &CollectionSpec, field: &str, pattern: &str, use_index: &mut UseIndex, out: &mut Where) -> bool {
    let Some(index) = index_for(spec, field) else { return false };
    let Some(query) = match_query(field, pattern) else { return false };
    let (candidates, bind) = match use_index(index, &query) {
        Narrowing::Scan => return false,
        Narrowing::Match => {
            let fts = quote_ident(index.table);
            (format!("SELECT rowid FROM {fts} WHERE {fts} MATCH ?"), query)
        }
        Narrowing::Rowids(json) => ("SELECT value FROM json_each(?)".to_string(), json),
    };
    out.sql.push_str(&format!(
        "({}.rowid IN ({candidates}) AND {} LIKE ? ESCAPE '\\')",
        quote_ident(spec.name),
        quote_ident(field)
    ));
    out.binds.push(SqlValue::Text(bind));
    out.binds.push(SqlValue::Text(pattern.to_string()));
    true
}

fn compile_into(spec: &CollectionSpec, expr: &Expr, use_index: &mut UseIndex, out: &mut Where) -> Result<(), String> {
    match expr {
        Expr::And(a, b) | Expr::Or(a, b) => {
            let joiner = if matches!(expr, Expr::And(..)) { " AND " } else { " OR " };
            out.sql.push('(');
            compile_into(spec, a, use_index, out)?;
            out.sql.push_str(joiner);
            compile_into(spec, b, use_index, out)?;
            out.sql.push(')');
        }
        Expr::Cmp { field, op, value } => {
            let kind = field_kind(spec, field).ok_or_else(|| format!("unknown field {field:?}"))?;
            if *op == CmpOp::Like && indexed_like(spec, field, &like_pattern(value), use_index, out) {
                return Ok(());
            }
            let col = quote_ident(field);
            let (sql_op, bind) = match op {
                CmpOp::Eq => ("=", literal_value(kind, value)),
                CmpOp::Neq => ("!=", literal_value(kind, value)),
                CmpOp::Gt => (">", literal_value(kind, value)),
                CmpOp::Gte => (">=", literal_value(kind, value)),
                CmpOp::Lt => ("<", literal_value(kind, value)),
                CmpOp::Lte => ("<=", literal_value(kind, value)),
                CmpOp::Like => ("LIKE", SqlValue::Text(like_pattern(value))),
                CmpOp::NotLike => ("NOT LIKE", SqlValue::Text(like_pattern(value))),
            };
            let escape = if matches!(op, CmpOp::Like | CmpOp::NotLike) { " ESCAPE '\\'" } else { "" };
            out.sql.push_str(&format!("{col} {sql_op} ?{escape}"));
            out.binds.push(bind);
        }
    }
    Ok(())
}

/// Compiles a parsed filter for `spec`; fields were checked by `ListQuery::parse`, and are
/// checked again here so no unknown identifier can reach SQL. `~` terms use the search index
/// where they can.
pub fn compile_filter(spec: &CollectionSpec, expr: &Expr) -> Result<Where, String> {
    compile_filter_with(spec, expr, &mut |_, _| Narrowing::Match)
}

/// [`compile_filter`] with the caller choosing, term by term, whether the index is used.
pub fn compile_filter_with(spec: &CollectionSpec, expr: &Expr, use_index: &mut UseIndex) -> Result<Where, String> {
    let mut out = Where { sql: String::new(), binds: Vec::new() };
    compile_into(spec, expr, use_index, &mut out)?;
    Ok(out)
}

/// An FTS5 query on `spec`'s search index that every row matching `expr` matches: the
/// candidate queries of its `~` terms on indexed fields ([`match_query`]), joined as the filter
/// joins them (a conjunction needs one side to have such a term, a disjunction both). `None`
/// when the filter can hold for a row none of its indexable terms names (`!~`, a short run, an
/// unindexed field, another comparison on a side of an `||`). Like every narrowing, a pre-filter:
/// the caller keeps the whole filter.
pub fn search_condition(spec: &CollectionSpec, expr: &Expr) -> Option<(&'static SearchIndex, String)> {
    match expr {
        Expr::Cmp { field, op: CmpOp::Like, value } => {
            let index = index_for(spec, field)?;
            Some((index, match_query(field, &like_pattern(value))?))
        }
        Expr::Cmp { .. } => None,
        Expr::And(a, b) => match (search_condition(spec, a), search_condition(spec, b)) {
            (Some((index, x)), Some((other, y))) if index.table == other.table => {
                Some((index, format!("({x}) AND ({y})")))
            }
            (Some(one), _) | (None, Some(one)) => Some(one),
            (None, None) => None,
        },
        Expr::Or(a, b) => {
            let ((index, x), (other, y)) = (search_condition(spec, a)?, search_condition(spec, b)?);
            (index.table == other.table).then(|| (index, format!("({x}) OR ({y})")))
        }
    }
}

/// `ORDER BY ...` for the sort keys, always ending with `rowid` for a stable order. The
/// `rowid` runs in the direction of the last key: an index on the keys holds `rowid` as its
/// last column, so a page of `-created` is read backwards along `created`'s index instead of
/// sorting every row up to the offset (a deep page at 100,000 rows: about 20 ms -> 2 ms).
pub fn order_by(spec: &CollectionSpec, sort: &[SortKey]) -> Result<String, String> {
    let direction = |descending: bool| if descending { "DESC" } else { "ASC" };
    let mut parts = Vec::with_capacity(sort.len() + 1);
    for key in sort {
        if !spec.is_queryable(&key.field) {
            return Err(format!("unknown sort field {:?}", key.field));
        }
        parts.push(format!("{} {}", quote_ident(&key.field), direction(key.descending)));
    }
    parts.push(format!("rowid {}", direction(sort.last().is_some_and(|k| k.descending))));
    Ok(format!("ORDER BY {}", parts.join(", ")))
}

/// The projection that renders one row as record JSON.
pub fn record_json(spec: &CollectionSpec) -> String {
    let mut args = vec![
        format!("'collectionId', '{}'", spec.id),
        format!("'collectionName', '{}'", spec.name),
        "'id', \"id\"".to_string(),
        "'created', \"created\"".to_string(),
        "'updated', \"updated\"".to_string(),
        "'revision', \"revision\"".to_string(),
    ];
    for field in spec.fields {
        let col = quote_ident(field.name);
        let value = match field.kind {
            FieldKind::Bool => format!("json(CASE WHEN {col} THEN 'true' ELSE 'false' END)"),
            FieldKind::Number { .. } => {
                format!("CASE WHEN {col} = CAST({col} AS INTEGER) THEN CAST({col} AS INTEGER) ELSE {col} END")
            }
            FieldKind::Json { .. } => format!("json({col})"),
            _ => col,
        };
        args.push(format!("'{}', {value}", field.name));
    }
    format!("json_object({})", args.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use domain::collections::{ALERT_HISTORY, CONTACTS};
    use domain::filter::parse_filter;

    #[test]
    fn values_are_bound_never_spliced() {
        let expr = parse_filter("name = \"x' OR 1=1 --\" || (email ~ 'a_b' && title != null)").unwrap();
        let w = compile_filter_with(&CONTACTS, &expr, &mut |_, _| Narrowing::Scan).unwrap();
        assert_eq!(w.sql, "(\"name\" = ? OR (\"email\" LIKE ? ESCAPE '\\' AND \"title\" != ?))");
        assert_eq!(
            w.binds,
            vec![
                SqlValue::Text("x' OR 1=1 --".into()),
                SqlValue::Text("%a\\_b%".into()),
                SqlValue::Text(String::new())
            ]
        );
        assert!(!w.sql.contains("OR 1=1"));
    }

    #[test]
    fn bools_numbers_and_wildcards() {
        let w = compile_filter(&ALERT_HISTORY, &parse_filter("pinned = true && revision > 3").unwrap()).unwrap();
        assert_eq!(w.binds, vec![SqlValue::Integer(1), SqlValue::Real(3.0)]);
        let w = compile_filter(&CONTACTS, &parse_filter("name ~ 'Ad%'").unwrap()).unwrap();
        assert_eq!(w.binds, vec![SqlValue::Text("Ad%".into())]);
        assert!(compile_filter(&CONTACTS, &parse_filter("bogus = 1").unwrap()).is_err());
    }

    #[test]
    fn contains_terms_use_the_index_only_where_it_is_exact() {
        let w = compile_filter(&CONTACTS, &parse_filter("name ~ 'a_b' || email !~ 'abc'").unwrap()).unwrap();
        assert_eq!(
            w.sql,
            "((\"contacts\".rowid IN (SELECT rowid FROM \"relay_fts_contacts\" WHERE \"relay_fts_contacts\" MATCH ?) \
             AND \"name\" LIKE ? ESCAPE '\\') OR \"email\" NOT LIKE ? ESCAPE '\\')"
        );
        assert_eq!(
            w.binds,
            vec![
                SqlValue::Text("{name} : \"a_b\"".into()),
                SqlValue::Text("%a\\_b%".into()),
                SqlValue::Text("%abc%".into())
            ]
        );
        for scanned in ["name ~ 'ab'", "name ~ 'ab%'", "id ~ 'abcdef'", "bodyHtml ~ 'abcdef'"] {
            let spec = if scanned.starts_with("body") { &ALERT_HISTORY } else { &CONTACTS };
            let w = compile_filter(spec, &parse_filter(scanned).unwrap()).unwrap();
            assert!(!w.sql.contains("MATCH"), "{scanned}: {}", w.sql);
        }
        let w = compile_filter(&ALERT_HISTORY, &parse_filter("subject ~ 'disk'").unwrap()).unwrap();
        assert!(w.sql.contains("\"relay_fts_alert_history\" MATCH ?"), "{}", w.sql);
    }

    #[test]
    fn rowids_read_beforehand_are_bound_as_json() {
        let expr = parse_filter("name ~ 'Person 1'").unwrap();
        let w = compile_filter_with(&CONTACTS, &expr, &mut |_, _| Narrowing::Rowids("[3,7]".into())).unwrap();
        assert_eq!(w.sql, "(\"contacts\".rowid IN (SELECT value FROM json_each(?)) AND \"name\" LIKE ? ESCAPE '\\')");
        assert_eq!(w.binds, vec![SqlValue::Text("[3,7]".into()), SqlValue::Text("%Person 1%".into())]);
    }

    #[test]
    fn a_search_condition_names_every_row_the_filter_can_match() {
        let condition = |spec, filter: &str| {
            search_condition(spec, &parse_filter(filter).unwrap()).map(|(index, query)| (index.table, query))
        };
        let contacts = |query: &str| Some(("relay_fts_contacts", query.to_string()));
        assert_eq!(condition(&CONTACTS, "name ~ 'Person 1'"), contacts("{name} : \"Person 1\""));
        assert_eq!(condition(&CONTACTS, "title = 'x' && name ~ 'abc'"), contacts("{name} : \"abc\""));
        assert_eq!(
            condition(&CONTACTS, "name ~ 'abc' && (email ~ 'def' || phone ~ 'ghi')"),
            contacts("({name} : \"abc\") AND (({email} : \"def\") OR ({phone} : \"ghi\"))")
        );
        assert_eq!(
            condition(&ALERT_HISTORY, "subject ~ 'disk' && pinned = true"),
            Some(("relay_fts_alert_history", "{subject} : \"disk\"".to_string()))
        );
        for unnamed in [
            "name ~ 'abc' || title = 'x'",
            "name !~ 'abc'",
            "name ~ 'ab'",
            "id ~ 'abcdef'",
            "name ~ 'abc' || name ~ 'ab'",
            "title = 'x'",
        ] {
            assert_eq!(condition(&CONTACTS, unnamed), None, "{unnamed}");
        }
    }

    #[test]
    fn order_by_is_stable_and_checked() {
        let sort = domain::sort::parse_sort("-created,name").unwrap();
        assert_eq!(order_by(&CONTACTS, &sort).unwrap(), "ORDER BY \"created\" DESC, \"name\" ASC, rowid ASC");
        let newest_first = domain::sort::parse_sort("-created").unwrap();
        assert_eq!(order_by(&CONTACTS, &newest_first).unwrap(), "ORDER BY \"created\" DESC, rowid DESC");
        assert_eq!(order_by(&CONTACTS, &[]).unwrap(), "ORDER BY rowid ASC");
        assert!(order_by(&CONTACTS, &domain::sort::parse_sort("nope").unwrap()).is_err());
        assert!(record_json(&ALERT_HISTORY).contains("json(CASE WHEN \"pinned\""));
    }

    #[test]
    fn a_newest_first_page_is_read_along_the_created_index_without_a_sort() {
        use diesel::RunQueryDsl;
        #[derive(diesel::QueryableByName)]
        struct Plan {
            #[diesel(sql_type = diesel::sql_types::Text)]
            detail: String,
        }
        let tmp = tempfile::tempdir().unwrap();
        let (pool, _) = crate::db::open(&tmp.path().join("relay.db"), 1).unwrap();
        let order = order_by(&CONTACTS, &domain::sort::parse_sort("-created").unwrap()).unwrap();
        let sql = format!("EXPLAIN QUERY PLAN SELECT rowid FROM \"contacts\" WHERE 1 {order} LIMIT 30 OFFSET 3000");
        let plan: Vec<Plan> = diesel::sql_query(sql).load(&mut pool.get().unwrap()).unwrap();
        let plan: Vec<String> = plan.into_iter().map(|p| p.detail).collect();
        assert!(plan.iter().any(|d| d.contains("idx_contacts_created")), "{plan:?}");
        assert!(!plan.iter().any(|d| d.contains("TEMP B-TREE")), "no sort of every row up to the offset: {plan:?}");
    }
}
