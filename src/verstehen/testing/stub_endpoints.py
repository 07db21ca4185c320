"""Several OpenAI-compatible stub endpoints in one background thread, for tests of a model
with several endpoints.

Each endpoint answers chat completions as `verstehen.testing.stub_server` does (after `delay`
seconds), or whatever `route` returns; it counts the requests it received per prompt and the
most it held at once, and `kill(i)` (or `kill_after={i: n}`, on the n-th chat request) makes
endpoint i go away: its port closes and every open connection is reset unanswered. Given
`models`, each endpoint lists those names on GET /v1/models (else that path is a 404, as on a
server without a model list); /completions stays a 404 unless `route` answers it: a plain
OpenAI-compatible chat server, with no prompt log-probabilities.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from verstehen.testing.loop_thread import LoopThreadServer
from verstehen.testing.stub_server import Handler, chat_answer, read_request, response

Route = Callable[[int, str, str, dict[str, Any]], Awaitable[tuple[int, dict[str, Any]] | None]]


def prompt_of(payload: dict[str, Any]) -> str:
    """The last chat message, or the completion prompt, of a request ('' if none)."""
    messages = payload.get("messages")
    if isinstance(messages, list) and messages and isinstance(messages[-1], dict):
        return str(messages[-1].get("content", ""))
    return str(payload.get("prompt", ""))


def model_list(names: Sequence[str]) -> dict[str, Any]:
    """A /v1/models reply listing these model names (owned by no server kind verstehen
    knows)."""
    return {"object": "list", "data": [{"id": name, "object": "model", "created": 0,
                                        "owned_by": "stub"} for name in names]}


class StubEndpoints(LoopThreadServer):
    """`n` stub endpoints on 127.0.0.1; a context manager (its own thread and event loop)."""

    name = "stub endpoints"

    def __init__(self, n: int, *, delay: float = 0.0, kill_after: dict[int, int] | None = None,
                 route: Route | None = None, models: Sequence[str] | None = None) -> None:
        super().__init__()
        self.n, self.delay, self.kill_after, self.route = n, delay, kill_after or {}, route
        self.models = None if models is None else tuple(models)
        self.received = [Counter[str]() for _ in range(n)]  # requests per prompt, per endpoint
        self.bodies: list[list[dict[str, Any]]] = [[] for _ in range(n)]
        self.in_flight = [0] * n
        self.peak = [0] * n
        self.killed: set[int] = set()
        self.ports: list[int] = []
        self._servers: list[asyncio.Server] = []
        self._transports: list[set[asyncio.WriteTransport]] = [set() for _ in range(n)]

    @property
    def urls(self) -> list[str]:
        """The base URLs, in endpoint order."""
        return [f"http://127.0.0.1:{port}/v1" for port in self.ports]

    def chats(self, i: int) -> int:
        """Chat requests endpoint i received."""
        return sum(self.received[i].values())

    def kill(self, i: int) -> None:
        """Endpoint i goes away now (from any thread)."""
        self._loop.call_soon_threadsafe(self._kill, i)

    def _kill(self, i: int) -> None:
        self.killed.add(i)
        self._servers[i].close()
        for transport in self._transports[i]:
            transport.abort()

    async def _start(self) -> None:
        for i in range(self.n):
            server = await asyncio.start_server(self._handler(i), "127.0.0.1", 0, backlog=1024)
            self._servers.append(server)
            self.ports.append(server.sockets[0].getsockname()[1])

    def _stop_serving(self) -> None:
        for i in range(self.n):
            if i not in self.killed:
                self._kill(i)

    def _handler(self, i: int) -> Handler:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            transport = writer.transport
            self._transports[i].add(transport)
            try:
                while i not in self.killed and (request := await read_request(reader)):
                    method, path, body = request
                    payload = json.loads(body) if body else {}
                    reply = await self._answer(i, method, path, payload)
                    if i in self.killed:
                        return  # gone: the request stays unanswered
                    writer.write(response(*reply))
                    await writer.drain()
            except ConnectionError:
                pass
            finally:
                self._transports[i].discard(transport)
                transport.abort()

        return handle

    async def _answer(self, i: int, method: str, path: str, payload: dict[str, Any]
                      ) -> tuple[int, dict[str, Any]]:
        self.bodies[i].append(payload)
        if method == "POST":
            self.received[i][prompt_of(payload)] += 1
        self.in_flight[i] += 1
        self.peak[i] = max(self.peak[i], self.in_flight[i])
        try:
            if path.endswith("/chat/completions") and self.chats(i) == self.kill_after.get(i):
                self._kill(i)
            if self.delay:
                await asyncio.sleep(self.delay)
            if self.route is not None and (routed := await self.route(i, method, path,
                                                                      payload)) is not None:
                return routed
            if method == "POST" and path.endswith("/chat/completions"):
                return 200, chat_answer(payload)
            if method == "GET" and path.endswith("/models") and self.models is not None:
                return 200, model_list(self.models)
            return 404, {"error": {"message": f"no route {path}"}}
        finally:
            self.in_flight[i] -= 1
