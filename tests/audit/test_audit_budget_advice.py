"""The audit's budget warnings name values that work, and its budget line says the
rephrasings it adds (issue 30, item 6)."""

from __future__ import annotations

from verstehen.auditing.plan import budget_line, make_plan, reach_warnings


def test_the_warning_names_a_budget_and_a_criterion_that_certify_a_perfect_model() -> None:
    """Looks from 8 up to 16 at PG 0.8, RID 0.2: the best look for all answers right is look 2,
    L(1, 16, δ_2) = 0.0076^(1/16) = 0.737 with δ_2 = 6·0.05/(4π²), so PG 0.73 and RID 0.27
    (>= 1 - 0.737) do at 16; a budget of 26 is the third look at δ_3 = 0.3/(9π²) = 0.00338,
    0.00338^(1/26) = 0.8035 >= 0.8, while at 25 it is 0.797. Each value, plugged back into the
    plan, reaches "understands", and the next one toward the asked criterion does not."""
    (warning,) = reach_warnings(make_plan(max_questions=16))
    assert warning == ("with PG 0.8, RID 0.2, δ 0.05, looks from 8 up to 16 cannot certify "
                       "even a perfect model: use --max-questions 26 or more, or --pg 0.73 "
                       "--rid 0.27; the audit can still find that a model does not understand")
    assert make_plan(max_questions=26).reach.understands_at == 26
    assert reach_warnings(make_plan(max_questions=26)) == []
    assert make_plan(max_questions=25).reach.understands_at is None
    assert make_plan(max_questions=16, pg=0.73, rid=0.27).reach.understands_at == 16
    assert make_plan(max_questions=16, pg=0.74, rid=0.27).reach.understands_at is None
    assert make_plan(max_questions=16, pg=0.73, rid=0.26).reach.understands_at is None


def test_a_budget_that_can_decide_nothing_says_so_in_one_line() -> None:
    """Looks at 1 and 2: one answer scoring 0 gives U(0, 1, δ_1/2) = 1 - 0.0152 > 0.8, two give
    U(0, 2, δ_2/2) = 1 - 0.0038^(1/2) = 0.94; neither verdict comes. The fewest that reach both:
    32, where look 6 (δ_6 = 0.3/(36π²) = 0.00084) certifies all right, ln(1/δ_6) / ln 1.25 =
    31.7."""
    plan = make_plan(max_questions=2, first_look=1)
    assert plan.reach.understands_at is None and plan.reach.does_not_at is None
    (warning,) = reach_warnings(plan)
    assert warning == ("with PG 0.8, RID 0.2, δ 0.05, looks from 1 up to 2 can decide nothing, "
                       "not even for a perfect model or one whose every answer scores 0: use "
                       "--max-questions 32 or more")
    reach = make_plan(max_questions=32, first_look=1).reach
    assert reach.understands_at == 32 and reach.does_not_at is not None
    assert make_plan(max_questions=31, first_look=1).reach.understands_at is None


def test_the_budget_line_says_the_rephrasings() -> None:
    """One target, 5 rephrasings: 8 + 5 calls if every answer is wrong (decided at the first
    look), 32 + 5 if every one is right, at most 512 + 5."""
    line = budget_line(make_plan("arithmetic/small", rephrase=5), 1)
    assert line == ("up to 512 questions + up to 5 rephrasings (--rephrase 5) per target (looks "
                    "at 8, 16, 32, ..., 512) for 1 target and 1 model: 13 calls if every answer "
                    "is wrong, 37 if every one is right, at most 517")
    assert "rephras" not in budget_line(make_plan("arithmetic/small"), 1)
