"""The verdicts of one run as CI sees them (`--fail-on`, `--junit`): one case per (model, scope)
of a `certify` or (model, target) of an `audit`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from verstehen.methods.certification.verdict import Criterion, Decision, Verdict


@dataclass(frozen=True)
class VerdictCase:
    """One verdict of a run, as CI sees it: the model, what it was decided on (a scope or a
    target), the verdict (None: none was reached) and, without one, why."""

    model: str
    name: str
    verdict: Verdict | None
    no_verdict: str = "no verdict: calls failed; resume the run to retry them"


@dataclass(frozen=True)
class VerdictSuite:
    """The verdicts of one command's run, with what a JUnit report says about the run."""

    command: str
    cases: tuple[VerdictCase, ...]
    criterion: Criterion | None = None
    run_dir: Path | None = None
    seconds: float | None = None

    def failing(self, fail_on: frozenset[Decision]) -> tuple[VerdictCase, ...]:
        """The cases whose verdict is in `fail_on`."""
        return tuple(case for case in self.cases
                     if case.verdict is not None and case.verdict.decision in fail_on)
