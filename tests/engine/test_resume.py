"""Kill a batch mid-run with SIGKILL, resume it, and compare with an uninterrupted run."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import time
import urllib.request
from pathlib import Path

from conftest import PYTHON, Server, run_cli

N = 40


def served(server: Server) -> int:
    """Chat requests the stub server has answered so far."""
    with urllib.request.urlopen(f"{server.url}/stats", timeout=5) as reply:
        return json.load(reply)["chat"]


def cache_entries(path: str) -> int:
    """Rows in the cache's `calls` table."""
    with sqlite3.connect(path) as db:
        return db.execute("SELECT COUNT(*) FROM calls").fetchone()[0]


def line_count(path: Path) -> int:
    """Newline-terminated lines in a file (0 when it does not exist)."""
    return path.read_bytes().count(b"\n") if path.exists() else 0


def write_prompts(tmp_path: Path) -> Path:
    """A .txt prompts file of N prompts (ids are line numbers 1..N)."""
    path = tmp_path / "prompts.txt"
    path.write_text("".join(f"question number {n}\n" for n in range(1, N + 1)))
    return path


def batch_args(server: Server, prompts: Path) -> list[str]:
    """The batch command line (after `python -m verstehen`)."""
    return ["batch", "openai/stub", str(prompts), "--base-url", server.url,
            "--max-connections", "1", "--no-progress"]


