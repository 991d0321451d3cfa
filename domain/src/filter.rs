//! Safe parser for the subset of PocketBase's `filter` query language that Relay accepts:
//! comparisons between a plain field name and a literal, combined with `&&`, `||` and
//! parentheses. The parser owns every size limit (input length, parenthesis depth, number
//! of comparisons) so hostile input is rejected before it can cost stack or time, and it
//! produces a typed [`Expr`] whose literal values the store binds as parameters — nothing
//! here ever builds SQL text. Error positions are byte offsets into the input.

use thiserror::Error;

/// Longest accepted filter, in bytes.
pub const MAX_FILTER_LEN: usize = 4096;
/// Deepest accepted nesting of parentheses.
pub const MAX_DEPTH: usize = 32;
/// Most comparisons accepted in one filter.
pub const MAX_TERMS: usize = 64;

#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Cmp { field: String, op: CmpOp, value: Literal },
}

/// Comparison operators: `=` `!=` `>` `>=` `<` `<=` `~` `!~`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Neq,
    Gt,
    Gte,
    Lt,
    Lte,
    Like,
    NotLike,
}

impl CmpOp {
    /// The operator that gives the same result with its operands swapped, if any.
    fn flipped(self) -> Option<CmpOp> {
        match self {
            CmpOp::Eq | CmpOp::Neq => Some(self),
            CmpOp::Gt => Some(CmpOp::Lt),
            CmpOp::Gte => Some(CmpOp::Lte),
            CmpOp::Lt => Some(CmpOp::Gt),
            CmpOp::Lte => Some(CmpOp::Gte),
            CmpOp::Like | CmpOp::NotLike => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    Str(String),
    Num(f64),
    Bool(bool),
    Null,
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum FilterError {
    #[error("filter is too long")]
    TooLong,
    #[error("filter is nested too deeply")]
    TooDeep,
    #[error("filter has too many terms")]
    TooManyTerms,
    #[error("unexpected character {ch:?} at {pos}")]
    UnexpectedChar { ch: char, pos: usize },
    #[error("unterminated string at {pos}")]
    UnterminatedString { pos: usize },
    #[error("expected {expected} at {pos}")]
    Expected { expected: &'static str, pos: usize },
    #[error("empty filter")]
    Empty,
}

/// Parses a filter. Limits are enforced in this order: length (before any parsing), then
/// parenthesis depth and term count while parsing, so recursion never exceeds [`MAX_DEPTH`].
pub fn parse_filter(input: &str) -> Result<Expr, FilterError> {
    if input.len() > MAX_FILTER_LEN {
        return Err(FilterError::TooLong);
    }
    if input.bytes().all(is_ws) {
        return Err(FilterError::Empty);
    }
    let mut parser = Parser { src: input, pos: 0, peeked: None, terms: 0 };
    let expr = parser.parse_or(0)?;
    match parser.next()? {
        None => Ok(expr),
        Some((pos, _)) => Err(FilterError::Expected { expected: "end of filter", pos }),
    }
}

impl Expr {
    /// Every field name referenced, in source order (duplicates kept).
    pub fn fields(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.collect_fields(&mut out);
        out
    }

    fn collect_fields<'a>(&'a self, out: &mut Vec<&'a str>) {
        match self {
            Expr::And(l, r) | Expr::Or(l, r) => {
                l.collect_fields(out);
                r.collect_fields(out);
            }
            Expr::Cmp { field, .. } => out.push(field),
        }
    }
}

fn is_ws(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    LParen,
    RParen,
    And,
    Or,
    Op(CmpOp),
    Ident(String),
    Lit(Literal),
}

enum Operand {
    Field(String),
    Lit(Literal),
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    peeked: Option<(usize, Token)>,
    terms: usize,
}

impl Parser<'_> {
    fn peek(&mut self) -> Result<Option<&(usize, Token)>, FilterError> {
        if self.peeked.is_none() {
            self.peeked = self.lex()?;
        }
        Ok(self.peeked.as_ref())
    }

    fn next(&mut self) -> Result<Option<(usize, Token)>, FilterError> {
        match self.peeked.take() {
            Some(tok) => Ok(Some(tok)),
            None => self.lex(),
        }
    }

    fn peek_is(&mut self, want: &Token) -> Result<bool, FilterError> {
        Ok(matches!(self.peek()?, Some((_, t)) if t == want))
    }

    fn lex(&mut self) -> Result<Option<(usize, Token)>, FilterError> {
        let bytes = self.src.as_bytes();
        while self.pos < bytes.len() && is_ws(bytes[self.pos]) {
            self.pos += 1;
        }
        let start = self.pos;
        let Some(ch) = self.src[start..].chars().next() else {
            return Ok(None);
        };
        let second = bytes.get(start + 1).copied();
        let (tok, len) = match (ch, second) {
            ('(', _) => (Token::LParen, 1),
            (')', _) => (Token::RParen, 1),
            ('&', Some(b'&')) => (Token::And, 2),
            ('|', Some(b'|')) => (Token::Or, 2),
            ('=', _) => (Token::Op(CmpOp::Eq), 1),
            ('!', Some(b'=')) => (Token::Op(CmpOp::Neq), 2),
            ('!', Some(b'~')) => (Token::Op(CmpOp::NotLike), 2),
            ('>', Some(b'=')) => (Token::Op(CmpOp::Gte), 2),
            ('>', _) => (Token::Op(CmpOp::Gt), 1),
            ('<', Some(b'=')) => (Token::Op(CmpOp::Lte), 2),
            ('<', _) => (Token::Op(CmpOp::Lt), 1),
            ('~', _) => (Token::Op(CmpOp::Like), 1),
            ('\'' | '"', _) => return self.lex_string(ch).map(|t| Some((start, t))),
            ('0'..='9', _) | ('-', Some(b'0'..=b'9')) => return self.lex_number().map(|t| Some((start, t))),
            (c, _) if c.is_ascii_alphabetic() || c == '_' => {
                let len = bytes[start..].iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
                let word = &self.src[start..start + len];
                let tok = match word {
                    "true" => Token::Lit(Literal::Bool(true)),
                    "false" => Token::Lit(Literal::Bool(false)),
                    "null" => Token::Lit(Literal::Null),
                    _ => Token::Ident(word.to_string()),
                };
                (tok, len)
            }
            (ch, _) => return Err(FilterError::UnexpectedChar { ch, pos: start }),
        };
        self.pos = start + len;
        Ok(Some((start, tok)))
    }

    /// Quoted string; a backslash makes the next character literal (whatever it is).
    fn lex_string(&mut self, quote: char) -> Result<Token, FilterError> {
        let start = self.pos;
        let mut out = String::new();
        let mut chars = self.src[start + 1..].char_indices();
        while let Some((i, c)) = chars.next() {
            if c == quote {
                self.pos = start + 1 + i + c.len_utf8();
                return Ok(Token::Lit(Literal::Str(out)));
            }
            if c == '\\' {
                match chars.next() {
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                }
            } else {
                out.push(c);
            }
        }
        Err(FilterError::UnterminatedString { pos: start })
    }

    /// `-?[0-9]+(\.[0-9]+)?`; a `.` not followed by a digit is left for the next token.
    fn lex_number(&mut self) -> Result<Token, FilterError> {
        let bytes = self.src.as_bytes();
        let start = self.pos;
        let mut end = start + usize::from(bytes[start] == b'-');
        let digits = |from: usize| bytes[from..].iter().take_while(|b| b.is_ascii_digit()).count();
        end += digits(end);
        if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
            end += 1 + digits(end + 1);
        }
        let value: f64 = self.src[start..end]
            .parse()
            .ok()
            .filter(|v: &f64| v.is_finite())
            .ok_or(FilterError::Expected { expected: "finite number", pos: start })?;
        self.pos = end;
        Ok(Token::Lit(Literal::Num(value)))
    }

    fn parse_or(&mut self, depth: usize) -> Result<Expr, FilterError> {
        let mut left = self.parse_and(depth)?;
        while self.peek_is(&Token::Or)? {
            self.next()?;
            let right = self.parse_and(depth)?;
            left = Expr::Or(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_and(&mut self, depth: usize) -> Result<Expr, FilterError> {
        let mut left = self.parse_primary(depth)?;
        while self.peek_is(&Token::And)? {
            self.next()?;
            let right = self.parse_primary(depth)?;
            left = Expr::And(Box::new(left), Box::new(right));
        }
        Ok(left)
    }

    fn parse_primary(&mut self, depth: usize) -> Result<Expr, FilterError> {
        if !self.peek_is(&Token::LParen)? {
            return self.parse_comparison();
        }
        // Depth is checked before recursing, so `((((...` can never exhaust the stack.
        if depth >= MAX_DEPTH {
            return Err(FilterError::TooDeep);
        }
        self.next()?;
        let inner = self.parse_or(depth + 1)?;
        match self.next()? {
            Some((_, Token::RParen)) => Ok(inner),
            other => Err(self.expected(")", other)),
        }
    }

    fn parse_comparison(&mut self) -> Result<Expr, FilterError> {
        self.terms += 1;
        if self.terms > MAX_TERMS {
            return Err(FilterError::TooManyTerms);
        }
        let (left_pos, left) = self.operand()?;
        let op = match self.next()? {
            Some((_, Token::Op(op))) => op,
            other => return Err(self.expected("operator", other)),
        };
        let (right_pos, right) = self.operand()?;
        let expected = |expected, pos| FilterError::Expected { expected, pos };
        match (left, right) {
            (Operand::Field(field), Operand::Lit(value)) => Ok(Expr::Cmp { field, op, value }),
            (Operand::Lit(value), Operand::Field(field)) => match op.flipped() {
                Some(op) => Ok(Expr::Cmp { field, op, value }),
                None => Err(expected("field", left_pos)),
            },
            (Operand::Field(_), Operand::Field(_)) => Err(expected("value", right_pos)),
            (Operand::Lit(_), Operand::Lit(_)) => Err(expected("field", left_pos)),
        }
    }

    fn operand(&mut self) -> Result<(usize, Operand), FilterError> {
        match self.next()? {
            Some((pos, Token::Ident(name))) => Ok((pos, Operand::Field(name))),
            Some((pos, Token::Lit(lit))) => Ok((pos, Operand::Lit(lit))),
            other => Err(self.expected("field or value", other)),
        }
    }

    fn expected(&self, expected: &'static str, got: Option<(usize, Token)>) -> FilterError {
        let pos = got.map_or(self.src.len(), |(pos, _)| pos);
        FilterError::Expected { expected, pos }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use CmpOp::*;

    fn cmp(field: &str, op: CmpOp, value: Literal) -> Expr {
        let field = field.to_string();
        Expr::Cmp { field, op, value }
    }
    fn s(v: &str) -> Literal {
        Literal::Str(v.to_string())
    }
    fn n(v: f64) -> Literal {
        Literal::Num(v)
    }
    fn and(l: Expr, r: Expr) -> Expr {
        Expr::And(Box::new(l), Box::new(r))
    }
    fn or(l: Expr, r: Expr) -> Expr {
        Expr::Or(Box::new(l), Box::new(r))
    }
    fn expected(expected: &'static str, pos: usize) -> Result<Expr, FilterError> {
        Err(FilterError::Expected { expected, pos })
    }
    /// Single-quotes `v`, backslash-escaping `'` and `\`.
    fn quote(v: &str) -> String {
        let escaped: String =
            v.chars().flat_map(|c| (c == '\'' || c == '\\').then_some('\\').into_iter().chain([c])).collect();
        format!("'{escaped}'")
    }

    #[test]
    fn all_operators_with_and_without_spaces() {
        let ops = [("=", Eq), ("!=", Neq), (">", Gt), (">=", Gte)];
        let more = [("<", Lt), ("<=", Lte), ("~", Like), ("!~", NotLike)];
        for (sym, op) in ops.into_iter().chain(more) {
            assert_eq!(parse_filter(&format!("n {sym} 1")), Ok(cmp("n", op, n(1.0))));
            assert_eq!(parse_filter(&format!("n{sym}1")), Ok(cmp("n", op, n(1.0))));
        }
    }

    #[test]
    fn and_binds_tighter_than_or_and_both_are_left_associative() {
        let a = || cmp("a", Eq, n(1.0));
        let b = || cmp("b", Eq, n(2.0));
        let c = || cmp("c", Eq, n(3.0));
        let cases = [
            ("a = 1 || b = 2 && c = 3", or(a(), and(b(), c()))),
            ("a = 1 && b = 2 || c = 3", or(and(a(), b()), c())),
            ("a = 1 && b = 2 && c = 3", and(and(a(), b()), c())),
            ("a = 1 || b = 2 || c = 3", or(or(a(), b()), c())),
            ("(a = 1 || b = 2) && c = 3", and(or(a(), b()), c())),
            ("a = 1 && (b = 2 || c = 3)", and(a(), or(b(), c()))),
            (" \t\r\n((a=1))\n", a()),
        ];
        for (input, want) in cases {
            assert_eq!(parse_filter(input), Ok(want), "{input}");
        }
        assert_eq!(parse_filter("(a = 1"), expected(")", 6));
        assert_eq!(parse_filter("a = 1)"), expected("end of filter", 5));
        assert_eq!(parse_filter("()"), expected("field or value", 1));
    }

    #[test]
    fn strings_in_both_quote_styles_with_escapes_and_unicode() {
        let cases = [
            ("name = 'bob'", "bob"),
            ("name = \"bob\"", "bob"),
            (r"name = 'it\'s'", "it's"),
            (r#"name = "it's""#, "it's"),
            (r#"name = "a\"b\\c""#, r#"a"b\c"#),
            (r"name = 'a\nb'", "anb"),
            ("name = 'Zoë 日本 🚀'", "Zoë 日本 🚀"),
            ("name = ''", ""),
        ];
        for (input, want) in cases {
            assert_eq!(parse_filter(input), Ok(cmp("name", Eq, s(want))), "{input}");
        }
        let unterminated = Err(FilterError::UnterminatedString { pos: 7 });
        assert_eq!(parse_filter("name = 'abc"), unterminated);
        assert_eq!(parse_filter(r"name = 'abc\'"), unterminated);
        assert_eq!(parse_filter(r"name = 'abc\"), unterminated);
    }

    #[test]
    fn numbers_bools_and_null() {
        let cases = [
            ("n = 42", cmp("n", Eq, n(42.0))),
            ("n > -3.25", cmp("n", Gt, n(-3.25))),
            ("n = 0.5", cmp("n", Eq, n(0.5))),
            ("ok = true", cmp("ok", Eq, Literal::Bool(true))),
            ("ok != false", cmp("ok", Neq, Literal::Bool(false))),
            ("x = null", cmp("x", Eq, Literal::Null)),
            ("true_ish = 1", cmp("true_ish", Eq, n(1.0))),
        ];
        for (input, want) in cases {
            assert_eq!(parse_filter(input), Ok(want), "{input}");
        }
        assert_eq!(parse_filter("n = 1."), Err(FilterError::UnexpectedChar { ch: '.', pos: 5 }));
        assert_eq!(parse_filter("n = 1e5"), expected("end of filter", 5));
        assert_eq!(parse_filter("n = -x"), Err(FilterError::UnexpectedChar { ch: '-', pos: 4 }));
        let huge = format!("n = {}", "9".repeat(400));
        assert_eq!(parse_filter(&huge), expected("finite number", 4));
    }

    #[test]
    fn literal_on_the_left_is_normalized() {
        let cases = [
            ("5 < n", cmp("n", Gt, n(5.0))),
            ("5 <= n", cmp("n", Gte, n(5.0))),
            ("5 > n", cmp("n", Lt, n(5.0))),
            ("5 >= n", cmp("n", Lte, n(5.0))),
            ("'x' = name", cmp("name", Eq, s("x"))),
            ("null != name", cmp("name", Neq, Literal::Null)),
        ];
        for (input, want) in cases {
            assert_eq!(parse_filter(input), Ok(want), "{input}");
        }
        assert_eq!(parse_filter("'x' ~ name"), expected("field", 0));
        assert_eq!(parse_filter("'x' !~ name"), expected("field", 0));
        assert_eq!(parse_filter("a = b"), expected("value", 4));
        assert_eq!(parse_filter("1 = 1"), expected("field", 0));
    }

    #[test]
    fn injection_looking_input_is_just_a_value_or_an_error() {
        let sqlish = parse_filter(r#"name = "x' OR 1=1 --""#);
        assert_eq!(sqlish, Ok(cmp("name", Eq, s("x' OR 1=1 --"))));
        let nested = parse_filter("name = 'a\" || id != \"'");
        assert_eq!(nested, Ok(cmp("name", Eq, s("a\" || id != \""))));
        assert_eq!(parse_filter("name = x; DROP TABLE contacts"), expected("value", 7));
        let semicolon = Err(FilterError::UnexpectedChar { ch: ';', pos: 10 });
        assert_eq!(parse_filter("name = 'x'; DROP TABLE contacts"), semicolon);
        assert!(parse_filter("name = 'x' -- comment").is_err());
    }

    #[test]
    fn rejects_macros_dots_and_unsupported_operators() {
        let at = |pos| Err(FilterError::UnexpectedChar { ch: '@', pos });
        assert_eq!(parse_filter("@request.auth.id = 'x'"), at(0));
        assert_eq!(parse_filter("owner = @request.auth.id"), at(8));
        let dot = Err(FilterError::UnexpectedChar { ch: '.', pos: 5 });
        assert_eq!(parse_filter("owner.name = 'x'"), dot);
        for op in ["?=", "?!=", "?~", "?>", "==", "&", "|", "!", "=~"] {
            assert!(parse_filter(&format!("tags {op} 'x'")).is_err(), "{op}");
        }
        assert!(parse_filter("a = 1 & b = 2").is_err());
        assert!(parse_filter("a = 1 | b = 2").is_err());
    }

    #[test]
    fn trailing_garbage_and_incomplete_input() {
        assert_eq!(parse_filter("a = 1 b"), expected("end of filter", 6));
        assert_eq!(parse_filter("a ="), expected("field or value", 3));
        assert_eq!(parse_filter("a"), expected("operator", 1));
        assert_eq!(parse_filter("a = 1 &&"), expected("field or value", 8));
        assert_eq!(parse_filter("&& a = 1"), expected("field or value", 0));
        assert_eq!(parse_filter(""), Err(FilterError::Empty));
        assert_eq!(parse_filter(" \t\r\n "), Err(FilterError::Empty));
    }

    #[test]
    fn length_limit_is_checked_first() {
        let pad = " ".repeat(MAX_FILTER_LEN - 5);
        assert!(parse_filter(&format!("a = 1{pad}")).is_ok());
        assert_eq!(parse_filter(&format!("a = 1{pad} ")), Err(FilterError::TooLong));
        let parens = "(".repeat(MAX_FILTER_LEN + 1);
        assert_eq!(parse_filter(&parens), Err(FilterError::TooLong));
        // Length is in bytes: 1366 three-byte characters exceed the limit.
        let wide = format!("a = '{}'", "日".repeat(1366));
        assert_eq!(parse_filter(&wide), Err(FilterError::TooLong));
    }

    #[test]
    fn depth_limit() {
        let nested = |k: usize| format!("{}a = 1{}", "(".repeat(k), ")".repeat(k));
        assert!(parse_filter(&nested(MAX_DEPTH)).is_ok());
        assert_eq!(parse_filter(&nested(MAX_DEPTH + 1)), Err(FilterError::TooDeep));
        // Thousands of open parentheses: the depth check fires long before the stack matters.
        assert_eq!(parse_filter(&"(".repeat(4000)), Err(FilterError::TooDeep));
        assert_eq!(parse_filter(&"( ".repeat(2000)), Err(FilterError::TooDeep));
    }

    #[test]
    fn term_limit_and_fields_in_order() {
        let terms = |k: usize| {
            let parts: Vec<String> = (0..k).map(|i| format!("f{i} = {i}")).collect();
            parts.join(" && ")
        };
        let max = parse_filter(&terms(MAX_TERMS)).unwrap();
        let names: Vec<String> = (0..MAX_TERMS).map(|i| format!("f{i}")).collect();
        assert_eq!(max.fields(), names.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(parse_filter(&terms(MAX_TERMS + 1)), Err(FilterError::TooManyTerms));
        let e = parse_filter("b = 1 || (a = 2 && b = 3)").unwrap();
        assert_eq!(e.fields(), vec!["b", "a", "b"]);
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            failure_persistence: None,
            ..ProptestConfig::default()
        })]

        #[test]
        fn never_panics_on_arbitrary_input(input in ".{0,300}") {
            let _ = parse_filter(&input);
        }

        #[test]
        fn never_panics_on_filter_shaped_input(input in r#"[a-c0-9 ()=!<>~&|'"\\.@?_-]{0,300}"#) {
            let _ = parse_filter(&input);
        }

        #[test]
        fn any_quoted_string_round_trips(v in any::<String>()) {
            let parsed = parse_filter(&format!("name = {}", quote(&v)));
            prop_assert_eq!(parsed, Ok(cmp("name", Eq, Literal::Str(v.clone()))));
        }

        #[test]
        fn quote_heavy_strings_round_trip(v in r#"[a '"\\|&()=]{0,60}"#) {
            let parsed = parse_filter(&format!("name = {}", quote(&v)));
            prop_assert_eq!(parsed, Ok(cmp("name", Eq, Literal::Str(v.clone()))));
        }
    }
}
