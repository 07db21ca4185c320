"""`Cache`: one SQLite (WAL) file of model calls.

Reads run on the caller's thread and never wait long: a locked, damaged or unparsable row is a
miss, and the call is asked again. Writes are `writes.Writes`'s: never a failed run or a
stalled loop, a result waiting in memory (and served from there) until it is written. Each row
carries the SHA-256 of its response, checked on every read; the runner checks the value's
shape too (`values`). A write that fails on the disk (full, an I/O error) stops the run
(`raise_write_failure`).
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from concurrent.futures import Future
from pathlib import Path
from typing import TypedDict

from verstehen.engine.cache.keys import cache_file, checksum
from verstehen.engine.cache.schema import is_busy, migrate, user_error, warn
from verstehen.engine.cache.values import CachedValue
from verstehen.engine.cache.writes import Writes
from verstehen.errors import UserError
from verstehen.text.tables import plural

BUSY_TIMEOUT = 30.0  # seconds of a locked file before the run says so; also the wait at close
READ_TIMEOUT = 0.1  # a read waits this long on a lock (on the event loop), then is a miss


class ModelEntries(TypedDict):
    """How many entries one model has of one kind of call."""

    model: str
    kind: str
    entries: int


class CacheStats(TypedDict):
    """The cache file, its size in bytes (with its WAL file), and its entries."""

    path: str
    bytes: int
    entries: int
    by_model: list[ModelEntries]


class Cache:
    """One SQLite file in WAL mode: reads here, each result committed before its caller sees it
    (or kept in memory and retried while another process holds the file's lock).

    `busy_timeout` is how long the file may stay unwritable before the run says so (one line on
    stderr), and how long `close` waits for it to be written at the end.
    """

    def __init__(self, path: Path | str | None = None, *,
                 busy_timeout: float = BUSY_TIMEOUT) -> None:
        self.path = cache_file(path)
        self.busy_timeout = busy_timeout
        self._writes = Writes(self.path, busy_timeout)
        self._damaged: set[str] = set()
        self._unread = 0
        self._unread_reason = ""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=READ_TIMEOUT, isolation_level=None)
        except (OSError, sqlite3.Error) as exc:
            raise UserError(
                f"cannot open the cache {self.path} ({exc}): pass --cache or set VERSTEHEN_CACHE"
            ) from None
        try:
            self._open()
        except sqlite3.Error as exc:
            self._db.close()
            raise user_error(self.path, exc) from None

    def _open(self) -> None:
        # locked by another process: it made the file (WAL), and the writer migrates it later
        try:
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            migrate(self._db)
        except sqlite3.OperationalError as exc:
            if not is_busy(exc):
                raise

    def get(self, key: str) -> dict[str, object] | None:
        """The stored response for a key (written or still in memory), or None.

        A row that is locked, unreadable, fails its checksum or does not parse is None too. A
        row is any JSON object until the runner checks its shape (`values`).
        """
        entry = self._writes.waiting(key)
        if entry is not None:
            response: dict[str, object] = json.loads(entry.text)
            return response
        try:
            row = self._db.execute(
                "SELECT response, sha256 FROM calls WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            if isinstance(exc, sqlite3.OperationalError) and "no such" in str(exc):
                return None  # a new file whose table the writer has yet to make
            self._unread += 1
            self._unread_reason = str(exc)
            return None
        if row is None:
            return None
        text, sha = row
        try:
            if not isinstance(text, str) or (sha is not None and sha != checksum(text)):
                raise ValueError("checksum")
            value = json.loads(text)
            if not isinstance(value, dict):
                raise ValueError("not an object")
        except ValueError:
            self._damaged.add(key)
            return None
        return value

    def ignore(self, key: str) -> None:
        """Count the row under `key` as damaged (its value is of no shape a call returns): it is
        asked again, and the run says so once at the end."""
        self._damaged.add(key)

    def raise_write_failure(self) -> None:
        """Raise `CacheUnwritable` once a write has failed on the disk (full, an I/O error)."""
        if (failure := self._writes.unwritable()) is not None:
            raise failure

    def put(self, key: str, model: str, kind: str, response: CachedValue) -> Future[bool]:
        """Store a response: in memory at once, in the file as soon as the writer can.

        The future is True once the row is committed, False when the first try failed (the
        result stays in memory and the writer keeps retrying); it never blocks the caller.
        """
        return self._writes.put(key, model, kind, response)

    def store(self, key: str, model: str, kind: str, response: CachedValue
              ) -> asyncio.Future[bool]:
        """`put` from a coroutine: await the future for the first write attempt, which never
        blocks the event loop (the rows of one loop are committed on it, many to a commit)."""
        return self._writes.store(key, model, kind, response)

    def pending(self) -> int:
        """How many results are in memory, not yet written to the file."""
        return self._writes.pending()

    def stats(self) -> CacheStats:
        """Entries per model and kind, and the file's size."""
        try:
            rows = self._db.execute(
                "SELECT model, kind, COUNT(*) FROM calls GROUP BY model, kind ORDER BY model, kind"
            ).fetchall()
        except sqlite3.Error as exc:
            raise user_error(self.path, exc) from None
        size = sum(
            p.stat().st_size
            for p in (self.path, Path(f"{self.path}-wal"))
            if p.exists()
        )
        return {
            "path": str(self.path),
            "bytes": size,
            "entries": sum(count for _, _, count in rows),
            "by_model": [{"model": m, "kind": k, "entries": c} for m, k, c in rows],
        }

    def clear(self, model: str | None = None) -> int:
        """Delete every entry, or those of one model; return how many went."""
        self._db.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        try:
            migrate(self._db)
            if model is None:
                deleted = self._db.execute("DELETE FROM calls").rowcount
            else:
                deleted = self._db.execute("DELETE FROM calls WHERE model = ?", (model,)).rowcount
            self._db.execute("VACUUM")
        except sqlite3.Error as exc:
            raise user_error(self.path, exc) from None
        finally:
            self._db.execute(f"PRAGMA busy_timeout = {int(READ_TIMEOUT * 1000)}")
        return deleted

    def _report(self) -> None:
        """One line for each kind of trouble this run had with the file; each said once."""
        self._writes.close()
        if self._damaged:
            damaged = plural(len(self._damaged), "damaged entry", "damaged entries")
            warn(f"cache {self.path}: {damaged} ignored and re-asked")
        if self._unread:
            warn(f"cache {self.path}: {plural(self._unread, 'read')} failed "
                  f"({self._unread_reason}) and {'was' if self._unread == 1 else 'were'} asked "
                  "again; if this goes on, move it away or pass --cache NEW")
        self._damaged.clear()
        self._unread = 0

    def close(self) -> None:
        """Write what is pending, close, and say (once) what could not be read or written."""
        self._writes.finish()
        self._db.close()
        self._report()

    async def aclose(self) -> None:
        """`close` for a coroutine: the event loop runs on while pending results are written."""
        await asyncio.to_thread(self._writes.finish)
        self._db.close()
        self._report()
