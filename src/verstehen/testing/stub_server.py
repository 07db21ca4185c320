"""A minimal OpenAI-compatible chat endpoint on asyncio streams, for tests and benchmarks.

It answers at once (or after `--delay` seconds), deterministically from the last message,
and counts the requests it served: GET /stats returns {"chat": N}.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

STATS = {"chat": 0}


def chat_answer(body: dict[str, Any]) -> dict[str, Any]:
    """A chat.completion whose text is derived from the last message only."""
    last = body["messages"][-1]["content"]
    text = f"echo: {last}"
    prompt_tokens = sum(len(m["content"].split()) for m in body["messages"])
    return {
        "id": f"stub-{STATS['chat']}",
        "object": "chat.completion",
        "created": 0,
        "model": body.get("model", "stub"),
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text.split()),
                  "total_tokens": prompt_tokens + len(text.split())},
    }


async def read_request(reader: asyncio.StreamReader) -> tuple[str, str, bytes] | None:
    """Method, path and body of one HTTP/1.1 request, or None when the peer closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = lines[0].split(" ", 2)
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    body = await reader.readexactly(length) if length else b""
    return method, path, body


def response(status: int, payload: dict[str, Any]) -> bytes:
    """An HTTP/1.1 response with a JSON body."""
    body = json.dumps(payload).encode()
    reason = {200: "OK", 404: "Not Found"}.get(status, "Error")
    return (f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n\r\n").encode() + body


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def make_handler(delay: float) -> Handler:
    """A connection handler serving /v1/chat/completions and /stats."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while (request := await read_request(reader)) is not None:
            method, path, body = request
            if method == "POST" and path.endswith("/chat/completions"):
                STATS["chat"] += 1
                if delay:
                    await asyncio.sleep(delay)
                writer.write(response(200, chat_answer(json.loads(body))))
            elif path.endswith("/stats"):
                writer.write(response(200, STATS))
            else:
                writer.write(response(404, {"error": {"message": f"no route {path}"}}))
            await writer.drain()
        writer.close()

    return handle


async def serve(host: str, port: int, delay: float) -> None:
    """Serve until killed."""
    server = await asyncio.start_server(make_handler(delay), host, port, backlog=1024)
    async with server:
        await server.serve_forever()


def main() -> None:
    """python -m verstehen.testing.stub_server --port P [--delay S]."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args()
    asyncio.run(serve(args.host, args.port, args.delay))


if __name__ == "__main__":
    main()
