fn main() -> std::process::ExitCode {
    mcp_lint::cli::main()
}
