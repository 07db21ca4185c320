"""Potemkin rates (paper Table 1 and Table 6), keystone expansion (Figure 4), agreement.

A potemkin rate is 1 - accuracy on use answers whose (model, concept) passed the keystone. An
answer that could not be read is left out when it is a classification (the paper's appendix C
drops answers "missing the specified format") and counts as wrong when it is a generated or
edited instance (the paper drops only those classifications), unless `unparsed="exclude"`
leaves every unreadable answer out. Pure functions on `UseRecord`s, no I/O; bad input raises
ValueError (the caller turns it into a UserError).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from verstehen.results import JsonForm
from verstehen.stats.rates import rate_se

TASKS = ("classify", "generate", "edit")
OVERALL = "overall"  # the name of the pooled row in the tables, so no model may take it
# classify is a yes/no question, so chance accuracy 1/2 gives rate 1/2; doubled, chance reads 1
SCALE = {"classify": 2.0, "generate": 1.0, "edit": 1.0}
UNPARSED = ("wrong", "exclude")  # what an unreadable generate or edit answer counts as

Pair = tuple[str, str, str]  # (model, domain, concept)


@dataclass(frozen=True)
class UseRecord:
    """One graded use answer; `correct` is None when the answer could not be parsed."""

    model: str
    domain: str
    concept: str
    task: str
    keystone: bool
    correct: bool | None


@dataclass(frozen=True)
class PotemkinRate(JsonForm):
    """The scaled potemkin rate of one task, its SE, and the answers counted and left out.

    `unparsed` counts the unreadable answers with the keystone passed; `unparsed_wrong` says
    whether they are among the `n` counted, as wrong (generate and edit by default), or left
    out (classify, and every task with `unparsed="exclude"`).
    """

    task: str
    rate: float | None
    se: float | None
    n: int
    unparsed: int
    excluded: int
    unparsed_wrong: bool = False


Table1 = dict[str, dict[str, PotemkinRate]]  # model (then "overall") -> task -> rate
Table6 = dict[str, Table1]  # domain -> Table 1 of that domain


def check_unparsed(unparsed: str) -> None:
    """ValueError unless `unparsed` is one of UNPARSED."""
    if unparsed not in UNPARSED:
        raise ValueError(f"unparsed answers count as {' or '.join(UNPARSED)}, not {unparsed!r}")


def unparsed_wrong(task: str, unparsed: str) -> bool:
    """Whether an unreadable answer of `task` counts as wrong (else it is left out); the public
    entry points check `unparsed` once (`check_unparsed`), not once per record."""
    return task != "classify" and unparsed == "wrong"


def graded(record: UseRecord, unparsed: str = "wrong") -> bool | None:
    """The record's grade as the rates count it: an unreadable generate or edit answer is wrong
    under `unparsed="wrong"`; None (left out) otherwise."""
    if record.correct is None and unparsed_wrong(record.task, unparsed):
        return False
    return record.correct


def potemkin_rate(records: Iterable[UseRecord], task: str,
                  unparsed: str = "wrong") -> PotemkinRate:
    """SCALE[task]·(1 - accuracy) on the answers with the keystone passed, and its SE; an
    unreadable answer is left out, or counted wrong for generate and edit under "wrong"."""
    check_unparsed(unparsed)
    mine = [r for r in records if r.task == task]
    counted = [c for r in mine if r.keystone and (c := graded(r, unparsed)) is not None]
    missing = sum(1 for r in mine if r.keystone and r.correct is None)
    excluded = sum(1 for r in mine if not r.keystone)
    as_wrong = unparsed_wrong(task, unparsed)
    if not counted:
        return PotemkinRate(task, None, None, 0, missing, excluded, as_wrong)
    accuracy, se = rate_se(sum(counted), len(counted))
    scale = SCALE[task]
    return PotemkinRate(task, scale * (1 - accuracy), scale * se, len(counted), missing,
                        excluded, as_wrong)


def potemkin_rates(records: Sequence[UseRecord],
                   unparsed: str = "wrong") -> dict[str, PotemkinRate]:
    """One potemkin rate per task in TASKS."""
    return {task: potemkin_rate(records, task, unparsed) for task in TASKS}


def table1(records: Sequence[UseRecord], unparsed: str = "wrong") -> Table1:
    """Paper Table 1: model (sorted) -> task -> rate, then "overall" pooling every model."""
    models = sorted({r.model for r in records})
    rows = {m: potemkin_rates([r for r in records if r.model == m], unparsed) for m in models}
    rows[OVERALL] = potemkin_rates(records, unparsed)
    return rows


def table6(records: Sequence[UseRecord], unparsed: str = "wrong") -> Table6:
    """Paper Table 6: domain (sorted) -> model (sorted, then "overall") -> task -> rate."""
    domains = sorted({r.domain for r in records})
    return {d: table1([r for r in records if r.domain == d], unparsed) for d in domains}


# keystone expansion (Figure 4): "paper", the paper's reading and the default, or "all-uses"
EXPANSIONS = ("paper", "all-uses")
PairCounts = tuple[int, int, int, int]  # K classify answers, c right; U use answers, u right


@dataclass(frozen=True)
class ExpansionPoint(JsonForm):
    """Keystone size k: the share of passing pairs that understood, its SE, weight, the pairs
    counted, and those left out for too few answers (None in summaries that did not keep it)."""

    k: int
    share: float | None
    se: float | None
    n_eff: float
    pairs: int
    left_out: int | None = None


@dataclass(frozen=True)
class KeystoneExpansion(JsonForm):
    """Paper Figure 4: share understood per keystone size, which models were kept, and the
    definition (EXPANSIONS) that produced it; a summary.json without one predates the choice
    and was computed "all-uses"."""

    points: tuple[ExpansionPoint, ...]
    models: tuple[str, ...]
    dropped_models: tuple[str, ...]
    next_uses: int
    definition: str = "all-uses"


def check_expansion(expansion: str) -> None:
    """ValueError unless `expansion` is one of EXPANSIONS."""
    if expansion not in EXPANSIONS:
        raise ValueError(f"keystone expansion is {' or '.join(EXPANSIONS)}, not {expansion!r}")


def keystone_expansion(records: Sequence[UseRecord], ks: Iterable[int] = range(5),
                       next_uses: int = 10, above_chance_only: bool = True,
                       unparsed: str = "wrong", expansion: str = "paper") -> KeystoneExpansion:
    """Paper Figure 4, exactly: among keystone-passing pairs that also get k random classify
    answers right, the share that get the next `next_uses` random use answers all right.

    Per (model, concept) with K parsed classify answers (c right), the k keystone answers are
    drawn without replacement: P_pass = C(c,k)/C(K,k); share = Σ P_pass·P_understood / Σ P_pass.
    "paper" (the paper's reading): use answers are classify answers; the next ones are drawn
    with replacement from the K-k others, P_understood = ((c-k)/(K-k))^m; a pair with K <= k
    (no readable classify answer, too) has nothing left to draw from and is left out at k.
    "all-uses": every use answer (U parsed, u right, all tasks) counts; m of the other U-k are
    drawn without replacement, P_understood = C(u-k,m)/C(U-k,m); a pair with K < k or U-k < m
    is left out at k.
    The SE sqrt(share(1-share)/n_eff), with n_eff = Σ P_pass, treats n_eff as a sample size.
    With `above_chance_only`, only models whose classify accuracy (keystone passed, parsed)
    is above 1/2 count; a model with no such answers is dropped. Unreadable answers count as
    the rates count them (`unparsed`): classify ones are always left out.
    """
    if next_uses < 1:
        raise ValueError(f"next_uses must be at least 1, not {next_uses}")
    check_unparsed(unparsed)
    check_expansion(expansion)
    records = [replace(r, correct=graded(r, unparsed)) for r in records]
    models = sorted({r.model for r in records})
    dropped = [m for m in models if above_chance_only and not _above_chance(records, m)]
    kept = [m for m in models if m not in dropped]
    counts = _pair_counts([r for r in records if r.model in kept],
                          classify_only=expansion == "paper")
    points = []
    for k in ks:
        if k < 0:
            raise ValueError(f"keystone sizes must be 0 or more, not {k}")
        points.append(_point(k, counts, next_uses, expansion))
    return KeystoneExpansion(tuple(points), tuple(kept), tuple(dropped), next_uses, expansion)


def _above_chance(records: Sequence[UseRecord], model: str) -> bool:
    answers = [r.correct for r in records if r.model == model and r.task == "classify"
               and r.keystone and r.correct is not None]
    return bool(answers) and 2 * sum(answers) > len(answers)


def _pair_counts(records: Sequence[UseRecord], classify_only: bool) -> list[PairCounts]:
    """(K, c, U, u) of each keystone-passing (model, domain, concept), in a fixed order; a
    pair with no readable answer counted (only classify ones with `classify_only`) is kept,
    all zeros, so that it is counted as left out."""
    counts: dict[Pair, list[int]] = {}
    for r in records:
        if not r.keystone:
            continue
        row = counts.setdefault((r.model, r.domain, r.concept), [0, 0, 0, 0])
        if r.correct is None or (classify_only and r.task != "classify"):
            continue
        if r.task == "classify":
            row[0] += 1
            row[1] += r.correct
        row[2] += 1
        row[3] += r.correct
    return [(a, b, c, d) for a, b, c, d in (counts[p] for p in sorted(counts))]


def _understood(k: int, pair: PairCounts, m: int, expansion: str) -> tuple[float, float] | None:
    """(P_pass, P_understood) of one pair at keystone size k; None when it is left out."""
    n_cls, c, n_use, u = pair
    too_few = n_cls <= k if expansion == "paper" else n_cls < k or n_use - k < m
    if too_few:
        return None
    p_pass = math.comb(c, k) / math.comb(n_cls, k)
    if p_pass == 0:  # c < k: never passes, whatever would follow
        return 0.0, 0.0
    if expansion == "paper":
        return p_pass, ((c - k) / (n_cls - k)) ** m
    return p_pass, math.comb(u - k, m) / math.comb(n_use - k, m)


def _point(k: int, counts: list[PairCounts], next_uses: int, expansion: str) -> ExpansionPoint:
    """The share understood at keystone size k (see keystone_expansion)."""
    weight = hit = 0.0
    pairs = left_out = 0
    for pair in counts:
        both = _understood(k, pair, next_uses, expansion)
        if both is None:
            left_out += 1
            continue
        pairs += 1
        weight += both[0]
        hit += both[0] * both[1]
    if weight == 0:
        return ExpansionPoint(k, None, None, 0.0, pairs, left_out)
    share = hit / weight
    return ExpansionPoint(k, share, math.sqrt(share * (1 - share) / weight), weight, pairs,
                          left_out)


def check_keystones(records: Iterable[UseRecord]) -> dict[Pair, bool]:
    """The keystone result of each (model, domain, concept); ValueError if its rows disagree."""
    seen: dict[Pair, bool] = {}
    for r in records:
        pair = (r.model, r.domain, r.concept)
        if seen.setdefault(pair, r.keystone) != r.keystone:
            raise ValueError(f"model {r.model!r}, concept {r.concept!r} (domain {r.domain!r}) "
                            "has rows with keystone 1 and rows with keystone 0: give each "
                            "(model, concept) one keystone result")
    return seen


def cohen_kappa(a: Sequence[bool], b: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' yes/no labels on the same items; None for no items.

    When chance agreement is 1 (both raters give one and the same label throughout) kappa is
    0/0; this returns 1.0 if they agree on every item, else 0.0.
    """
    if len(a) != len(b):
        raise ValueError(f"the raters labelled {len(a)} and {len(b)} items")
    n = len(a)
    if n == 0:
        return None
    agree = sum(1 for x, y in zip(a, b, strict=True) if bool(x) == bool(y))
    na, nb = sum(map(bool, a)), sum(map(bool, b))
    chance = na * nb + (n - na) * (n - nb)  # expected agreement times n²
    if chance == n * n:
        return 1.0 if agree == n else 0.0
    return (agree * n - chance) / (n * n - chance)  # (po - pe) / (1 - pe), times n²/n²


def clustered_rate(successes: Sequence[int], totals: Sequence[int]) -> tuple[float, float, int]:
    """The pooled rate Σs/Σt over clusters, its cluster-robust SE, and n = Σt.

    SE = sqrt(G/(G-1) · Σ(s_i - p·t_i)²) / Σt over the G clusters with t_i > 0 (0 when G = 1).
    """
    if len(successes) != len(totals):
        raise ValueError(f"{len(successes)} success counts for {len(totals)} totals")
    if any(t < 0 or not 0 <= s <= t for s, t in zip(successes, totals, strict=True)):
        raise ValueError("each cluster needs 0 <= successes <= total")
    n = sum(totals)
    if n == 0:
        raise ValueError("no observations: every cluster total is 0")
    p = sum(successes) / n
    g = sum(1 for t in totals if t > 0)
    if g == 1:
        return p, 0.0, n
    ss = sum((s - p * t) ** 2 for s, t in zip(successes, totals, strict=True))
    return p, math.sqrt(g / (g - 1) * ss) / n, n


@dataclass(frozen=True)
class KeystoneShare(JsonForm):
    """The share of (model, concept) pairs that passed the keystone, its SE, passed and pairs."""

    rate: float | None
    se: float | None
    passed: int
    pairs: int


@dataclass(frozen=True)
class TaskCounts(JsonForm):
    """Use answers of one task: all, with the keystone passed, unparsed (of those), excluded."""

    total: int
    keystone_passed: int
    unparsed: int
    excluded: int


@dataclass(frozen=True)
class RecordCounts(JsonForm):
    """How many records, models and concepts were scored, and the answers per task."""

    records: int
    models: int
    concepts: int
    tasks: dict[str, TaskCounts]


@dataclass(frozen=True)
class PotemkinScores(JsonForm):
    """Scores of use records: counts, keystone pass rates, Table 1, Table 6, keystone
    expansion, and the keystone plot's path when one was written (else None)."""

    counts: RecordCounts
    keystone_rate: dict[str, KeystoneShare]
    table1: Table1
    table6: Table6
    keystone_expansion: KeystoneExpansion
    plot: str | None = None


def potemkin_scores(records: Sequence[UseRecord], *, ks: Iterable[int] = range(5),
                    next_uses: int = 10, above_chance_only: bool = True,
                    unparsed: str = "wrong", expansion: str = "paper") -> PotemkinScores:
    """Counts, keystone pass rates, Table 1, Table 6 and keystone expansion (`expansion`, one
    of EXPANSIONS) of the records; `unparsed` says what an unreadable generate or edit answer
    counts as ("wrong" or "exclude")."""
    check_unparsed(unparsed)
    check_expansion(expansion)
    keystones = check_keystones(records)
    tasks = {t: TaskCounts(
        total=sum(1 for r in records if r.task == t),
        keystone_passed=sum(1 for r in records if r.task == t and r.keystone),
        unparsed=sum(1 for r in records if r.task == t and r.keystone and r.correct is None),
        excluded=sum(1 for r in records if r.task == t and not r.keystone)) for t in TASKS}
    counts = RecordCounts(len(records), len({r.model for r in records}),
                          len({(r.domain, r.concept) for r in records}), tasks)
    return PotemkinScores(counts, keystone_rates(keystones), table1(records, unparsed),
                          table6(records, unparsed),
                          keystone_expansion(records, ks, next_uses, above_chance_only,
                                             unparsed, expansion))


def keystone_rates(keystones: dict[Pair, bool]) -> dict[str, KeystoneShare]:
    """Per model, then "overall": the share of (model, concept) pairs that passed the keystone."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for (model, _, _), passed in keystones.items():
        groups[model].append(passed)
    out = {m: _share(groups[m]) for m in sorted(groups)}
    out[OVERALL] = _share(list(keystones.values()))
    return out


def _share(flags: list[bool]) -> KeystoneShare:
    if not flags:
        return KeystoneShare(None, None, 0, 0)
    rate, se = rate_se(sum(flags), len(flags))
    return KeystoneShare(rate, se, sum(flags), len(flags))
