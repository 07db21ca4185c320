"""The audit's budget warnings name values that work, and its budget line says the
rephrasings it adds (issue 30, item 6), for the betting test and the doubling one (issue 46).
The warnings come from Python here, so they name keywords (`max_questions=26`); the command
line words the same advice as flags."""

from __future__ import annotations

from certification import by_hand

from verstehen.auditing.plan import budget_line, make_plan, reach_warnings


def test_the_warning_names_a_budget_and_a_criterion_that_certify_a_perfect_model() -> None:
    """Looks from 8 up to 16 at PG 0.8, RID 0.2, by the doubling test: the best look for all
    answers right is look 2, L(1, 16, δ_2) = 0.0076^(1/16) = 0.737 with δ_2 = 6·0.05/(4π²),
    so PG 0.73 and RID 0.27 (>= 1 - 0.737) do at 16; a budget of 26 is the third look at
    δ_3 = 0.3/(9π²) = 0.00338, 0.00338^(1/26) = 0.8035 >= 0.8, while at 25 it is 0.797. Each
    value, plugged back into the plan, reaches "understands", and the next one toward the
    asked criterion does not."""
    doubling = {"sequential_test": "doubling"}
    (warning,) = reach_warnings(make_plan(max_questions=16, **doubling))
    assert warning == ("with PG 0.8, RID 0.2, δ 0.05, looks from 8 up to 16 cannot certify "
                       "even a perfect model: use max_questions=26 or more, or pg=0.73 "
                       "rid=0.27; the audit can still find that a model does not understand")
    assert make_plan(max_questions=26, **doubling).reach.understands_at == 26
    assert reach_warnings(make_plan(max_questions=26, **doubling)) == []
    assert make_plan(max_questions=25, **doubling).reach.understands_at is None
    assert make_plan(max_questions=16, pg=0.73, rid=0.27, **doubling).reach.understands_at == 16
    assert make_plan(max_questions=16, pg=0.74, rid=0.27, **doubling).reach.understands_at is None
    assert make_plan(max_questions=16, pg=0.73, rid=0.26, **doubling).reach.understands_at is None


def test_the_betting_test_names_what_its_bets_need() -> None:
    """The betting test: its bets need 18 right answers to reach 1/δ = 20 (by_hand), and a
    budget is always a look, so 18 do and 17 do not; within 16, the bets on "mean above PG"
    reach 20 from PG 0.77 down and those on "ridiculous rate below RID" from RID 0.23 up."""
    assert by_hand.perfect_needs(0.8, 0.2, 0.05) == 18
    assert by_hand.loosest_rid(16, 0.2) == 0.23
    assert by_hand.constant_wealth(1 / 0.77 - 1, 16) >= 20 > by_hand.constant_wealth(
        1 / 0.78 - 1, 16)
    (warning,) = reach_warnings(make_plan(max_questions=16))
    assert warning == ("with PG 0.8, RID 0.2, δ 0.05, looks from 8 up to 16 cannot certify "
                       "even a perfect model: use max_questions=18 or more, or pg=0.77 "
                       "rid=0.23; the audit can still find that a model does not understand")
    assert make_plan(max_questions=18).reach.understands_at == 18
    assert reach_warnings(make_plan(max_questions=18)) == []
    assert make_plan(max_questions=17).reach.understands_at is None
    assert make_plan(max_questions=16, pg=0.77, rid=0.23).reach.understands_at == 16
    assert make_plan(max_questions=16, pg=0.78, rid=0.23).reach.understands_at is None
    assert make_plan(max_questions=16, pg=0.77, rid=0.22).reach.understands_at is None


def test_a_budget_that_can_decide_nothing_says_so_in_one_line() -> None:
    """Looks at 1 and 2: one answer scoring 0 gives U(0, 1, δ_1/2) = 1 - 0.0152 > 0.8, two give
    U(0, 2, δ_2/2) = 1 - 0.0038^(1/2) = 0.94; neither verdict comes. The fewest that reach both
    by the doubling test: 32, where look 6 (δ_6 = 0.3/(36π²) = 0.00084) certifies all right,
    ln(1/δ_6) / ln 1.25 = 31.7; by the betting test: 18, what its bets need (3 wrong answers
    suffice to refute)."""
    plan = make_plan(max_questions=2, first_look=1, sequential_test="doubling")
    assert plan.reach.understands_at is None and plan.reach.does_not_at is None
    (warning,) = reach_warnings(plan)
    assert warning == ("with PG 0.8, RID 0.2, δ 0.05, looks from 1 up to 2 can decide nothing, "
                       "not even for a perfect model or one whose every answer scores 0: use "
                       "max_questions=32 or more")
    reach = make_plan(max_questions=32, first_look=1, sequential_test="doubling").reach
    assert reach.understands_at == 32 and reach.does_not_at is not None
    assert make_plan(max_questions=31, first_look=1,
                     sequential_test="doubling").reach.understands_at is None
    (warning,) = reach_warnings(make_plan(max_questions=2, first_look=1))
    assert warning.endswith("can decide nothing, not even for a perfect model or one whose "
                            "every answer scores 0: use max_questions=18 or more")
    reach = make_plan(max_questions=18, first_look=1).reach
    assert reach.understands_at == 18 and reach.does_not_at == 4  # a concept's first block


def test_the_budget_line_says_the_rephrasings() -> None:
    """One arithmetic target (one answer a block), 5 rephrasings. The betting test's looks
    from 8 are 8, 9, 11, 13, 15, 17, 20, ... (by_hand): 8 + 5 calls if every answer is wrong
    (3 wrong answers refute, so the first look decides), 20 + 5 if every one is right (18
    needed), at most 512 + 5. The doubling test: 8 + 5, 32 + 5."""
    assert by_hand.looks(8, 512)[:7] == [8, 9, 11, 13, 15, 17, 20]
    line = budget_line(make_plan("arithmetic/small", rephrase=5), 1)
    assert line == ("up to 512 questions + up to 5 rephrasings (rephrase=5) per target (looks "
                    "at 8, 9, 11, ..., 512) for 1 target and 1 model: 13 calls if every answer "
                    "is wrong, 25 if every one is right, at most 517")
    line = budget_line(make_plan("arithmetic/small", rephrase=5, sequential_test="doubling"), 1)
    assert line == ("up to 512 questions + up to 5 rephrasings (rephrase=5) per target (looks "
                    "at 8, 16, 32, ..., 512) for 1 target and 1 model: 13 calls if every answer "
                    "is wrong, 37 if every one is right, at most 517")
    assert "rephras" not in budget_line(make_plan("arithmetic/small"), 1)
