"""The parameters of the certification commands that call no model, `plan`, `bounds` and
`certify --scores`, each declared once (`verstehen.methods.options`), and the criterion's
parameters they share with `certify` (CertifyOptions, options.py).

A criterion parameter is declared by one function here (`pg_option()`, ...), which every class
taking it calls, so its help, range and default are the same wherever it is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from verstehen.errors import UserError
from verstehen.methods.certification.plan import DEFAULT_DELTA, DEFAULT_PG, DEFAULT_RID
from verstehen.methods.certification.verdict import DEFAULT_TEST, SEQUENTIAL_TESTS
from verstehen.methods.options import (
    COUNT,
    PROBABILITY,
    SHARED,
    UNIT,
    Parameters,
    option,
    options_class,
)
from verstehen.readers import positive_int

DEFAULT_FIRST_LOOK = 16
SCORES_HELP = ("decide from a file of scores (one a line, or JSONL with 'score'), or from a "
               "run's records.jsonl: the asked answers of --scope")


def pg_option(flag: str | None = None) -> Any:
    """The passing grade (None: the default criterion's, or a resumed run's)."""
    return option(default=None, kind=float, range=PROBABILITY, shown=f"{DEFAULT_PG:g}",
                  flag=flag, help="passing grade: the mean score to reach")


def rid_option(flag: str | None = None) -> Any:
    """The highest tolerable rate of ridiculous answers (None: as for `pg_option`)."""
    return option(default=None, kind=float, range=PROBABILITY, shown=f"{DEFAULT_RID:g}",
                  flag=flag, help="highest tolerable rate of ridiculous answers, those scoring "
                                  "0 (default {default}; on a concept every wrong answer scores 0)")


def rid_test_length_option(flag: str | None = None) -> Any:
    """The test length RID is derived from, in place of RID itself."""
    return option(default=None, kind=int, range=COUNT, metavar="N_T", flag=flag,
                  help="derive RID so no ridiculous answer occurs in N_T questions with "
                       "probability 1-δ (paper section 3)")


def delta_option(flag: str | None = None) -> Any:
    """The chance a decisive verdict is wrong (None: as for `pg_option`)."""
    return option(default=None, kind=float, range=PROBABILITY, shown=f"{DEFAULT_DELTA:g}",
                  flag=flag, help="a decisive verdict is wrong with probability at most δ")


def first_look_option(flag: str | None = None) -> Any:
    """The first look of the sequential test."""
    return option(default=DEFAULT_FIRST_LOOK, range=COUNT, flag=flag,
                  help="first look of the sequential test")


def sequential_test_option(checkpoints: str, before: str, flag: str | None = None) -> Any:
    """Which sequential test decides: the betting one (the default) or the doubling one at
    `checkpoints`, the test of the `before` made earlier (a resumed one keeps its own)."""
    return option(default=None, kind=str, choices=SEQUENTIAL_TESTS, flag=flag,
                  shown=f"{DEFAULT_TEST}, or a resumed {before[:-1]}'s own",
                  help="betting (default): a test martingale that may stop at looks about 1/8 "
                       f"apart; doubling: Procedure 4.1 at {checkpoints}, ... at δ_j = "
                       f"6δ/(π² j²), the test of {before} made before")


@options_class
class PlanParameters(Parameters):
    """The parameters of `verstehen plan` and `plan()`: the criterion and the expected rates."""

    pg: float | None = pg_option()
    rid: float | None = rid_option()
    rid_test_length: int | None = rid_test_length_option()
    delta: float | None = delta_option()
    expected_score: float = option(kind=float, range=UNIT, kw_only=False,
                                   help="expected mean score in [0, 1]")
    expected_rid: float = option(kind=float, range=UNIT, kw_only=False,
                                 help="expected rate of ridiculous answers")
    power: float = option(default=0.5, range=PROBABILITY,
                          help="chance the verdict comes by then ({default} = plug in the "
                               "expected rates)")
    first_look: int = first_look_option()


@options_class
class BoundsParameters(Parameters):
    """The parameters of `verstehen bounds` and `bounds()`: a mean observed over `n` samples."""

    mean: float = option(kind=float, range=UNIT, kw_only=False, help="observed mean in [0, 1]")
    # no declared range: the API bounds a mean over any number of samples (checked below);
    # the flag keeps the CLI's count reader, which refuses more than 10,000,000 as a typo
    n: int = option(kind=int, read=positive_int, kw_only=False, help="number of samples")
    delta: float = option(default=0.05, range=PROBABILITY,
                          help="the bounds hold with probability 1 - delta")

    def __post_init__(self) -> None:
        super().__post_init__()
        if isinstance(self.n, bool) or not isinstance(self.n, int) or self.n < 1:
            raise UserError(f"n must be a whole number of samples, at least 1, not {self.n!r}")


@options_class
class CertifyScoresParameters(Parameters):
    """The parameters of `verstehen certify --scores` and `certify_scores()`: the scores and
    the criterion. On the command line each is a flag of `certify` (--scores and --scope
    written by hand, the others CertifyOptions'), so none adds a flag of its own."""

    scores: Path | str | Sequence[float] = option(
        flag=SHARED, kw_only=False, help=f"{SCORES_HELP}; or the scores as numbers in [0, 1]")
    pg: float | None = pg_option(SHARED)
    rid: float | None = rid_option(SHARED)
    delta: float | None = delta_option(SHARED)
    rid_test_length: int | None = rid_test_length_option(SHARED)
    scope: str | None = option(
        default=None, flag=SHARED,
        help="the scope whose graded answers count, where a run's records.jsonl holds several")
    model: str | None = option(
        default=None, flag=SHARED,
        help="the model whose graded answers count, where a run's records.jsonl holds several")
    sequential: bool = option(
        default=False, flag=SHARED,
        help="decide at the sequential test's looks from first_look on, on the scores in "
             "order")
    first_look: int = first_look_option(SHARED)
    max_questions: int | None = option(
        default=None, kind=int, range=COUNT, flag=SHARED, shown="as many as there are scores",
        help="the last look of a sequential decision (default: {default})")
    sequential_test: str | None = sequential_test_option("checkpoints 16, 32, 64", "runs",
                                                         SHARED)
