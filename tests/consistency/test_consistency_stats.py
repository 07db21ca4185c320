"""Conceptual consistency statistics and reports; every expected value is worked by hand."""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.methods.consistency.breakdowns import by_concept, by_relation, yes_no_bias
from verstehen.methods.consistency.plots import plot_bias, plot_relations
from verstehen.methods.consistency.stats import (
    AnchorResult,
    Consistency,
    FactAnswer,
    RelationAverage,
    average_precision,
    background_score,
    bootstrap_ci,
    consistency,
    majority_answer,
    relation_average,
    vote_answer,
)
from verstehen.methods.consistency.text import (
    bias_text,
    concept_text,
    consistency_text,
    relation_text,
)
from verstehen.report.figures import spread_labels
from verstehen.results import from_jsonable

PNG = b"\x89PNG\r\n\x1a\n"


def fact(key: str, positive: bool, said_yes: bool | None, relation: str = "used for",
         combos: tuple[bool, ...] | None = None) -> FactAnswer:
    return FactAnswer(key, relation, "c1", "c2", positive, said_yes, combos)


def anchor(id_: str, facts: tuple[str, ...], correct: bool | None) -> AnchorResult:
    return AnchorResult(id_, facts, correct)


# --- answers -------------------------------------------------------------------------------

def test_majority_answer_takes_the_single_highest_label():
    # flattened: c0 pos -2, c0 neg -3, c1 pos -1.5, c1 neg -1, c2 pos -4, c2 neg -0.5
    # the maximum -0.5 is the negative label of the last combo -> said no
    said_yes, combos = majority_answer([(-2.0, -3.0), (-1.5, -1.0), (-4.0, -0.5)])
    assert said_yes is False
    assert combos == (True, False, False)  # -2 > -3; -1.5 < -1; -4 < -0.5


def test_majority_answer_ties():
    # a tie within a combo: the positive label comes first, so it is the first maximum -> yes;
    # the per-combo answer counts the tie as False
    assert majority_answer([(-1.0, -1.0)]) == (True, (False,))
    # -1 is both combo 0 negative (position 1) and combo 1 positive (position 2): first wins
    assert majority_answer([(-2.0, -1.0), (-1.0, -3.0)]) == (False, (False, True))
    with pytest.raises(ValueError):
        majority_answer([])


def test_vote_answer():
    assert vote_answer([True, True, False]) is True
    assert vote_answer([True, False, None, False]) is False
    assert vote_answer([None, False, None]) is False
    assert vote_answer([True, False]) is None  # tie
    assert vote_answer([None, None]) is None
    assert vote_answer([]) is None


def test_fact_correct():
    assert fact("a", True, True).correct is True
    assert fact("a", False, True).correct is False
    assert fact("a", False, False).correct is True
    assert fact("a", True, None).correct is None


# --- background score ------------------------------------------------------------------------

def test_background_score_weights_sides_equally():
    # positives: 2 of 3 right; negatives: 0 of 1 -> (2/3 + 0)/2 = 1/3 (pooled would be 1/2)
    facts = [fact("p1", True, True), fact("p2", True, True), fact("p3", True, False),
             fact("n1", False, True)]
    assert background_score(facts) == pytest.approx(1 / 3)


def test_background_score_one_side_and_none():
    # no answered positive: the negatives' mean alone, 1 of 2 right -> 1/2
    facts = [fact("p1", True, None), fact("n1", False, False), fact("n2", False, True)]
    assert background_score(facts) == pytest.approx(0.5)
    assert background_score([fact("p1", True, None), fact("n1", False, None)]) is None
    assert background_score([]) is None


def issue_tie() -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    """Issue 18, item 5: anchor T has 3 of 6 positives and 5 of 6 negatives right, anchor F 1
    of 3 and 3 of 3; both S_B are (1/2 + 5/6)/2 = (1/3 + 1)/2 = 2/3. T is right, F wrong."""
    facts = {}
    for name, pos_right, pos_n, neg_right, neg_n in (("T", 3, 6, 5, 6), ("F", 1, 3, 3, 3)):
        for i in range(pos_n):
            facts[f"{name}p{i}"] = fact(f"{name}p{i}", True, i < pos_right)
        for i in range(neg_n):
            facts[f"{name}n{i}"] = fact(f"{name}n{i}", False, i >= neg_right)
    anchors = [anchor(name, tuple(k for k in facts if k.startswith(name)), correct)
               for name, correct in (("T", True), ("F", False))]
    return anchors, facts


