"""Which sequential test an audit's certification ran (issue 46): the betting test by default,
named in run.json and summary.json; the doubling test, the only one before, named nowhere, so
an audit folder of before reads and resumes as it always did."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import verstehen as vs
from verstehen.methods.certification.example import calculator
from verstehen.methods.certification.verdict import BettingLook, SequentialLook
from verstehen.testing.scripted import ScriptedModel


def audit(tmp_path: Path, **keywords: object) -> vs.AuditResult:
    """A perfect calculator audited on arithmetic/small, in a private folder and cache."""
    return vs.audit(ScriptedModel("scripted/calc", reply=calculator), subjects="arithmetic/small",
                    runs_dir=tmp_path / "runs", cache=tmp_path / "calls.sqlite", **keywords)


def test_the_betting_test_is_named_and_decides(tmp_path: Path) -> None:
    result = audit(tmp_path)
    (line,) = result.targets
    assert result.sequential_test == "betting" and isinstance(line.verdict.details, BettingLook)
    # its bets need 18 right answers; arithmetic's looks from 8 are 8, 9, 11, ..., 17, 20
    assert line.asked == line.verdict.n == 20
    assert "(the betting test, first look 8)" in result.text().splitlines()[0]
    summary = json.loads((result.run_dir / "summary.json").read_text())
    config = json.loads((result.run_dir / "run.json").read_text())["config"]
    assert summary["sequential_test"] == config["sequential_test"] == "betting"


def test_an_audit_by_doubling_looks_reads_and_resumes_as_before(tmp_path: Path) -> None:
    """Its folders name no test, as every audit folder before issue 46; resumed with none
    given it goes on by doubling looks (a betting test asked of it is refused: the folder's
    settings differ)."""
    made = audit(tmp_path, sequential_test="doubling")
    (line,) = made.targets
    assert made.sequential_test == "doubling" and isinstance(line.verdict.details, SequentialLook)
    assert line.asked == 32  # L(1, n, δ_j) first reaches 0.8 at the third look
    summary = json.loads((made.run_dir / "summary.json").read_text())
    config = json.loads((made.run_dir / "run.json").read_text())["config"]
    assert "sequential_test" not in summary and "sequential_test" not in config
    assert "(the doubling test, first look 8)" in made.text().splitlines()[0]
    again = audit(tmp_path, resume=made.run_dir)
    assert again.run_dir == made.run_dir and again.sequential_test == "doubling"
    assert again.targets[0].verdict == line.verdict
    with pytest.raises(vs.UserError, match="sequential_test"):
        audit(tmp_path, resume=made.run_dir, sequential_test="betting")
