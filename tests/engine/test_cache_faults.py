"""Cache faults (issue 17, items 4 and 6): a file locked by another process, damaged rows,
damaged files. A run goes on through each of them with at most one line of warning per kind."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from verstehen.engine.cache import Cache, call_key, checksum
from verstehen.engine.runner import CallResult, Runner
from verstehen.errors import UserError
from verstehen.models import GenerateParams, Message, user
from verstehen.testing.scripted import ScriptedModel

from conftest import cli_error

WARNING = "verstehen: warning: "

HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
if sys.argv[2] == "exclusive":  # readers are shut out too
    db.execute("PRAGMA locking_mode=EXCLUSIVE")
db.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
db.execute("ROLLBACK")
"""


@contextmanager
def locked_by_another_process(path: Path, mode: str = "write") -> Iterator[None]:
    """A second process holds the file's lock (BEGIN EXCLUSIVE) until the block ends."""
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(path), mode],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(10)


class SlowModel(ScriptedModel):
    """A scripted model whose calls take a while, as a remote model's do."""

    async def generate(self, messages: list[Message], params: GenerateParams):  # type: ignore[override]
        """The scripted answer, after 50 ms."""
        await asyncio.sleep(0.05)
        return await super().generate(messages, params)


async def ticker(stop: asyncio.Event, gaps: list[float]) -> None:
    """Tick every 10 ms until stopped, recording the gaps: a blocked loop shows as a long one."""
    last = time.monotonic()
    while not stop.is_set():
        await asyncio.sleep(0.01)
        now = time.monotonic()
        gaps.append(now - last)
        last = now


def ask_all(path: Path, model: ScriptedModel, prompts: list[str],
            busy_timeout: float = 30.0) -> list[CallResult]:
    """One run: every prompt asked at once through a fresh cache, closed at the end."""
    async def body() -> list[CallResult]:
        cache = Cache(path, busy_timeout=busy_timeout)
        runner = Runner(cache)
        try:
            return list(await asyncio.gather(*(runner.generate(model, user(p)) for p in prompts)))
        finally:
            await cache.aclose()
    return asyncio.run(body())


def warnings(err: str) -> list[str]:
    """The warning lines of captured stderr (and a check that there is nothing else)."""
    lines = err.strip().splitlines()
    assert "Traceback" not in err, err
    assert all(line.startswith(WARNING) for line in lines), err
    return lines


def rows(path: Path) -> dict[str, tuple[str, str | None]]:
    """Every row's response and checksum, read with a connection of the test's own."""
    db = sqlite3.connect(path)
    try:
        return {k: (r, s) for k, r, s in db.execute("SELECT key, response, sha256 FROM calls")}
    finally:
        db.close()


def edit(path: Path, sql: str, *args: object) -> None:
    """Change the file behind the cache's back."""
    db = sqlite3.connect(path)
    db.execute(sql, args)
    db.commit()
    db.close()


def key_of(model: ScriptedModel, prompt: str) -> str:
    """The cache key the runner uses for a greedy generate call of `prompt`."""
    request = {"messages": user(prompt), "params": GenerateParams().as_dict(), "sample": 0}
    return call_key(model.identity(), "generate", request)


def test_a_locked_cache_neither_fails_nor_stalls_the_run(cache_path, capsys):
    """30 calls while another process holds the write lock past the bound: all succeed, the
    loop keeps ticking, a repeat is served from memory, one warning, and all 30 are written
    once the lock goes."""
    Cache(cache_path).close()
    model = SlowModel()
    prompts = [f"q{i}" for i in range(30)]
    cache = Cache(cache_path, busy_timeout=0.3)
    runner = Runner(cache)
    gaps: list[float] = []

    async def body() -> tuple[list[CallResult], CallResult, int]:
        stop = asyncio.Event()
        tick = asyncio.create_task(ticker(stop, gaps))
        with locked_by_another_process(cache_path):
            results = await asyncio.gather(*(runner.generate(model, user(p)) for p in prompts))
            await asyncio.sleep(0.5)  # the lock outlasts the bound
            again = await runner.generate(model, user("q7"))
            waiting = cache.pending()
        stop.set()
        await tick
        await cache.aclose()
        return list(results), again, waiting

    results, again, waiting = asyncio.run(body())
    assert all(r.ok and not r.cached and r.error is None for r in results)
    assert [r.value.text for r in results] == [f"answer to {p}" for p in prompts]
    assert again.ok and again.cached and len(model.calls) == 30  # from memory, not paid again
    assert runner.usage["scripted/m"].errors == 0
    assert waiting == 30
    assert len(gaps) > 50 and max(gaps) < 0.5, max(gaps)  # old code: blocked until release
    lines = warnings(capsys.readouterr().err)
    assert len(lines) == 1, lines
    assert f"cache {cache_path} is locked by another process" in lines[0]
    assert "results kept in memory for this run, will retry" in lines[0]
    stored = rows(cache_path)
    assert len(stored) == 30
    assert all(sha == checksum(text) for text, sha in stored.values())


