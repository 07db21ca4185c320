"""A cache the disk refuses to write (issue 29, item 7): the run stops promptly, paying for no
further call, with one OSError; what was cached before stays valid, and a later run on a
healthy disk asks only what is missing."""

from __future__ import annotations

import asyncio
import errno
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from verstehen.engine.cache import Cache, CacheUnwritable
from verstehen.engine.cache import writes as cache_writes
from verstehen.engine.runner import CallResult, Runner
from verstehen.models import GenerateParams, Message, user
from verstehen.models.base import Completion
from verstehen.testing.scripted import ScriptedModel

CONNECTIONS = 4
PROMPTS = [f"question {i}" for i in range(200)]


class SlowModel(ScriptedModel):
    """A scripted model whose calls take 50 ms, as a remote model's do."""

    async def generate(self, messages: list[Message], params: GenerateParams) -> Completion:
        """The scripted answer, after 50 ms."""
        await asyncio.sleep(0.05)
        return await super().generate(messages, params)


def ask_all(path: Path, model: ScriptedModel, prompts: list[str]) -> list[CallResult]:
    """One run: every prompt at once through a fresh cache (4 calls at a time), closed after."""
    async def body() -> list[CallResult]:
        cache = Cache(path, busy_timeout=2.0)
        runner = Runner(cache, max_connections=CONNECTIONS)
        try:
            return list(await asyncio.gather(*(runner.generate(model, user(p)) for p in prompts)))
        finally:
            await cache.aclose()
    return asyncio.run(body())


def cached_texts(path: Path) -> int:
    """How many rows the file holds (read with a connection of the test's own)."""
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]
    finally:
        db.close()


def check_stopped_then_resumed(path: Path, model: ScriptedModel, before: int,
                               error: OSError) -> None:
    """The stop was prompt (a few rounds of calls in flight, of 195), the rows of before are
    intact, and a run on a healthy disk pays for exactly the calls not cached."""
    assert len(model.calls) <= 3 * CONNECTIONS, len(model.calls)
    assert "\n" not in str(error) and f"cannot write the cache {path}" in str(error)
    assert cached_texts(path) == before
    healthy = ScriptedModel()
    results = ask_all(path, healthy, PROMPTS)
    assert all(r.ok for r in results)
    assert [r.value.text for r in results] == [f"answer to {p}" for p in PROMPTS]
    assert len(healthy.calls) == len(PROMPTS) - before
    assert cached_texts(path) == len(PROMPTS)


def test_a_write_failing_with_enospc_stops_the_run_with_one_oserror(cache_path, monkeypatch,
                                                                     capsys):
    ask_all(cache_path, ScriptedModel(), PROMPTS[:5])

    def full(db: sqlite3.Connection, batch: list) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(cache_writes, "write_rows", full)
    model = SlowModel()
    with pytest.raises(OSError) as raised:
        ask_all(cache_path, model, PROMPTS)
    assert raised.value.errno == errno.ENOSPC
    assert isinstance(raised.value, CacheUnwritable)
    assert str(raised.value) == (
        f"cannot write the cache {cache_path} (No space left on device): the run stopped; what "
        "was cached is kept, and resuming asks the rest")
    assert raised.value.filename == str(cache_path)
    assert capsys.readouterr().err == ""  # the error is all there is to say
    monkeypatch.undo()
    check_stopped_then_resumed(cache_path, model, 5, raised.value)


def test_sqlite_full_stops_the_run(cache_path, monkeypatch):
    """SQLite's own "database or disk is full" (SQLITE_FULL, what ENOSPC becomes inside it),
    made real by capping the file at the pages it has."""
    ask_all(cache_path, ScriptedModel(), PROMPTS[:5])
    connect = cache_writes.Writes._connect

    def capped(self: cache_writes.Writes, timeout: float) -> sqlite3.Connection:
        db = connect(self, timeout)
        pages = db.execute("PRAGMA page_count").fetchone()[0]
        db.execute(f"PRAGMA max_page_count = {pages}")
        return db

    monkeypatch.setattr(cache_writes.Writes, "_connect", capped)
    model = SlowModel(reply=lambda prompt: "x" * 20_000)  # five pages a row: the file must grow
    with pytest.raises(OSError) as raised:
        ask_all(cache_path, model, PROMPTS)
    assert raised.value.errno == errno.ENOSPC
    assert "database or disk is full" in str(raised.value)
    monkeypatch.undo()
    check_stopped_then_resumed(cache_path, model, 5, raised.value)


FILE_SIZE_LIMITED = """
import asyncio, resource, sys
from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.models import user
sys.path.insert(0, sys.argv[2])
from test_cache_disk_full import SlowModel

resource.setrlimit(resource.RLIMIT_FSIZE, (200_000, resource.RLIM_INFINITY))
model = SlowModel(reply=lambda prompt: prompt * 2_000)

async def body():
    cache = Cache(sys.argv[1], busy_timeout=2.0)
    runner = Runner(cache, max_connections=4)
    try:
        await asyncio.gather(*(runner.generate(model, user(f"q{i:03} ")) for i in range(200)))
    finally:
        await cache.aclose()

try:
    asyncio.run(body())
except OSError as exc:
    print(f"{exc.errno} {len(model.calls)} {exc}")
"""


def test_a_file_size_limit_stops_the_run(cache_path):
    """`prlimit --fsize` (EFBIG inside SQLite, an I/O error there, told as EFBIG since a limit is
    set): 200 replies of 10 KB cannot fit 200 KB; the run stops with one OSError and nothing
    else said, well before the last call."""
    done = subprocess.run([sys.executable, "-c", FILE_SIZE_LIMITED, str(cache_path),
                           str(Path(__file__).parent)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    code, calls, message = done.stdout.strip().split(" ", 2)
    assert int(code) == errno.EFBIG and "disk I/O error" in message, done.stdout
    assert int(calls) < 50, done.stdout
    assert 0 < cached_texts(cache_path) < int(calls)  # the rows before the limit stayed valid
