"""`verstehen consistency` bad input: one line naming the file (and line), exit 2, no call."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SHARED_DATA, user_error

CSQA = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
KB = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"


def test_bad_input_is_one_line_and_exit_2(cli_env: dict[str, str], tmp_path: Path) -> None:
    kb = tmp_path / "kb.tsv"
    kb.write_text("relation\tstart\nIsA\tdog\n")
    user_error(["consistency", "--questions", str(CSQA), "--kb", str(kb)], cli_env,
               f"{kb}:1", "end")
    questions = tmp_path / "q.jsonl"
    good = {"id": "a", "answerKey": "A", "question": {"stem": "Where?", "choices": [
        {"label": "A", "text": "home"}, {"label": "B", "text": "away"}]}}
    questions.write_text(json.dumps(good) + "\n" + json.dumps({**good, "answerKey": "Z"}) + "\n")
    user_error(["consistency", "--questions", str(questions), "--kb", str(KB)], cli_env,
               f"{questions}:2", "answerKey")
    user_error(["consistency", "--questions", str(CSQA), "--kb", str(KB), "--relations",
                "IsA,Bogus"], cli_env, "Bogus")
    user_error(["consistency", "--questions", str(CSQA), "--kb", str(KB), "--limit", "0"],
               cli_env, "--limit")
    user_error(["consistency", "--questions", str(CSQA), "--kb", str(tmp_path / "none.tsv")],
               cli_env, "none.tsv")
    user_error(["consistency", "--questions", str(CSQA), "--kb", str(KB), "--model", "x/y"],
               cli_env, "x/y")
