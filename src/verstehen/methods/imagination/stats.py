"""Imaginary question answering (Shared Imagination, eq. 1): correctness and answering rates.

Pure functions over the records as read from JSONL (`records.py`); no I/O. What they return is typed
(rates, and rows that carry their own keys), ready for the printouts and the JSON forms.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from verstehen.methods.imagination.records import (
    AnswerRecord,
    FictionRecord,
    ImaginationRecord,
    UsableQuestion,
)
from verstehen.results import JsonForm
from verstehen.stats.rates import mean_se, rate_se

OUTCOMES = ("correct", "wrong", "refused", "choice_e", "unparsed", "error")
QTYPES = ("DQ", "CQ", "SQ")
POSITIONS = (1, 2, 3, 4, 5)
# the keys answer records may be grouped by
GroupKey = Literal["content", "qtype", "qm", "am", "am_model", "method", "variant", "topic",
                   "position"]


@dataclass(frozen=True)
class IQARates(JsonForm):
    """Counts and rates of one group of answers; rates and SEs are None on a zero denominator."""

    n: int  # all records
    answered: int  # correct + wrong
    declined: int  # refused + choice_e
    chose_e: int
    unparsed: int  # unparsed + error (not counted in κ or α)
    kappa: float | None
    kappa_se: float | None
    alpha: float | None
    alpha_se: float | None
    e_rate: float | None


@dataclass(frozen=True)
class PairKey:
    """A cell of the paper's Figure 2 grid: content (knowledge or story), question type,
    question model, answer model."""

    content: str
    qtype: str
    qm: str
    am: str


@dataclass(frozen=True)
class MatrixRow(IQARates, PairKey):
    """One cell of the grid: its key, then its rates (flat, as the columns of matrix.csv)."""


@dataclass(frozen=True)
class LengthRanks(JsonForm):
    """Of one QM's questions of one content and type, the fractions whose answer has length
    rank 0..3."""

    qm: str
    content: str
    qtype: str
    fractions: tuple[float, ...]  # ranks 0 (shortest) .. 3 (longest)


@dataclass(frozen=True)
class PositionRanks(JsonForm):
    """Of the sequential questions at one position (1..5), all QMs together: how many, and
    the fractions whose answer has length rank 0..3 (paper Fig. 9, right)."""

    position: int
    n: int
    fractions: tuple[float, ...]  # ranks 0 (shortest) .. 3 (longest); zeros when n is 0


@dataclass(frozen=True)
class DecileRates(JsonForm):
    """One AM's rates on one content and question type by question length, shortest part
    first."""

    content: str
    qtype: str
    am: str
    rates: tuple[IQARates, ...]


@dataclass(frozen=True)
class PositionRates(JsonForm):
    """One AM's rates on sequential questions at positions 1..5."""

    am: str
    rates: tuple[IQARates, ...]


@dataclass(frozen=True)
class FictionRate(JsonForm):
    """How often an AM called a QM's context paragraphs fictional: the share of those judged
    (None when none was), its SE, how many it judged, and how many replies were unparsed or
    failed."""

    qm: str
    am: str
    rate: float | None
    se: float | None
    judged: int
    unparsed: int


def _is(record: ImaginationRecord | UsableQuestion, kind: str) -> bool:
    return record.get("kind", kind) == kind


def _correctness(record: AnswerRecord) -> float:
    score = record.get("score")
    if score is not None:
        return float(score) / 100.0
    return 1.0 if record["outcome"] == "correct" else 0.0


