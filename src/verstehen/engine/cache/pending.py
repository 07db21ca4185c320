"""Results on their way to the cache file: the rows waiting, how a batch of them is written,
and how those waiting on a row are told it is in."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import sqlite3
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field

# One INSERT statement carries this many rows (6 parameters each, under the 999 that the oldest
# SQLite allows): sqlite releases the GIL around each statement, and written row by row a batch
# traded the GIL with the event loop twice a row.
ROWS_PER_INSERT = 150

Waiter = Future[bool] | asyncio.Future[bool]


@dataclass(slots=True)
class Entry:
    """A result waiting to be written, and the futures of those waiting for its first try."""

    key: str
    model: str
    kind: str
    text: str
    sha256: str
    created: float
    waiters: list[Waiter] = field(default_factory=list)


@functools.cache
def _insert(rows: int) -> str:
    return ("INSERT OR REPLACE INTO calls (key, model, kind, response, created, sha256) VALUES "
            + ", ".join(["(?, ?, ?, ?, ?, ?)"] * rows))


def _insert_rows(db: sqlite3.Connection, rows: list[Entry]) -> None:
    db.execute(_insert(len(rows)), [value for e in rows for value in
                                    (e.key, e.model, e.kind, e.text, e.created, e.sha256)])


def write_rows(db: sqlite3.Connection, batch: list[Entry]) -> None:
    """Commit a batch in one transaction (rolled back whole when any part fails)."""
    chunks = [batch[start:start + ROWS_PER_INSERT]
              for start in range(0, len(batch), ROWS_PER_INSERT)]
    if len(chunks) == 1:  # one statement is a transaction of its own
        _insert_rows(db, chunks[0])
        return
    db.execute("BEGIN IMMEDIATE")
    try:
        for rows in chunks:
            _insert_rows(db, rows)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def settle(waiters: list[Waiter], written: bool) -> None:
    """Tell the waiters how a write went: a thread's future and the running loop's futures at
    once, another loop's in one callback on that loop (one wake-up per batch, not per row)."""
    by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Future[bool]]] = {}
    try:
        here = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    for done in waiters:
        if isinstance(done, asyncio.Future):
            by_loop.setdefault(done.get_loop(), []).append(done)
        else:
            with contextlib.suppress(InvalidStateError):  # the awaiter may cancel it meanwhile
                done.set_result(written)
    for loop, futures in by_loop.items():
        if loop is here:
            _settle_on_loop(futures, written)
            continue
        with contextlib.suppress(RuntimeError):  # that loop has closed: nobody waits
            loop.call_soon_threadsafe(_settle_on_loop, futures, written)


def _settle_on_loop(futures: list[asyncio.Future[bool]], written: bool) -> None:
    for done in futures:
        if not done.done():
            done.set_result(written)
