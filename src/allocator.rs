//! The allocator's settings. mimalloc is the global allocator of the binary (`main.rs`), which
//! calls `return_freed_pages` first. The benchmark's bare parse loop keeps mimalloc's defaults:
//! purging makes that loop 3–5 % slower, and the baseline of a ratio is the loop at its fastest.

/// mimalloc's `mi_option_purge_delay`: its place in `mi_option_e` (mimalloc v3's `mimalloc.h`);
/// libmimalloc-sys exports no constant for it.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// How long a freed, empty page stays resident before mimalloc hands it back to the OS.
const PURGE_DELAY_MS: std::ffi::c_long = 25;

/// Hands freed pages back to the OS 25 ms after they fall empty instead of after mimalloc v3's
/// default second, which is longer than a whole run: every syntax tree a run had freed stayed
/// resident, so the peak was the sum of them. On the benchmark corpus (2 threads) the peak went
/// from 89–96 MiB to 68–71 MiB at the same wall time; purging at once (0 ms) cost 7 %.
/// `MIMALLOC_PURGE_DELAY` in the environment still decides. Call it first thing in `main`:
/// mimalloc's options are not meant to change under other threads.
pub fn return_freed_pages() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets one integer option of the C allocator before any thread of ours exists.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Option 15 is the purge delay: its documented default (1000 ms in v3) until we set it. A
    /// mimalloc upgrade that reorders its options fails here, not silently in the field.
    #[test]
    fn the_option_set_is_the_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return;
        }
        // SAFETY: reads and sets one integer option; no other test touches mimalloc's options.
        unsafe {
            assert_eq!(libmimalloc_sys::mi_option_get(PURGE_DELAY), 1000);
            return_freed_pages();
            assert_eq!(libmimalloc_sys::mi_option_get(PURGE_DELAY), PURGE_DELAY_MS);
        }
    }
}