def iqa_rates(records: Iterable[AnswerRecord]) -> IQARates:
    """κ (mean correctness over answered), α = answered / (answered + declined), E rate.

    A judged free-response answer counts score/100 as its correctness; κ's SE is binomial
    when every value is 0 or 1, else the SE of the mean. Unparsed and error answers count in n only.
    """
    counts = dict.fromkeys(OUTCOMES, 0)
    values: list[float] = []
    for r in records:
        outcome = r["outcome"]
        if outcome not in counts:
            raise ValueError(f"unknown answer outcome {outcome!r}")
        counts[outcome] += 1
        if outcome in ("correct", "wrong"):
            values.append(_correctness(r))
    answered = counts["correct"] + counts["wrong"]
    declined = counts["refused"] + counts["choice_e"]
    kappa = kappa_se = alpha = alpha_se = e_rate = None
    if values:
        if all(v in (0.0, 1.0) for v in values):
            kappa, kappa_se = rate_se(int(sum(values)), len(values))
        else:
            kappa, kappa_se = mean_se(values)
    if answered + declined:
        alpha, alpha_se = rate_se(answered, answered + declined)
        e_rate = counts["choice_e"] / (answered + declined)
    return IQARates(n=sum(counts.values()), answered=answered, declined=declined,
                    chose_e=counts["choice_e"], unparsed=counts["unparsed"] + counts["error"],
                    kappa=kappa, kappa_se=kappa_se, alpha=alpha, alpha_se=alpha_se,
                    e_rate=e_rate)


GroupValues = tuple[str | int | None, ...]


def _sort_key(key: GroupValues) -> tuple[tuple[bool, str | int], ...]:
    # None (e.g. the position of a non-sequential question) sorts after every value
    return tuple((v is None, "" if v is None else v) for v in key)


def rates_by(records: Iterable[AnswerRecord], keys: Sequence[GroupKey]
             ) -> dict[GroupValues, IQARates]:
    """Answer records grouped by the values of `keys`, each group's rates, in sorted key order."""
    groups: dict[GroupValues, list[AnswerRecord]] = defaultdict(list)
    for r in records:
        if _is(r, "answer"):
            groups[tuple(r[k] for k in keys)].append(r)
    return {k: iqa_rates(groups[k]) for k in sorted(groups, key=_sort_key)}


def pair_matrix(records: Iterable[AnswerRecord]) -> tuple[MatrixRow, ...]:
    """The paper's Figure 2 grid: a row per (content, qtype, qm, am), in sorted key order
    (story and knowledge questions of one QM are two cells, never one)."""
    keys: tuple[GroupKey, ...] = ("content", "qtype", "qm", "am")
    return tuple(MatrixRow(str(content), str(qtype), str(qm), str(am), **vars(rates))
                 for (content, qtype, qm, am), rates in rates_by(records, keys).items())


def length_rank(choices: Sequence[str], answer: int) -> int:
    """How many other choices are strictly shorter (in characters) than the designated answer.

    0 = shortest .. 3 = longest; a tie goes to the lower rank (equal lengths are not shorter).
    """
    size = len(choices[answer])
    return sum(1 for i, c in enumerate(choices) if i != answer and len(c) < size)


def _usable(questions: Iterable[UsableQuestion]) -> list[UsableQuestion]:
    return [q for q in questions if _is(q, "question") and q.get("status", "ok") == "ok"]


def length_rank_distribution(questions: Iterable[UsableQuestion]) -> tuple[LengthRanks, ...]:
    """Per (qm, content, qtype), the fractions of questions whose answer has length rank 0..3
    (paper Fig. 5), in sorted order."""
    counts: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for q in _usable(questions):
        counts[(q["qm"], q["content"], q["qtype"])][length_rank(q["choices"], q["answer"])] += 1
    return tuple(LengthRanks(*key, tuple(c / sum(counts[key]) for c in counts[key]))
                 for key in sorted(counts))


def length_ranks_by_position(questions: Iterable[UsableQuestion]) -> tuple[PositionRanks, ...]:
    """Of the sequential questions, all QMs together, per position 1..5: the fractions whose
    answer has length rank 0..3 (paper Fig. 9, right); empty without sequential questions."""
    counts = {p: [0, 0, 0, 0] for p in POSITIONS}
    for q in _usable(questions):
        if q["qtype"] == "SQ" and q["position"] is not None:
            counts[q["position"]][length_rank(q["choices"], q["answer"])] += 1
    if not any(map(sum, counts.values())):
        return ()
    return tuple(PositionRanks(p, sum(c), tuple(x / sum(c) if sum(c) else 0.0 for x in c))
                 for p, c in counts.items())


