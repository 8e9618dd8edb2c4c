"""A real MCP client (the Python `mcp` package, pinned in scripts/setup) talking to
sightline-mcp, for tests/e2e/agents.test.mjs. Prints one JSON object: what each call answered,
for the Node test to check against the page. Usage:

  mcp_session.py session  http://127.0.0.1:PORT/mcp        the whole session on the todo page
  mcp_session.py refused  http://127.0.0.1:PORT/mcp        a call while no extension is paired
  mcp_session.py stdio    BIN ARG...                         list tools and a snapshot over stdio

Over HTTP every request carries the pairing token from SIGHTLINE_TOKEN as
`Authorization: Bearer <token>` (the server refuses any request without it); over stdio the
test names the server's token file in ARG (--token-file), never the token itself.
Every wait is bounded: the client's read timeout, and asyncio.wait_for around the whole run.
"""

import asyncio
import contextlib
import json
import os
import re
import sys

from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.types import Implementation

AGENT = Implementation(name="sightline-e2e-agent", version="1.0")


@contextlib.asynccontextmanager
async def http(url):
    """The streamable HTTP transport to `url`, each request with the Bearer token."""
    token = os.environ.get("SIGHTLINE_TOKEN", "")
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            yield streams


def blocks(result):
    out = []
    for c in result.content:
        if c.type == "text":
            out.append({"type": "text", "text": c.text})
        elif c.type == "image":
            out.append({"type": "image", "mimeType": c.mime_type, "bytes": len(c.data)})
    code = (result.structured_content or {}).get("code") if isinstance(result.structured_content, dict) else None
    return {"isError": bool(result.is_error), "code": code, "content": out}


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


def element(snapshot_text, pattern):
    for line in snapshot_text.splitlines():
        m = re.match(r"\s*\[(\d+)\]", line)
        if m and re.search(pattern, line):
            return int(m.group(1))
    raise AssertionError(f"no element line matches {pattern!r} in:\n{snapshot_text}")


async def session(url):
    log = {}
    async with Client(http(url), client_info=AGENT, read_timeout_seconds=90) as c:
        tools = (await c.list_tools()).tools
        log["tools"] = sorted(t.name for t in tools)

        listed = await c.call_tool("tabs", {"action": "list"})
        todo_tab = next(int(l.split(":")[0].split(" ")[0]) for l in text_of(listed).splitlines() if "todo.html" in l)
        log["select"] = blocks(await c.call_tool("tabs", {"action": "select", "tab": todo_tab}))

        snap = await c.call_tool("snapshot", {})
        log["snapshot"] = blocks(snap)
        field = element(text_of(snap), r"What needs to be done")
        log["input"] = blocks(await c.call_tool("input", {"element": field, "text": "buy milk"}))
        log["key"] = blocks(await c.call_tool("key", {"key": "Enter", "element": field}))

        snap = await c.call_tool("snapshot", {})
        toggle = element(text_of(snap), r"Toggle buy milk")
        log["tap"] = blocks(await c.call_tool("tap", {"element": toggle}))

        progress = []

        async def on_progress(done, total, message):
            progress.append({"progress": done, "message": message})

        log["act"] = blocks(
            await c.call_tool("act", {"instruction": "add a todo 'walk dog'"}, progress_callback=on_progress)
        )
        log["progress"] = progress

        shot = await c.call_tool("screenshot", {})
        log["screenshot"] = blocks(shot)
        log["console"] = blocks(await c.call_tool("console_messages", {}))

        # Bad requests: each an MCP error or a tool error, never a hang.
        try:
            await c.call_tool("tap", {})
            log["tapWithoutTarget"] = {"raised": False}
        except MCPError as e:
            data = e.error.data if isinstance(e.error.data, dict) else {}
            log["tapWithoutTarget"] = {"raised": True, "code": e.error.code, "reason": data.get("code"), "message": e.error.message}
        log["tapWrongType"] = blocks(await c.call_tool("tap", {"element": "abc"}))
        try:
            await c.call_tool("fly", {})
            log["unknownTool"] = {"raised": False}
        except MCPError as e:
            log["unknownTool"] = {"raised": True, "code": e.error.code, "message": e.error.message}
        log["missingElement"] = blocks(await c.call_tool("tap", {"element": 9999}))
        log["outsideSite"] = blocks(await c.call_tool("navigate", {"url": "javascript:alert(1)"}))
    return log


async def refused(url):
    async with Client(http(url), client_info=AGENT, read_timeout_seconds=30) as c:
        return {"snapshot": blocks(await c.call_tool("snapshot", {}))}


async def stdio(command, args):
    params = StdioServerParameters(command=command, args=args)
    async with Client(params, client_info=AGENT, read_timeout_seconds=30, mode="legacy") as c:
        tools = sorted(t.name for t in (await c.list_tools()).tools)
        # The extension reconnects on its own (every 3 s): wait for it, bounded.
        for _ in range(40):
            snap = await c.call_tool("snapshot", {})
            if not snap.is_error:
                break
            await asyncio.sleep(0.5)
        return {"tools": tools, "snapshot": blocks(snap)}


async def main():
    mode, rest = sys.argv[1], sys.argv[2:]
    work = {"session": lambda: session(rest[0]), "refused": lambda: refused(rest[0]), "stdio": lambda: stdio(rest[0], rest[1:])}[mode]
    print(json.dumps(await asyncio.wait_for(work(), timeout=240)))


if __name__ == "__main__":
    asyncio.run(main())
