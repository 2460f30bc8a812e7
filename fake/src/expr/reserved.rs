//! DynamoDB's reserved words: names an expression may not use bare, only through `#placeholders`.

use std::sync::OnceLock;

const WORDS: &str = include_str!("reserved_words.txt");

fn sorted() -> &'static [&'static str] {
    static LIST: OnceLock<Vec<&'static str>> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut words: Vec<&'static str> = WORDS.split_ascii_whitespace().collect();
        words.sort_unstable();
        words
    })
}

/// True if `name` (in any case) is a reserved word.
pub(crate) fn is_reserved(name: &str) -> bool {
    if name.len() > 20 || !name.is_ascii() {
        return false;
    }
    let mut upper = [0u8; 20];
    for (slot, byte) in upper.iter_mut().zip(name.bytes()) {
        *slot = byte.to_ascii_uppercase();
    }
    let upper = &upper[..name.len()];
    sorted().binary_search_by(|word| word.as_bytes().cmp(upper)).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_match_in_any_case() {
        assert!(is_reserved("status"));
        assert!(is_reserved("Name"));
        assert!(is_reserved("ZONE"));
        assert!(is_reserved("abort"));
        assert!(!is_reserved("owner_id"));
        assert!(!is_reserved("pk"));
        assert!(!is_reserved("rvn"));
        assert_eq!(sorted().len(), 573);
    }
}
