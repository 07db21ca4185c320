"""Certification verdicts in plain words and as a table, for the terminal."""

from __future__ import annotations

import math
from collections.abc import Sequence

from verstehen.methods.certification.scope_result import ScopeResult
from verstehen.methods.certification.verdict import (
    BettingLook,
    Criterion,
    Decision,
    ExplainedMix,
    SequentialLook,
    Verdict,
)
from verstehen.text.display import Table
from verstehen.text.tables import plural
from verstehen.wording import parameter

HEADER = ["scope", "verdict", "n", "mean score [L, U]", "ridiculous [L, U]", "decided by",
          "more"]


def explain(v: Verdict) -> list[str]:
    """Why the verdict is what it is, in a few plain lines."""
    lines = [f"{v.decision.words.upper()} at δ = {v.delta:g} (a decisive verdict is wrong with "
             f"probability at most {v.delta:g})"]
    if v.decision == Decision.UNDERSTANDS:
        lines.append(f"  mean score >= {v.score_lower:.4f}, at least the passing grade {v.pg:g}")
        lines.append(f"  ridiculous answers <= {v.ridiculous_upper:.6f} of the scope, at most "
                     f"RID {v.rid:g}")
    elif v.decision == Decision.DOES_NOT_UNDERSTAND:
        if "bad_grade" in v.decided_by:
            lines.append(f"  mean score <= {v.score_upper:.4f}, below the passing grade "
                         f"{v.pg:g}")
        if "bad_rid" in v.decided_by:
            lines.append(f"  ridiculous answers >= {v.ridiculous_lower:.6f} of the scope, "
                         f"above RID {v.rid:g}")
    else:
        lines.append(f"  mean score in [{v.score_lower:.4f}, {v.score_upper:.4f}] "
                     f"(PG {v.pg:g}); ridiculous rate in [{v.ridiculous_lower:.6f}, "
                     f"{v.ridiculous_upper:.6f}] (RID {v.rid:g})")
        if isinstance(v.details, SequentialLook | BettingLook) and v.details.out_of_reach:
            budget = (v.details.budget if isinstance(v.details, BettingLook)
                      else v.details.checkpoints[-1])
            lines.append(f"  stopped: even if every answer up to {budget} were right, no "
                         "later look could certify understanding")
        lines.append("  more questions will likely not decide it: the observed rates sit on "
                     "the thresholds" if v.more_questions is None else
                     f"  not enough evidence yet: about {plural(v.more_questions, 'more question')}"
                     " would likely decide it")
    lines.append(f"  from n = {plural(v.n, 'answer')}: mean score {v.mean_score:.4f}, "
                 f"ridiculous {v.ridiculous_rate:.4f}")
    if isinstance(v.details, SequentialLook):
        lines.append(f"  sequential: look {v.details.look} of checkpoints "
                     f"{list(v.details.checkpoints)}, tested at δ_j = "
                     f"{v.details.delta_look:.2e}")
    if isinstance(v.details, BettingLook):
        lines += betting_lines(v.details, v.delta)
    if isinstance(v.details, ExplainedMix):
        families = [c for c in v.details.components if c.family != "(remaining)"]
        lines.append(f"  explanations cover {v.details.coverage:.0%} of the scope: " + ", ".join(
            f"{c.family} (program score {c.mean_score:.3f} "
            f"{'known exactly' if c.m is None else 'on ' + plural(c.m, 'question')})"
            for c in families))
    return lines


def betting_lines(d: BettingLook, delta: float) -> list[str]:
    """Where the betting test stopped, and each test's wealth against its level."""
    blocks = f", in blocks of {d.block}" if d.block > 1 else ""
    known = {test: _wealth(value) for test, value in d.log_wealth.items()}
    w = {test: known.get(test, "not recorded")
         for test in ("good_grade", "good_rid", "bad_grade", "bad_rid")}
    return [f"  sequential, the betting test: look {d.look} of the looks from {d.first_look} "
            f"up to {d.budget}{blocks}",
            f"  wealth to certify (each must reach 1/δ = {1 / delta:g}): mean "
            f"{w['good_grade']}, ridiculous {w['good_rid']}",
            f"  wealth to refute (either must reach 2/δ = {2 / delta:g}): mean "
            f"{w['bad_grade']}, ridiculous {w['bad_rid']}"]


