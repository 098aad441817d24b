//! How messages spell names and counts: "did you mean" (the known name closest to a misspelt
//! one, as clap suggests flags) and plurals ("1 file", "2 files").

/// `word` for one, `words` otherwise (every noun the messages count takes an `s`).
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 { word.to_owned() } else { format!("{word}s") }
}

/// "1 file", "2 files".
pub fn count(n: usize, word: &str) -> String {
    format!("{n} {}", plural(n, word))
}

/// The candidate most like `name`, if one is close enough to be what was meant.
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    // clap's threshold for subcommands and flags; for kebab-case names it catches a dropped,
    // doubled or swapped letter, a missing `s`, without offering unrelated names.
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(name, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

/// `; did you mean `x`?` for a message, or `otherwise`.
pub fn hint<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>, otherwise: &str) -> String {
    closest(name, candidates).map_or_else(|| otherwise.to_owned(), |c| format!("; did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn close_names_only() {
        let rules = ["server-roots-request", "roots-list-changed", "removed-method"];
        assert_eq!(closest("server-roots-requests", rules), Some("server-roots-request"));
        assert_eq!(closest("roots-listchanged", rules), Some("roots-list-changed"));
        assert_eq!(closest("remvoed-method", rules), Some("removed-method"));
        assert_eq!(closest("no-such-rule", rules), None);
        assert_eq!(closest("exlcude", ["select", "ignore", "exclude"]), Some("exclude"));
        assert_eq!(hint("x", rules, "; none"), "; none");
        assert_eq!(
            (count(1, "file"), count(0, "file"), count(2, "finding")),
            ("1 file".into(), "0 files".into(), "2 findings".into())
        );
    }
}