def test_background_score_is_exact():
    anchors, facts = issue_tie()
    t, f = (background_score([facts[k] for k in a.facts]) for a in anchors)
    # as floats (0.5 + 0.8333333333333334)/2 = 0.6666666666666667 but (1/3 + 1)/2 = ...666
    assert (0.5 + 5 / 6) / 2 != (1 / 3 + 1.0) / 2
    assert t == f == Fraction(2, 3)


def test_equal_background_scores_tie_in_cc():
    anchors, facts = issue_tie()
    c = consistency(anchors, facts, resamples=200)
    # one threshold at 2/3 with both anchors: P 1/2, R 1 -> AP 1/2 (apart, T first: AP 1)
    assert c.cc == pytest.approx(0.5)
    # resamples: {T, T} AP 1, {T, F} AP 1/2, {F, F} skipped: the interval spans 1/2 .. 1
    assert (c.cc_low, c.cc_high) == (pytest.approx(0.5), pytest.approx(1.0))
    assert c.s_b == pytest.approx(2 / 3) and c.s_b_se == 0.0


def test_average_precision_compares_scores_exactly():
    # equal values tie whatever their type (Fraction or float); distinct floats are distinct
    # scores, however close: 0.1 + 0.2 is 0.30000000000000004, above 0.3
    assert average_precision([True, False], [Fraction(1, 2), 0.5]) == pytest.approx(0.5)
    assert average_precision([True, False], [Fraction(2, 3), Fraction(4, 6)]) == \
        pytest.approx(0.5)
    assert average_precision([True, False], [0.1 + 0.2, 0.3]) == pytest.approx(1.0)
    assert average_precision([False, True], [Fraction(1, 3), Fraction(1, 2)]) == 1.0
    for bad in ([float("nan"), 0.5], [float("inf"), 0.5], ["a", 0.5]):
        with pytest.raises(ValueError, match="finite"):
            average_precision([True, False], bad)


# --- average precision -------------------------------------------------------------------------

def test_average_precision_by_hand_with_ties():
    # sorted by score: 0.9 (+), 0.8 (-), 0.8 (+), 0.5 (+), 0.5 (-), 0.1 (-); 3 positives
    # t=0.9: TP 1 FP 0 -> P 1,   R 1/3
    # t=0.8: TP 2 FP 1 -> P 2/3, R 2/3   (both 0.8 items enter together)
    # t=0.5: TP 3 FP 2 -> P 3/5, R 1
    # t=0.1: TP 3 FP 3 -> P 1/2, R 1     (R unchanged: adds nothing)
    # AP = 1/3·1 + 1/3·2/3 + 1/3·3/5 = 15/45 + 10/45 + 9/45 = 34/45
    y = [True, False, True, True, False, False]
    s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.1]
    assert average_precision(y, s) == pytest.approx(34 / 45)
    # the order of the items does not matter
    assert average_precision(y[::-1], s[::-1]) == pytest.approx(34 / 45)


def test_average_precision_edges():
    assert average_precision([True, True, True], [0.1, 0.5, 0.2]) == pytest.approx(1.0)
    # all scores tied: one threshold, P = 2/4, R = 1 -> AP = base rate 1/2
    assert average_precision([True, False, False, True], [0.3] * 4) == pytest.approx(0.5)
    assert average_precision([False, False], [0.2, 0.8]) is None
    assert average_precision([], []) is None
    with pytest.raises(ValueError):
        average_precision([True], [0.1, 0.2])


def brute_ap(y: list[bool], s: list[float]) -> float:
    """The definition, literally: thresholds at each distinct score, predicted = s >= t."""
    positives = sum(y)
    total, recall_before = 0.0, 0.0
    for t in sorted(set(s), reverse=True):
        predicted = [i for i in range(len(s)) if s[i] >= t]
        tp = sum(1 for i in predicted if y[i])
        precision, recall = tp / len(predicted), tp / positives
        total += (recall - recall_before) * precision
        recall_before = recall
    return total


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0, 0.6])),
                min_size=1, max_size=25))
