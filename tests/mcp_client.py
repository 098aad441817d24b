"""Drives `mcp-lint mcp` with the official MCP Python SDK's client (PyPI `mcp` 2.x) over stdio, as an agent would.

Run by tests/mcp_server.rs:

    python tests/mcp_client.py MCP_LINT_BINARY FIXTURE_CRATE EXPECTED_JSON

FIXTURE_CRATE is relative to the current folder (the server's folder); EXPECTED_JSON holds what
`mcp-lint check --format json FIXTURE_CRATE` printed. Prints `all checks passed` when every check passed,
and fails (an AssertionError, exit 1) at the first that does not.
"""

import json
import sys

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

TOOLS = ["check", "explain", "fix", "rules", "summary"]


def text_of(result):
    return "".join(block.text for block in result.content if getattr(block, "type", None) == "text")


async def modern(binary, crate, expected):
    server = StdioServerParameters(command=binary, args=["mcp"])
    # "auto": probe server/discover, fall back to initialize only for a legacy server.
    async with Client(server, mode="auto") as client:
        assert client.protocol_version == "2026-07-28", client.protocol_version
        assert client.server_info is not None and client.server_info.name == "mcp-lint", client.server_info

        tools = (await client.list_tools()).tools
        assert sorted(t.name for t in tools) == TOOLS, [t.name for t in tools]
        for tool in tools:
            assert tool.output_schema is not None, tool.name
            assert tool.input_schema["type"] == "object", tool.name

        # `check` on the fixture crate: the CLI's JSON findings, as structured content (the SDK
        # validates it against the tool's output schema).
        result = await client.call_tool("check", {"paths": [crate]})
        assert not result.is_error, text_of(result)
        assert result.structured_content["findings"] == expected, result.structured_content
        assert "server-roots-request" in text_of(result), text_of(result)

        # `fix`: a preview (nothing written) of the safe fixes and the roots codemod.
        result = await client.call_tool("fix", {"paths": [crate], "unsafe": True})
        assert not result.is_error, text_of(result)
        preview = result.structured_content
        assert preview["wrote"] is False
        assert f"+++ b/{crate}/src/server.rs" in preview["diff"], preview["diff"]
        assert preview["unsafe_fixes"], preview

        # A rule's page as a resource.
        listed = (await client.list_resources()).resources
        assert any(str(r.uri) == "mcp-lint://rules/server-roots-request" for r in listed), listed
        page = await client.read_resource("mcp-lint://rules/server-roots-request")
        assert page.contents[0].mime_type == "text/markdown", page.contents[0]
        assert "server-roots-request" in page.contents[0].text

        # A path that does not exist, and one outside the server's folder: tool errors, and the
        # server goes on answering.
        result = await client.call_tool("check", {"paths": [f"{crate}/no-such-file.rs"]})
        assert result.is_error and "no such file" in text_of(result), text_of(result)
        result = await client.call_tool("check", {"paths": ["../"]})
        assert result.is_error and "outside the folders" in text_of(result), text_of(result)
        result = await client.call_tool("check", {"paths": ["/etc/passwd"]})
        assert result.is_error and "outside the folders" in text_of(result), text_of(result)
        result = await client.call_tool("explain", {"rule": "root-prefix-check"})
        assert not result.is_error and text_of(result).startswith("#"), text_of(result)


async def legacy(binary, crate):
    server = StdioServerParameters(command=binary, args=["mcp"])
    # The initialize handshake, as most agents still connect.
    async with Client(server, mode="legacy") as client:
        assert client.protocol_version != "2026-07-28", client.protocol_version
        tools = (await client.list_tools()).tools
        assert sorted(t.name for t in tools) == TOOLS
        result = await client.call_tool("check", {"paths": [crate], "select": ["server-roots-request"]})
        assert not result.is_error and result.structured_content["total"] > 0, text_of(result)


async def main():
    binary, crate, expected_file = sys.argv[1:4]
    with open(expected_file, encoding="utf-8") as f:
        expected = json.load(f)
    assert expected, "the fixture crate has findings"
    await modern(binary, crate, expected)
    await legacy(binary, crate)
    print("all checks passed")


if __name__ == "__main__":
    anyio.run(main)
