"""The Potemkin commands from the command line (in process), without a model: `potemkin score`
on hand-made records, and bad input ending in one line and exit 2."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import SHARED_DATA, Cli, cli_error, needs_shared

HEADER = "model,domain,concept,task,keystone,correct\n"


def records_file(tmp_path: Path) -> Path:
    """Model m: classify 3 right of 4 and generate 1 of 2 after a passed keystone, one unparsed
    edit, and two classify answers of a concept whose keystone failed."""
    rows = ["m,lit,Haiku,classify,1,1", "m,lit,Haiku,classify,1,1", "m,lit,Haiku,classify,1,1",
            "m,lit,Haiku,classify,1,0", "m,lit,Haiku,generate,1,1", "m,lit,Haiku,generate,1,0",
            "m,lit,Haiku,edit,1,", "m,lit,Paradox,classify,0,1", "m,lit,Paradox,classify,0,0"]
    path = tmp_path / "records.csv"
    path.write_text(HEADER + "\n".join(rows) + "\n")
    return path


def test_score_prints_rates_computed_by_hand(cli: Cli, tmp_path: Path) -> None:
    """classify: 2 x (1 - 3/4) = 0.50, SE 2 x sqrt(3/4 x 1/4 / 4) = 0.43; generate 1 - 1/2."""
    done = cli(["potemkin", "score", str(records_file(tmp_path)), "--plot",
                str(tmp_path / "k.png")])
    assert done.returncode == 0, done.stderr
    assert "0.50 (0.43) n=4" in done.stdout
    assert "0.50 (0.35) n=2" in done.stdout  # generate: sqrt(1/2 x 1/2 / 2) = 0.354
    assert (tmp_path / "k.png").read_bytes()[:4] == b"\x89PNG"


def test_score_json(cli: Cli, tmp_path: Path) -> None:
    """The JSON has the same rates, the unparsed edit (wrong: rate 1 - 0/1) and the excluded
    Paradox answers; --unparsed exclude leaves the edit out instead (no rate, n 0)."""
    done = cli(["potemkin", "score", str(records_file(tmp_path)), "--json"])
    assert done.returncode == 0, done.stderr
    overall = json.loads(done.stdout)["table1"]["overall"]
    assert math.isclose(overall["classify"]["rate"], 2 * (1 - 3 / 4))
    assert math.isclose(overall["classify"]["se"], 2 * math.sqrt(3 / 4 * 1 / 4 / 4))
    assert overall["classify"]["excluded"] == 2
    assert overall["edit"]["rate"] == 1.0 and overall["edit"]["n"] == 1
    assert overall["edit"]["unparsed"] == 1 and overall["edit"]["unparsed_wrong"] is True
    done = cli(["potemkin", "score", str(records_file(tmp_path)), "--json",
                "--unparsed", "exclude"])
    overall = json.loads(done.stdout)["table1"]["overall"]
    assert overall["edit"]["rate"] is None and overall["edit"]["n"] == 0
    assert overall["edit"]["unparsed"] == 1 and overall["edit"]["unparsed_wrong"] is False
    assert math.isclose(overall["classify"]["rate"], 2 * (1 - 3 / 4))  # the same either way


def test_score_tables_show_the_unreadable_answers(cli: Cli, tmp_path: Path) -> None:
    """Every table cell with unreadable answers says how many and how they were counted."""
    done = cli(["potemkin", "score", str(records_file(tmp_path))])
    assert "1.00 (0.00) n=1, 1 unreadable (as wrong)" in done.stdout  # Table 1 and Table 6
    assert done.stdout.count("1 unreadable (as wrong)") == 4  # m and overall, in both tables
    done = cli(["potemkin", "score", str(records_file(tmp_path)), "--unparsed", "exclude"])
    assert "—  n=0, 1 unreadable (left out)" in done.stdout


def test_score_errors(cli: Cli, tmp_path: Path) -> None:
    """Missing file, a bad task, a missing column, mixed keystones: file and line named."""
    cli_error(cli, ["potemkin", "score", str(tmp_path / "none.csv")], "none.csv")
    bad = tmp_path / "bad.csv"
    bad.write_text(HEADER + "m,lit,Haiku,define,1,1\n")
    cli_error(cli, ["potemkin", "score", str(bad)], "bad.csv:2", "define")
    bad.write_text("model,domain,concept,task,correct\nm,lit,Haiku,classify,1\n")
    cli_error(cli, ["potemkin", "score", str(bad)], "keystone")
    bad.write_text(HEADER + "m,lit,Haiku,classify,1,1\nm,lit,Haiku,edit,0,1\n")
    cli_error(cli, ["potemkin", "score", str(bad)], "Haiku")
    waiting = tmp_path / "run"  # a run folder whose definitions nobody graded yet
    waiting.mkdir()
    (waiting / "potemkin-records.csv").write_text(HEADER)
    cli_error(cli, ["potemkin", "score", str(waiting)], "no graded use answers yet")


@pytest.mark.parametrize(("args", "needle"), [
    (["potemkin", "run", "--concepts", "Quantum Haiku"], "Quantum Haiku"),
    (["potemkin", "run", "--tasks", "define,explain"], "--tasks"),
    (["potemkin", "run", "--source", "benchmark"], "--benchmark-dir"),
    (["potemkin", "run", "--concepts", "psych/ikea-effect"], "--benchmark-dir"),
    (["potemkin", "run", "--items-per-concept", "0"], "--items-per-concept"),
    (["potemkin", "run", "--benchmark-dir", "/nonexistent/potemkin"], "/nonexistent/potemkin"),
    (["potemkin", "incoherence", "--per-concept", "0"], "--per-concept"),
    (["potemkin", "selfjudge", "--benchmark", "arithmetic"], "mcq:PATH"),
    (["potemkin", "selfjudge", "--benchmark", "mcq:/nonexistent.jsonl"], "nonexistent"),
    (["potemkin", "selfjudge", "--benchmark", "mcq:x", "--questions", "0"], "--questions"),
])
def test_bad_flags(cli: Cli, args: list[str], needle: str) -> None:
    """Flags are checked before any model loads."""
    cli_error(cli, args, needle)


def test_annotate_needs_a_potemkin_run(cli: Cli, tmp_path: Path) -> None:
    """A folder that is no run, and a run of another command, are refused."""
    cli_error(cli, ["annotate", "export", str(tmp_path)], "run.json")
    other = tmp_path / "other"
    other.mkdir()
    (other / "run.json").write_text(json.dumps({"command": "certify", "config": {}}))
    cli_error(cli, ["annotate", "export", str(other)], "potemkin run")
    cli_error(cli, ["annotate", "import", str(other), str(tmp_path / "x.csv")], "potemkin run")


@needs_shared("PotemkinBenchmark")
def test_benchmark_concepts_without_items_are_refused(cli: Cli) -> None:
    """Slant Rhyme has no labelled classify items in the benchmark: nothing to ask."""
    cli_error(cli, ["potemkin", "run", "--benchmark-dir", str(SHARED_DATA / "PotemkinBenchmark"),
                    "--concepts", "Slant Rhyme", "--tasks", "define,classify"],
              "no use-task items")
