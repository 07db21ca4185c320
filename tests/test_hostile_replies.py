"""The hostile-reply table (issue 29): a stub server answers every request in one bad way
(`verstehen.testing.hostile_server.BAD_MODES`) to `ask`, `batch`, `certify`, `imagine answer
--method letter` and `consistency`, each a real `python -m verstehen` process.

Every cell must end in a clean failure or a clean result: exit 0, 1 or 2 and no traceback; no
cache row of a bad shape (text not a string or with a lone surrogate, token counts not
non-negative ints, log-probabilities not finite or above 0, a row over 8 MiB); the process's
peak memory under 300 MB; and the same command run again once the server is healthy succeeds
(exit 0, no failed call, every batch record answered).

The cells selected run four at a time (each with its own server, cache and run folders), so
that the waits of trickled replies overlap; each cell is then its own test. A quick test first
checks that the server answers in each bad way it claims to.
"""

from __future__ import annotations

import gzip
import http.client
import json
import math
import os
import re
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from verstehen.engine.store import RunStore
from verstehen.testing.hostile_server import BAD_MODES, HostileServer

COMMANDS = ("ask", "batch", "certify", "imagine", "consistency")
MAX_PEAK_MB = 300  # the bound on a run's memory, whatever the server sends
# the agreed reply cap (models/limits.py, MAX_REPLY_BYTES): no stored response can be larger
MAX_ROW_BYTES = 8 * 2**20
KILL_AT_MB = 700  # a run past this is stopped (it has failed already); spares the machine
WALL_S = 60.0  # a run still going after this is stopped: a hang (fixed runs take under 20 s)
ASK_PROMPT = "What is 2 + 2?"
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
FLAGS = ["--timeout", "3", "--max-attempts", "2"]


@dataclass(frozen=True)
class Ran:
    """One `python -m verstehen` process: exit code, output, peak memory, and why it was
    stopped (None when it ended by itself)."""

    code: int
    stdout: str
    stderr: str
    peak_mb: float
    seconds: float
    stopped: str | None


@dataclass(frozen=True)
class Cell:
    """One command against one bad mode: its two runs, and what went wrong (none: it passes)."""

    bad: Ran
    healthy: Ran
    problems: tuple[str, ...]

    def summary(self) -> str:
        """Seconds and peak memory of both runs."""
        return (f"bad run {self.bad.seconds:.1f} s, {self.bad.peak_mb:.0f} MB; healthy rerun "
                f"{self.healthy.seconds:.1f} s, {self.healthy.peak_mb:.0f} MB")


# Runs one `python -m verstehen` (argv[4:]) and writes {code, peak_kib, stopped} to argv[3]. A
# fresh wrapper per run, because a child's ru_maxrss counts the memory of the process it was
# spawned from (Linux keeps the pre-exec high-water mark): this one holds about 10 MB, the
# test process hundreds. It stops the child past argv[1] MB resident or argv[2] seconds.
WRAPPER = """
import json, os, re, signal, sys, time
cap_mb, wall_s, result, args = float(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
pid = os.posix_spawn(sys.executable, [sys.executable, "-m", "verstehen", *args], os.environ)
started, stopped = time.monotonic(), None
while True:
    done, status, usage = os.wait4(pid, os.WNOHANG)
    if done:
        break
    try:
        found = re.search(r"VmRSS:\\s+(\\d+) kB", open(f"/proc/{pid}/status").read())
    except OSError:
        found = None
    if stopped is None and found and int(found.group(1)) > cap_mb * 1024:
        stopped = f"memory over {cap_mb:.0f} MB"
    elif stopped is None and time.monotonic() - started > wall_s:
        stopped = f"still running after {wall_s:.0f} s"
    if stopped:
        os.kill(pid, signal.SIGKILL)
    time.sleep(0.05)
with open(result, "w") as f:
    json.dump({"code": os.waitstatus_to_exitcode(status), "peak_kib": usage.ru_maxrss,
               "stopped": stopped}, f)
"""


def run_verstehen(args: list[str], env: dict[str, str], out: Path) -> Ran:
    """Run `python -m verstehen ARGS` in a fresh WRAPPER: stopped past WALL_S or KILL_AT_MB,
    its peak memory the kernel's count for that process (`wait4`'s ru_maxrss, KiB on Linux)."""
    out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with (out / "stdout").open("wb") as stdout, (out / "stderr").open("wb") as stderr:
        subprocess.run([sys.executable, "-S", "-c", WRAPPER, str(KILL_AT_MB), str(WALL_S),
                        str(out / "result.json"), *args], stdin=subprocess.DEVNULL,
                       stdout=stdout, stderr=stderr, env=env, timeout=WALL_S + 30, check=True)
    result = json.loads((out / "result.json").read_text())
    return Ran(result["code"], (out / "stdout").read_text(errors="replace"),
               (out / "stderr").read_text(errors="replace"), result["peak_kib"] / 1024,
               time.monotonic() - started, result["stopped"])


