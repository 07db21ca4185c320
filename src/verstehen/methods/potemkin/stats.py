"""Potemkin rates (paper Table 1 and Table 6), keystone expansion (Figure 4), agreement.

A potemkin rate is 1 - accuracy on use answers whose (model, concept) passed the keystone, on
the answers that could be parsed. Pure functions, no I/O.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from verstehen.errors import UserError
from verstehen.methods.potemkin.records import OVERALL, TASKS, UseRecord
from verstehen.stats.rates import rate_se

# classify is a yes/no question, so chance accuracy 1/2 gives rate 1/2; doubled, chance reads 1
SCALE = {"classify": 2.0, "generate": 1.0, "edit": 1.0}

Pair = tuple[str, str, str]  # (model, domain, concept)


@dataclass(frozen=True)
class PotemkinRate:
    """The scaled potemkin rate of one task, its SE, and the answers counted and left out."""

    task: str
    rate: float | None
    se: float | None
    n: int
    unparsed: int
    excluded: int

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-able dict."""
        return asdict(self)


def potemkin_rate(records: Iterable[UseRecord], task: str) -> PotemkinRate:
    """SCALE[task]·(1 - accuracy) on parsed answers with the keystone passed, and its SE."""
    mine = [r for r in records if r.task == task]
    counted = [r.correct for r in mine if r.keystone and r.correct is not None]
    unparsed = sum(1 for r in mine if r.keystone and r.correct is None)
    excluded = sum(1 for r in mine if not r.keystone)
    if not counted:
        return PotemkinRate(task, None, None, 0, unparsed, excluded)
    accuracy, se = rate_se(sum(counted), len(counted))
    scale = SCALE[task]
    return PotemkinRate(task, scale * (1 - accuracy), scale * se, len(counted), unparsed,
                        excluded)


def potemkin_rates(records: Sequence[UseRecord]) -> dict[str, PotemkinRate]:
    """One potemkin rate per task in TASKS."""
    return {task: potemkin_rate(records, task) for task in TASKS}


def _by_model(records: Sequence[UseRecord]) -> dict[str, dict[str, PotemkinRate]]:
    models = sorted({r.model for r in records})
    rows = {m: potemkin_rates([r for r in records if r.model == m]) for m in models}
    rows[OVERALL] = potemkin_rates(records)
    return rows


def table1(records: Sequence[UseRecord]) -> dict[str, dict[str, PotemkinRate]]:
    """Paper Table 1: model (sorted) -> task -> rate, then "overall" pooling every model."""
    return _by_model(records)


def table6(records: Sequence[UseRecord]) -> dict[str, dict[str, dict[str, PotemkinRate]]]:
    """Paper Table 6: domain (sorted) -> model (sorted, then "overall") -> task -> rate."""
    domains = sorted({r.domain for r in records})
    return {d: _by_model([r for r in records if r.domain == d]) for d in domains}


@dataclass(frozen=True)
class ExpansionPoint:
    """Keystone size k: the share of passing pairs that understood, its SE, weight, pairs."""

    k: int
    share: float | None
    se: float | None
    n_eff: float
    pairs: int


