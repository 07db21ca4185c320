"""The files of a run folder are opened safely (issue 29, items 2 and 7): a symbolic link is
never followed (a victim file outside the folder stays as it was), a FIFO is refused at once
rather than waited on, and a write that fails (disk full) leaves run.json as it was and
records.jsonl without a partial line, so the run resumes to completion."""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from verstehen.cli.batch import batch
from verstehen.engine.session import RunSettings
from verstehen.engine.store import RunStore
from verstehen.engine.store.safe_files import (
    append_bytes,
    read_regular,
    replace_atomically,
)
from verstehen.errors import UserError
from verstehen.models.base import GenerateParams
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import StubEndpoints

from conftest import cli_error

VICTIM_TEXT = "line one\nline two, the last\n"
CERTIFY = ["certify", "--model", "openai/stub", "--scope", "arithmetic", "--questions", "20",
           "--rephrase", "2", "--pg", "0.5", "--rid", "0.2", "--no-progress"]


@pytest.fixture
def server() -> Iterator[StubEndpoints]:
    """One stub endpoint on its own thread."""
    with StubEndpoints(1) as stub:
        yield stub


@pytest.fixture
def victim(tmp_path) -> Path:
    """A file outside any run folder that a link in one points to."""
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_text(VICTIM_TEXT)
    return path


def link(path: Path, target: Path) -> None:
    """Replace `path` with a symbolic link to `target`."""
    if path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


def made(cli, cli_env, args: list[str]) -> Path:
    """Run `verstehen ARGS` to its end; the run folder it made."""
    done = cli(args)
    assert done.returncode == 0, done.stderr
    [run] = Path(cli_env["VERSTEHEN_RUNS_DIR"]).iterdir()
    return run


@pytest.fixture
def batch_run(cli, cli_env, server, tmp_path) -> Path:
    """A finished batch run folder of three prompts."""
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("one\ntwo\nthree\n")
    return made(cli, cli_env, ["batch", "openai/stub", str(prompts), "--base-url",
                               server.urls[0], "--no-progress"])


@pytest.fixture
def certify_run(cli, cli_env, server) -> Path:
    """A finished certify run folder."""
    return made(cli, cli_env, [*CERTIFY, "--base-url", server.urls[0]])


def test_a_lock_link_is_refused_and_its_target_kept(cli, batch_run, victim, server):
    """`.lock` a link to another file: `batch --resume` used to truncate the target and write
    its pid there; now it stops in one line."""
    link(batch_run / ".lock", victim)
    cli_error(cli, ["batch", "--resume", str(batch_run), "--base-url", server.urls[0]],
              ".lock is a symbolic link")
    assert victim.read_text() == VICTIM_TEXT


def test_a_stale_temporary_link_is_removed_not_written_through(cli, batch_run, victim,
                                                                 server):
    """`.run.json.tmp` a link: the target used to be overwritten with run.json. Now the link
    itself is removed, the temporary file made afresh, and the resume finishes."""
    link(batch_run / ".run.json.tmp", victim)
    link(batch_run / ".records.jsonl.tmp", victim)
    done = cli(["batch", "--resume", str(batch_run), "--base-url", server.urls[0],
                "--no-progress"])
    assert done.returncode == 0, done.stderr
    assert victim.read_text() == VICTIM_TEXT
    assert json.loads((batch_run / "run.json").read_text())["status"] == "done"
    assert not (batch_run / ".run.json.tmp").is_symlink()


def test_report_never_writes_through_a_link(cli, certify_run, victim, tmp_path):
    """`verstehen report RUN` with RUN/report.html a link, and `report -o LINK`: each stops
    in one line, the target unchanged; with another -o the report is written."""
    link(certify_run / "report.html", victim)
    cli_error(cli, ["report", str(certify_run)], "report.html is a symbolic link")
    out = tmp_path / "out.html"
    link(out, victim)
    cli_error(cli, ["report", str(certify_run), "-o", str(out)], "is a symbolic link")
    assert victim.read_text() == VICTIM_TEXT
    fresh = tmp_path / "fresh.html"
    assert cli(["report", str(certify_run), "-o", str(fresh)]).returncode == 0
    assert fresh.read_text().startswith("<!DOCTYPE html>")


def test_a_records_link_is_refused_by_a_resume(cli, certify_run, victim, server):
    """records.jsonl a link: `certify --resume` used to truncate the target (its last line
    lost) and append records to it; now it stops in one line."""
    link(certify_run / "records.jsonl", victim)
    cli_error(cli, ["certify", "--resume", str(certify_run), "--base-url", server.urls[0]],
              "records.jsonl is a symbolic link")
    assert victim.read_text() == VICTIM_TEXT
    cli_error(cli, ["report", str(certify_run)], "records.jsonl is a symbolic link")


def test_a_summary_link_is_never_read_into_a_report(cli, certify_run, victim):
    """summary.json a link to another file: `report` used to read whatever it pointed to;
    now it stops in one line, and no report holds the other file's text."""
    link(certify_run / "summary.json", victim)
    cli_error(cli, ["report", str(certify_run)], "summary.json is a symbolic link")
    assert not (certify_run / "report.html").exists()


