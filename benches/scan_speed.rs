//! Throughput of the prefilter's first pass against the other ways to search for the same words,
//! over every `.rs` file under a folder held in memory (no I/O): the measurement behind the
//! choice in `src/prefilter.rs`. Usage: scan_speed DIR (e.g. target/bench/corpus-1x).

use std::time::Instant;

use aho_corasick::{AhoCorasick, AhoCorasickKind, packed};
use mcp_lint::prefilter::{Prefilter, split_word};

fn main() {
    let dir = std::env::args().nth(1).expect("usage: scan_speed DIR");
    let files: Vec<Vec<u8>> = ignore::WalkBuilder::new(&dir)
        .hidden(false)
        .build()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .filter_map(|e| std::fs::read(e.path()).ok())
        .collect();
    let total: usize = files.iter().map(|f| f.len()).sum();
    let mut words: Vec<&str> = Vec::new();
    for rule in mcp_lint::rules::ALL {
        words.extend(rule.meta().trigger_lists().iter().flat_map(|(_, list)| *list).map(|w| split_word(w).0));
    }
    words.sort();
    words.dedup();
    println!("{} files, {} MB, {} words", files.len(), total / 1_000_000, words.len());
    let time = |name: &str, is_match: &dyn Fn(&[u8]) -> bool| {
        let start = Instant::now();
        let hits = files.iter().filter(|b| is_match(b)).count();
        let secs = start.elapsed().as_secs_f64();
        println!("{name:44} {hits:6} files {secs:.3} s {:6.0} MB/s", total as f64 / secs / 1e6);
    };
    time("UTF-8 check (memory bandwidth)", &|b| std::str::from_utf8(b).is_ok());
    let built = Instant::now();
    let prefilter = Prefilter::new(mcp_lint::rules::ALL, true);
    println!("Prefilter::new: {:.2} ms", built.elapsed().as_secs_f64() * 1e3);
    let first_pass = prefilter.first_pass_words(mcp_lint::source::FileKind::Rust);
    if std::env::var_os("SCAN_SPEED_WORDS").is_some() {
        println!("{first_pass:?}");
    }
    let label = format!("Prefilter::may_matter (the engine, {} words)", first_pass.len());
    time(&label, &|b| prefilter.may_matter(b, mcp_lint::source::FileKind::Rust));
    // The second stage, on the files the first pass lets through.
    let rust = mcp_lint::source::FileKind::Rust;
    let passing: Vec<&Vec<u8>> = files.iter().filter(|b| prefilter.may_matter(b, rust)).collect();
    let passing_mb = passing.iter().map(|b| b.len()).sum::<usize>() as f64 / 1e6;
    let scan_start = Instant::now();
    let activations: usize = passing.iter().map(|b| prefilter.scan(b, rust).active.len()).sum();
    let scan_ms = scan_start.elapsed().as_secs_f64() * 1e3;
    println!(
        "Prefilter::scan of the {} passing files ({passing_mb:.1} MB): {scan_ms:.1} ms, {activations} rule activations",
        passing.len()
    );
    let default = AhoCorasick::new(&words).unwrap();
    time("aho-corasick, default automaton", &|b| default.is_match(b));
    let dfa = AhoCorasick::builder().kind(Some(AhoCorasickKind::DFA)).build(&words).unwrap();
    time("aho-corasick DFA", &|b| dfa.is_match(b));
    time("aho-corasick DFA, overlapping (every word)", &|b| dfa.find_overlapping_iter(b).count() > 0);
    let alternation: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    let regex = regex::bytes::Regex::new(&alternation.join("|")).unwrap();
    time("regex alternation", &|b| regex.is_match(b));
    for group in [16, 32, 64] {
        let teddy: Vec<packed::Searcher> =
            words.chunks(group).map(|c| packed::Config::new().builder().extend(c).build().expect("SIMD")).collect();
        time(&format!("Teddy, groups of {group} words"), &|b| teddy.iter().any(|s| s.find(b).is_some()));
    }
    let era = mcp_lint::context::era::EraScanner::default();
    time("era scanner (protocol revisions)", &|b| era.file_signals(b).legacy.is_some());
}
