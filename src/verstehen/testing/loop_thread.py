"""A test server on a thread and event loop of its own, used as a context manager."""

from __future__ import annotations

import asyncio
import threading
from typing import TypeVar

S = TypeVar("S", bound="LoopThreadServer")


class LoopThreadServer:
    """Runs `_start` on a new thread's event loop when the block begins and `_stop_serving`
    there when it ends; `_loop` is that loop, for `call_soon_threadsafe` from tests."""

    name = "the test server"

    def __init__(self) -> None:
        self._ready = threading.Event()

    def __enter__(self: S) -> S:
        self._thread = threading.Thread(target=asyncio.run, args=(self._serve(),), daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError(f"{self.name} did not start")
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.call_soon_threadsafe(self._stop.set)
        self._thread.join(10)

    async def _serve(self) -> None:
        self._loop, self._stop = asyncio.get_running_loop(), asyncio.Event()
        await self._start()
        self._ready.set()
        await self._stop.wait()
        self._stop_serving()  # asyncio.run then cancels handlers still waiting

    async def _start(self) -> None:
        """Open the server's sockets (on its loop)."""
        raise NotImplementedError

    def _stop_serving(self) -> None:
        """Close them (on its loop)."""
        raise NotImplementedError


class LocalHttpServer(LoopThreadServer):
    """A LoopThreadServer listening on 127.0.0.1 at a free port, each connection handed to
    `_handle`; `url` is its OpenAI-style base URL."""

    port = 0

    @property
    def url(self) -> str:
        """The base URL clients use."""
        return f"http://127.0.0.1:{self.port}/v1"

    async def _start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self._server.sockets[0].getsockname()[1]

    def _stop_serving(self) -> None:
        self._server.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Serve one connection."""
        raise NotImplementedError
