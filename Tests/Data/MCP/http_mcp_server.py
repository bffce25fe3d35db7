#!/usr/bin/env python3
"""An MCP server over HTTP for Loopl's tests, written with the official `mcp` SDK (MCPServer, once FastMCP).

Usage: http_mcp_server.py TRANSPORT [time], where TRANSPORT is "streamable-http" (the endpoint
is /mcp) or "sse" (the 2024-11-05 HTTP+SSE transport: the stream is /sse). It listens on a free
port of 127.0.0.1 and prints "PORT <n>" on stdout once it accepts connections.
Tools: echo (says the text back), add (a + b), steps (sends progress notifications, then its result).
With "time", it serves mcp-server-time's own server instead: its command line offers stdio only,
but its create_server() builds an SDK server, which any of the SDK's transports can carry.
"""
import socket
import sys

import anyio
import uvicorn
from mcp.server.mcpserver import Context, MCPServer

TRANSPORT = sys.argv[1] if len(sys.argv) > 1 else "streamable-http"
TIME = len(sys.argv) > 2 and sys.argv[2] == "time"
server = MCPServer("loopl-http-test")


@server.tool()
def echo(text: str) -> str:
    """Says the text back."""
    return text


@server.tool()
def add(a: int, b: int) -> int:
    """Adds two integers."""
    return a + b


@server.tool()
async def steps(count: int, ctx: Context) -> str:
    """Sends `count` progress notifications, then says how many."""
    for step in range(count):
        await ctx.session.send_progress_notification(
            progress_token="steps", progress=step + 1, total=count, related_request_id=ctx.request_id
        )
        await anyio.sleep(0.05)
    return f"done after {count} steps"


async def main():
    served = server
    if TIME:
        from mcp_server_time.server import create_server

        served = create_server("UTC")
    app = served.sse_app() if TRANSPORT == "sse" else served.streamable_http_app()
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning")
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(web.serve, [listener])
        while not web.started:
            await anyio.sleep(0.02)
        print(f"PORT {port}", flush=True)


anyio.run(main)