@dataclass(frozen=True)
class KeystoneExpansion:
    """Paper Figure 4: share understood per keystone size, and which models were kept."""

    points: list[ExpansionPoint]
    models: list[str]
    dropped_models: list[str]
    next_uses: int

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-able dict."""
        return asdict(self)


def keystone_expansion(records: Sequence[UseRecord], ks: Iterable[int] = range(5),
                       next_uses: int = 10, above_chance_only: bool = True) -> KeystoneExpansion:
    """Paper Figure 4, exactly: among keystone-passing pairs that also get k random classify
    answers right, the share that get the next `next_uses` random use answers all right.

    Per (model, concept) with K parsed classify answers (c correct) and U parsed use answers of
    all tasks (u correct): P_pass = C(c,k)/C(K,k); then m = next_uses of the other U-k answers
    are drawn, P_understood = C(u-k,m)/C(U-k,m). share = Σ P_pass·P_understood / Σ P_pass.
    Pairs with K < k, or with fewer than next_uses answers left (U-k < m), are left out at k.
    The SE sqrt(share(1-share)/n_eff), with n_eff = Σ P_pass, is an approximation that treats
    n_eff as a sample size.
    With `above_chance_only`, only models whose classify accuracy (keystone passed, parsed)
    is above 1/2 count; a model with no such answers is dropped.
    """
    if next_uses < 1:
        raise ValueError(f"next_uses must be at least 1, not {next_uses}")
    models = sorted({r.model for r in records})
    dropped = [m for m in models if above_chance_only and not _above_chance(records, m)]
    kept = [m for m in models if m not in dropped]
    counts = _pair_counts([r for r in records if r.model in kept])
    points = []
    for k in ks:
        if k < 0:
            raise ValueError(f"keystone sizes must be 0 or more, not {k}")
        points.append(_point(k, counts, next_uses))
    return KeystoneExpansion(points, kept, dropped, next_uses)


def _above_chance(records: Sequence[UseRecord], model: str) -> bool:
    answers = [r.correct for r in records if r.model == model and r.task == "classify"
               and r.keystone and r.correct is not None]
    return bool(answers) and 2 * sum(answers) > len(answers)


def _pair_counts(records: Sequence[UseRecord]) -> list[tuple[int, int, int, int]]:
    """(K, c, U, u) of each keystone-passing (model, domain, concept), in a fixed order."""
    counts: dict[Pair, list[int]] = {}
    for r in records:
        if not r.keystone or r.correct is None:
            continue
        row = counts.setdefault((r.model, r.domain, r.concept), [0, 0, 0, 0])
        if r.task == "classify":
            row[0] += 1
            row[1] += r.correct
        row[2] += 1
        row[3] += r.correct
    return [(a, b, c, d) for a, b, c, d in (counts[p] for p in sorted(counts))]


def _point(k: int, counts: list[tuple[int, int, int, int]], next_uses: int) -> ExpansionPoint:
    """The share understood at keystone size k (see keystone_expansion)."""
    weight = hit = 0.0
    pairs = 0
    for n_cls, c, n_use, u in counts:  # K, c, U, u of the docstring above
        m = next_uses
        if n_cls < k or n_use - k < m:
            continue
        pairs += 1
        p_pass = math.comb(c, k) / math.comb(n_cls, k)
        if p_pass > 0:  # then c >= k, so u - k >= 0
            weight += p_pass
            hit += p_pass * math.comb(u - k, m) / math.comb(n_use - k, m)
    if weight == 0:
        return ExpansionPoint(k, None, None, 0.0, pairs)
    share = hit / weight
    return ExpansionPoint(k, share, math.sqrt(share * (1 - share) / weight), weight, pairs)


def check_keystones(records: Iterable[UseRecord]) -> dict[Pair, bool]:
    """The keystone result of each (model, domain, concept); UserError if its rows disagree."""
    seen: dict[Pair, bool] = {}
    for r in records:
        pair = (r.model, r.domain, r.concept)
        if seen.setdefault(pair, r.keystone) != r.keystone:
            raise UserError(f"model {r.model!r}, concept {r.concept!r} (domain {r.domain!r}) "
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


def score_summary(records: Sequence[UseRecord], *, ks: Iterable[int] = range(5),
                  next_uses: int = 10, above_chance_only: bool = True) -> dict[str, Any]:
    """Everything JSON-able: counts, keystone pass rates, Table 1, Table 6, keystone expansion."""
    keystones = check_keystones(records)
    tasks = {t: {"total": sum(1 for r in records if r.task == t),
                 "keystone_passed": sum(1 for r in records if r.task == t and r.keystone),
                 "unparsed": sum(1 for r in records
                                 if r.task == t and r.keystone and r.correct is None),
                 "excluded": sum(1 for r in records if r.task == t and not r.keystone)}
             for t in TASKS}
    counts = {"records": len(records), "models": len({r.model for r in records}),
              "concepts": len({(r.domain, r.concept) for r in records}), "tasks": tasks}
    exp = keystone_expansion(records, ks, next_uses, above_chance_only)
    return {"counts": counts, "keystone_rate": keystone_rates(keystones),
            "table1": _dicts(table1(records)),
            "table6": {d: _dicts(rows) for d, rows in table6(records).items()},
            "keystone_expansion": exp.to_dict()}


def keystone_rates(keystones: dict[Pair, bool]) -> dict[str, dict[str, Any]]:
    """Per model, then "overall": the share of (model, concept) pairs that passed the keystone."""
    groups: dict[str, list[bool]] = defaultdict(list)
    for (model, _, _), passed in keystones.items():
        groups[model].append(passed)
    out = {m: _share(groups[m]) for m in sorted(groups)}
    out[OVERALL] = _share(list(keystones.values()))
    return out


def _share(flags: list[bool]) -> dict[str, Any]:
    if not flags:
        return {"rate": None, "se": None, "passed": 0, "pairs": 0}
    rate, se = rate_se(sum(flags), len(flags))
    return {"rate": rate, "se": se, "passed": sum(flags), "pairs": len(flags)}


def _dicts(rows: dict[str, dict[str, PotemkinRate]]) -> dict[str, dict[str, dict[str, Any]]]:
    return {m: {t: r.to_dict() for t, r in rates.items()} for m, rates in rows.items()}

