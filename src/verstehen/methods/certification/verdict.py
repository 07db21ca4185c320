"""What a certification decides and with what evidence: the criterion, the verdict, its bounds.

The pure types every other certification module builds on (no statistics here beyond δ_j and
the checkpoint schedule, which the planner and the sequential test share), the names of the
sequential tests, and how the four tests of Procedure 4.1 make a decision.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from verstehen.results import JsonForm


class Decision(str, Enum):
    """The three verdicts of Procedures 4.1 and 5.1."""

    UNDERSTANDS = "understands"
    DOES_NOT_UNDERSTAND = "does_not_understand"
    INCONCLUSIVE = "inconclusive"

    def __str__(self) -> str:
        return self.value

    @property
    def words(self) -> str:
        """The decision in words: "understands", "does not understand", "inconclusive"."""
        return self.value.replace("_", " ")


# the sequential tests: the betting test (`betting.py`, the default), and Procedure 4.1 at
# doubling checkpoints with δ_j (`sequential.py`, the only one before; a run folder that names
# none was decided by it)
SEQUENTIAL_TESTS = ("betting", "doubling")
DEFAULT_TEST, DOUBLING = SEQUENTIAL_TESTS

# the tests of Procedures 4.1 and 5.1 (`Verdict.decided_by` keeps these ids in the JSON form),
# each as what it found: a bound on the mean score against PG, on the ridiculous rate against RID
TEST_WORDS = {
    "good_grade": "mean score high enough",          # score_lower >= PG
    "good_rid": "few enough ridiculous answers",     # ridiculous_upper <= RID
    "bad_grade": "mean score too low",               # score_upper < PG
    "bad_rid": "too many ridiculous answers",        # ridiculous_lower > RID
}


@dataclass(frozen=True)
class Criterion(JsonForm):
    """An understanding criterion (PG, RID) and the failure probability δ (Definition 3.2)."""

    pg: float
    rid: float
    delta: float

    def __post_init__(self) -> None:
        if not 0 < self.pg < 1:
            raise ValueError(f"the passing grade PG must lie in (0, 1), not {self.pg}")
        if not 0 < self.rid < 1:
            raise ValueError(f"RID must lie in (0, 1), not {self.rid}")
        if self.rid >= self.pg:
            raise ValueError(f"RID ({self.rid}) must be well below PG ({self.pg})")
        if not 0 < self.delta < 1:
            raise ValueError(f"delta must lie in (0, 1), not {self.delta}")


@dataclass(frozen=True)
class SequentialLook(JsonForm):
    """Where a sequential verdict was reached: look j of the checkpoints, tested at δ_j."""

    look: int
    delta_look: float
    checkpoints: tuple[int, ...]
    sequential: bool = True
    # the run stopped here, undecided, because no later look could certify understanding even
    # if every answer after this look were right
    out_of_reach: bool = False


@dataclass(frozen=True)
class BettingLook(JsonForm):
    """Where the betting test's verdict was reached: look `look` of the looks from
    `first_look` to `budget` (in whole blocks of `block` answers), with each test's log
    wealth (against ln(1/δ) for "understands", ln(2/δ) for "does not")."""

    look: int
    first_look: int
    budget: int
    block: int
    log_wealth: dict[str, float]
    test: str = DEFAULT_TEST
    sequential: bool = True
    # the run stopped here, undecided: even every remaining answer right would not certify
    out_of_reach: bool = False


@dataclass(frozen=True)
class FamilyBound(JsonForm):
    """One part of a Procedure 5.1 verdict: a family (or the remaining questions), its weight
    p_α, its m program runs (None when its score is known exactly) and its bounds."""

    family: str
    p: float
    m: int | None
    mean_score: float
    ridiculous_rate: float
    score_lower: float
    score_upper: float
    ridiculous_upper: float
    ridiculous_lower: float


@dataclass(frozen=True)
class DeltaSplit(JsonForm):
    """δ per bounded part: for the "understands" tests and for the "does not" tests."""

    good: float
    bad: float


@dataclass(frozen=True)
class ExplainedMix(JsonForm):
    """How a Procedure 5.1 verdict mixes its parts: coverage of the explained families."""

    coverage: float
    components: tuple[FamilyBound, ...]
    delta_per_component: DeltaSplit


@dataclass(frozen=True)
class Verdict(JsonForm):
    """A decision with its evidence: n, the observed rates and the bounds the tests compared.

    score_lower = L(ŝ, n, δ) and ridiculous_upper = U(r̂, n, δ) feed the "understands" tests;
    score_upper = U(ŝ, n, δ/2) and ridiculous_lower = L(r̂, n, δ/2) the "does not" tests.
    """

    decision: Decision
    n: int
    mean_score: float
    ridiculous_rate: float
    score_lower: float
    score_upper: float
    ridiculous_upper: float
    ridiculous_lower: float
    tests: dict[str, bool]
    decided_by: tuple[str, ...]
    pg: float
    rid: float
    delta: float
    more_questions: int | None = None
    details: SequentialLook | BettingLook | ExplainedMix | None = None

    @property
    def decided_by_words(self) -> str:
        """The tests that decided the verdict, in words ("mean score too low, ..."); "-" when
        none did (inconclusive)."""
        return ", ".join(TEST_WORDS.get(t, t) for t in self.decided_by) or "-"

    def __str__(self) -> str:
        return (f"{self.decision.words} (mean score {self.mean_score:.3f} "
                f"[{self.score_lower:.3f}, {self.score_upper:.3f}], ridiculous "
                f"{self.ridiculous_rate:.3f} [{self.ridiculous_lower:.4f}, "
                f"{self.ridiculous_upper:.4f}], n={self.n}; PG {self.pg:g}, RID {self.rid:.3g}, "
                f"δ {self.delta:g})")


def decide_tests(tests: dict[str, bool]) -> tuple[Decision, tuple[str, ...]]:
    """The decision of the four tests, and the tests that made it: "understands" when both
    good tests pass, else "does not understand" when a bad one does, else inconclusive."""
    if tests["good_grade"] and tests["good_rid"]:
        return Decision.UNDERSTANDS, ("good_grade", "good_rid")
    bad = tuple(name for name in ("bad_grade", "bad_rid") if tests[name])
    return (Decision.DOES_NOT_UNDERSTAND, bad) if bad else (Decision.INCONCLUSIVE, ())


def tally(decisions: Iterable[Decision | None]) -> str:
    """How many of each decision, commonest first: "2 understands, 1 no verdict"."""
    counts = Counter("no verdict" if d is None else d.words for d in decisions)
    return ", ".join(f"{n} {words}" for words, n in counts.most_common())


def look_delta(delta: float, look: int) -> float:
    """δ_j = 6δ/(π² j²) for look j = 1, 2, ...; these sum to δ over all looks."""
    if look < 1:
        raise ValueError("looks are numbered from 1")
    return 6 * delta / (math.pi**2 * look**2)


def checkpoints(first: int, max_n: int) -> list[int]:
    """Look sizes first, 2·first, 4·first, ... below max_n, and max_n itself as the last look."""
    if first < 1 or max_n < first:
        raise ValueError(f"need 1 <= first ({first}) <= max questions ({max_n})")
    looks = []
    n = first
    while n < max_n:
        looks.append(n)
        n *= 2
    return [*looks, max_n]
