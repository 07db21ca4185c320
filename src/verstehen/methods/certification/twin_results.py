"""The results of `bounds` and `plan` (`BoundsResult`, `PlanResult`, `NearbyCriterion`), and how
the commands that call no model show theirs (`certify --scores` too): what they print, one
line, tables; the display of their API twins' results (`vs.bounds`, `vs.plan`,
`vs.certify_scores`), in a terminal and a notebook alike."""

from __future__ import annotations

from dataclasses import dataclass, field

from verstehen.methods.certification.text import explain
from verstehen.methods.certification.verdict import DEFAULT_TEST, DOUBLING, Verdict
from verstehen.results import JsonForm, omitted_at_default
from verstehen.text.display import Display, Table
from verstehen.wording import setting

VERDICT_HEADER = ["scores", "verdict", "n", "mean score [L, U]", "ridiculous [L, U]",
                  "decided by"]


def scores_text(verdict: Verdict) -> str:
    """What `verstehen certify --scores FILE` prints: the verdict in words."""
    return "\n".join(explain(verdict))


def scores_table(name: str, verdict: Verdict) -> Table:
    """The verdict on given scores as one table row, under its criterion."""
    v = verdict
    return Table(f"PG {v.pg:g}, RID {v.rid:.6g}, δ {v.delta:g}", VERDICT_HEADER, [[
        name, v.decision.words, str(v.n),
        f"{v.mean_score:.3f} [{v.score_lower:.3f}, {v.score_upper:.3f}]",
        f"{v.ridiculous_rate:.3f} [{v.ridiculous_lower:.4f}, {v.ridiculous_upper:.4f}]",
        v.decided_by_words]])


def bounds_text(out: BoundsResult) -> str:
    """What `verstehen bounds` prints."""
    return "\n".join([
        f"mean {out.mean:g} over n = {out.n}, each bound holds with probability "
        f">= {1 - out.delta:g}",
        f"  Chernoff (KL):  L = {out.chernoff_lower:.9f}   U = {out.chernoff_upper:.9f}",
        f"  Hoeffding:      L = {out.hoeffding_lower:.9f}   U = {out.hoeffding_upper:.9f}"
        "  (outside [0, 1] means uninformative)"])


def bounds_headline(out: BoundsResult) -> str:
    """Both intervals in one line."""
    return (f"mean {out.mean:g} over n = {out.n}: Chernoff (KL) [{out.chernoff_lower:.6f}, "
            f"{out.chernoff_upper:.6f}], Hoeffding [{out.hoeffding_lower:.6f}, "
            f"{out.hoeffding_upper:.6f}], each holding with probability ≥ {1 - out.delta:g}")


def bounds_table(out: BoundsResult) -> Table:
    """L and U of each bound."""
    return Table(f"mean {out.mean:g} over n = {out.n}, each bound with probability ≥ "
                 f"{1 - out.delta:g}", ["bound", "L", "U"],
                 [["Chernoff (KL)", f"{out.chernoff_lower:.9f}", f"{out.chernoff_upper:.9f}"],
                  ["Hoeffding (outside [0, 1]: uninformative)", f"{out.hoeffding_lower:.9f}",
                   f"{out.hoeffding_upper:.9f}"]])


def plan_text(out: PlanResult) -> str:
    """What `verstehen plan` prints."""
    if out.fixed_questions is None:
        return no_decision(out)
    return "\n".join([
        f"expected verdict: {out.expected_verdict} (PG {out.pg:g}, RID {out.rid:g}, "
        f"δ {out.delta:g})",
        f"  fixed n:     {out.fixed_questions} questions",
        f"  sequential:  {sequential_words(out)}"])


def sequential_words(out: PlanResult) -> str:
    """When the sequential test likely stops: by which look, of which test."""
    if out.sequential_questions is None:
        return "none likely decides"
    if out.sequential_test == DOUBLING:
        return (f"stops by the checkpoint at {out.sequential_questions} questions (the doubling "
                f"test: looks at {out.first_look}, {2 * out.first_look}, ...)")
    return (f"stops by the look at {out.sequential_questions} questions with probability "
            f"{out.power:g} (the betting test: looks from {out.first_look}, about 1/8 apart)")


def plan_headline(out: PlanResult) -> str:
    """The expected verdict and the questions it likely needs, in one line."""
    if out.fixed_questions is None:
        return no_decision(out)
    return (f"expected verdict: {out.expected_verdict} within {out.fixed_questions} questions "
            f"at a fixed n, or by the look at {out.sequential_questions} by the "
            f"{out.sequential_test} test (PG {out.pg:g}, RID {out.rid:g}, δ {out.delta:g})")


