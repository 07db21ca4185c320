"""Getting results into the cache file.

Rows stored from an event loop are committed on that loop, many to a commit, by a connection
that never waits for a lock. A file another process keeps locked (or any failed write) hands
them to a background thread with a connection of its own, so the run neither fails nor stalls:
a result waits in memory (and is served from there) until it is written, and the thread retries
with backoff. (A writer thread for every row, beside a busy loop, cost more than the writes: the
two traded the GIL several times a commit.)

A write that fails on the disk itself (full, a file-size limit, an I/O error, a file it cannot
open) is different: every later result would be paid for and lost, so it is kept as a
`CacheUnwritable` the runner raises before its next call.
"""

from __future__ import annotations

import asyncio
import errno
import resource
import sqlite3
import threading
import time
from concurrent.futures import Future
from pathlib import Path

from verstehen.engine.cache.keys import RESPONSE_JSON, checksum, escaped_json
from verstehen.engine.cache.pending import Entry, Waiter, settle, write_rows
from verstehen.engine.cache.schema import is_busy, migrate, warn
from verstehen.engine.cache.values import CachedValue, storable
from verstehen.text.tables import plural

WRITE_ATTEMPT_TIMEOUT = 0.2  # sqlite's busy wait in one write attempt (writer thread)
BACKOFF_FIRST, BACKOFF_CAP = 0.05, 2.0  # the writer's retry delays double between these
IDLE_EXIT = 2.0  # an idle writer thread ends after this many seconds (a new put starts one)
COMMIT_SPACING, COMMIT_GAP_CAP = 4.0, 0.1  # commit at most 1/5 of the time: rows arriving
# meanwhile share the next commit (one costs much the same for 1 row or 50)


# SQLite's codes for a disk that refuses writes: ENOSPC is SQLITE_FULL; EFBIG (a file-size
# limit) and EIO are SQLITE_IOERR; EMFILE or a vanished folder is SQLITE_CANTOPEN
_DISK_FAULTS = {sqlite3.SQLITE_FULL: errno.ENOSPC, sqlite3.SQLITE_IOERR: errno.EIO,
                sqlite3.SQLITE_CANTOPEN: errno.EIO}


def _file_size_limited() -> bool:
    return resource.getrlimit(resource.RLIMIT_FSIZE)[0] != resource.RLIM_INFINITY


class CacheUnwritable(OSError):
    """The cache file cannot take more results (a full disk, an I/O error): the run stops."""

    def __str__(self) -> str:
        return str(self.strerror)


def _reason(exc: BaseException) -> str:
    return str(exc) if isinstance(exc, sqlite3.Error) else f"{type(exc).__name__}: {exc}"


def disk_fault(exc: BaseException) -> int | None:
    """The errno of a write failure that is the disk's (any OSError, SQLite's full, I/O and
    cannot-open errors), or None for another fault (a lock, a trigger, a bug)."""
    if isinstance(exc, OSError):
        return exc.errno or errno.EIO
    code = getattr(exc, "sqlite_errorcode", None)
    if not isinstance(exc, sqlite3.Error) or not isinstance(code, int):
        return None
    if code & 0xFF == sqlite3.SQLITE_IOERR and _file_size_limited():
        return errno.EFBIG  # SQLite keeps the errno to itself; a file-size limit is the likely one
    return _DISK_FAULTS.get(code & 0xFF)


def _rest_after(commit_seconds: float) -> float:
    """How long to wait before the next commit, after one that took `commit_seconds`."""
    return min(commit_seconds * COMMIT_SPACING, COMMIT_GAP_CAP)