def test_average_precision_matches_the_definition(items):
    y = [b for b, _ in items]
    s = [x for _, x in items]
    if not any(y):
        assert average_precision(y, s) is None
    else:
        assert average_precision(y, s) == pytest.approx(brute_ap(y, s))


def test_average_precision_matches_scikit_learn_when_installed():
    # an independent cross-check only; the hand-computed value is asserted either way
    y = [True, False, True, True, False, False]
    s = [0.9, 0.8, 0.8, 0.5, 0.5, 0.1]
    assert average_precision(y, s) == pytest.approx(34 / 45)
    try:
        from sklearn.metrics import average_precision_score
    except ImportError:
        return
    rng = random.Random(3)
    for _ in range(20):
        yy = [rng.random() < 0.4 for _ in range(30)]
        yy[0] = True
        ss = [rng.choice([0.0, 0.2, 0.5, 0.7, 1.0]) for _ in range(30)]
        assert average_precision(yy, ss) == pytest.approx(average_precision_score(yy, ss))


# --- bootstrap -------------------------------------------------------------------------------

def sizeable() -> tuple[list[bool], list[float]]:
    rng = random.Random(7)
    s = [rng.random() for _ in range(200)]
    y = [rng.random() < 0.2 + 0.6 * x for x in s]  # correct more often with a higher score
    return y, s


def test_bootstrap_brackets_the_estimate_and_is_reproducible():
    y, s = sizeable()
    ap = average_precision(y, s)
    ci = bootstrap_ci(y, s, resamples=300, seed=1)
    assert ci is not None and ap is not None
    assert ci[0] < ap < ci[1]
    assert ci[1] - ci[0] < 0.3
    assert bootstrap_ci(y, s, resamples=300, seed=1) == ci
    assert bootstrap_ci(y, s, resamples=300, seed=2) != ci
    wider = bootstrap_ci(y, s, resamples=300, seed=1, level=0.99)
    assert wider is not None and wider[0] <= ci[0] and wider[1] >= ci[1]


def test_bootstrap_small_inputs():
    assert bootstrap_ci([True], [0.5]) is None
    assert bootstrap_ci([], []) is None
    assert bootstrap_ci([False, False], [0.1, 0.2]) is None  # every resample skipped
    # one positive in 2: resamples without it are skipped; those with it give AP 1 or 1/2
    ci = bootstrap_ci([True, False], [0.1, 0.9], resamples=200)
    assert ci is not None and 0.5 <= ci[0] <= ci[1] <= 1.0


# --- consistency ------------------------------------------------------------------------------

def cc_example() -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    facts = {f.key: f for f in [
        fact("p1", True, True),    # right
        fact("n1", False, True),   # wrong
        fact("p2", True, False),   # wrong
        fact("n2", False, False),  # right
        fact("p3", True, None),    # unanswered
    ]}
    anchors = [
        anchor("A1", ("p1", "n2"), True),   # S_B (1 + 1)/2 = 1
        anchor("A2", ("p1", "n1"), False),  # S_B (1 + 0)/2 = 1/2
        anchor("A3", ("p2", "n2"), True),   # S_B (0 + 1)/2 = 1/2
        anchor("A4", ("p2", "n1"), False),  # S_B 0
        anchor("A5", ("p3",), True),        # no answered fact -> no_background
        anchor("A6", ("p1",), None),        # unanswered
        anchor("A7", ("p3",), None),        # unanswered (counted as such, not no_background)
    ]
    return anchors, facts


def test_consistency_by_hand():
    anchors, facts = cc_example()
    c = consistency(anchors, facts, resamples=200)
    assert (c.n, c.unanswered, c.no_background) == (4, 2, 1)
    # scores 1 (+), 1/2 (-), 1/2 (+), 0 (-): t=1 P 1 R 1/2; t=1/2 P 2/3 R 1 -> AP 1/2 + 1/3
    assert c.cc == pytest.approx(5 / 6)
    assert c.cc_low is not None and c.cc_high is not None
    assert c.cc_low <= c.cc <= c.cc_high
    # S_B mean 2/4; deviations 1/2, 0, 0, -1/2 -> s² = (1/2)/3 = 1/6, SE sqrt(1/6 / 4)
    assert c.s_b == pytest.approx(0.5)
    assert c.s_b_se == pytest.approx(math.sqrt(1 / 24))
    # S_A 2/4, SE sqrt(1/4 / 4) = 1/4
    assert c.s_a == pytest.approx(0.5)
    assert c.s_a_se == pytest.approx(0.25)
    assert c.base_rate == pytest.approx(0.5)
    assert c.to_dict()["n"] == 4