@contextlib.contextmanager
def rescued(fifo: Path, after: float) -> Iterator[None]:
    """After `after` seconds, keep opening and closing both ends of `fifo`, so that code
    waiting on it (to read or to write) goes on and the test ends, failing on its clock,
    instead of hanging for ever."""
    done = threading.Event()

    def rescue() -> None:
        done.wait(after)
        while not done.wait(0.1):
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
            with contextlib.suppress(OSError):  # ENXIO: no reader waits now
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=rescue, daemon=True).start()
    try:
        yield
    finally:
        done.set()


@pytest.mark.parametrize("command", [["report"], ["certify", "--resume"]])
def test_a_fifo_for_records_ends_at_once_in_one_line(cli, certify_run, server, command):
    """records.jsonl a FIFO: `report` and `certify --resume` used to wait for a writer for
    ever; now each ends at once with one line, exit 2."""
    fifo = certify_run / "records.jsonl"
    fifo.unlink()
    os.mkfifo(fifo)
    start = time.monotonic()
    extra = ["--base-url", server.urls[0]] if "--resume" in command else []
    with rescued(fifo, after=20):
        cli_error(cli, [*command, str(certify_run), *extra], "records.jsonl is a FIFO")
    assert time.monotonic() - start < 10


def test_the_open_helpers_refuse_what_is_not_a_regular_file(tmp_path, victim):
    """read_regular, append_bytes and replace_atomically: a link or FIFO in one line; a
    stale temporary file of another kind (a folder) is refused, not removed."""
    link(tmp_path / "a-link", victim)
    os.mkfifo(tmp_path / "a-fifo")
    for path in (tmp_path / "a-link", tmp_path / "a-fifo"):
        with pytest.raises(UserError, match="not a regular file"):
            read_regular(path)
        with pytest.raises(UserError, match="not a regular file"):
            append_bytes(path, b"x\n")
    (tmp_path / ".out.tmp").mkdir()
    with pytest.raises(UserError, match="is a folder"):
        replace_atomically(tmp_path / "out", b"x")
    assert victim.read_text() == VICTIM_TEXT


def failing_writes(monkeypatch, inside: Path, name: str, nth: int,
                   partial: bool = False) -> Callable[[], int]:
    """Make the `nth` os.write to the file `name` inside `inside` fail with ENOSPC (after
    writing half its bytes when `partial`), as a full disk does; the count of writes so far."""
    real = os.write
    seen = [0]

    def write(fd: int, data: bytes) -> int:
        target = os.readlink(f"/proc/self/fd/{fd}")
        if Path(target).parent == inside and Path(target).name == name:
            seen[0] += 1
            if seen[0] == nth:
                if partial and len(data) > 1:
                    real(fd, bytes(data[:len(data) // 2]))
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)
    return lambda: seen[0]


def test_disk_full_while_writing_run_json_leaves_it_as_it_was(tmp_path, monkeypatch):
    """The write of run.json's temporary file fails: run.json still holds what it held (it
    used to be left empty, or an empty .run.json.tmp beside it), and the error is raised."""
    store = RunStore.create(tmp_path, command="certify", argv=["certify"], config={},
                            seed=0, models=[])
    before = (store.path / "run.json").read_bytes()
    failing_writes(monkeypatch, store.path, ".run.json.tmp", nth=1, partial=True)
    with pytest.raises(OSError) as caught:
        store.set_status("done")
    assert caught.value.errno == errno.ENOSPC
    assert (store.path / "run.json").read_bytes() == before
    assert sorted(p.name for p in store.path.iterdir()) == [".lock", "records.jsonl",
                                                           "run.json"]
    store.release()


def run_batch(tmp_path: Path, model: ScriptedModel, resume: Path | None = None) -> object:
    """`batch` of 30 prompts into tmp_path/runs (or finishing `resume`)."""
    prompts = tmp_path / "prompts.txt"
    if not prompts.exists():
        prompts.write_text("".join(f"prompt {n}\n" for n in range(30)))
    settings = RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite")
    store = RunStore.open(resume) if resume is not None else None
    return asyncio.run(batch(model, prompts, GenerateParams(), settings=settings,
                             resume=store))


def test_disk_full_while_appending_a_record_leaves_no_partial_line_and_resumes(
        tmp_path, monkeypatch):
    """The 10th record's write fails half written: the batch ends with the error, every line
    of records.jsonl is a whole record (that one missing), run.json says failed; the resume
    then finishes all 30 answers."""
    model = ScriptedModel()
    runs = tmp_path / "runs"
    runs.mkdir()
    original = RunStore.create

    def create(*args, **kwargs):  # start failing writes in the folder once it exists
        store = original(*args, **kwargs)
        failing_writes(monkeypatch, store.path, "records.jsonl", nth=10, partial=True)
        return store

    monkeypatch.setattr(RunStore, "create", create)
    with pytest.raises(OSError):
        run_batch(tmp_path, model)
    monkeypatch.undo()
    [run] = runs.iterdir()
    data = (run / "records.jsonl").read_bytes()
    assert data.endswith(b"\n")
    assert 9 <= len([json.loads(line) for line in data.splitlines()]) < 30
    assert json.loads((run / "run.json").read_text())["status"] == "failed"

    result = run_batch(tmp_path, model, resume=run)
    records = [json.loads(line) for line in (run / "records.jsonl").read_bytes().splitlines()]
    assert sorted(r["id"] for r in records) == sorted(str(n) for n in range(1, 31))
    assert all(r["error"] is None for r in records)
    assert json.loads((run / "run.json").read_text())["status"] == "done"
    assert result.records == 30  # type: ignore[attr-defined]
