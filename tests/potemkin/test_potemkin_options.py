"""The parameters of `potemkin run|incoherence|selfjudge`, declared once: the command line and
the Python API make the same options of the same values, and refuse the same bad ones; the
records of the three run kinds read back as their kinds."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import pytest

from verstehen.cli.main import build_parser
from verstehen.cli.options import options_from
from verstehen.errors import UserError
from verstehen.methods.potemkin.api import potemkin_incoherence, potemkin_run, potemkin_selfjudge
from verstehen.methods.potemkin.lines import pair_lines, run_lines, selfjudge_lines
from verstehen.methods.potemkin.options import (
    PotemkinIncoherenceOptions,
    PotemkinRunOptions,
    PotemkinSelfjudgeOptions,
)


def parsed(*words: str) -> argparse.Namespace:
    """The flags of `verstehen WORDS` as the CLI parses them."""
    args: argparse.Namespace = build_parser().parse_args(list(words))
    return args


def test_run_options_are_the_same_from_both_faces() -> None:
    """Every flag given on the command line lands where the keyword of the same name does."""
    args = parsed("potemkin", "run", "--model", "openai/m", "--judge", "openai/j",
                  "--judge-base-url", "http://127.0.0.1:9/v1", "--concepts", "game-theory",
                  "--concepts", "psych/ikea-effect", "--tasks", "define,edit",
                  "--source", "generated", "--items-per-concept", "3", "--unparsed", "exclude",
                  "--seed", "4", "--max-tokens", "9")
    from_cli = options_from(PotemkinRunOptions, args)
    from_python = PotemkinRunOptions("openai/m", judge="openai/j",
                                  judge_base_url="http://127.0.0.1:9/v1",
                                  concepts=["game-theory", "psych/ikea-effect"],
                                  tasks="define,edit", source="generated", items_per_concept=3,
                                  unparsed="exclude", seed=4, max_tokens=9)
    assert from_cli.values() == from_python.values()
    assert from_cli.concepts == ("game-theory", "psych/ikea-effect")  # a list kept as a tuple


def test_defaults_are_the_same_from_both_faces() -> None:
    """Nothing given: the paper's four tasks, 5 examples at 0.7, 20 questions of 5 related ones
    with the concept asked (the defaults `verstehen potemkin ... --help` states)."""
    run = options_from(PotemkinRunOptions, parsed("potemkin", "run"))
    assert run.values() == PotemkinRunOptions(run.model).values()
    assert run.tasks == ("define", "classify", "generate", "edit") and run.concepts is None
    inc = options_from(PotemkinIncoherenceOptions, parsed("potemkin", "incoherence"))
    assert (inc.per_concept, inc.temperature) == (5, 0.7)
    judge = options_from(PotemkinSelfjudgeOptions, parsed("potemkin", "selfjudge", "--benchmark",
                                                  "mcq:x.jsonl"))
    assert (judge.benchmark, judge.questions, judge.subquestions, judge.concept) == (
        "mcq:x.jsonl", 20, 5, "ask")


def test_temperature_above_ten_is_refused_on_both_faces(
        capsys: pytest.CaptureFixture[str]) -> None:
    """The shared sampling range, 0 to 10: from Python now as from the flag."""
    with pytest.raises(UserError, match=re.escape("temperature must be at most 10, not 10.5")):
        potemkin_incoherence("openai/m", temperature=10.5)
    with pytest.raises(SystemExit):
        parsed("potemkin", "incoherence", "--temperature", "10.5")
    assert "must be at most 10, not 10.5" in capsys.readouterr().err


def test_api_functions_take_the_declared_parameters_and_say_them() -> None:
    """The model (and the benchmark) by position, the rest by keyword, each in the docstring."""
    with pytest.raises(TypeError):
        potemkin_run("openai/m", "game-theory")  # type: ignore[misc]
    for function, name in ((potemkin_run, "items_per_concept"), (potemkin_incoherence,
                                                             "per_concept"),
                           (potemkin_selfjudge, "subquestions")):
        assert f"    {name}: " in (function.__doc__ or "")
    assert potemkin_selfjudge.__name__ == "potemkin_selfjudge"


def write_lines(tmp_path: Path, rows: list[dict]) -> list[dict]:
    """The rows as a records.jsonl holds them, read back."""
    path = tmp_path / "records.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_readers_keep_their_kinds_only(tmp_path: Path) -> None:
    """Each reader keeps the lines of its run kind, in order, and leaves any other out."""
    rows = write_lines(tmp_path, [{"kind": "answer", "id": "a"}, {"kind": "note"},
                                  {"kind": "judge", "id": "a"}, {"kind": "pair", "index": 0},
                                  {"kind": "related", "index": 1}, {"kind": "error"}])
    assert [r["kind"] for r in run_lines(rows)] == ["answer", "judge"]
    assert [r["index"] for r in pair_lines(rows)] == [0]
    assert [r["kind"] for r in selfjudge_lines(rows)] == ["related", "error"]