def start_and_kill(server: Server, prompts: Path, env: dict[str, str], tmp_path: Path) -> Path:
    """Start a batch, SIGKILL it once >= 10 records are written; return its run folder."""
    runs = Path(env["VERSTEHEN_RUNS_DIR"])
    with (tmp_path / "killed.err").open("w") as err:
        proc = subprocess.Popen([PYTHON, "-m", "verstehen", *batch_args(server, prompts)],
                                env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                folders = list(runs.glob("*/records.jsonl")) if runs.exists() else []
                if folders and line_count(folders[0]) >= 10:
                    break
                assert proc.poll() is None, "the batch ended before it could be killed"
                time.sleep(0.01)
            else:
                raise AssertionError("no 10 records within 60 s")
        finally:
            proc.kill()  # SIGKILL: no cleanup runs in the batch
            proc.wait()
    time.sleep(0.2)  # let the stub count a request that was in flight at the kill
    assert proc.returncode == -signal.SIGKILL
    [folder] = [p.parent for p in runs.glob("*/records.jsonl")]
    assert line_count(folder / "records.jsonl") < N, "killed too late to test resuming"
    assert f"run folder: {folder}" in (tmp_path / "killed.err").read_text()
    return folder


def records(folder: Path) -> list[dict]:
    """Every line of records.jsonl parsed (fails on a torn or non-JSON line)."""
    return [json.loads(line) for line in (folder / "records.jsonl").read_text().splitlines()]


def check_complete(folder: Path) -> list[dict]:
    """Exactly N records, each (id, sample) once; return them sorted by id."""
    rows = records(folder)
    assert len(rows) == N
    assert sorted((r["id"], r["sample"]) for r in rows) == sorted(
        (str(n), 0) for n in range(1, N + 1))
    return sorted(rows, key=lambda r: int(r["id"]))


def resume(folder: Path, env: dict[str, str], server) -> None:
    """Resume the run folder against `server` (typed again: a run folder never chooses where
    calls go) and check that it ended well."""
    done = run_cli(["batch", "--resume", str(folder), "--base-url", server.url, "--no-progress"],
                   env)
    assert done.returncode == 0, done.stderr
    assert f"run folder: {folder}" in done.stderr
    assert json.loads(done.stdout)["records"] == N


def test_kill_and_resume(stub_server, cli_env: dict[str, str], tmp_path: Path) -> None:
    """Resume pays only for uncached calls and ends equal to an uninterrupted run."""
    server, prompts = stub_server(delay=0.05), write_prompts(tmp_path)
    folder = start_and_kill(server, prompts, cli_env, tmp_path)
    before, cached = served(server), cache_entries(cli_env["VERSTEHEN_CACHE"])
    assert 10 <= cached < N
    resume(folder, cli_env, server)
    assert served(server) - before == N - cached
    resumed = check_complete(folder)
    assert [r["text"] for r in resumed] == [f"echo: question number {n}" for n in range(1, N + 1)]
    assert all(r["error"] is None for r in resumed)

    fresh = stub_server(delay=0.0)
    env = {**cli_env, "VERSTEHEN_CACHE": str(tmp_path / "fresh.sqlite"),
           "VERSTEHEN_RUNS_DIR": str(tmp_path / "fresh-runs")}
    whole = run_cli(batch_args(fresh, prompts), env)
    assert whole.returncode == 0, whole.stderr
    assert served(fresh) == N
    [other] = (tmp_path / "fresh-runs").iterdir()
    assert check_complete(other) == resumed


def test_torn_last_line_dropped(stub_server, cli_env: dict[str, str], tmp_path: Path) -> None:
    """A partial final line left by a crash is dropped; the resumed run has N good records."""
    server, prompts = stub_server(delay=0.05), write_prompts(tmp_path)
    folder = start_and_kill(server, prompts, cli_env, tmp_path)
    before, cached = served(server), cache_entries(cli_env["VERSTEHEN_CACHE"])
    with (folder / "records.jsonl").open("a") as handle:
        handle.write('{"id": "999", "sample": 0, "te')
    resume(folder, cli_env, server)
    assert served(server) - before == N - cached
    assert all(r["id"] != "999" for r in check_complete(folder))


def test_a_run_in_use_is_not_resumed_by_a_second_process(tmp_path):
    """While one process writes a run folder, another that opens it to resume stops with one
    line naming the run and the process (two resumes at once used to duplicate records);
    once the first process is gone, the folder opens."""
    import sys

    import pytest

    from verstehen.engine.store import RunStore
    from verstehen.errors import UserError

    store = RunStore.create(tmp_path, command="batch", argv=[], config={}, seed=0, models=[])
    store.release()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; from pathlib import Path; "
         "from verstehen.engine.store import RunStore; s = RunStore.open(Path(sys.argv[1])); "
         "print('open', flush=True); time.sleep(60)", str(store.path)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(UserError, match=rf"in use by process {holder.pid}"):
            RunStore.open(store.path)
    finally:
        holder.kill()
        holder.wait()
    RunStore.open(store.path).release()


def test_damaged_records_are_dropped_kept_aside_and_asked_again(
        stub_server, cli_env: dict[str, str], tmp_path: Path) -> None:
    """Damage in the middle of records.jsonl (a torn line, a blank one, binary, `{}`, `null`, a
    list, a repeat, an unknown id) used to make --resume a traceback or a wrong count: now the
    resume moves those lines to records.dropped.jsonl, says so in one line, and asks again."""
    server, prompts = stub_server(delay=0.05), write_prompts(tmp_path)
    folder = start_and_kill(server, prompts, cli_env, tmp_path)
    path = folder / "records.jsonl"
    lines = path.read_bytes().split(b"\n")[:-1]
    lines = [line + b"\n" for line in lines if line]  # complete lines only
    junk = [b'{"id": "7", "sample": 0, "te\n', b"\xff\xfe\x00\x01\n", b"{}\n", b"null\n",
            b"[1, 2]\n", lines[0], b'{"id": "999", "sample": 0, "text": "x", "error": null}\n']
    path.write_bytes(b"".join([*lines[:3], b"\n", *junk, *lines[3:]]))
    done = run_cli(["batch", "--resume", str(folder), "--base-url", server.url,
                    "--no-progress"], cli_env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    [said] = [x for x in done.stderr.splitlines() if "dropped" in x]
    assert said.startswith(f"{path}: dropped {len(junk)} damaged records (lines 5, 6, 7, 8, 9")
    assert "asked again" in said
    assert (folder / "records.dropped.jsonl").read_bytes() == b"".join(junk)
    assert [r["text"] for r in check_complete(folder)] == [
        f"echo: question number {n}" for n in range(1, N + 1)]