def test_consistency_empty_and_no_correct():
    anchors, facts = cc_example()
    c = consistency(anchors[4:], facts)
    assert (c.n, c.unanswered, c.no_background, c.cc, c.s_b) == (0, 2, 1, None, None)
    c = consistency([anchor("A2", ("p1", "n1"), False)], facts)
    assert c.n == 1 and c.cc is None and c.base_rate == 0.0
    with pytest.raises(ValueError, match="not given"):
        consistency([anchor("X", ("nope",), True)], facts)


def test_consistency_text_has_the_numbers():
    anchors, facts = cc_example()
    c = consistency(anchors, facts, resamples=200)
    text = consistency_text(c)
    assert f"CC 0.83 [{c.cc_low:.2f}, {c.cc_high:.2f}] (95% bootstrap, n=4; base rate 0.50)" \
        in text
    assert "S_B 0.50 (SE 0.20)" in text  # sqrt(1/24) = 0.204
    assert "S_A 0.50 (SE 0.25)" in text
    assert "2 anchors with an unanswered anchor question" in text
    assert "1 with no answered background fact" in text
    assert "CC —" in consistency_text(consistency(anchors[4:], facts))


# --- breakdowns -------------------------------------------------------------------------------

def breakdown_example() -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    u, loc = "used for", "at location"
    facts = {f.key: f for f in [
        fact("u1", True, True, u),       # right
        fact("u2", False, True, u),      # wrong
        fact("u3", False, False, u),     # right
        fact("l1", True, False, loc),    # wrong
        fact("l2", False, False, loc),   # right
        fact("l3", True, True, loc),     # right
    ]}
    anchors = [
        # full S_B: pos {u1 1, l1 0} 1/2, neg {u3 1} -> 3/4; used for 1; at location 0
        anchor("B1", ("u1", "u3", "l1"), True),
        # full: pos 1, neg 0 -> 1/2; used for 1/2
        anchor("B2", ("u1", "u2"), False),
        # full: pos 1, neg 1 -> 1; at location 1
        anchor("B3", ("l2", "l3"), True),
        # full: pos {l1 0} 0, neg {u2 0, l2 1} 1/2 -> 1/4; used for 0; at location 1/2
        anchor("B4", ("u2", "l1", "l2"), False),
        # full: neg {u2 0} -> 0; used for 0
        anchor("B5", ("u2",), True),
    ]
    return anchors, facts


def test_overall_cc_of_the_breakdown_example():
    anchors, facts = breakdown_example()
    # 1 (+), 3/4 (+), 1/2 (-), 1/4 (-), 0 (+): R steps 1/3 at P 1, 1/3 at P 1, 1/3 at P 3/5
    assert consistency(anchors, facts, resamples=50).cc == pytest.approx(2 / 3 + 1 / 5)