# ----------------------------------------------------------------- the server itself


def ask_raw(url: str, path: str, payload: dict) -> tuple[int, dict[str, str], bytes, float]:
    """POST `payload` to the server: status, headers, raw body (not decompressed), seconds."""
    started = time.monotonic()
    connection = http.client.HTTPConnection(url.split("//")[1].split("/")[0], timeout=10)
    connection.request("POST", f"/v1{path}", json.dumps(payload),
                       {"content-type": "application/json"})
    reply = connection.getresponse()
    body = reply.read()
    connection.close()
    return (reply.status, {k.lower(): v for k, v in reply.getheaders()}, body,
            time.monotonic() - started)


CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi there"}]}
ECHO = {"model": "m", "prompt": "Answer: A", "echo": True, "logprobs": 1, "max_tokens": 1}


def test_the_server_answers_each_bad_way_it_claims() -> None:
    """Each mode's reply, read raw: the bad value is there, in the form the issue names."""
    with HostileServer(huge_bytes=3_000_000, bomb_bytes=5_000_000,
                       trickle_interval=0.002) as server:
        _, _, body, _ = ask_raw(server.url, "/chat/completions", CHAT)
        healthy = json.loads(body)
        assert healthy["choices"][0]["message"]["content"] == "echo: hi there"
        _, _, body, _ = ask_raw(server.url, "/completions", ECHO)
        (choice,) = json.loads(body)["choices"]
        assert "".join(choice["logprobs"]["tokens"]) == "Answer: A"  # one token a character
        assert choice["logprobs"]["token_logprobs"][0] is None
        assert all(v < 0 for v in choice["logprobs"]["token_logprobs"][1:])

        def reply(mode: str, path: str = "/chat/completions") -> tuple[int, dict, bytes, float]:
            server.set_mode(mode)
            return ask_raw(server.url, path, CHAT if path.startswith("/chat") else ECHO)

        def chat_choice(mode: str) -> dict:
            return json.loads(reply(mode)[2])["choices"][0]

        assert chat_choice("content_list")["message"]["content"] == [
            {"type": "text", "text": "echo: hi there"}]
        assert chat_choice("content_int")["message"]["content"] == 42
        assert json.loads(reply("prompt_tokens_text")[2])["usage"]["prompt_tokens"] == "abc"
        assert b'"echo: hi there\\ud800"' in reply("surrogate")[2]  # the JSON escape itself
        for mode, text in (("nan", b"NaN"), ("neg_inf", b"-Infinity"), ("pos_ten", b"10.0")):
            completion = reply(mode, "/completions")[2]
            assert completion.count(text) == len("Answer: A") - 1  # every value but the first
            assert json.loads(reply(mode)[2])["choices"][0]["logprobs"]["content"]
        status, _, body, _ = reply("huge")
        assert status == 200 and len(body) > 3_000_000
        status, headers, body, _ = reply("gzip_bomb")
        assert headers["content-encoding"] == "gzip" and len(body) < 20_000
        assert len(gzip.decompress(body)) > 5_000_000
        status, _, body, seconds = reply("trickle")
        # one byte each 0.002 s: headers and body take at least 0.002 s a byte of the body
        assert json.loads(body)["choices"] and seconds > 0.002 * len(body)
        status, _, body, _ = reply("truncated")
        assert status == 200 and body.startswith(b"{")
        with pytest.raises(ValueError):
            json.loads(body)
        server.set_mode("healthy")
        assert ask_raw(server.url, "/chat/completions", CHAT)[2] == json.dumps(healthy).encode()


# ----------------------------------------------------------------- what each command is given


def imagine_questions(folder: Path) -> Path:
    """An `imagine generate` run folder with one four-choice question."""
    store = RunStore.create(folder, command="imagine-generate", argv=[], config={}, seed=0,
                            models=[])
    store.append({"kind": "question", "id": "q", "qm": "q1", "qtype": "DQ",
                  "content": "knowledge", "topic": "law", "index": 0, "position": None,
                  "context": None, "reply": "", "status": "ok", "reason": None,
                  "stem": "Which court hears appeals?", "choices": ["high", "low", "none",
                                                                   "all"], "answer": 0})
    return store.path