class Writes:
    """The cache file's write side: the results waiting in memory and what commits them.

    `busy_timeout` is how long the file may stay unwritable before the run says so (one line on
    stderr), and how long `finish` waits for it to be written at the end.
    """

    def __init__(self, path: Path, busy_timeout: float) -> None:
        self.path = path
        self.busy_timeout = busy_timeout
        self._cond = threading.Condition()
        self._pending: dict[str, Entry] = {}  # written to memory, not yet to the file
        self._thread: threading.Thread | None = None
        self._closing = False
        self._close_deadline = 0.0
        self._retry_now = False
        self._stalled_since: float | None = None  # first failed write since the last success
        self._write_error: str | None = None
        self._warned = False
        self._unwritable: tuple[int, str] | None = None  # a disk fault's errno and reason
        self._raised = False  # the fault was handed to the run, which stopped saying why
        # committing on the event loop: the loop with a commit due, when the next may start, and
        # the connection (of the first thread that stored from a loop; others use the writer)
        self._flush_due: asyncio.AbstractEventLoop | None = None
        self._next_flush = 0.0
        self._loop_db: sqlite3.Connection | None = None
        self._loop_thread: int | None = None

    def unwritable(self) -> CacheUnwritable | None:
        """The disk fault that stopped writes, as a new exception to raise (None: none)."""
        if self._unwritable is None:
            return None
        self._raised = True
        code, reason = self._unwritable
        return CacheUnwritable(code, f"cannot write the cache {self.path} ({reason}): the "
                               "run stopped; what was cached is kept, and resuming asks the rest",
                               str(self.path))

    def _note_disk_fault(self, exc: BaseException) -> None:
        if self._unwritable is None and (code := disk_fault(exc)) is not None:
            self._unwritable = (code, _reason(exc) if not isinstance(exc, OSError)
                                else exc.strerror or str(exc))

    def waiting(self, key: str) -> Entry | None:
        """The row for `key` still in memory, if any (one dict read: atomic, no lock needed)."""
        return self._pending.get(key)

    def _connect(self, timeout: float) -> sqlite3.Connection:
        """A connection for writes, waiting `timeout` seconds at most on a lock."""
        db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                             check_same_thread=False)
        try:
            db.execute("PRAGMA synchronous=NORMAL")  # WAL: a commit survives a killed process
            migrate(db)  # once a connection: a table made or altered stays so
        except BaseException:
            db.close()
            raise
        return db

    def put(self, key: str, model: str, kind: str, response: CachedValue) -> Future[bool]:
        """Store a response: in memory at once, in the file as soon as the writer can.

        The future is True once the row is committed, False when the first try failed (the
        result stays in memory and the writer keeps retrying); it never blocks the caller.
        """
        done: Future[bool] = Future()
        self._put(key, model, kind, response, done)
        return done

    def _put(self, key: str, model: str, kind: str, response: CachedValue,
             done: Waiter, *, on_loop: bool = False) -> None:
        text = RESPONSE_JSON.encode(response)
        if not text.isascii():  # no write may fail on encoding (a lone surrogate)
            text = escaped_json(text, response)
        model = storable(model)[0]
        entry = Entry(key, model, kind, text, checksum(text), time.time())
        with self._cond:
            idle = not self._pending
            if (replaced := self._pending.get(key)) is not None:  # its waiters wait on this one
                entry.waiters, replaced.waiters = replaced.waiters, []
            self._pending[key] = entry
            if self._stalled_since is None:
                entry.waiters.append(done)
            else:
                done.set_result(False)
            if self._thread is None and on_loop:
                return  # the event loop writes it (`_flush_on_loop`)
            if self._thread is None:
                self._start_writer()
            elif idle:  # a writer with work pending wakes on its own time: waking it per row
                self._cond.notify_all()  # made it fight the event loop for the GIL

    def store(self, key: str, model: str, kind: str, response: CachedValue
              ) -> asyncio.Future[bool]:
        """`put` from a coroutine: await the future for the first write attempt, which never
        blocks the event loop (the rows of one loop are committed on it, many to a commit)."""
        loop = asyncio.get_running_loop()
        done: asyncio.Future[bool] = loop.create_future()
        on_loop = self._claim_loop_thread()
        self._put(key, model, kind, response, done, on_loop=on_loop)
        if on_loop and self._flush_due is not loop:
            self._flush_due = loop
            loop.call_at(max(loop.time(), self._next_flush), self._flush_on_loop, loop)
        return done

    def _claim_loop_thread(self) -> bool:
        """True when this thread may commit on its loop: the first thread to ask may."""
        me = threading.get_ident()
        if self._loop_thread == me:
            return True
        with self._cond:
            if self._loop_thread is None:
                self._loop_thread = me
            return self._loop_thread == me

    def _flush_on_loop(self, loop: asyncio.AbstractEventLoop) -> None:
        """Commit what is pending on the event loop, or leave it to the writer thread."""
        if self._flush_due is loop:
            self._flush_due = None
        with self._cond:
            if self._thread is not None or self._closing or not self._pending:
                return  # the writer thread is at work (or will be): it takes these too
            batch = list(self._pending.values())
        started = loop.time()
        try:
            if self._loop_db is None:
                self._loop_db = self._connect(timeout=0)  # a lock: at once to the thread
            write_rows(self._loop_db, batch)
        except Exception as exc:  # a lock or a fault: the writer thread retries, warns, settles
            self._note_disk_fault(exc)
            if not is_busy(exc) and self._loop_db is not None:
                self._loop_db.close()
                self._loop_db = None
            with self._cond:
                if self._thread is None:
                    self._start_writer()
                self._cond.notify_all()
            return
        self._next_flush = loop.time() + _rest_after(loop.time() - started)
        self._written(batch)

    def _start_writer(self) -> None:
        """Start the writer thread (the caller holds `_cond`)."""
        self._thread = threading.Thread(target=self._write_loop, daemon=True,
                                        name="verstehen-cache-writer")
        self._thread.start()

    def pending(self) -> int:
        """How many results are in memory, not yet written to the file."""
        with self._cond:
            return len(self._pending)

    def _write_loop(self) -> None:
        """The writer thread: commit what is pending, retrying with backoff when it cannot."""
        db: sqlite3.Connection | None = None
        delay = 0.0
        try:
            while (batch := self._next_batch(delay)) is not None:
                try:
                    if db is None:
                        db = self._connect(WRITE_ATTEMPT_TIMEOUT)
                    started = time.monotonic()
                    write_rows(db, batch)
                except Exception as exc:  # the writer must outlive any failure: results wait on it
                    if db is not None and not is_busy(exc):
                        db.close()
                        db = None
                    delay = min(delay * 2 or BACKOFF_FIRST, BACKOFF_CAP)
                    if self._failed(exc):
                        return
                else:
                    delay = _rest_after(time.monotonic() - started)
                    self._written(batch)
        finally:
            if db is not None:
                db.close()

    def _next_batch(self, delay: float) -> list[Entry] | None:
        """What to write next, once `delay` has passed; None when the thread should end."""
        with self._cond:
            retry_at = time.monotonic() + delay
            while True:
                if not self._pending:
                    idle = self._closing or not self._cond.wait(IDLE_EXIT)
                    if idle and not self._pending:
                        self._thread = None
                        return None
                    continue
                if self._closing:  # a last try at the deadline, whatever the backoff says
                    retry_at = min(retry_at, self._close_deadline)
                now = time.monotonic()
                if self._retry_now or now >= retry_at:
                    self._retry_now = False
                    return list(self._pending.values())
                self._cond.wait(retry_at - now)

    def _written(self, batch: list[Entry]) -> None:
        with self._cond:
            waiters: list[Waiter] = []
            for entry in batch:
                if self._pending.get(entry.key) is entry:  # not replaced while being written
                    del self._pending[entry.key]
                waiters += entry.waiters
                entry.waiters.clear()
            settle(waiters, True)
            self._stalled_since = None
            self._cond.notify_all()

    def _failed(self, exc: Exception) -> bool:
        """Count a failed write, warn once when it lasts; True when closing and giving up."""
        busy, now, reason = is_busy(exc), time.monotonic(), _reason(exc)
        self._note_disk_fault(exc)  # before the waiters hear of it: their runner stops
        with self._cond:
            self._write_error = reason
            if self._stalled_since is None:
                self._stalled_since = now
            waiters: list[Waiter] = []
            for entry in self._pending.values():  # their callers go on; the results wait here
                waiters += entry.waiters
                entry.waiters.clear()
            settle(waiters, False)
            give_up = self._closing and (not busy or now >= self._close_deadline)
            if give_up:
                self._thread = None
            say = not (self._warned or give_up or self._unwritable) and (
                not busy or now - self._stalled_since >= self.busy_timeout)
            self._warned = self._warned or say
            waiting = len(self._pending)
        if say:
            problem = (f"cache {self.path} is locked by another process" if busy
                       else f"cannot write the cache {self.path} ({reason})")
            warn(f"{problem}; {plural(waiting, 'result')} kept in memory for this run, will "
                 "retry")
        return give_up

    def finish(self) -> None:
        """Let the writer write what is pending (up to busy_timeout on a lock), and end it."""
        with self._cond:
            self._closing = True
            self._close_deadline = time.monotonic() + self.busy_timeout
            self._retry_now = True  # the lock may be gone: try now, not after the backoff
            if self._pending and self._thread is None:  # left by a loop that closed first
                self._start_writer()
            thread = self._thread
            self._cond.notify_all()
        if thread is not None:
            thread.join(self.busy_timeout + 10)

    def close(self) -> None:
        """Close the loop's connection and say in one line how many results were not written."""
        if self._loop_db is not None:
            self._loop_db.close()
            self._loop_db = None
        with self._cond:
            unwritten, self._pending = len(self._pending), {}
        if unwritten and not self._raised:  # else the run stopped, saying why
            warn(f"{plural(unwritten, 'result')} could not be written to the cache {self.path} "
                 f"({self._write_error}): this run used them; a later run asks them again")