def test_relation_averaged_background_by_hand():
    anchors, facts = breakdown_example()
    c = consistency(anchors, facts, resamples=200)
    # anchor-averaged S_B: (3/4 + 1/2 + 1 + 1/4 + 0)/5 = 1/2
    assert c.s_b == pytest.approx(0.5)
    # Figure 4a: at location B1 0, B3 1, B4 1/2 -> 1/2; used for B1 1, B2 1/2, B4 0, B5 0
    # -> 3/8; averaged over the 2 relations: 7/16
    assert c.s_b_relations == pytest.approx(7 / 16) and c.relations == 2
    assert c.s_b_relations_low is not None and c.s_b_relations_high is not None
    assert c.s_b_relations_low < 7 / 16 < c.s_b_relations_high
    assert consistency(anchors, facts, resamples=200) == c  # seeded
    # background knowledge only: an anchor whose question went unanswered counts here (as in
    # the per-relation table), not in CC. B6: at location l3 right, used for u1 right ->
    # at location (0 + 1 + 1/2 + 1)/4 = 5/8, used for (1 + 1/2 + 0 + 0 + 1)/5 = 1/2 -> 9/16
    extra = anchor("B6", ("u1", "l3"), None)
    more = consistency([*anchors, extra], facts, resamples=200)
    assert (more.n, more.s_b_relations) == (5, pytest.approx(9 / 16))
    table = by_relation([*anchors, extra], facts, resamples=5)
    assert more.s_b_relations == pytest.approx(
        sum(e.background.mean for e in table.values()) / len(table))
    # no anchor question answered: no CC, but the background score by relation stands
    none = consistency([anchor("B6", ("u1", "l3"), None)], facts, resamples=20)
    assert (none.n, none.cc, none.s_b_relations) == (0, None, 1.0)
    # one anchor: its relations' scores, no interval
    one = consistency(anchors[3:4], facts, resamples=50)  # B4: at location 1/2, used for 0
    assert one.s_b_relations == pytest.approx(1 / 4) and one.s_b_relations_low is None
    text = consistency_text(c)
    assert (f"background score by relation 0.44 [{c.s_b_relations_low:.2f}, "
            f"{c.s_b_relations_high:.2f}] (paper Figure 4a") in text
    assert "over the 2 relations" in text


def test_relation_average_bootstrap_by_hand():
    # two anchors, each with facts of one relation: r1 S_B 1 (A), r2 S_B 0 (B); average 1/2.
    # resamples {A, A}: only r1 -> 1; {B, B}: only r2 -> 0; mixed: 1/2; so the 95% interval
    # is [0, 1] once each kind turns up among 400 resamples (each 1/4 of them)
    facts = {f.key: f for f in [fact("a", True, True, "r1"), fact("b", True, False, "r2")]}
    anchors = [anchor("A", ("a",), True), anchor("B", ("b",), False)]
    found = relation_average(anchors, facts, resamples=400, seed=3)
    assert (found.mean, found.relations) == (0.5, 2)
    assert (found.low, found.high) == (0.0, 1.0)
    assert relation_average([], facts) == RelationAverage(None, None, None, 0)


def test_consistency_reads_a_summary_without_the_relation_average():
    anchors, facts = breakdown_example()
    old = consistency(anchors, facts, resamples=20).to_dict()
    for key in ("s_b_relations", "s_b_relations_low", "s_b_relations_high", "relations"):
        del old[key]
    back = from_jsonable(Consistency, old)
    assert back.s_b_relations is None and back.relations == 0 and back.cc == old["cc"]


def test_by_relation_by_hand():
    anchors, facts = breakdown_example()
    rel = by_relation(anchors, facts, resamples=50)
    assert list(rel) == ["at location", "used for"]

    loc = rel["at location"]
    # S_B on r: B1 0, B3 1, B4 1/2 -> mean 1/2; s² = (1/4 + 1/4 + 0)/2 = 1/4, SE sqrt(1/12)
    assert loc.background.mean == pytest.approx(0.5)
    assert loc.background.se == pytest.approx(math.sqrt(1 / 12))
    assert loc.background.n == 3
    # CC of S_B on r: 1 (+, B3), 1/2 (-, B4), 0 (+, B1): 1/2·1 + 0 + 1/2·2/3 = 5/6
    assert loc.cc.cc == pytest.approx(5 / 6)
    assert loc.cc.n == 3
    # with r, full S_B: B3 1 (+), B1 3/4 (+), B4 1/4 (-) -> AP 1
    assert loc.with_.cc == pytest.approx(1.0) and loc.with_.n == 3
    # without: B2 1/2 (-), B5 0 (+): t=1/2 P 0; t=0 P 1/2 R 1 -> AP 1/2
    assert loc.without.cc == pytest.approx(0.5) and loc.without.n == 2
    assert loc.without.base_rate == pytest.approx(0.5)

    used = rel["used for"]
    # S_B on r: B1 1, B2 1/2, B4 0, B5 0 -> mean 3/8
    # deviations 5/8, 1/8, -3/8, -3/8: squares sum (25 + 1 + 9 + 9)/64 = 44/64 = 11/16
    # s² = 11/48, SE sqrt(11/48 / 4) = sqrt(11/192)
    assert used.background.mean == pytest.approx(3 / 8)
    assert used.background.se == pytest.approx(math.sqrt(11 / 192))
    # CC on r: 1 (+), 1/2 (-), 0 (-, B4), 0 (+, B5): t=1 P 1 R 1/2; t=0 P 2/4 R 1 -> 3/4
    assert used.cc.cc == pytest.approx(0.75) and used.cc.n == 4
    # with r, full S_B: 3/4 (+), 1/2 (-), 1/4 (-), 0 (+) -> 1/2·1 + 1/2·2/4 = 3/4
    assert used.with_.cc == pytest.approx(0.75) and used.with_.n == 4
    # without: B3 alone, correct -> AP 1, n 1, no interval
    assert used.without.cc == pytest.approx(1.0) and used.without.n == 1
    assert used.without.low is None


