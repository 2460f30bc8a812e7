//! DynamoDB's reserved words: names an expression may not use bare, only through `#placeholders`.

use std::sync::OnceLock;

const WORDS: &str = include_str!("reserved_words.txt");

/// No reserved word is longer (the longest has 14 letters): longer names are not looked up.
const LONGEST: usize = 20;

/// The reserved words grouped by length (`words[lengths[n]..lengths[n + 1]]` have `n` letters),
/// each group sorted: a lookup compares only words of the right length.
struct Table {
    words: Vec<&'static str>,
    lengths: [usize; LONGEST + 2],
}

fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut words: Vec<&'static str> = WORDS.split_ascii_whitespace().collect();
        words.sort_unstable_by(|a, b| (a.len(), *a).cmp(&(b.len(), *b)));
        let mut lengths = [0; LONGEST + 2];
        for (n, start) in lengths.iter_mut().enumerate() {
            *start = words.partition_point(|word| word.len() < n);
        }
        Table { words, lengths }
    })
}

/// True if `name` (in any case) is a reserved word.
pub(crate) fn is_reserved(name: &str) -> bool {
    if name.is_empty() || name.len() > LONGEST || !name.is_ascii() {
        return false;
    }
    let mut upper = [0u8; LONGEST];
    for (slot, byte) in upper.iter_mut().zip(name.bytes()) {
        *slot = byte.to_ascii_uppercase();
    }
    let upper = &upper[..name.len()];
    let table = table();
    let same_length = &table.words[table.lengths[name.len()]..table.lengths[name.len() + 1]];
    same_length.binary_search_by(|word| word.as_bytes().cmp(upper)).is_ok()
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
        assert_eq!(table().words.len(), 573);
    }

    #[test]
    fn every_listed_word_is_found_and_its_neighbours_only_if_listed() {
        let listed: std::collections::BTreeSet<&str> = WORDS.split_ascii_whitespace().collect();
        for word in &listed {
            assert!(is_reserved(word), "{word}");
            assert!(is_reserved(&word.to_ascii_lowercase()), "{word}");
            let longer = format!("{word}S");
            assert_eq!(is_reserved(&longer), listed.contains(longer.as_str()), "{longer}");
            assert_eq!(is_reserved(&word[1..]), listed.contains(&word[1..]), "{word}");
        }
        assert!(!is_reserved(""));
    }
}
