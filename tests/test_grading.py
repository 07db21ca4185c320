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
    graded = grade_reply(failed, "length", 2048)
    assert (graded.score, graded.outcome) == (0.0, "truncated")
    assert "2048-token cap" in graded.reason and "no payoff matrix found" in graded.reason
    wrong = grade_reply(Graded(0.0, "wrong", True, "answered Yes"), "max_tokens", 24)
    assert wrong.outcome == "truncated" and wrong.parsed is True


def test_what_a_cut_reply_got_right_before_the_cut_counts() -> None:
    right = Graded(1.0, "correct", False)
    assert grade_reply(right, "length", 24) is right
    partial = Graded(0.5, "partial", 41.0)
    assert grade_reply(partial, "length", 24) is partial
    failed = Graded(0.0, "wrong", True)
    assert grade_reply(failed, "stop", 24) is failed  # it ended on its own: wrong stays wrong