def _wealth(log_value: float) -> str:
    """A wealth from its logarithm, as a number or a power of ten when huge."""
    if log_value < 200:
        return f"{math.exp(log_value):.3g}"
    return f"10^{log_value / math.log(10):.0f}"


def verdict_row(scope: ScopeResult) -> list[str]:
    """One table row: scope, verdict, n, mean [L, U], ridiculous [L, U], decided by, more."""
    v = scope.verdict
    if v is None:
        why = (plural(len(scope.sandbox_limits), "sandbox limit") if scope.sandbox_limits
               and not scope.failed_calls else plural(scope.failed_calls, "failed call"))
        return [scope.scope, "ERROR", str(scope.asked), "", "", "", why]
    more = "" if v.decision != Decision.INCONCLUSIVE else (
        "?" if v.more_questions is None else f"~{v.more_questions}")
    return [scope.scope, v.decision.words, str(v.n),
            f"{v.mean_score:.3f} [{v.score_lower:.3f}, {v.score_upper:.3f}]",
            f"{v.ridiculous_rate:.3f} [{v.ridiculous_lower:.4f}, {v.ridiculous_upper:.4f}]",
            v.decided_by_words, more]


def truncated_line(outcomes: dict[str, int]) -> str | None:
    """A warning when answers were cut off at the token cap and scored 0 for it."""
    cut = outcomes.get("truncated", 0)
    if not cut:
        return None
    ended = "it" if cut == 1 else "they"
    return (f"{plural(cut, 'answer')} cut off at the token cap before {ended} ended scored 0 "
            f"(outcome truncated): if the model reasons at length, raise "
            f"{parameter('max_tokens')}")


def unscored_lines(scope: ScopeResult) -> list[str]:
    """Why a scope has no verdict: failed calls, and programs the sandbox could not run to the
    end (an error of the run, not a grade of the model)."""
    lines = [f"sandbox limit, no grade of the model: family {family}: {reason}"
             for family, reason in scope.sandbox_limits.items()]
    if scope.failed_calls or not lines:
        lines.append(f"{plural(scope.failed_calls, 'call')} failed")
    return [*lines, "rerun the same command to retry (answers already given come from the "
                    "cache)"]


def verdict_table(model: str, c: Criterion, scopes: Sequence[ScopeResult],
                  models: Sequence[str] | None = None) -> Table:
    """The table of the verdicts, one row per scope, under the model and criterion; with
    `models` (each row's, for a run of several), a model column first."""
    title = f"{model}: PG {c.pg:g}, RID {c.rid:.6g}, δ {c.delta:g}"
    if models is None:
        return Table(title, HEADER, [verdict_row(s) for s in scopes])
    return Table(title, ["model", *HEADER],
                 [[m, *verdict_row(s)] for m, s in zip(models, scopes, strict=True)])


def scope_lines(scope: ScopeResult, model: str | None = None) -> list[str]:
    """One scope in words (of `model`, when named): its verdict and what it rests on, or why
    it has none."""
    lines = [f"{scope.scope}:" if model is None else f"{model} on {scope.scope}:"]
    if scope.verdict is None:
        return lines + [f"  {line}" for line in unscored_lines(scope)]
    lines += explain(scope.verdict)
    lines.append("  answers: " + ", ".join(f"{k} {v}" for k, v in scope.outcomes.items()))
    if len(scope.by_family) > 1:
        lines.append("  by family: " + "; ".join(
            f"{f} {g.mean:.3f} ± {g.se:.3f} (n {g.n})" for f, g in scope.by_family.items()))
    if scope.unparsed_reasons:
        lines.append(f"  unparsed answers, most common reason: "
                     f"{next(iter(scope.unparsed_reasons))}")
    if line := truncated_line(scope.outcomes):
        lines.append(f"  {line}")
    if (r := scope.rephrase) is not None:
        lines.append(f"  rephrased: score changed on {r.disagreements} of "
                     f"{plural(r.n, 'question')} ({r.rate:.0%} ± {r.se:.0%})")
    return lines

