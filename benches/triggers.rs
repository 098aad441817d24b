//! Prints the enabled rules' trigger words, one per line: the benchmark gives ripgrep the same
//! words as an equivalent search.

fn main() {
    let mut words: Vec<&str> = mcp_lint::rules::ALL.iter().flat_map(|r| r.meta().triggers.iter().copied()).collect();
    words.sort_unstable();
    words.dedup();
    for w in words {
        println!("{w}");
    }
}
