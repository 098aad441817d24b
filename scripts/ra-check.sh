#!/bin/sh
# rust-analyzer's check command with mcp-lint's findings beside cargo's: both print cargo's JSON
# message lines, which rust-analyzer reads as one stream. Set it as
#   "rust-analyzer.check.overrideCommand": ["sh", "scripts/ra-check.sh"]
# Arguments go to `cargo check` (e.g. `--all-targets`); MCP_LINT and CARGO choose the binaries.
#
# Exit status: 0 when both ran (findings and compile errors included: they are in the output);
# otherwise the status of the one that could not run.
cargo=${CARGO:-cargo}
mcp_lint=${MCP_LINT:-mcp-lint}

"$cargo" check --workspace --message-format=json "$@"
cargo_status=$?
"$mcp_lint" check --format cargo-json --quiet
lint_status=$?

# cargo exits 101 on compile errors, mcp-lint 1 on findings: both are results, not failures.
if [ "$cargo_status" -ne 0 ] && [ "$cargo_status" -ne 101 ]; then
    exit "$cargo_status"
fi
if [ "$lint_status" -gt 1 ]; then
    exit "$lint_status"
fi
exit 0