def command_args(command: str, url: str, tmp: Path) -> list[str]:
    """The command line of one command against the server at `url`; its input files are
    written under `tmp` (small: 1 to 5 questions, so that a cell takes seconds)."""
    remote = ["--base-url", url, *FLAGS]
    if command == "ask":
        return ["ask", "openai/m", ASK_PROMPT, *remote]
    if command == "batch":
        prompts = tmp / "prompts.txt"
        prompts.write_text("one\ntwo\nthree\nfour\nfive\n")
        return ["batch", "openai/m", str(prompts), *remote, "--no-progress"]
    if command == "certify":
        return ["certify", "--model", "openai/m", "--scope", "arithmetic/small", "--rephrase",
                "0", "--questions", "4", *remote, "--no-progress", "--json"]
    if command == "imagine":
        return ["imagine", "answer", "--questions", str(imagine_questions(tmp / "questions")),
                "--model", "openai/m", "--method", "letter", "--server-kind", "openai",
                *remote, "--no-progress", "--json"]
    # one CSQA question and two edges: 2 facts (one positive, one negative) of 23 prompts each
    # and the anchor, 47 log-probability calls (every context's labels, one request each); one
    # attempt each, so that 47 trickled calls take 6 rounds of 3 s at 8 connections
    questions, kb = tmp / "csqa.jsonl", tmp / "kb.tsv"
    questions.write_text(json.dumps({"id": "a", "answerKey": "A", "question": {
        "stem": "Where do dogs sleep?", "choices": [{"label": "A", "text": "home"},
                                                  {"label": "B", "text": "away"}]}}) + "\n")
    kb.write_text("relation\tstart\tend\nIsA\tdog\tanimal\nAtLocation\tdog\thome\n")
    return ["consistency", "--questions", str(questions), "--kb", str(kb), "--model",
            "openai/m", "--server-kind", "openai", "--resamples", "10", "--base-url", url,
            "--timeout", "3", "--max-attempts", "1", "--no-progress", "--json"]


# ----------------------------------------------------------------- what a cell checks


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"non-finite number {name} in the JSON text")


def row_problem(kind: str, raw: bytes) -> str | None:
    """Why a cache row's stored response has a shape no healthy reply gives (None: it is fine).

    The shapes follow the agreement of issue 29: text a string without lone surrogates, token
    counts non-negative ints, log-probabilities finite and <= 0, at most MAX_ROW_BYTES."""
    if len(raw) > MAX_ROW_BYTES:
        return f"a {kind} row of {len(raw):,} bytes"
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except ValueError as exc:
        return f"a {kind} row that is not JSON ({exc})"
    if not isinstance(value, dict):
        return f"a {kind} row that is not an object"
    if kind == "generate":
        text = value.get("text")
        if not isinstance(text, str):
            return f"text of type {type(text).__name__}: {str(text)[:60]!r}"
        if LONE_SURROGATE.search(text):
            return "text with a lone surrogate"
        usage = value.get("usage") or {}
        odd = {k: v for k, v in usage.items()
               if not isinstance(v, int) or isinstance(v, bool) or v < 0}
        return f"token counts {odd}" if odd else None
    if kind == "logprobs":
        values = value.get("logprobs")
        if not isinstance(values, list) or not all(
                isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
                and v <= 0 for v in values):
            return f"log-probabilities {str(values)[:80]}"
    return None


def bad_rows(cache: Path) -> list[str]:
    """What is wrong with each row of the cache file (none when it has no file yet)."""
    if not cache.exists():
        return []
    db = sqlite3.connect(f"file:{cache}?mode=ro", uri=True)
    db.text_factory = bytes  # a row of invalid UTF-8 is a finding, not a crash of the test
    try:
        rows = db.execute("SELECT kind, response FROM calls").fetchall()
    finally:
        db.close()
    return [problem for kind, raw in rows
            if (problem := row_problem(kind.decode(), raw)) is not None]


def process_problems(ran: Ran, *, healthy: bool) -> list[str]:
    """What is wrong with how the process ended."""
    problems = []
    if ran.stopped:
        problems.append(f"stopped: {ran.stopped}")
    elif ran.code not in ({0} if healthy else {0, 1, 2}):
        problems.append(f"exit {ran.code}")
    if "Traceback" in ran.stderr:
        tail = " | ".join(ran.stderr.strip().splitlines()[-3:])
        problems.append(f"traceback: {tail}")
    if ran.peak_mb >= MAX_PEAK_MB:
        problems.append(f"peak memory {ran.peak_mb:.0f} MB")
    return problems