def test_a_lock_held_past_the_end_is_one_line_and_a_later_run_asks_again(cache_path, capsys):
    """The run ends while the file is still locked: close waits the bound, then says in one
    line what was not written; the results themselves were all returned."""
    Cache(cache_path).close()
    model = ScriptedModel()
    prompts = [f"q{i}" for i in range(5)]
    with locked_by_another_process(cache_path):
        started = time.monotonic()
        results = ask_all(cache_path, model, prompts, busy_timeout=0.5)
        took = time.monotonic() - started
    assert all(r.ok for r in results) and len(model.calls) == 5
    assert 0.5 <= took < 3.0
    lines = warnings(capsys.readouterr().err)
    lost = [line for line in lines if "could not be written" in line]
    assert lost == [f"{WARNING}5 results could not be written to the cache {cache_path} "
                    "(database is locked): this run used them; a later run asks them again"]
    assert len(lines) <= 2  # at most the lock warning besides
    assert rows(cache_path) == {}
    assert all(r.ok and not r.cached for r in ask_all(cache_path, model, prompts))
    assert len(model.calls) == 10


def test_a_read_on_a_locked_file_is_a_miss_not_a_crash(cache_path, capsys):
    """A process holding the file in exclusive locking mode shuts readers out too: reads are
    short misses, the calls are asked, and the run says so at the end."""
    model = ScriptedModel()
    ask_all(cache_path, model, ["q"])
    capsys.readouterr()
    with locked_by_another_process(cache_path, "exclusive"):
        started = time.monotonic()
        cache = Cache(cache_path, busy_timeout=0.2)
        assert cache.get(key_of(model, "q")) is None
        assert time.monotonic() - started < 1.0
        cache.close()
        results = ask_all(cache_path, model, ["q"], busy_timeout=0.2)
    assert results[0].ok and not results[0].cached and len(model.calls) == 2
    lines = warnings(capsys.readouterr().err)
    assert any(re.search(r"\d+ reads? failed \(database is locked\)", line)
               for line in lines), lines


def test_a_byte_edited_response_is_asked_again(cache_path, capsys):
    """A response changed in the file fails its checksum: it is a miss, asked again, its row
    replaced, and the run says how many in one line."""
    model = ScriptedModel()
    prompts = [f"q{i}" for i in range(10)]
    ask_all(cache_path, model, prompts)
    damaged = [key_of(model, p) for p in prompts[:3]]
    for key in damaged:
        edit(cache_path, "UPDATE calls SET response = replace(response, 'answer', 'answEr') "
             "WHERE key = ?", key)
    capsys.readouterr()
    results = ask_all(cache_path, model, prompts)
    assert len(model.calls) == 13
    assert [r.cached for r in results] == [False] * 3 + [True] * 7
    assert [r.value.text for r in results] == [f"answer to {p}" for p in prompts]
    assert warnings(capsys.readouterr().err) == [
        f"{WARNING}cache {cache_path}: 3 damaged entries ignored and re-asked"]
    assert all(r.cached for r in ask_all(cache_path, model, prompts))  # the rows were replaced
    assert len(model.calls) == 13 and capsys.readouterr().err == ""


def test_a_row_that_does_not_parse_is_asked_again(cache_path, capsys):
    """Invalid JSON (checksum right or absent) and JSON that is not an object are misses."""
    model = ScriptedModel()
    prompts = [f"q{i}" for i in range(5)]
    ask_all(cache_path, model, prompts)
    broken = '{"text": "answer'
    edit(cache_path, "UPDATE calls SET response = ?, sha256 = ? WHERE key = ?",
         broken, checksum(broken), key_of(model, "q0"))
    edit(cache_path, "UPDATE calls SET response = ?, sha256 = NULL WHERE key = ?",
         broken, key_of(model, "q1"))
    edit(cache_path, "UPDATE calls SET response = '[1]', sha256 = ? WHERE key = ?",
         checksum("[1]"), key_of(model, "q2"))
    capsys.readouterr()
    results = ask_all(cache_path, model, prompts)
    assert len(model.calls) == 8
    assert [r.value.text for r in results] == [f"answer to {p}" for p in prompts]
    assert warnings(capsys.readouterr().err) == [
        f"{WARNING}cache {cache_path}: 3 damaged entries ignored and re-asked"]


