//! Splits an expression into tokens, remembering where each one starts for error messages.

/// The kinds of token the expression languages use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    /// A bare name: an attribute, a function, or a keyword.
    Ident,
    /// A bare name that starts with `_`, which no name may: DynamoDB's lexer stops at the `_`
    /// and reports it alone (`token: "_"`), though `near` shows the whole name.
    Underscore,
    /// `#name`.
    NamePlaceholder,
    /// `:value`.
    ValuePlaceholder,
    /// A run of digits (list indexes).
    Digits,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    Dot,
    Plus,
    Minus,
    /// A character no token starts with.
    Invalid,
    Eof,
}

/// One token: its kind and its byte span in the source.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Token {
    pub(crate) kind: Tok,
    pub(crate) start: usize,
    pub(crate) end: usize,
}

fn is_ident_part(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Tokenizes `source`; the last token is always `Eof`.
pub(crate) fn tokenize(source: &str) -> Vec<Token> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::with_capacity(bytes.len() / 3 + 2);
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b.is_ascii_whitespace() {
            at += 1;
            continue;
        }
        let start = at;
        let kind = match b {
            b'#' | b':' => {
                at += 1;
                while at < bytes.len() && is_ident_part(bytes[at]) {
                    at += 1;
                }
                if b == b'#' { Tok::NamePlaceholder } else { Tok::ValuePlaceholder }
            }
            b'0'..=b'9' => {
                while at < bytes.len() && bytes[at].is_ascii_digit() {
                    at += 1;
                }
                // A name may not start with a digit: digits followed by letters are one bad token.
                if at < bytes.len() && is_ident_part(bytes[at]) {
                    while at < bytes.len() && is_ident_part(bytes[at]) {
                        at += 1;
                    }
                    Tok::Invalid
                } else {
                    Tok::Digits
                }
            }
            b if b.is_ascii_alphabetic() || b == b'_' => {
                while at < bytes.len() && is_ident_part(bytes[at]) {
                    at += 1;
                }
                if b == b'_' { Tok::Underscore } else { Tok::Ident }
            }
            b'=' => {
                at += 1;
                Tok::Eq
            }
            b'<' => {
                at += 1;
                match bytes.get(at) {
                    Some(b'>') => {
                        at += 1;
                        Tok::Ne
                    }
                    Some(b'=') => {
                        at += 1;
                        Tok::Le
                    }
                    _ => Tok::Lt,
                }
            }
            b'>' => {
                at += 1;
                if bytes.get(at) == Some(&b'=') {
                    at += 1;
                    Tok::Ge
                } else {
                    Tok::Gt
                }
            }
            b'(' | b')' | b'[' | b']' | b',' | b'.' | b'+' | b'-' => {
                at += 1;
                match b {
                    b'(' => Tok::LParen,
                    b')' => Tok::RParen,
                    b'[' => Tok::LBracket,
                    b']' => Tok::RBracket,
                    b',' => Tok::Comma,
                    b'.' => Tok::Dot,
                    b'+' => Tok::Plus,
                    _ => Tok::Minus,
                }
            }
            _ => {
                // One character, whole (it may be multi-byte UTF-8).
                let width = source[at..].chars().next().map_or(1, char::len_utf8);
                at += width;
                Tok::Invalid
            }
        };
        tokens.push(Token { kind, start, end: at });
    }
    tokens.push(Token { kind: Tok::Eof, start: bytes.len(), end: bytes.len() });
    tokens
}
