"""`verstehen consistency` bad input: one line naming the file (and line), exit 2, no call."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SHARED_DATA, cli_error

CSQA = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
KB = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"


def test_bad_input_is_one_line_and_exit_2(cli, tmp_path: Path) -> None:
    kb = tmp_path / "kb.tsv"
    kb.write_text("relation\tstart\nIsA\tdog\n")
    cli_error(cli, ["consistency", "--questions", str(CSQA), "--kb", str(kb)], f"{kb}:1", "end")
    questions = tmp_path / "q.jsonl"
    good = {"id": "a", "answerKey": "A", "question": {"stem": "Where?", "choices": [
        {"label": "A", "text": "home"}, {"label": "B", "text": "away"}]}}
    questions.write_text(json.dumps(good) + "\n" + json.dumps({**good, "answerKey": "Z"}) + "\n")
    cli_error(cli, ["consistency", "--questions", str(questions), "--kb", str(KB)],
              f"{questions}:2", "answerKey")
    cli_error(cli, ["consistency", "--questions", str(CSQA), "--kb", str(KB), "--relations",
                    "IsA,Bogus"], "Bogus")
    cli_error(cli, ["consistency", "--questions", str(CSQA), "--kb", str(KB), "--limit", "0"],
              "--limit")
    cli_error(cli, ["consistency", "--questions", str(CSQA), "--kb", str(tmp_path / "none.tsv")],
              "none.tsv")
    cli_error(cli, ["consistency", "--questions", str(CSQA), "--kb", str(KB), "--model", "x/y"],
              "x/y")
    assert not (tmp_path / "runs").exists()  # no run folder: nothing ran


def test_bad_flags_fail_while_parsing(cli) -> None:
    base = ["consistency", "--questions", str(CSQA), "--kb", str(KB)]
    for flag in ("--resamples", "--max-path-length", "--max-tokens"):
        cli_error(cli, [*base, flag, "0"], flag, "at least 1")
    cli_error(cli, [*base, "--question-style", "odd"], "--question-style")
    cli_error(cli, [*base, "--relations", " , "], "no relations")
