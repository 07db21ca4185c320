"""Likelihood calls collected into batches for a model that scores many at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from verstehen.models.base import BatchLogprobs, settle


class LogprobBatcher:
    """Gathers the likelihood calls made to one model while it is busy and sends them as one
    `logprobs_batch` call: calls that arrive together (a procedure's `gather`) share a batch."""

    def __init__(self, model: BatchLogprobs, limit: asyncio.Semaphore, size: int) -> None:
        self._model = model
        self._limit = limit
        self._size = size
        self._waiting: list[tuple[str, Sequence[str], asyncio.Future[list[float]]]] = []
        self._sender: asyncio.Task[None] | None = None

    async def submit(self, context: str, continuations: Sequence[str]) -> list[float]:
        """The log-probabilities of the continuations, scored in the next batch."""
        future: asyncio.Future[list[float]] = asyncio.get_running_loop().create_future()
        self._waiting.append((context, continuations, future))
        if self._sender is None or self._sender.done():
            # starts after the calls already scheduled have queued theirs
            self._sender = asyncio.create_task(self._send())
        return await future

    async def _send(self) -> None:
        while self._waiting:
            batch = [entry for entry in self._waiting[: self._size] if not entry[2].done()]
            del self._waiting[: self._size]
            if not batch:
                continue
            try:
                async with self._limit:
                    outcomes = await self._model.logprobs_batch(
                        [(context, continuations) for context, continuations, _ in batch])
            except Exception as exc:  # the whole batch failed: each caller decides on retrying
                for *_, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (*_, future), outcome in zip(batch, outcomes, strict=True):
                settle(future, outcome)
