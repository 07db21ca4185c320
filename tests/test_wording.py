"""Messages name parameters as the face running them does: a Python caller reads
`max_questions=59`, a command-line user `--max-questions 59` (`verstehen.wording`), from the
same message in the same procedure."""

from __future__ import annotations

from pathlib import Path

import pytest

import verstehen as vs
from verstehen.errors import UserError
from verstehen.wording import Face, flags_named, setting

from conftest import Cli


def test_a_face_names_a_parameter_its_own_way() -> None:
    python, cli = Face(), Face(command_line=True, flags={"subjects": "--subject"})
    assert (python.setting("max_questions", 59), cli.setting("max_questions", 59)) == (
        "max_questions=59", "--max-questions 59")
    assert (python.setting("questions", 10_000), cli.setting("questions", 10_000)) == (
        "questions=10_000", "--questions 10,000")
    assert (python.setting("method", "generate"), cli.setting("method", "generate")) == (
        "method='generate'", "--method generate")
    assert (python.setting("sequential", True), cli.setting("sequential", True)) == (
        "sequential=True", "--sequential")
    assert (python.name("subjects"), cli.name("subjects")) == ("subjects", "--subject")
    assert setting("pg", 0.75) == "pg=0.75"  # no face chosen: Python's
    with flags_named({"pg": "--passing-grade"}):
        assert setting("pg", 0.75) == "--passing-grade 0.75"
    assert setting("pg", 0.75) == "pg=0.75"  # only while the command line runs


def test_the_same_refusal_in_python_and_on_the_command_line(cli: Cli, tmp_path: Path) -> None:
    scores = tmp_path / "scores.txt"
    scores.write_text("1\n" * 20)
    with pytest.raises(UserError) as raised:
        vs.certify_scores(scores, max_questions=10)
    assert str(raised.value) == ("max_questions is the budget of a sequential run: add "
                                 "sequential=True, or leave it out")
    done = cli(["certify", "--scores", str(scores), "--max-questions", "10"])
    assert done.returncode == 2
    assert done.stderr.strip() == ("verstehen: error: --max-questions is the budget of a "
                                   "sequential run: add --sequential, or leave it out")
    with pytest.raises(UserError, match=r"^max_questions is"):  # the same process, Python again
        vs.certify_scores(scores, max_questions=10)
