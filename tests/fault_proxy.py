"""A fault-injecting HTTP proxy for tests: 429, 500, dropped connections, slow answers."""

from __future__ import annotations

import asyncio
import json
import re
from collections import Counter

from verstehen.testing.loop_thread import LocalHttpServer
from verstehen.testing.stub_endpoints import prompt_of as payload_prompt
from verstehen.testing.stub_server import read_request

FAULTS = ("429", "500", "drop", "delay")


def reply(status: int, headers: str = "") -> bytes:
    """An HTTP/1.1 error response with an OpenAI-style JSON body."""
    body = json.dumps({"error": {"message": f"injected {status}", "type": "fault"}}).encode()
    return (f"HTTP/1.1 {status} Injected\r\ncontent-type: application/json\r\n{headers}"
            f"content-length: {len(body)}\r\n\r\n").encode() + body


def prompt_of(body: bytes) -> str:
    """The last chat message, or the completion prompt, of a request body ('' if none)."""
    try:
        payload = json.loads(body)
    except ValueError:
        return ""
    return payload_prompt(payload) if isinstance(payload, dict) else ""


class FaultProxy(LocalHttpServer):
    """Forwards requests to 127.0.0.1:`upstream_port`, injecting scripted faults.

    `by_prompt` maps a prompt to the faults of its 1st, 2nd, ... request (None: no fault);
    `by_seq` maps the n-th request (0-based, arrival order) to a fault, for requests past
    their prompt's script. A faulted request is never forwarded; "delay" holds it `delay`
    seconds, then closes. A context manager; it runs on its own thread and event loop.
    """

    name = "the fault proxy"

    def __init__(self, upstream_port: int, *, by_prompt: dict[str, list[str | None]] | None = None,
                 by_seq: dict[int, str] | None = None, delay: float = 3.0) -> None:
        super().__init__()
        self.upstream_port = upstream_port
        self.by_prompt, self.by_seq, self.delay = by_prompt or {}, by_seq or {}, delay
        self.requests = self.forwarded = 0
        self.injected: Counter[str] = Counter()
        self.attempts: Counter[str] = Counter()
        self.forwarded_by_prompt: Counter[str] = Counter()  # paid calls (POSTs), per prompt

    def _fault(self, prompt: str) -> str | None:
        seq, self.requests = self.requests, self.requests + 1
        attempt, planned = self.attempts[prompt], self.by_prompt.get(prompt, [])
        self.attempts[prompt] += 1
        fault = planned[attempt] if attempt < len(planned) else self.by_seq.get(seq)
        if fault is not None:
            self.injected[fault] += 1
        return fault

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while (request := await read_request(reader)) is not None:
                method, path, body = request
                fault = self._fault(prompt_of(body))
                if fault == "delay":
                    await asyncio.sleep(self.delay)
                if fault in ("drop", "delay"):
                    return
                if fault == "429":
                    writer.write(reply(429, "retry-after: 1\r\n"))
                elif fault == "500":
                    writer.write(reply(500))
                else:
                    response = await self._forward(method, path, body)
                    self.forwarded += 1  # before the client can see the reply and read the count
                    if method == "POST":  # a call that is paid for (not GET /v1/models)
                        self.forwarded_by_prompt[prompt_of(body)] += 1
                    writer.write(response)
                await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()

    async def _forward(self, method: str, path: str, body: bytes) -> bytes:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.upstream_port)
        try:
            writer.write((f"{method} {path} HTTP/1.1\r\nhost: 127.0.0.1:{self.upstream_port}\r\n"
                          f"content-type: application/json\r\ncontent-length: {len(body)}\r\n"
                          "connection: close\r\n\r\n").encode() + body)
            await writer.drain()
            head = await reader.readuntil(b"\r\n\r\n")
            length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
            return head + await reader.readexactly(int(length[1]) if length else 0)
        finally:
            writer.close()
