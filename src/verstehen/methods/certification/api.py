"""Certification from Python: `certify()` one scope, `certify_scores()` decide from scores,
`bounds()` on a mean, `plan()` how many questions a verdict likely needs.

`certify` is synchronous (it works inside a notebook's running loop too) and has an `_async`
twin; both are made from CertifyOptions (options.py) and call the entry point `verstehen
certify` calls, so their run folders are the same.
The other three are the commands `verstehen certify --scores`, `bounds` and `plan`: each is
made from its parameters class (parameters.py, `declared_function`) and a body the command
calls on the same parameters, so the commands print what these return.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verstehen.domains.catalog import canonical_name
from verstehen.errors import UserError
from verstehen.methods.certification.bounds import (
    chernoff_lower,
    chernoff_upper,
    hoeffding_lower,
    hoeffding_upper,
)
from verstehen.methods.certification.decide import certify as certify_fixed
from verstehen.methods.certification.options import CertifyOptions, certify, certify_async
from verstehen.methods.certification.parameters import (
    DEFAULT_FIRST_LOOK,
    BoundsParameters,
    CertifyScoresParameters,
    PlanParameters,
)
from verstehen.methods.certification.plan import (
    nearby_criterion,
    samples_needed,
    sequential_samples_needed,
)
from verstehen.methods.certification.run import criterion_of
from verstehen.methods.certification.sequential import certify_sequential
from verstehen.methods.certification.twin_results import (
    BoundsResult,
    NearbyCriterion,
    PlanResult,
    scores_table,
    scores_text,
)
from verstehen.methods.certification.verdict import DEFAULT_TEST, Criterion, Verdict
from verstehen.methods.options import declared_function
from verstehen.results import JsonForm
from verstehen.text.display import Display, Table
from verstehen.text.tables import plural
from verstehen.textfiles import read_text
from verstehen.wording import parameter, setting

__all__ = [
    "DEFAULT_FIRST_LOOK",
    "BoundsResult",
    "CertifyOptions",
    "CertifyScoresResult",
    "NearbyCriterion",
    "PlanResult",
    "bounds",
    "certify",
    "certify_async",
    "certify_scores",
    "plan",
]


@dataclass(frozen=True)
class CertifyScoresResult(Display, JsonForm):
    """A verdict decided from given scores: the file they came from (None when given as
    numbers) and the verdict."""

    scores: Path | None
    verdict: Verdict

    def text(self) -> str:
        """What `verstehen certify --scores` prints: the verdict in words."""
        return scores_text(self.verdict)

    def tables(self) -> list[Table]:
        """The verdict as one table row."""
        return [scores_table(str(self.scores or "scores given"), self.verdict)]

    def headline(self) -> str:
        """The verdict with its bounds and criterion, in one line."""
        return f"{self.scores or 'scores given'}: {self.verdict}"


def scores_decision(given: CertifyScoresParameters) -> CertifyScoresResult:
    """Decide from scores already graded (numbers in [0, 1], or a file of them: one a line,
    JSONL with "score", or a run's records.jsonl, whose asked answers of `scope` count):
    Procedure 4.1 on them all, or with `sequential` the looks at `first_look`, twice that, ...
    up to `max_questions` (default: as many as there are), on the scores in order."""
    criterion = criterion_of(given.pg, given.rid, given.delta,
                             rid_test_length=given.rid_test_length)
    scores = given.scores
    if isinstance(scores, (str, Path)):
        path: Path | None = Path(scores)
        values = read_scores(Path(scores), given.scope, given.model)
    else:
        for name in ("scope", "model"):
            if getattr(given, name) is not None:
                raise UserError(f"{name} picks the answers of one {name} from a run's "
                                "records.jsonl; scores given as numbers have none: leave it out")
        path, values = None, checked_scores(scores)
    return CertifyScoresResult(path, scores_verdict(
        values, criterion, sequential=given.sequential, first_look=given.first_look,
        max_questions=given.max_questions, test=given.sequential_test or DEFAULT_TEST))


certify_scores = declared_function(CertifyScoresParameters, scores_decision, "certify_scores")


def checked_scores(scores: Sequence[float]) -> list[float]:
    """Scores given as numbers, each checked to lie in [0, 1] (UserError naming the first
    that does not)."""
    checked = []
    for n, value in enumerate(scores, 1):
        try:
            score = float(value)
        except (TypeError, ValueError):
            raise UserError(f"score {n} ({value!r}) is not a number") from None
        if not 0 <= score <= 1:
            raise UserError(f"score {n} ({score}) is outside [0, 1]")
        checked.append(score)
    if not checked:
        raise UserError("no scores: certification needs at least one graded answer")
    return checked


def scores_verdict(scores: list[float], criterion: Criterion, *, sequential: bool,
                   first_look: int, max_questions: int | None,
                   test: str = DEFAULT_TEST) -> Verdict:
    """Procedure 4.1 on every score; sequential, `test`'s looks from `first_look` up to
    `max_questions` (default: len(scores)), on the scores in order."""
    if not sequential:
        if max_questions is not None:
            raise UserError(f"{parameter('max_questions')} is the budget of a sequential run: "
                            f"add {setting('sequential', True)}, or leave it out")
        return certify_fixed(scores, criterion.pg, criterion.rid, criterion.delta)
    budget = max_questions or len(scores)
    if first_look > min(budget, len(scores)):
        raise UserError(f"the first look is at {plural(first_look, 'score')} but "
                        + ("the file holds" if budget >= len(scores) else
                           f"{parameter('max_questions')} is")
                        + f" {min(budget, len(scores))}: lower {parameter('first_look')}")
    return certify_sequential(scores, criterion.pg, criterion.rid, criterion.delta,
                              first=first_look, max_n=budget, test=test)


def read_scores(path: Path, scope: str | None = None, model: str | None = None) -> list[float]:
    """Scores from a file: one number a line, JSONL objects with a "score" field, or a run's
    records.jsonl, of which the asked answers of one scope and one model count (`scope` and
    `model`, each needed when the records hold several; rephrasings, explanations and failed
    calls are left out)."""
    if not path.is_file():
        raise UserError(f"scores file not found: {path}")
    rows: list[tuple[int, Any]] = []
    for n, line in enumerate(read_text(path, "scores file").splitlines(), 1):
        text = line.strip()
        if not text:
            continue
        try:
            rows.append((n, json.loads(text)))
        except ValueError:
            rows.append((n, text))
    if any(isinstance(value, dict) and "kind" in value for _, value in rows):
        rows = _asked_answers(path, rows, scope, model)
    elif scope is not None or model is not None:
        name = "scope" if scope is not None else "model"
        raise UserError(f"{path} holds plain scores, not a run's records: {parameter(name)} "
                        f"picks the answers of one {name} from records.jsonl; leave it out here")
    scores = []
    for n, value in rows:
        try:
            score = float(value["score"] if isinstance(value, dict) else value)
        except (ValueError, KeyError, TypeError):
            shown = json.dumps(value) if not isinstance(value, str) else value
            raise UserError(f"{path}:{n}: {shown[:40]!r} is not a score: write one number in "
                            "[0, 1] a line, or JSON objects with a \"score\" field") from None
        if not 0 <= score <= 1:
            raise UserError(f"{path}:{n}: score {score} is outside [0, 1]")
        scores.append(score)
    if not scores:
        raise UserError(f"{path} has no scores: write one number in [0, 1] a line")
    return scores


def _asked_answers(path: Path, rows: list[tuple[int, Any]], scope: str | None,
                   model: str | None = None) -> list[tuple[int, Any]]:
    """The records of asked answers that were graded, of one model and one scope (UserError
    naming the models, or the scopes, when there are several and none was chosen)."""
    answers = [(n, r) for n, r in rows if isinstance(r, dict) and r.get("kind") == "answer"
               and r.get("score") is not None]
    models = sorted({str(r.get("model")) for _, r in answers if r.get("model") is not None})
    if model is not None:
        if model not in models:
            raise UserError(f"{path} has no graded answers of model {model!r}: its models are "
                            f"{', '.join(models) or 'not named'}")
        answers = [(n, r) for n, r in answers if r.get("model") == model]
    elif len(models) > 1:
        raise UserError(f"{path} holds the answers of {len(models)} models "
                        f"({', '.join(models)}): choose one with --model")
    scopes = sorted({str(r.get("scope")) for _, r in answers})
    if scope is not None:
        wanted = canonical_name(scope)
        if wanted not in scopes:
            raise UserError(f"{path} has no graded answers of scope {scope!r}: its scopes are "
                            f"{', '.join(scopes) or 'none'}")
        return [(n, r) for n, r in answers if r.get("scope") == wanted]
    if len(scopes) > 1:
        raise UserError(f"{path} holds the answers of {len(scopes)} scopes "
                        f"({', '.join(scopes)}): choose one with --scope")
    return answers


def mean_bounds(given: BoundsParameters) -> BoundsResult:
    """L and U (Chernoff) and Hoeffding's interval for a mean observed over `n` samples."""
    mean, n, delta = given.mean, given.n, given.delta
    return BoundsResult(mean, n, delta,
                      float(chernoff_lower(mean, n, delta)), float(chernoff_upper(mean, n, delta)),
                      float(hoeffding_lower(mean, n, delta)),
                      float(hoeffding_upper(mean, n, delta)))


bounds = declared_function(BoundsParameters, mean_bounds, "bounds")


def questions_needed(given: PlanParameters) -> PlanResult:
    """The questions a verdict at (pg, rid, delta) likely needs, fixed and sequential, for a
    model of the expected mean score and ridiculous rate; `power` is the chance the verdict
    comes by then (0.5: the expected rates plugged in)."""
    criterion = criterion_of(given.pg, given.rid, given.delta,
                             rid_test_length=given.rid_test_length)
    score, rid, power, first = (given.expected_score, given.expected_rid, given.power,
                                given.first_look)
    try:
        fixed = samples_needed(criterion, score, rid, power=power)
        sequential = sequential_samples_needed(criterion, score, rid, first=first, power=power)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    expected = ("understands" if score > criterion.pg and rid < criterion.rid
                else "does not understand")
    near = None if fixed is not None else nearby_criterion(criterion, score, rid, first=first,
                                                           power=power)
    return PlanResult(
        criterion.pg, criterion.rid, criterion.delta, score, rid, power, expected, fixed,
        sequential, first,
        None if near is None else NearbyCriterion(near.criterion.pg, near.criterion.rid,
                                                  near.fixed_questions,
                                                  near.sequential_questions))


plan = declared_function(PlanParameters, questions_needed, "plan")
