//! `cargo mcp-lint …`: cargo finds this binary on PATH after `cargo install` and runs it with `mcp-lint` as
//! the first argument (as it does `cargo-clippy clippy …`); without that argument it is the plain CLI.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|arg| arg == "mcp-lint") {
        args.remove(1);
    }
    mcp_lint::cli::main_as("cargo mcp-lint", mcp_lint::cli::DefaultPaths::Package, args)
}