def healthy_result_problems(command: str, ran: Ran, runs_dir: Path) -> list[str]:
    """What the healthy rerun's output lacks: ask prints the stub's answer ("echo: " and the
    prompt, `stub_server.chat_answer`'s text), batch answers all 5 prompts, the others report
    no failed call."""
    if ran.code != 0:
        return []
    if command == "ask":
        return [] if f"echo: {ASK_PROMPT}" in ran.stdout else [f"printed {ran.stdout[:80]!r}"]
    if command == "batch":
        records = [json.loads(line) for path in runs_dir.glob("*/records.jsonl")
                   for line in path.read_text().splitlines()]
        answered = [r for r in records if r.get("error") is None and isinstance(r.get("text"),
                                                                                  str)]
        return [] if len(answered) == 5 else [f"{len(answered)} of 5 records answered"]
    try:
        summary = json.loads(ran.stdout)
    except ValueError:
        return [f"printed no JSON: {ran.stdout[:80]!r}"]
    failed = sum(failed_calls(summary))
    return [] if failed == 0 else [f"{failed} failed calls"]


def failed_calls(value: Any) -> list[int]:
    """Every `failed_calls` count in a printed summary (certify has one per scope)."""
    if isinstance(value, dict):
        return [*([value["failed_calls"]] if "failed_calls" in value else []),
                *(n for v in value.values() for n in failed_calls(v))]
    if isinstance(value, list):
        return [n for v in value for n in failed_calls(v)]
    return []


def run_cell(mode: str, command: str, tmp: Path) -> Cell:
    """The command against the server in `mode`, then again with the server healthy."""
    tmp.mkdir(parents=True)
    cache = tmp / "calls.sqlite"
    env = {k: v for k, v in os.environ.items()
           if k not in {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL",
                        "ANTHROPIC_BASE_URL"}}
    env.update(VERSTEHEN_CACHE=str(cache), VERSTEHEN_RUNS_DIR=str(tmp / "runs-bad"))
    with HostileServer(mode) as server:
        args = command_args(command, server.url, tmp)
        bad = run_verstehen(args, env, tmp / "bad")
        problems = [f"{mode} run: {p}" for p in process_problems(bad, healthy=False)]
        if not server.requests:
            problems.append(f"{mode} run: the server was never asked")
        problems += rows_found(f"{mode} run", cache)
        server.set_mode("healthy")
        env["VERSTEHEN_RUNS_DIR"] = str(tmp / "runs-healthy")
        healthy = run_verstehen(args, env, tmp / "healthy")
    problems += [f"healthy rerun: {p}" for p in process_problems(healthy, healthy=True)
                 + healthy_result_problems(command, healthy, tmp / "runs-healthy")]
    problems += rows_found("healthy rerun", cache)
    return Cell(bad, healthy, tuple(problems))


def rows_found(when: str, cache: Path) -> list[str]:
    """One line for the cache's bad rows, if it has any: how many, and the first."""
    rows = bad_rows(cache)
    return [f"cache after the {when}: {len(rows)} bad row(s), e.g. {rows[0]}"] if rows else []


class Table:
    """The outcome of each cell, the cells of the tests selected run four at a time when the
    first of them asks (so that the seconds a trickled reply or a retry waits overlap)."""

    def __init__(self, root: Path, selected: list[tuple[str, str]]) -> None:
        self.root, self.selected = root, selected
        self.cells: dict[tuple[str, str], Cell] = {}

    def cell(self, mode: str, command: str) -> Cell:
        """The cell's outcome."""
        if (mode, command) not in self.cells:
            todo = [c for c in self.selected if c not in self.cells] or [(mode, command)]
            with ThreadPoolExecutor(4) as pool:
                done = pool.map(lambda c: run_cell(*c, self.root / c[0] / c[1]), todo)
                self.cells.update(zip(todo, done, strict=True))
            with (self.root / "table.txt").open("a") as table:  # for a look at every cell
                table.writelines(f"{m} x {c}: {'FAIL' if self.cells[(m, c)].problems else 'ok'}"
                                 f" ({self.cells[(m, c)].summary()})\n" for m, c in todo)
        return self.cells[(mode, command)]


@pytest.fixture(scope="module")
def table(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Table:
    """The table of the cells this session runs."""
    selected = [(item.callspec.params["mode"], item.callspec.params["command"])
                for item in request.session.items
                if item.module is request.module and hasattr(item, "callspec")]
    return Table(tmp_path_factory.mktemp("hostile"), selected)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("mode", BAD_MODES)
def test_a_hostile_reply_ends_cleanly_and_a_healthy_rerun_succeeds(
        table: Table, mode: str, command: str) -> None:
    cell = table.cell(mode, command)
    if cell.problems:
        pytest.fail(f"{mode} x {command} ({cell.summary()}):\n" + "\n".join(cell.problems),
                    pytrace=False)
