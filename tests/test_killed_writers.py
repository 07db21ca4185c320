"""500 SIGKILLs at random moments of verstehen's writers (issue 43): `export` (CSV, Parquet,
Inspect), `report`, `annotate export` and `--junit`'s file, each killed while it runs, its
outputs then absent, their previous version byte for byte, or whole (equal to an output the same
command wrote unkilled; an Inspect log read whole and equal to it, its zip's times aside). A
SIGKILL during `export --format csv` used to leave the CSV cut in about half the kills.

The writers run in children forked by `kill_server.py` (imported and warmed once), so each kill
is a real SIGKILL of a real process at a random moment of its run: uniform over the time the
command takes unkilled (fork and reaping included), which lands some kills before it writes,
some while it writes (those that leave its `.NAME.tmp` behind) and some after it ended. The
outcomes are counted per file (a CSV or Parquet export writes two).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import pytest

import verstehen as vs
from verstehen.methods.certification.example import calculator
from verstehen.methods.potemkin.api import potemkin_run
from verstehen.testing.scripted import ScriptedModel

pytestmark = pytest.mark.slow

KILLS = 500
SERVER = Path(__file__).with_name("kill_server.py")
SEED = 43


@dataclass
class Writer:
    """One command killed: its request to the server, the files it writes, and the counts."""

    name: str
    request: dict[str, object]
    outputs: tuple[Path, ...]
    seconds: float = 0.0  # how long it takes unkilled
    outcomes: Counter[str] = field(default_factory=Counter)


def replies(prompt: str) -> str:
    """Right answers, a formula reply now and then (the CSV writers quote it)."""
    return '=HYPERLINK("http://example.com")' if sum(map(ord, prompt)) % 7 == 0 \
        else calculator(prompt)


def made_runs(base: Path) -> dict[str, Path]:
    """A certify run of 2,500 questions, one of 50 (Inspect's writer is slow per sample) and a
    Potemkin run of about 1,800 answers, all made without a model."""
    where = {"runs_dir": base / "runs", "cache": base / "calls.sqlite"}
    made = {name: vs.certify(ScriptedModel("scripted/calc", reply=replies), "arithmetic/small",
                             questions=n, rephrase=2, pg=0.6, rid=0.3, **where).run_dir
            for name, n in (("certify", 2500), ("small", 50))}
    made["potemkin"] = potemkin_run(ScriptedModel("scripted/w", reply=lambda p: "-A formula?"),
                                    concepts="game-theory", items_per_concept=60,
                                    **where).run_dir
    return made


def writers(runs: dict[str, Path], out: Path) -> list[Writer]:
    """The six writers, each writing into its own folder under `out`."""
    certify, small, potemkin = runs["certify"], runs["small"], runs["potemkin"]
    folders = {name: out / name for name in ("csv", "parquet", "inspect", "report",
                                             "annotate", "junit")}
    return [
        Writer("export --format csv", {"argv": ["export", str(certify), "--format", "csv", "-o",
                                                str(folders["csv"])]},
               tuple(folders["csv"] / f"{certify.name}-{t}.csv" for t in ("records", "results"))),
        Writer("export --format parquet", {"argv": [
            "export", str(certify), "--format", "parquet", "-o", str(folders["parquet"])]},
               tuple(folders["parquet"] / f"{certify.name}-{t}.parquet"
                     for t in ("records", "results"))),
        Writer("export --inspect", {"argv": ["export", str(small), "--inspect", "-o",
                                             str(folders["inspect"])]},
               (folders["inspect"] / f"{small.name}.eval",)),
        Writer("report", {"argv": ["report", str(certify), "-o",
                                   str(folders["report"] / "report.html")]},
               (folders["report"] / "report.html",)),
        Writer("annotate export", {"argv": ["annotate", "export", str(potemkin), "--all",
                                            "--out", str(folders["annotate"] / "to-label.csv")]},
               (folders["annotate"] / "to-label.csv",)),
        Writer("--junit", {"junit": str(folders["junit"] / "junit.xml")},
               (folders["junit"] / "junit.xml",)),
    ]


class Server:
    """kill_server.py, started once: fork a writer, kill it, reap it."""

    def __init__(self, certify: Path, warm: list[dict[str, object]]) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(SERVER), json.dumps({"certify": str(certify), "warm": warm})],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = json.loads(self._line())
        assert ready["ready"] == [0] * len(warm), ready
        assert ready["threads"] == 1, ready  # forking a process with threads could hang

    def _line(self) -> str:
        stdout: IO[str] | None = self.process.stdout
        assert stdout is not None
        line = stdout.readline()
        assert line, f"kill_server.py ended ({self.process.wait()})"
        return line

    def _send(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def run(self, request: dict[str, object], kill_after: float | None) -> dict[str, int | None]:
        """Fork a child running `request`, SIGKILL it after `kill_after` seconds (None: let it
        end), reap it; how it ended."""
        self._send(json.dumps(request))
        pid = int(self._line())
        if kill_after is not None:
            time.sleep(kill_after)
            os.kill(pid, signal.SIGKILL)  # not reaped yet: the pid is still the child's
        self._send("reap")
        ended: dict[str, int | None] = json.loads(self._line())
        return ended

    def close(self) -> None:
        """End the server."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=30)


def same_log(path: Path, reference: Path) -> bool:
    """Whether two Inspect logs read whole and hold the same log, aside from where they were
    read from and what Inspect makes afresh at each write: its zip's member times and each
    chat message's random id."""
    from inspect_ai.log import read_eval_log

    def content(p: Path) -> object:
        return without_message_ids(read_eval_log(str(p)).model_dump(exclude={"location"}))
    return content(path) == content(reference)


def without_message_ids(value: object) -> object:
    """A dumped log with the `id` of each chat message (a dict with a `role`) left out."""
    if isinstance(value, dict):
        return {k: without_message_ids(v) for k, v in value.items()
                if not (k == "id" and "role" in value)}
    if isinstance(value, list):
        return [without_message_ids(v) for v in value]
    return value


def outcome(path: Path, previous: bytes | None, reference: Path) -> str:
    """absent, previous, whole, or damaged (anything else at the final name)."""
    if not path.exists():
        return "absent"
    data = path.read_bytes()
    if previous is not None and data == previous:
        return "previous"
    if data == reference.read_bytes():
        return "whole"
    if path.suffix == ".eval" and same_log(path, reference):
        return "whole"
    return "damaged"


def test_500_kills_leave_each_output_absent_previous_or_whole(tmp_path: Path) -> None:
    """Each kill leaves every output of its command absent, its previous version or whole."""
    pytest.importorskip("inspect_ai")
    pytest.importorskip("pyarrow")
    runs = made_runs(tmp_path)
    refs = writers(runs, tmp_path / "reference")
    again = writers(runs, tmp_path / "again")
    killed = writers(runs, tmp_path / "killed")
    for w in (*refs, *again, *killed):
        w.outputs[0].parent.mkdir(parents=True, exist_ok=True)
    server = Server(runs["certify"], [w.request for w in again])
    try:
        for ref, twin in zip(refs, again, strict=True):
            start = time.monotonic()
            assert server.run(ref.request, None) == {"signal": None, "code": 0}, ref.name
            ref.seconds = time.monotonic() - start
            killed[refs.index(ref)].seconds = ref.seconds
            assert server.run(twin.request, None) == {"signal": None, "code": 0}, ref.name
            for mine, theirs in zip(ref.outputs, twin.outputs, strict=True):  # deterministic
                assert outcome(theirs, None, mine) == "whole", theirs
        rng = random.Random(SEED)
        order = [killed[i % len(killed)] for i in range(KILLS)]
        rng.shuffle(order)
        damaged: list[str] = []
        for trial, writer in enumerate(order):
            ref = refs[killed.index(writer)]
            previous = None
            for path in writer.outputs:  # absent, or a previous version, before each kill
                path.unlink(missing_ok=True)
            if rng.random() < 0.5:
                previous = f"the previous version, trial {trial}\n".encode()
                for path in writer.outputs:
                    path.write_bytes(previous)
            ended = server.run(writer.request, rng.uniform(0, ref.seconds))
            writer.outcomes["killed" if ended["signal"] == signal.SIGKILL else "ended first"] += 1
            assert ended["signal"] == signal.SIGKILL or ended["code"] == 0, (writer.name, ended)
            if any(p.with_name(f".{p.name}.tmp").exists() for p in writer.outputs):
                writer.outcomes["left its temporary file (killed while writing)"] += 1
            for path, reference in zip(writer.outputs, ref.outputs, strict=True):
                found = outcome(path, previous, reference)
                writer.outcomes[found] += 1
                if found not in ("whole", "absent" if previous is None else "previous"):
                    damaged.append(f"trial {trial}, {writer.name}: {path.name} {found}")
    finally:
        server.close()
    lines = [f"{w.name} ({w.seconds:.2f} s unkilled): " + ", ".join(
        f"{k} {v}" for k, v in sorted(w.outcomes.items())) for w in killed]
    print("\n".join(lines))
    assert damaged == [], "\n".join(damaged + lines)
    assert sum(w.outcomes["killed"] for w in killed) >= KILLS * 0.6
    assert sum(w.outcomes["ended first"] + w.outcomes["killed"] for w in killed) == KILLS
    mid_write = sum(w.outcomes["left its temporary file (killed while writing)"] for w in killed)
    assert mid_write >= 25, "\n".join(lines)
