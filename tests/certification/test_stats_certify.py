"""Verdicts of Procedure 4.1 (certify), Procedure 5.1 (certify_explained) and planning.

Decisive cases are chosen from the printed Tables 1 and 2 of the paper, so the expected
verdict follows from numbers typed in from the paper rather than from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from verstehen.methods.certification.bounds import chernoff_lower, chernoff_upper
from verstehen.methods.certification.decide import ExplainedFamily, certify, certify_explained
from verstehen.methods.certification.plan import samples_needed
from verstehen.methods.certification.verdict import Criterion, Decision


def mixed(n_ones: int, n_halves: int = 0, n_zeros: int = 0, tiny: float | None = None,
          n_tiny: int = 0) -> np.ndarray:
    """Scores made of 1.0s, 0.5s, 0.0s (ridiculous) and optionally a tiny positive value."""
    parts = [np.ones(n_ones), np.full(n_halves, 0.5), np.zeros(n_zeros)]
    if tiny is not None:
        parts.append(np.full(n_tiny, tiny))
    return np.concatenate(parts)


def close(value: float, printed: float, decimals: int) -> bool:
    """value rounds to the printed table entry."""
    return abs(value - printed) <= 0.5 * 10.0**-decimals + 1e-12


# --------------------------------------------------------------------------------------------
# Procedure 4.1 on cases decided by the paper's tables
# --------------------------------------------------------------------------------------------


def test_mean_0_9_over_100_understands_at_pg_0_8() -> None:
    # Table 1: L(0.9, 100, 0.05) = 0.811171 >= 0.8; Table 2: U(0, 100, 0.05) = 0.0295130 <= 0.05
    scores = mixed(80, 20)  # mean exactly 0.9, no zeros
    v = certify(scores, pg=0.8, rid=0.05, delta=0.05)
    assert v.decision == Decision.UNDERSTANDS
    assert v.decided_by == ("good_grade", "good_rid")
    assert v.n == 100 and v.mean_score == 0.9 and v.ridiculous_rate == 0.0
    assert close(v.score_lower, 0.811171, 6)
    assert close(v.ridiculous_upper, 0.0295130, 7)
    assert close(v.score_upper, 0.962052, 6)
    assert v.more_questions is None


def test_mean_0_9_over_100_does_not_at_pg_0_97() -> None:
    # Table 1: U(0.9, 100, 0.025) = 0.962052 < 0.97
    v = certify(mixed(80, 20), pg=0.97, rid=0.05, delta=0.05)
    assert v.decision == Decision.DOES_NOT_UNDERSTAND
    assert v.decided_by == ("bad_grade",)
    assert v.tests == {"good_grade": False, "good_rid": True, "bad_grade": True,
                       "bad_rid": False}


@pytest.mark.parametrize(("pg", "rid", "decision"), [
    # Table 1, s = 0.5, n = 1000: L(.5, 1000, .05) = 0.461356, U(.5, 1000, .025) = 0.542868;
    # Table 2: U(0, 1000, 0.05) = 0.0029912
    (0.46, 0.003, Decision.UNDERSTANDS),
    (0.462, 0.003, Decision.INCONCLUSIVE),  # L < PG < U
    (0.46, 0.0029, Decision.INCONCLUSIVE),  # grade fine, but U(0, 1000, .05) = 0.0029912 > RID
    (0.542, 0.003, Decision.INCONCLUSIVE),
    (0.543, 0.003, Decision.DOES_NOT_UNDERSTAND),
])
def test_mean_0_5_over_1000(pg: float, rid: float, decision: str) -> None:
    v = certify(np.full(1000, 0.5), pg=pg, rid=rid, delta=0.05)
    assert v.decision == decision


def test_ridiculous_rate_1_percent_table_2() -> None:
    # Table 2, r = 0.01: L(0.01, 1000, 0.025) = 0.0036846
    scores = mixed(990, n_zeros=10)
    assert certify(scores, pg=0.9, rid=0.0036, delta=0.05).decided_by == ("bad_rid",)
    assert certify(scores, pg=0.9, rid=0.0037, delta=0.05).decision == Decision.INCONCLUSIVE
    # Section 4 with RID = 0.00052: Bad-Rid fails after 100 questions (0.0000933), holds
    # after 1000 (0.0036846)
    assert certify(mixed(99, n_zeros=1), 0.9, 0.00052, 0.05).decision == Decision.INCONCLUSIVE
    assert certify(scores, 0.9, 0.00052, 0.05).decision == Decision.DOES_NOT_UNDERSTAND


def test_section_4_no_ridiculous_answers_needs_10000_questions() -> None:
    # RID = 0.00052: U(0, 1000, .05) = 0.0029912 > RID, U(0, 10000, .05) = 0.0002995 <= RID
    assert certify(np.ones(1000), 0.9, 0.00052, 0.05).decision == Decision.INCONCLUSIVE
    assert certify(np.ones(10_000), 0.9, 0.00052, 0.05).decision == Decision.UNDERSTANDS


def test_section_4_three_ridiculous_answers_need_100000_questions() -> None:
    # U(3/n, n, 0.05): 0.0009429 at 10,000 (> RID), 0.0000943 at 100,000 (<= RID)
    v = certify(mixed(10_000 - 3, n_zeros=3), 0.9, 0.00052, 0.05)
    assert v.decision == Decision.INCONCLUSIVE and not v.tests["good_rid"]
    assert close(v.ridiculous_upper, 0.0009429, 7)
    v = certify(mixed(100_000 - 3, n_zeros=3), 0.9, 0.00052, 0.05)
    assert v.decision == Decision.UNDERSTANDS
    assert close(v.ridiculous_upper, 0.0000943, 7)


# --------------------------------------------------------------------------------------------
# delta for the good tests, delta/2 for the bad tests
# --------------------------------------------------------------------------------------------


def test_bad_grade_uses_half_delta() -> None:
    # U(0.9, 100, 0.05) ~ 0.9576 < 0.96 <= U(0.9, 100, 0.025) = 0.962052 (Table 1): at
    # delta = 0.05 the bad test runs at 0.025 and does not fire; the same data at delta = 0.1
    # runs it at 0.05 and decides "does not".
    scores = mixed(80, 20)
    assert chernoff_upper(0.9, 100, 0.05) < 0.96 <= chernoff_upper(0.9, 100, 0.025)
    v = certify(scores, pg=0.96, rid=0.05, delta=0.05)
    assert v.decision == Decision.INCONCLUSIVE
    assert v.score_upper == chernoff_upper(0.9, 100, 0.025)
    assert certify(scores, pg=0.96, rid=0.05, delta=0.1).decision == Decision.DOES_NOT_UNDERSTAND


def test_bad_rid_uses_half_delta() -> None:
    # L(0.01, 1000, 0.025) = 0.0036846 (Table 2) < 0.004 < L(0.01, 1000, 0.05) ~ 0.00413
    scores = mixed(990, n_zeros=10)
    assert chernoff_lower(0.01, 1000, 0.025) < 0.004 < chernoff_lower(0.01, 1000, 0.05)
    v = certify(scores, pg=0.9, rid=0.004, delta=0.05)
    assert v.decision == Decision.INCONCLUSIVE
    assert v.ridiculous_lower == chernoff_lower(0.01, 1000, 0.025)
    assert certify(scores, pg=0.9, rid=0.004, delta=0.1).decided_by == ("bad_rid",)


def test_good_grade_uses_full_delta() -> None:
    # L(0.9, 100, 0.025) ~ 0.7997 < 0.8 <= L(0.9, 100, 0.05) = 0.811171: a procedure that used
    # delta/2 for the good tests too would not certify this case.
    assert chernoff_lower(0.9, 100, 0.025) < 0.8
    v = certify(mixed(80, 20), pg=0.8, rid=0.05, delta=0.05)
    assert v.decision == Decision.UNDERSTANDS
    assert v.score_lower == chernoff_lower(0.9, 100, 0.05)
    assert v.ridiculous_upper == chernoff_upper(0.0, 100, 0.05)


# --------------------------------------------------------------------------------------------
# Ridiculous means exactly 0
# --------------------------------------------------------------------------------------------


def test_exact_zero_is_ridiculous_but_1e_12_is_not() -> None:
    # U(0, 1000, 0.05) = 0.0029912 <= 0.003; one ridiculous answer lifts U(0.001, ...) to ~0.0057
    with_zero = mixed(999, n_zeros=1)
    with_tiny = mixed(999, tiny=1e-12, n_tiny=1)
    v0 = certify(with_zero, pg=0.9, rid=0.003, delta=0.05)
    vt = certify(with_tiny, pg=0.9, rid=0.003, delta=0.05)
    assert v0.ridiculous_rate == 0.001 and vt.ridiculous_rate == 0.0
    assert v0.decision == Decision.INCONCLUSIVE and not v0.tests["good_rid"]
    assert vt.decision == Decision.UNDERSTANDS
    assert certify([*mixed(999).tolist(), -0.0], 0.9, 0.003, 0.05).ridiculous_rate == 0.001


# --------------------------------------------------------------------------------------------
# Inconclusive: how many more questions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "n", "pg", "decision"), [
    (0.85, 50, 0.8, Decision.UNDERSTANDS),  # constant scores: same mean at every length, no zeros
    (0.75, 100, 0.8, Decision.DOES_NOT_UNDERSTAND),
])
def test_more_questions_with_the_same_rates_decide(value: float, n: int, pg: float,
                                                   decision: str) -> None:
    v = certify(np.full(n, value), pg=pg, rid=0.05, delta=0.05)
    assert v.decision == Decision.INCONCLUSIVE
    assert isinstance(v.more_questions, int) and v.more_questions > 0
    total = n + v.more_questions
    assert certify(np.full(total, value), pg, 0.05, 0.05).decision == decision
    # and no fewer would do (with the rates unchanged)
    assert certify(np.full(total - 1, value), pg, 0.05, 0.05).decision == Decision.INCONCLUSIVE


def test_more_questions_for_a_ridiculous_rate() -> None:
    # 2% ridiculous answers, RID 1%: rates stay exactly 0.02 / 0.98 at multiples of 50
    block = mixed(49, n_zeros=1)
    v = certify(np.tile(block, 2), pg=0.5, rid=0.01, delta=0.05)
    assert v.decision == Decision.INCONCLUSIVE and v.more_questions > 0
    total = 100 + v.more_questions
    above = math.ceil(total / 50)
    below = (total - 1) // 50
    assert certify(np.tile(block, above), 0.5, 0.01, 0.05).decided_by == ("bad_rid",)
    assert certify(np.tile(block, below), 0.5, 0.01, 0.05).decision == Decision.INCONCLUSIVE
    # independent check of the planned total: Bad-Rid holds there and not one question earlier
    assert chernoff_lower(0.02, total, 0.025) > 0.01 >= chernoff_lower(0.02, total - 1, 0.025)


def test_to_dict_is_json_ready() -> None:
    import json

    d = certify(mixed(80, 20), pg=0.8, rid=0.05, delta=0.05).to_dict()
    assert json.loads(json.dumps(d))["decided_by"] == ["good_grade", "good_rid"]


# --------------------------------------------------------------------------------------------
# Bad input
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("pg", "rid", "delta"), [
    (0.05, 0.05, 0.05), (0.04, 0.05, 0.05),  # PG <= RID
    (0.8, 0.05, 0.0), (0.8, 0.05, 1.0), (0.8, 0.05, -0.1), (0.8, 0.05, 1.5),
    (0.8, 0.05, math.nan),
    (0.0, 0.0, 0.05), (1.0, 0.05, 0.05), (0.8, 0.0, 0.05), (0.8, -0.01, 0.05),
])
def test_bad_criterion_raises(pg: float, rid: float, delta: float) -> None:
    with pytest.raises(ValueError):
        certify(np.ones(10), pg, rid, delta)
    with pytest.raises(ValueError):
        Criterion(pg, rid, delta)


@pytest.mark.parametrize("scores", [
    [], np.array([]), [0.5, math.nan], [1.5], [0.2, -0.1], [math.inf], [0.5, -math.inf],
])
def test_bad_scores_raise(scores) -> None:
    with pytest.raises(ValueError):
        certify(scores, 0.8, 0.05, 0.05)


# --------------------------------------------------------------------------------------------
# Procedure 5.1
# --------------------------------------------------------------------------------------------


def test_explained_with_exact_family_follows_procedure_5_1() -> None:
    remaining = np.full(400, 0.6)
    families = [ExplainedFamily("lookup", 0.3, exact_score=1.0),
                ExplainedFamily("formula", 0.2, exact_score=0.7)]
    pg, rid, delta = 0.7, 0.02, 0.05
    v = certify_explained(remaining, families, pg, rid, delta)
    known_s, known_r, p_bar, n_bar = 0.3 * 1.0 + 0.2 * 0.7, 0.0, 0.5, 400
    s_hat, r_hat = 0.6, 0.0
    expected = {
        "score_lower": known_s + p_bar * chernoff_lower(s_hat, n_bar, delta),
        "score_upper": known_s + p_bar * chernoff_upper(s_hat, n_bar, delta / 2),
        "ridiculous_upper": known_r + p_bar * chernoff_upper(r_hat, n_bar, delta),
        "ridiculous_lower": known_r + p_bar * chernoff_lower(r_hat, n_bar, delta / 2),
    }
    for key, value in expected.items():
        assert getattr(v, key) == pytest.approx(value, abs=1e-15), key
    assert v.mean_score == pytest.approx(known_s + p_bar * s_hat)
    assert v.n == 400
    assert v.tests["good_grade"] == (expected["score_lower"] >= pg)
    assert v.tests["bad_grade"] == (expected["score_upper"] < pg)
    # 0.74 + 0.5 L(0.6, 400, 0.05) ~ 0.74 + 0.5 * 0.556 > 0.7 and 0.5 * U(0, 400, .05) < 0.02
    assert v.decision == Decision.UNDERSTANDS
    # the same remaining answers alone (mean 0.6 < PG 0.7) are judged "does not"
    assert certify(remaining, pg, rid, delta).decision == Decision.DOES_NOT_UNDERSTAND


def test_explained_exact_ridiculous_family_counts_fully() -> None:
    # an explanation whose answers all score 0 has r_alpha = 1 (section 5)
    families = [ExplainedFamily("good", 0.99, exact_score=1.0),
                ExplainedFamily("absurd", 0.01, exact_score=0.0)]
    v = certify_explained([], families, pg=0.8, rid=0.005, delta=0.05)
    assert v.ridiculous_upper == v.ridiculous_lower == pytest.approx(0.01)
    assert v.decision == Decision.DOES_NOT_UNDERSTAND and v.decided_by == ("bad_rid",)


def test_explained_all_exact_decides_from_exact_values() -> None:
    families = [ExplainedFamily("a", 0.6, exact_score=1.0),
                ExplainedFamily("b", 0.4, exact_score=0.5)]
    v = certify_explained([], families, pg=0.8, rid=0.01, delta=0.05)
    assert v.score_lower == v.score_upper == pytest.approx(0.8)
    assert v.ridiculous_upper == v.ridiculous_lower == 0.0
    assert v.decision == Decision.UNDERSTANDS and v.n == 0
    # exact mean 0.8 < PG 0.81: Bad-Grade-Exp with no uncertainty at all
    below = certify_explained([], families, pg=0.81, rid=0.01, delta=0.05)
    assert below.decision == Decision.DOES_NOT_UNDERSTAND
    # leftover answers are ignored when the families cover the scope
    ignored = certify_explained(np.zeros(5), families, pg=0.8, rid=0.01, delta=0.05)
    assert ignored.decision == Decision.UNDERSTANDS


@pytest.mark.parametrize("families", [
    [ExplainedFamily("a", 0.7, exact_score=1.0), ExplainedFamily("b", 0.4, exact_score=1.0)],
    [ExplainedFamily("a", 1.2, exact_score=1.0)],
    [ExplainedFamily("a", 0.0, exact_score=1.0)],
    [ExplainedFamily("a", -0.1, exact_score=1.0)],
    [ExplainedFamily("a", 0.5)],  # neither scores nor an exact score
    [ExplainedFamily("a", 0.5, exact_score=1.5)],
    [ExplainedFamily("a", 0.5, scores=np.array([0.5, 2.0]))],
])
def test_explained_bad_families_raise(families) -> None:
    with pytest.raises(ValueError):
        certify_explained(np.ones(50), families, 0.8, 0.05, 0.05)


def test_explained_uncovered_scope_needs_remaining_samples() -> None:
    with pytest.raises(ValueError):
        certify_explained([], [ExplainedFamily("a", 0.5, exact_score=1.0)], 0.8, 0.05, 0.05)
    with pytest.raises(ValueError):
        certify_explained(np.ones(10), [], 0.8, 0.8, 0.05)  # PG <= RID


def test_multiplication_and_literature_example() -> None:
    """Section 5: half the scope (multiplication) explained exactly at s = 1, the other half
    (literature) answered with mean 0.33 and no ridiculous answers, n_bar literature samples.

    What we check: (1) the explained bounds are exactly half as wide as the bounds Procedure
    4.1 puts on the literature mean from the same n_bar answers (the factor p_bar = 0.5);
    (2) the ridiculousness bound with n_bar samples is at least as tight as Procedure 4.1's with
    2 * n_bar samples of the whole scope (the paper's "counts as about 2 questions"), and within
    1% of it: 0.5 * (1 - d**(1/n)) <= 1 - d**(1/(2n)) exactly.
    """
    n_bar, delta = 1000, 0.05
    literature = np.full(n_bar, 0.33)
    v = certify_explained(literature, [ExplainedFamily("multiplication", 0.5, exact_score=1.0)],
                          pg=0.6, rid=0.01, delta=delta)
    plain = certify(literature, pg=0.6, rid=0.01, delta=delta)
    assert v.score_upper - v.score_lower == pytest.approx(
        0.5 * (plain.score_upper - plain.score_lower), rel=1e-12)
    assert v.score_lower == pytest.approx(0.5 + 0.5 * plain.score_lower, rel=1e-12)
    assert v.ridiculous_upper == pytest.approx(0.5 * plain.ridiculous_upper, rel=1e-12)
    twice = chernoff_upper(0.0, 2 * n_bar, delta)
    assert v.ridiculous_upper <= twice
    assert v.ridiculous_upper == pytest.approx(twice, rel=0.01)
    assert v.decision == Decision.UNDERSTANDS  # 0.5 + 0.5 * L(0.33, 1000, 0.05) ~ 0.65 >= 0.6


def test_explained_estimated_families_split_delta() -> None:
    """Families bounded from program runs: delta/k for the good tests, delta/(2k) for the bad,
    k = number of estimated components (estimated families plus the remainder)."""
    rng = np.random.default_rng(7)
    runs_a = rng.choice([0.0, 0.5, 1.0], size=300, p=[0.01, 0.19, 0.8])
    runs_b = np.full(200, 0.9)
    remaining = rng.choice([0.5, 1.0], size=250)
    families = [ExplainedFamily("a", 0.3, scores=runs_a),
                ExplainedFamily("b", 0.25, scores=runs_b),
                ExplainedFamily("exact", 0.15, exact_score=1.0)]
    pg, rid, delta, k = 0.7, 0.05, 0.05, 3
    v = certify_explained(remaining, families, pg, rid, delta)
    comps = [(0.3, runs_a), (0.25, runs_b), (0.3, remaining)]

    def total(bound, rate: bool, d: float) -> float:
        """0.15 * exact part + sum over estimated components of p * bound(rate, m, d)."""
        exact = 0.0 if rate else 0.15 * 1.0
        return exact + sum(p * bound(float(np.mean(x == 0.0) if rate else np.mean(x)),
                                     x.size, d) for p, x in comps)

    assert v.score_lower == pytest.approx(total(chernoff_lower, False, delta / k), abs=1e-14)
    assert v.score_upper == pytest.approx(total(chernoff_upper, False, delta / (2 * k)),
                                          abs=1e-14)
    assert v.ridiculous_upper == pytest.approx(total(chernoff_upper, True, delta / k),
                                               abs=1e-14)
    assert v.ridiculous_lower == pytest.approx(total(chernoff_lower, True, delta / (2 * k)),
                                               abs=1e-14)
    assert v.to_dict()["details"]["delta_per_component"] == {"good": pytest.approx(delta / k),
                                                "bad": pytest.approx(delta / (2 * k))}
    # sanity: splitting made the bounds wider than a single-component delta would
    assert v.score_lower < total(chernoff_lower, False, delta)


def test_explained_exact_families_do_not_split_delta() -> None:
    families = [ExplainedFamily("x", 0.4, exact_score=0.9)]
    v = certify_explained(np.full(100, 0.8), families, 0.7, 0.05, 0.05)
    assert v.to_dict()["details"]["delta_per_component"] == {"good": 0.05, "bad": 0.025}


# --------------------------------------------------------------------------------------------
# samples_needed
# --------------------------------------------------------------------------------------------


def test_plug_in_samples_are_minimal() -> None:
    c = Criterion(0.8, 0.05, 0.05)
    n = samples_needed(c, 0.9, 0.0)
    assert n is not None and n > 1

    def passes(m: int) -> bool:
        """Good-Grade and Good-Rid at m samples with the expected rates observed."""
        return (chernoff_lower(0.9, m, 0.05) >= 0.8) and (chernoff_upper(0.0, m, 0.05) <= 0.05)

    assert passes(n) and not passes(n - 1)


def test_plug_in_samples_for_a_bad_grade_are_minimal() -> None:
    c = Criterion(0.8, 0.05, 0.05)
    n = samples_needed(c, 0.7, 0.0)
    assert chernoff_upper(0.7, n, 0.025) < 0.8 <= chernoff_upper(0.7, n - 1, 0.025)


def test_samples_for_rid_0_00052_match_section_4() -> None:
    # Section 4: 1,000 zero-ridiculous answers do not suffice for RID = 0.00052, 10,000 do.
    # With no ridiculous answers U(0, n, d) = 1 - d**(1/n), so the exact answer is the smallest
    # n with n >= ln(1/d) / -ln(1 - RID).
    c = Criterion(0.8, 0.00052, 0.05)
    n = samples_needed(c, 1.0, 0.0)
    assert 1_000 < n <= 10_000
    assert n == math.ceil(math.log(1 / 0.05) / -math.log1p(-0.00052))
    assert samples_needed(c, 0.9, 0.0) == n  # the grade needs far fewer: rid dominates


@pytest.mark.parametrize(("s", "r"), [(0.9, 0.0), (0.85, 0.01), (0.7, 0.0), (0.95, 0.08)])
def test_more_power_needs_at_least_as_many(s: float, r: float) -> None:
    c = Criterion(0.8, 0.05, 0.05)
    n50, n80 = samples_needed(c, s, r), samples_needed(c, s, r, power=0.8)
    assert n50 is not None and n80 is not None
    assert n80 >= n50
    assert samples_needed(c, s, r, power=0.95) >= n80


@pytest.mark.parametrize(("s", "r"), [(0.8, 0.0), (0.8, 0.05), (0.9, 0.05)])
def test_undecidable_expectations_give_none(s: float, r: float) -> None:
    assert samples_needed(Criterion(0.8, 0.05, 0.05), s, r) is None


def test_samples_needed_rejects_bad_arguments() -> None:
    c = Criterion(0.8, 0.05, 0.05)
    with pytest.raises(ValueError):
        samples_needed(c, 1.2, 0.0)
    with pytest.raises(ValueError):
        samples_needed(c, 0.9, -0.1)
    with pytest.raises(ValueError):
        samples_needed(c, 0.9, 0.0, power=0.4)