def test_by_relation_leaves_unanswered_anchors_out_of_cc_only():
    anchors, facts = breakdown_example()
    extra = anchor("B6", ("u1",), None)  # used for S_B 1, but the anchor question unanswered
    used = by_relation([*anchors, extra], facts, resamples=20)["used for"]
    # background: B1 1, B2 1/2, B4 0, B5 0, B6 1 -> 5/2 / 5 = 1/2 over n 5
    assert used.background.mean == pytest.approx(0.5) and used.background.n == 5
    assert used.cc.n == 4 and used.with_.n == 4


def concept_example() -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    """Anchors whose true facts hold different concepts; false twins end in concepts drawn
    at random (river, book), which do not count."""
    facts = {f.key: f for f in [
        FactAnswer("school+", "UsedFor", "book", "school", True, True, None),    # right
        FactAnswer("river-", "UsedFor", "book", "river", False, False, None),    # right
        FactAnswer("kennel+", "AtLocation", "dog", "kennel", True, False, None),  # wrong
        FactAnswer("dogbook-", "AtLocation", "dog", "book", False, False, None),  # right
        FactAnswer("shelf+", "AtLocation", "book", "shelf", True, False, None),   # wrong
        FactAnswer("river2-", "AtLocation", "book", "river", False, True, None),  # wrong
    ]}
    anchors = [
        # in facts: book, school; S_B (1 + 1)/2 = 1
        anchor("A1", ("school+", "river-"), True),
        # in facts: dog, kennel (book only as a twin's end); (0 + 1)/2
        anchor("A2", ("kennel+", "dogbook-"), False),
        # in facts: book, shelf, school; pos (0 + 1)/2, neg 0 -> 1/4
        anchor("A3", ("shelf+", "school+", "river2-"), True),
        # in facts: dog, kennel, book, school; pos (0 + 1)/2, neg (1 + 1)/2 -> 3/4
        anchor("A4", ("kennel+", "dogbook-", "school+", "river-"), False),
        # no fact: its facts contain nothing (and it is not in CC)
        anchor("A5", (), False),
    ]
    return anchors, facts


def test_by_concept_splits_by_the_concepts_in_the_facts():
    anchors, facts = concept_example()
    # anchors whose true facts contain it: book 3 (A1 A3 A4), school 3 (A1 A3 A4), dog 2,
    # kennel 2, shelf 1; river only ends false twins -> never
    con = by_concept(anchors, facts, min_anchors=2, resamples=50)
    assert list(con) == ["book", "school", "dog", "kennel"]
    assert [e.anchors for e in con.values()] == [3, 3, 2, 2]
    book = con["book"]
    # with: A1 1 (+), A4 3/4 (-), A3 1/4 (+): t=1 P 1 R 1/2; t=3/4 P 1/2; t=1/4 P 2/3 R 1
    # -> AP 1/2 + 1/2 * 2/3 = 5/6; without: A2 alone, wrong -> no AP
    assert book.with_.cc == pytest.approx(5 / 6) and book.with_.n == 3
    assert book.without.cc is None and book.without.n == 1
    dog = con["dog"]
    # with: A2, A4 both wrong -> no AP, base rate 0; without: A1, A3 both right -> 1
    assert (dog.with_.cc, dog.with_.n, dog.with_.base_rate) == (None, 2, 0.0)
    assert dog.without.cc == pytest.approx(1.0) and dog.without.n == 2
    assert list(by_concept(anchors, facts, top=3, min_anchors=1, resamples=5)) == [
        "book", "school", "dog"]
    assert list(by_concept(anchors, facts, min_anchors=3, resamples=5)) == ["book", "school"]
    assert by_concept(anchors, facts, resamples=5) == {}  # the paper's 28: none here


