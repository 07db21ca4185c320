"""How a reply's end changes its grade: cut off at the token cap, a failed reply is
"truncated" (reported apart), never silently a wrong answer."""

from __future__ import annotations

import pytest

from verstehen.grading import Graded, grade_reply, was_cut_off


@pytest.mark.parametrize(("reason", "cut"), [("length", True), ("max_tokens", True),
                                             ("stop", False), ("loop", False), (None, False)])
def test_cut_off_means_the_cap_ended_the_reply(reason: str | None, cut: bool) -> None:
    assert was_cut_off(reason) is cut


def test_a_failed_reply_cut_at_the_cap_is_truncated_and_says_why() -> None:
    failed = Graded(0.0, "unparsed", None, "no payoff matrix found")
    graded = grade_reply(failed, "Let me think", "length", 2048)
    assert (graded.score, graded.outcome) == (0.0, "truncated")
    assert "2048-token cap" in graded.reason and "no payoff matrix found" in graded.reason
    wrong = grade_reply(Graded(0.0, "wrong", True, "answered Yes"), "ANSWER: Yes", "max_tokens",
                        24)
    assert wrong.outcome == "truncated" and wrong.parsed is None


def test_cut_off_is_cut_off_even_when_what_it_held_reads_right() -> None:
    """A reply that did not end may still change its answer ("ANSWER: Yes. Wait, let me
    double-check..."), so what it held before the cut is never graded."""
    for held in (Graded(1.0, "correct", False), Graded(0.5, "partial", 41.0)):
        graded = grade_reply(held, "ANSWER: No\n\nWait, let me double-check", "length", 24)
        assert (graded.score, graded.outcome, graded.parsed) == (0.0, "truncated", None)
        assert f"so far it read as {held.outcome}" in graded.reason


def test_a_reply_that_ends_inside_its_reasoning_is_truncated_whatever_the_finish() -> None:
    right = Graded(1.0, "correct", True)
    for finish in ("stop", None):
        graded = grade_reply(right, "<think>\nThe answer is yes, I think", finish, 24)
        assert (graded.score, graded.outcome) == (0.0, "truncated")
        assert "reasoning block" in graded.reason
    closed = "<think>\nIt is an instance.\n</think>\nANSWER: Yes"
    assert grade_reply(right, closed, "stop", 24) is right


def test_a_reply_that_ended_on_its_own_keeps_its_grade() -> None:
    for graded in (Graded(1.0, "correct", False), Graded(0.0, "wrong", True)):
        for finish in ("stop", "loop", None):
            assert grade_reply(graded, "ANSWER: No", finish, 24) is graded
