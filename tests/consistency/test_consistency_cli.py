"""`verstehen consistency` bad input: one line naming the file (and line), exit 2, no call."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SHARED_DATA, cli_error

CSQA = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
KB = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"
GOOD = {"id": "a", "answerKey": "A", "question": {"stem": "Where do dogs sleep?", "choices": [
    {"label": "A", "text": "home"}, {"label": "B", "text": "away"}]}}


def test_bad_input_is_one_line_and_exit_2(cli, tmp_path: Path) -> None:
    """Each bad file or value names itself (and the line); the good files are written here, so
    the test needs no shared data."""
    questions, kb = tmp_path / "q.jsonl", tmp_path / "kb.tsv"
    questions.write_text(json.dumps(GOOD) + "\n")
    kb.write_text("relation\tstart\tend\nIsA\tdog\tanimal\nAtLocation\tdog\thome\n")
    base = ["consistency", "--questions", str(questions), "--kb", str(kb)]
    short_kb = tmp_path / "short.tsv"
    short_kb.write_text("relation\tstart\nIsA\tdog\n")
    cli_error(cli, ["consistency", "--questions", str(questions), "--kb", str(short_kb)],
              f"{short_kb}:1", "end")
    bad_questions = tmp_path / "bad.jsonl"
    bad_questions.write_text(json.dumps(GOOD) + "\n" + json.dumps({**GOOD, "answerKey": "Z"})
                             + "\n")
    cli_error(cli, ["consistency", "--questions", str(bad_questions), "--kb", str(kb)],
              f"{bad_questions}:2", "answerKey")
    cli_error(cli, [*base, "--relations", "IsA,Bogus"], "Bogus")
    cli_error(cli, [*base, "--limit", "0"], "--limit")
    cli_error(cli, ["consistency", "--questions", str(questions), "--kb",
                    str(tmp_path / "none.tsv")], "none.tsv")
    cli_error(cli, [*base, "--model", "x/y"], "x/y")
    assert not (tmp_path / "runs").exists()  # no run folder: nothing ran


def test_bad_flags_fail_while_parsing(cli) -> None:
    base = ["consistency", "--questions", str(CSQA), "--kb", str(KB)]
    for flag in ("--resamples", "--max-path-length", "--max-tokens"):
        cli_error(cli, [*base, flag, "0"], flag, "at least 1")
    cli_error(cli, [*base, "--question-style", "odd"], "--question-style")
    cli_error(cli, [*base, "--relations", " , "], "no relations")