def test_a_file_from_before_checksums_is_migrated_and_its_rows_served(cache_path):
    """Rows written before the sha256 column have none: accepted as they are; new rows get one."""
    model = ScriptedModel()
    db = sqlite3.connect(cache_path)
    db.execute("CREATE TABLE calls (key TEXT PRIMARY KEY, model TEXT NOT NULL, "
               "kind TEXT NOT NULL, response TEXT NOT NULL, created REAL NOT NULL)")
    old = '{"text": "old answer", "finish_reason": "stop", ' \
          '"usage": {"prompt_tokens": 1, "completion_tokens": 3}}'
    db.execute("INSERT INTO calls VALUES (?, 'scripted/m', 'generate', ?, 0)",
               (key_of(model, "old"), old))
    db.commit()
    db.close()
    results = ask_all(cache_path, model, ["old", "new"])
    assert results[0].cached and results[0].value.text == "old answer"
    assert not results[1].cached and model.calls == ["new"]
    stored = rows(cache_path)
    assert stored[key_of(model, "old")][1] is None
    assert stored[key_of(model, "new")][1] == checksum(stored[key_of(model, "new")][0])


def test_a_file_that_is_not_a_database_is_one_user_error(tmp_path, cli):
    """Random bytes: the path and what to do, in one line; exit 2 from the CLI."""
    path = tmp_path / "garbage.sqlite"
    path.write_bytes(random.Random(0).randbytes(20_000))
    with pytest.raises(UserError) as caught:
        Cache(path)
    assert str(caught.value) == (f"cache {path} is damaged (file is not a database): "
                                 "move it away or pass --cache NEW")
    cli_error(cli, ["cache", "stats", "--cache", str(path)], "is damaged", str(path))
    cli_error(cli, ["ask", "openai/gpt-4o-mini", "hi", "--cache", str(path)],
              "is damaged", str(path))


def test_corrupt_pages_give_misses_and_warnings_never_a_traceback(cache_path, capsys, cli):
    """Random bytes over pages in the middle of a real cache: the run still answers every call
    (asking again what it cannot read), and says so in at most one line per kind."""
    model = ScriptedModel()
    prompts = [f"question number {i} " + "x" * 200 for i in range(400)]
    ask_all(cache_path, model, prompts)
    size = cache_path.stat().st_size
    with cache_path.open("r+b") as f:
        f.seek(size // 2 // 4096 * 4096)
        f.write(random.Random(1).randbytes(3 * 4096))
    capsys.readouterr()
    results = ask_all(cache_path, model, prompts, busy_timeout=0.2)
    assert [r.value.text for r in results] == [f"answer to {p}" for p in prompts]
    asked_again = len(model.calls) - 400
    assert 0 < asked_again < 400
    lines = warnings(capsys.readouterr().err)
    assert 1 <= len(lines) <= 4, lines
    kinds = ["damaged entr", " failed (", "cannot write", "could not be written"]
    assert all(sum(kind in line for line in lines) <= 1 for kind in kinds), lines
    done = cli(["cache", "stats", "--cache", str(cache_path)])
    assert "Traceback" not in done.stderr and done.returncode in (0, 2), done.stderr
    assert done.returncode == 0 or "is damaged" in done.stderr


def test_a_write_that_fails_for_good_warns_at_once_and_does_not_hold_the_end(cache_path, capsys):
    """A write refused for a reason other than a lock (disk full, read-only): one warning at
    once, results served from memory, and close gives up without waiting the bound."""
    Cache(cache_path).close()
    edit(cache_path, "CREATE TRIGGER full BEFORE INSERT ON calls "
         "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END")
    model = ScriptedModel()
    started = time.monotonic()
    results = ask_all(cache_path, model, ["a", "b", "a"])
    assert time.monotonic() - started < 5.0  # the default bound is 30 s
    assert all(r.ok for r in results) and len(model.calls) == 2
    lines = warnings(capsys.readouterr().err)
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"{WARNING}cannot write the cache {cache_path} "
                               "(database or disk is full); ")
    assert lines[1].startswith(f"{WARNING}2 results could not be written")