def selection_example() -> tuple[list[AnchorResult], dict[str, FactAnswer]]:
    """k00 in 30 anchors' facts, k01..k14 in 28 each, fire in 27; each fact's other end is a
    concept of its own: 15 concepts in at least 28 anchors, 16 + 449 in the facts in all."""
    facts: dict[str, FactAnswer] = {}
    anchors = []
    sizes = {"k00": 30, **{f"k{j:02d}": 28 for j in range(1, 15)}, "fire": 27}
    for concept, size in sizes.items():
        for i in range(size):
            key = f"{concept}-{i}"
            facts[key] = FactAnswer(key, "RelatedTo", concept, f"x{key}", True, i % 2 == 0,
                                    None)
            anchors.append(anchor(key, (key,), i % 3 == 0))
    return anchors, facts


def test_by_concept_keeps_the_papers_selection():
    # the paper's Figure 7b: the 14 concepts in the most anchors' facts, at least 28 each
    anchors, facts = selection_example()
    con = by_concept(anchors, facts, resamples=2)
    # the first 14 by count, then name: k00, k01..k13; k14 is the 15th, fire too rare
    assert list(con) == ["k00", *(f"k{j:02d}" for j in range(1, 14))]
    assert con["k00"].anchors == 30 and con["k00"].with_.n == 30
    assert con["k01"].without.n == len(anchors) - 28


def bias_example() -> dict[str, FactAnswer]:
    return {f.key: f for f in [
        fact("f1", True, True, combos=(True, True, False)),
        fact("f2", True, True, combos=(True, False, True)),
        fact("f3", False, False, combos=(True, False, False)),
        fact("f4", False, True, combos=(True, True, False)),
        fact("f5", True, False),  # generation-based: majority only
        fact("f6", False, None),  # unanswered
    ]}


def test_yes_no_bias_by_hand():
    bias = yes_no_bias(bias_example())
    maj = bias.majority
    # positives answered f1 yes, f2 yes, f5 no -> 2/3, SE sqrt(2/9 / 3) = sqrt(2/27)
    assert maj.positive.rate == pytest.approx(2 / 3)
    assert maj.positive.se == pytest.approx(math.sqrt(2 / 27))
    assert maj.positive.n == 3
    # negatives answered f3 no (right), f4 yes (wrong) -> 1/2, SE sqrt(1/4 / 2)
    assert maj.negative.rate == pytest.approx(0.5)
    assert maj.negative.se == pytest.approx(math.sqrt(1 / 8))
    assert maj.accuracy == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert maj.unanswered == 1
    # combo 0 says yes to all: positives 1, negatives 0 -> 1/2
    # combo 1: positives f1 yes, f2 no -> 1/2; negatives f3 no, f4 yes -> 1/2 -> 1/2
    # combo 2: positives f1 no, f2 yes -> 1/2; negatives f3 no, f4 no -> 1 -> 3/4: the best
    single = bias.single
    assert single.combo == 2
    assert single.positive.rate == pytest.approx(0.5) and single.positive.n == 2
    assert single.negative.rate == pytest.approx(1.0) and single.negative.n == 2
    assert single.accuracy == pytest.approx(0.75)
    assert single.meta is None  # 3 combos are not meta-major over 7 label pairs
    assert bias.facts_with_combos == 4


def test_yes_no_bias_names_the_combo_of_35():
    # combo 16 = meta-prompt index 2 (0-based), label pair 16 - 14 = 2: Right/Wrong
    combos_pos = tuple(k == 16 for k in range(35))
    facts = {"a": fact("a", True, True, combos=combos_pos),
             "b": fact("b", False, False, combos=(False,) * 35)}
    single = yes_no_bias(facts).single
    assert (single.combo, single.meta, single.labels) == (16, 2, "Right/Wrong")
    assert yes_no_bias({"g": fact("g", True, True)}).single is None
    with pytest.raises(ValueError):
        yes_no_bias({"a": fact("a", True, True, combos=(True,)),
                     "b": fact("b", True, True, combos=(True, False))})


