"""Output details (issue 21, item 11): `models` columns line up, verdicts say in words what
decided them, counts of one take the singular, a bad model name stops before any progress."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import verstehen as vs
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.results import CertifyResult, ScopeResult
from verstehen.methods.certification.text import verdict_row
from verstehen.methods.certification.verdict import Criterion, Decision
from verstehen.methods.imagination.parse import QuestionFailure, parse_question
from verstehen.models import PROVIDERS
from verstehen.testing.scripted import ScriptedModel
from verstehen.text.tables import plural

from conftest import Cli, cli_error

# ---------------------------------------------------------------- a. `verstehen models`


@pytest.mark.parametrize("set_keys", [(), ("OPENAI_API_KEY",), ("ANTHROPIC_API_KEY",)])
def test_models_columns_line_up_whatever_the_cells(cli: Cli, monkeypatch: pytest.MonkeyPatch,
                                                   set_keys: tuple[str, ...]) -> None:
    for name in set_keys:
        monkeypatch.setenv(name, "sk-test")
    done = cli(["models"])
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    header = lines[0]
    column = header.index("capabilities")
    assert header.index("key variable") > header.index("provider")
    rows = {line.split()[0]: line for line in lines[1:1 + 2 * len(PROVIDERS)]
            if line and not line.startswith(" ")}
    assert set(rows) == set(PROVIDERS)
    for name, info in PROVIDERS.items():
        row = rows[name]
        assert row.index(info.capabilities) == column, (name, row)
        assert row[column - 2:column] == "  ", row  # a gap, not a cell running into the next
    assert "[not set]" in done.stdout or len(set_keys) == 2


# ---------------------------------------------------------------- b. verdicts in words


def _scope(scores: list[float]) -> ScopeResult:
    verdict = certify(np.array(scores), 0.8, 0.2, 0.05)
    return ScopeResult("arithmetic/small", len(scores), 0, verdict, {}, {}, {})


def test_the_verdict_table_says_what_decided_it_in_words(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    wrong, right = _scope([0.0] * 64), _scope([1.0] * 64)
    assert wrong.verdict is not None and right.verdict is not None
    assert wrong.verdict.decided_by == ("bad_grade", "bad_rid")  # the JSON keeps the ids
    assert right.verdict.decided_by == ("good_grade", "good_rid")
    assert verdict_row(wrong)[5] == "mean score too low, too many ridiculous answers"
    assert verdict_row(right)[5] == "mean score high enough, few enough ridiculous answers"
    undecided = _scope([1.0, 0.0] * 4)
    assert undecided.verdict is not None
    assert undecided.verdict.decision == Decision.INCONCLUSIVE
    assert verdict_row(undecided)[5] == "-"
    print(CertifyResult("m", Criterion(0.8, 0.2, 0.05), (wrong, right, undecided),
                        run_dir=tmp_path, seconds=1.0, usage={}).text())
    out = capsys.readouterr().out
    assert "bad_" not in out and "good_" not in out
    assert "decided by" in out and "too many ridiculous answers" in out
    assert wrong.verdict.to_dict()["decided_by"] == ["bad_grade", "bad_rid"]


# ---------------------------------------------------------------- d. one, not ones


def test_plural_takes_the_singular_for_one() -> None:
    assert plural(1, "choice") == "1 choice" and plural(0, "choice") == "0 choices"
    assert plural(2, "entry", "entries") == "2 entries" and plural(1, "entry", "entries") == \
        "1 entry"


def test_one_choice_is_one_choice() -> None:
    text = "Question: Which is red?\nA. a rose\nAnswer: A"
    assert parse_question(text) == QuestionFailure("found 1 choice, expected 4")


def test_one_definition_not_graded_is_singular(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    model = ScriptedModel("scripted/poet", reply=lambda p: "ANSWER: Yes")
    result = vs.potemkin_run(model, concepts="poetry/haiku", tasks="define,classify",
                         items_per_concept=1, runs_dir=tmp_path / "runs",
                         cache=tmp_path / "calls.sqlite")
    capsys.readouterr()
    print(result.text())
    out = capsys.readouterr().out
    assert "1 definition not graded yet" in out
    assert "1 use answer waits for its concept's definition" in out


def test_one_failed_call_is_singular(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    failed = ScopeResult("arithmetic/small", 1, 1, None, {}, {}, {})
    print(CertifyResult("m", Criterion(0.8, 0.2, 0.05), (failed,), run_dir=tmp_path,
                        seconds=1.0, usage={}).text())
    out = capsys.readouterr().out
    assert "1 call failed" in out and "1 calls" not in out
    assert "1 failed call" in " ".join(verdict_row(failed))


# ---------------------------------------------------------------- g. a bad model name


def test_a_bad_model_name_prints_no_progress_before_its_error(cli: Cli) -> None:
    done = cli(["certify", "--model", "nosuch/model", "--scope", "arithmetic/small",
                "--questions", "4"])
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0, done.stderr
    assert "done" not in done.stderr and "ETA" not in done.stderr


def test_a_missing_local_model_leaves_no_audit_folder(cli: Cli, cli_env: dict[str, str],
                                                      tmp_path: Path) -> None:
    """The audit checks its models before it makes its folder: one line, exit 2, no folder
    (a failed run folder of an audit that never started is only clutter)."""
    cli_error(cli, ["audit", "--model", f"local/{tmp_path / 'none.gguf'}"], "GGUF file not found")
    assert not Path(cli_env["VERSTEHEN_RUNS_DIR"]).exists()
