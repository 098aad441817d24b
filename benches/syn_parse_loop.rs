//! The baseline for the engine's own overhead: read every `.rs` file under a folder and
//! `syn::parse_file` it with span locations on, nothing else, on N threads (stealing per file, as
//! the engine does). `benches/run.sh` times it against `mcp-lint check --no-prefilter`.
//!
//! Usage: syn_parse_loop DIR THREADS

use rayon::prelude::*;

// The same allocator as the `mcp-lint` binary, so the ratio measures the engine, not malloc.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: syn_parse_loop DIR THREADS");
    let threads: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(1);
    let files: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(&dir)
        .hidden(false)
        .build()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).stack_size(64 << 20).build().unwrap();
    let start = std::time::Instant::now();
    let parsed: usize = pool.install(|| {
        files
            .par_iter()
            .with_max_len(1)
            .map(|p| {
                let ok = std::fs::read_to_string(p).is_ok_and(|text| syn::parse_file(&text).is_ok());
                proc_macro2::extra::invalidate_current_thread_spans();
                ok as usize
            })
            .sum()
    });
    eprintln!("{} files, {parsed} parsed, {:.3} s", files.len(), start.elapsed().as_secs_f64());
}