def by_length_decile(records: Iterable[AnswerRecord], deciles: int = 10) -> tuple[DecileRates, ...]:
    """Per (content, qtype, am), sorted: rates per length decile of question_chars, shortest
    first (paper Fig. 10).

    Per (content, qtype), the distinct questions (by question_id) sorted by (chars, id) are
    split with numpy.array_split into `deciles` parts, so every AM gets the same partition;
    equal lengths may straddle a boundary, and with fewer questions than deciles the last parts
    are empty (n=0).
    """
    answers = [r for r in records if _is(r, "answer")]
    chars: dict[tuple[str, str], dict[str, int]] = defaultdict(dict)
    for r in answers:
        chars[(r["content"], r["qtype"])].setdefault(r["question_id"], r["question_chars"])
    part: dict[tuple[str, str, str], int] = {}
    for kind, by_id in chars.items():
        ordered = [qid for _, qid in sorted((size, qid) for qid, size in by_id.items())]
        for d, ids in enumerate(np.array_split(np.array(ordered, dtype=object), deciles)):
            part.update({(*kind, qid): d for qid in ids})
    groups: dict[tuple[str, str, str], list[list[AnswerRecord]]] = defaultdict(
        lambda: [[] for _ in range(deciles)])
    for r in answers:
        groups[(r["content"], r["qtype"], r["am"])][
            part[(r["content"], r["qtype"], r["question_id"])]].append(r)
    return tuple(DecileRates(*key, tuple(iqa_rates(g) for g in groups[key]))
                 for key in sorted(groups))


def by_position(records: Iterable[AnswerRecord]) -> tuple[PositionRates, ...]:
    """Per AM, sorted: rates of sequential questions at positions 1..5 (paper Fig. 9)."""
    groups: dict[str, list[list[AnswerRecord]]] = defaultdict(lambda: [[] for _ in POSITIONS])
    for r in records:
        if _is(r, "answer") and r["qtype"] == "SQ":
            groups[r["am"]][POSITIONS.index(r["position"])].append(r)
    return tuple(PositionRates(am, tuple(iqa_rates(g) for g in groups[am]))
                 for am in sorted(groups))


def fiction_rates(records: Iterable[FictionRecord]) -> tuple[FictionRate, ...]:
    """Per (qm, am), sorted: fictional / judged with its SE, judged = fictional + real, and
    the unparsed or failed verdicts (paper Fig. 8)."""
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(
        lambda: {"real": 0, "fictional": 0, "other": 0})
    for r in records:
        if _is(r, "fiction"):
            verdict = r["verdict"] if r["verdict"] in ("real", "fictional") else "other"
            counts[(r["qm"], r["am"])][verdict] += 1
    out = []
    for qm, am in sorted(counts):
        c = counts[(qm, am)]
        judged = c["real"] + c["fictional"]
        rate, se = rate_se(c["fictional"], judged) if judged else (None, None)
        out.append(FictionRate(qm, am, rate, se, judged, c["other"]))
    return tuple(out)


def sort_qtypes(qtypes: Iterable[Hashable]) -> list[str]:
    """The qtypes given, in the order DQ, CQ, SQ, then any others sorted."""
    seen = set(qtypes)
    return [q for q in QTYPES if q in seen] + sorted(str(q) for q in seen if q not in QTYPES)


def sort_kinds(kinds: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """(content, qtype) pairs: contents sorted, and within one, qtypes as sort_qtypes."""
    seen = set(kinds)
    return [(content, qtype) for content in sorted({c for c, _ in seen})
            for qtype in sort_qtypes(q for c, q in seen if c == content)]