def test_breakdowns_json_form_keeps_the_summary_keys():
    anchors, facts = breakdown_example()
    loc = by_relation(anchors, facts, resamples=20)["at location"].to_dict()
    assert list(loc) == ["background", "cc", "with", "without"]
    assert list(loc["background"]) == ["mean", "se", "n"]
    assert list(loc["with"]) == ["cc", "low", "high", "n", "base_rate"]
    assert list(by_concept(*concept_example(), min_anchors=1, resamples=20)["book"].to_dict()
                ) == ["anchors", "with", "without"]
    bias = yes_no_bias(bias_example()).to_dict()
    assert list(bias) == ["majority", "single", "facts_with_combos"]
    assert list(bias["majority"]) == ["positive", "negative", "accuracy", "unanswered"]
    assert list(bias["majority"]["positive"]) == ["rate", "se", "n"]
    assert list(bias["single"]) == ["combo", "positive", "negative", "accuracy", "meta",
                                    "labels"]


# --- reports -----------------------------------------------------------------------------------

def test_relation_and_concept_text():
    anchors, facts = breakdown_example()
    text = relation_text(by_relation(anchors, facts, resamples=50))
    assert "at location" in text and "used for" in text
    assert "0.50 (0.29) n=3" in text   # S_B on at location: 1/2, SE sqrt(1/12) = 0.289
    assert "0.38 (0.24) n=4" in text   # S_B on used for: 3/8, SE sqrt(11/192) = 0.239
    assert "0.83 [" in text            # CC on at location 5/6, with its interval
    assert "1.00 n=1" in text          # used for, without: one anchor, no interval
    text = concept_text(by_concept(*concept_example(), min_anchors=2, resamples=50))
    assert "book" in text and "kennel" in text and "0.83 [" in text  # CC with book: 5/6
    assert "the 14 concepts in the background facts of the most anchors, at least 28" in text
    assert concept_text({}).startswith("no concept is in the background facts of 28 anchors")


def test_bias_text():
    text = bias_text(yes_no_bias(bias_example()))
    assert "0.67 (0.27) n=3" in text   # 2/3, SE sqrt(2/27) = 0.272
    assert "0.50 (0.35) n=2" in text   # 1/2, SE sqrt(1/8) = 0.354
    assert "best single combo #2" in text
    assert "1.00 (0.00) n=2" in text   # combo 2 on negatives
    assert "0.75" in text and "1 fact unanswered" in text


def test_plots_write_pngs(tmp_path):
    anchors, facts = breakdown_example()
    rel = by_relation(anchors, facts, resamples=20)
    plot_relations(rel, tmp_path / "rel.png")
    plot_relations({}, tmp_path / "empty.png")
    plot_bias(yes_no_bias(bias_example()), tmp_path / "bias.png")
    plot_bias(yes_no_bias({"g": fact("g", True, True)}), tmp_path / "bias1.png")
    for name in ("rel.png", "empty.png", "bias.png", "bias1.png"):
        assert (tmp_path / name).read_bytes()[:8] == PNG


def test_spread_labels_by_hand():
    # ordered by height, then x: (0.49, 0.2) keeps 0.2, (0.5, 0.2) goes to 0.25, (0.9, 0.2) to
    # 0.30, and (0.1, 0.4) keeps 0.4, being more than a gap above 0.30
    heights = spread_labels([(0.5, 0.2), (0.9, 0.2), (0.1, 0.4), (0.49, 0.2)], gap=0.05)
    assert heights == pytest.approx([0.25, 0.30, 0.4, 0.2])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), max_size=15))
def test_spread_labels_never_overlap(points):
    heights = spread_labels(points, gap=0.04)
    assert all(h >= y for h, (_, y) in zip(heights, points, strict=True))
    ordered = sorted(heights)
    assert all(b - a >= 0.04 - 1e-9 for a, b in itertools.pairwise(ordered))
