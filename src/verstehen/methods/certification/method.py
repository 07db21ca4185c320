"""Certification (Procedures 4.1 and 5.1) as `verstehen` knows it: `certify` and its helpers,
and the run folders `certify` makes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from verstehen.methods.certification import html
from verstehen.methods.certification.api import (
    bounds,
    certify_scores,
    mean_bounds,
    plan,
    questions_needed,
)
from verstehen.methods.certification.cli import CERTIFY as CERTIFY_COMMAND
from verstehen.methods.certification.cli import SCOPES
from verstehen.methods.certification.options import CertifyOptions, certify, run_certify
from verstehen.methods.certification.parameters import (
    BoundsParameters,
    CertifyScoresParameters,
    PlanParameters,
)
from verstehen.methods.certification.records import (
    AnswerRecord,
    CertifyConfig,
    ExplanationRecord,
)
from verstehen.methods.certification.results import CertifyResult
from verstehen.methods.certification.rows import CERTIFY_ROWS
from verstehen.methods.certification.verdict import Decision
from verstehen.methods.contract import Command, Method, RunKind


def decision_counts(decisions: Iterable[Decision | None]) -> str:
    """How many of each decision, commonest first ("2 understands, 1 no verdict")."""
    counts = Counter("no verdict" if d is None else d.words for d in decisions)
    return ", ".join(f"{n} {word}" for word, n in counts.most_common())


CERTIFY = RunKind(
    words=("certify",), result=CertifyResult, section=html.section, compare=html.compare,
    headline=lambda r: decision_counts(s.verdict.decision if s.verdict else None
                                       for s in r.scopes),
    options=CertifyOptions, entry=run_certify, api=certify, rows=CERTIFY_ROWS,
    records=AnswerRecord | ExplanationRecord, config=CertifyConfig,
    example="verstehen.methods.certification.example:certify_example")
# the commands that call no model; `certify --scores` is a mode of `certify`, whose flags
# (--scores and those of CertifyOptions) give its parameters
COMMANDS = (Command(("bounds",), BoundsParameters, bounds, mean_bounds,
                    "Chernoff and Hoeffding bounds on a mean"),
            Command(("plan",), PlanParameters, plan, questions_needed,
                    "how many questions a verdict will likely need"),
            Command(("certify",), CertifyScoresParameters, certify_scores))
METHOD = Method("certification", (CERTIFY,), help_place=50, commands=COMMANDS,
                own=(CERTIFY_COMMAND, SCOPES))
