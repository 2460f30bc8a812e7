//! Splits a PartiQL statement into tokens.

/// One token of a statement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A bare word: a keyword (matched without regard to case) or a name.
    Word(String),
    /// `"name"`: a name, whatever its characters.
    Quoted(String),
    /// `'text'`.
    Str(String),
    /// A number, as written.
    Num(String),
    /// `?`.
    Param,
    /// Punctuation and operators: `( ) [ ] { } , . : * + - = <> != < <= > >= << >>`.
    Sym(&'static str),
}

/// Why a statement could not be split into tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LexError(pub(crate) String);

const SYMBOLS: [&str; 21] =
    ["<<", ">>", "<>", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ".", ":", "*", "+", "-", "=", "<", ">"];

/// The tokens of `text`.
pub(crate) fn tokenize(text: &str) -> Result<Vec<Tok>, LexError> {
    let mut tokens = Vec::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_whitespace() {
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '\'' || c == '"' {
            let (content, after) = quoted(rest, c)?;
            tokens.push(if c == '\'' { Tok::Str(content) } else { Tok::Quoted(content) });
            rest = after;
            continue;
        }
        if c.is_ascii_digit() {
            let end = number_end(rest);
            tokens.push(Tok::Num(rest[..end].to_owned()));
            rest = &rest[end..];
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            tokens.push(Tok::Word(rest[..end].to_owned()));
            rest = &rest[end..];
            continue;
        }
        if c == '?' {
            tokens.push(Tok::Param);
            rest = &rest[1..];
            continue;
        }
        let Some(symbol) = SYMBOLS.iter().find(|s| rest.starts_with(*s)) else {
            return Err(LexError(format!("Unexpected character: '{c}'")));
        };
        tokens.push(Tok::Sym(symbol));
        rest = &rest[symbol.len()..];
    }
    Ok(tokens)
}

/// The text between the quote `quote` that `rest` starts with and its closing quote (a doubled
/// quote stands for one), and what follows.
fn quoted(rest: &str, quote: char) -> Result<(String, &str), LexError> {
    let mut content = String::new();
    let mut chars = rest.char_indices().skip(1).peekable();
    while let Some((at, c)) = chars.next() {
        if c != quote {
            content.push(c);
            continue;
        }
        if chars.peek().is_some_and(|&(_, next)| next == quote) {
            chars.next();
            content.push(quote);
            continue;
        }
        return Ok((content, &rest[at + 1..]));
    }
    Err(LexError("Unterminated quoted text".to_owned()))
}

/// Where the number `rest` starts with ends: digits, a fraction, an exponent.
fn number_end(rest: &str) -> usize {
    let bytes = rest.as_bytes();
    let digits = |mut at: usize| {
        while at < bytes.len() && bytes[at].is_ascii_digit() {
            at += 1;
        }
        at
    };
    let mut end = digits(0);
    if end < bytes.len() && bytes[end] == b'.' && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1);
    }
    if end < bytes.len() && (bytes[end] == b'e' || bytes[end] == b'E') {
        let sign = usize::from(bytes.get(end + 1).is_some_and(|b| *b == b'+' || *b == b'-'));
        if bytes.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1 + sign);
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_splits_into_its_tokens() {
        let tokens = tokenize(r#"SELECT "a b" FROM t WHERE x <> 'it''s' AND n >= 1.5e3 AND s = <<?>>"#).unwrap();
        let shown: Vec<String> = tokens.iter().map(|t| format!("{t:?}")).collect();
        assert_eq!(
            shown.join(" "),
            r#"Word("SELECT") Quoted("a b") Word("FROM") Word("t") Word("WHERE") Word("x") Sym("<>") Str("it's") Word("AND") Word("n") Sym(">=") Num("1.5e3") Word("AND") Word("s") Sym("=") Sym("<<") Param Sym(">>")"#
        );
    }

    #[test]
    fn unterminated_text_and_stray_characters_are_refused() {
        assert!(tokenize("SELECT * FROM 't").is_err());
        assert!(tokenize("SELECT * FROM t WHERE a = #b").is_err());
    }
}