def plan_table(out: PlanResult) -> Table:
    """The questions each procedure likely needs (and a nearby criterion's, when named)."""
    rows = [["fixed n", "none likely decides" if out.fixed_questions is None
             else str(out.fixed_questions)],
            [f"sequential ({out.sequential_test} test)", sequential_words(out)]]
    if (near := out.nearby) is not None:
        rows.append([f"nearby: PG {near.pg:g}, RID {near.rid:g}",
                     f"{near.fixed_questions:,} fixed"
                     + ("" if near.sequential_questions is None
                        else f", {near.sequential_questions:,} sequential")])
    return Table(f"expected score {out.expected_score:g}, ridiculous rate {out.expected_rid:g}; "
                 f"PG {out.pg:g}, RID {out.rid:g}, δ {out.delta:g}, power {out.power:g}",
                 ["procedure", "questions"], rows)


def no_decision(out: PlanResult) -> str:
    """Why no number of questions will likely decide, and a nearby criterion that would."""
    return (f"no number of questions will likely decide: {on_threshold(out)}"
            + ("" if out.nearby is None else f"; {nearby_words(out, out.nearby)}"))


def on_threshold(out: PlanResult) -> str:
    """Which expected rate sits on which threshold (or too near to tell apart)."""
    parts = []
    if out.expected_score <= out.pg:
        parts.append(f"the expected score {out.expected_score:g} sits on PG {out.pg:g}")
    if out.expected_rid >= out.rid:
        parts.append(f"the expected rate {out.expected_rid:g} sits on RID {out.rid:g}")
    return " and ".join(parts) or "the expected rates sit too near PG or RID"


def nearby_words(out: PlanResult, near: NearbyCriterion) -> str:
    """The flags of a nearby criterion that decides, and the questions it then needs."""
    flags = " ".join(setting(name, new) for name, old, new in (
        ("pg", out.pg, near.pg), ("rid", out.rid, near.rid)) if new != old)
    looks = ("" if near.sequential_questions is None
             else f", sequential looks up to {near.sequential_questions:,}")
    return (f"with {flags}, \"understands\" likely comes within {near.fixed_questions:,} "
            f"questions at a fixed n{looks}")


@dataclass(frozen=True)
class BoundsResult(Display, JsonForm):
    """Chernoff (KL) and Hoeffding bounds on the mean of `n` samples in [0, 1], each holding
    with probability at least 1 - delta (Hoeffding's may leave [0, 1]: then uninformative)."""

    mean: float
    n: int
    delta: float
    chernoff_lower: float
    chernoff_upper: float
    hoeffding_lower: float
    hoeffding_upper: float

    def text(self) -> str:
        """What `verstehen bounds` prints."""
        return bounds_text(self)

    def tables(self) -> list[Table]:
        """L and U of each bound."""
        return [bounds_table(self)]

    def headline(self) -> str:
        """Both intervals in one line."""
        return bounds_headline(self)


@dataclass(frozen=True)
class NearbyCriterion(JsonForm):
    """A criterion near the asked one under which the expected rates decide, and when."""

    pg: float
    rid: float
    fixed_questions: int
    sequential_questions: int | None


@dataclass(frozen=True)
class PlanResult(Display, JsonForm):
    """How many questions a verdict likely needs at a criterion, given the expected rates:
    at a fixed n and by the sequential test's looks (None: no number will likely decide;
    then `nearby` names a criterion that would, where there is one). The betting test's is
    the look by which it has decided with probability `power`, worked out exactly for
    answers ridiculous at the expected rate and otherwise scoring alike (`power.py`)."""

    pg: float
    rid: float
    delta: float
    expected_score: float
    expected_rid: float
    power: float
    expected_verdict: str
    fixed_questions: int | None
    sequential_questions: int | None
    first_look: int
    nearby: NearbyCriterion | None
    # the test `sequential_questions` is of (plans before issue 46 were of the doubling one)
    sequential_test: str = field(default=DEFAULT_TEST, metadata=omitted_at_default())

    def text(self) -> str:
        """What `verstehen plan` prints."""
        return plan_text(self)

    def tables(self) -> list[Table]:
        """The questions each procedure likely needs."""
        return [plan_table(self)]

    def headline(self) -> str:
        """The expected verdict and the questions it likely needs, in one line."""
        return plan_headline(self)
