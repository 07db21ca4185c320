"""One default criterion for certify, plan and audit; budget advice that names values which
work; the calls a certify run makes (rephrasings included) said before the first (issue 30,
item 6)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import by_hand
import numpy as np
import pytest
from test_certify_cli import replying

import verstehen as vs
from verstehen.auditing.plan import make_plan as audit_plan
from verstehen.methods.certification.decide import certify
from verstehen.methods.certification.example import calculator
from verstehen.methods.certification.plan import DEFAULT_CRITERION
from verstehen.methods.certification.run import (
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_QUESTIONS,
    criterion_for,
)
from verstehen.methods.certification.sequential import (
    budget_warnings,
    fewest_questions,
    first_decisive_look,
)
from verstehen.methods.certification.verdict import Criterion, Decision
from verstehen.testing.scripted import ScriptedModel
from verstehen.testing.stub_endpoints import StubEndpoints
from verstehen.wording import flags_named

from conftest import Cli


def warnings_of(stderr: str) -> list[str]:
    """The "warning: ..." lines of a command's stderr."""
    return [line for line in stderr.splitlines() if line.startswith("warning:")]


def test_certify_plan_and_audit_default_to_one_criterion(cli: Cli, tmp_path: Path) -> None:
    """PG 0.8, RID 0.2, δ 0.05 everywhere. 16 perfect scores are certified under it:
    L(1, 16, 0.05) = 0.05^(1/16) = 0.829 >= 0.8 and U(0, 16, 0.05) = 1 - 0.829 <= 0.2 (the old
    default RID 0.001 left them inconclusive); `plan` needs 14 for a perfect model, the first n
    with 0.05^(1/n) >= 0.8 (ln 20 / ln 1.25 = 13.4)."""
    scores = tmp_path / "s.txt"
    scores.write_text("1\n" * 16)
    verdict = json.loads(cli(["certify", "--scores", str(scores), "--json"]).stdout)["verdict"]
    assert (verdict["pg"], verdict["rid"], verdict["delta"]) == (0.8, 0.2, 0.05)
    assert verdict["decision"] == "understands"
    planned = json.loads(cli(["plan", "--expected-score", "1", "--expected-rid", "0",
                              "--json"]).stdout)
    assert (planned["pg"], planned["rid"], planned["delta"]) == (0.8, 0.2, 0.05)
    assert planned["fixed_questions"] == 14
    assert audit_plan().criterion == criterion_for() == Criterion(0.8, 0.2, 0.05)
    for command in ("certify", "plan", "audit"):
        shown = " ".join(cli([command, "--help"]).stdout.split())  # argparse wraps the help
        for default in ("(default 0.8)", "(default 0.2", "(default 0.05)"):
            assert default in shown, (command, default)


def test_a_perfect_model_is_certified_and_a_useless_one_refuted_at_the_default_budgets(
        tmp_path: Path) -> None:
    """At the defaults a perfect calculator understands after the default 100 questions (the
    old RID 0.001 raised the budget to 2,995), and a model with no answer (every answer 0)
    does not; the fewest that decide, worked out by hand: 14 and 3 at a fixed n (U(0, 3,
    0.025) = 1 - 0.025^(1/3) = 0.71 < 0.8, at 2 it is 0.84), 16 and 16 from certify's first
    look, 26 and 8 from the audit's (look 3 tests at δ_3 = 0.3/(9π²) = 0.00338:
    ln(1/δ_3) / ln 1.25 = 25.5)."""
    where = {"runs_dir": tmp_path / "runs", "cache": tmp_path / "calls.sqlite", "rephrase": 0}
    good = vs.certify(ScriptedModel("scripted/calc", reply=calculator), "arithmetic/small",
                      **where).verdict
    assert good is not None and good.decision is Decision.UNDERSTANDS
    assert good.n == DEFAULT_QUESTIONS == 100
    mute = vs.certify(ScriptedModel("scripted/mute", reply=lambda prompt: "no idea"),
                      "arithmetic/small", **where).verdict
    assert mute is not None and mute.decision is Decision.DOES_NOT_UNDERSTAND
    c = DEFAULT_CRITERION
    assert [fewest_questions(c, s, sequential=False) for s in (1.0, 0.0)] == [14, 3]
    assert [fewest_questions(c, s, sequential=True, first_look=16, test="doubling")
            for s in (1.0, 0.0)] == [16, 16]
    assert [fewest_questions(c, s, sequential=True, first_look=8, test="doubling")
            for s in (1.0, 0.0)] == [26, 8]
    # the betting test: its bets need 18 right answers to reach 20, a few wrong ones to reach
    # 40 (by_hand), and a budget is always a look: the fewest is that, or the first look
    perfect, useless = by_hand.perfect_needs(0.8, 0.2, 0.05), by_hand.zero_needs(0.8, 0.2, 0.05)
    assert (perfect, useless) == (18, 3)
    assert [fewest_questions(c, s, sequential=True, first_look=16)
            for s in (1.0, 0.0)] == [18, 16]
    assert [fewest_questions(c, s, sequential=True, first_look=8) for s in (1.0, 0.0)] == [18, 8]
    # the audit (a game-theory concept: looks 8, 12, 16, 20 in blocks of four) certifies at 20
    assert DEFAULT_MAX_QUESTIONS >= 16 and audit_plan().reach.understands_at == 20
    assert audit_plan(sequential_test="doubling").reach.understands_at == 32


# the advice as a Python caller reads it (budget_warnings called from Python)
ADVICE = re.compile(r"use (questions|max_questions)=([\d_]+) or more"
                    r"(?:, or ((?:(?:pg|rid)=[\d.]+ ?)+))?")


def decides(c: Criterion, budget: int, score: float, *, sequential: bool, first: int,
            test: str) -> bool:
    """Whether `budget` answers all scoring `score` get a verdict: Procedure 4.1 on them (fixed
    n), or one of the sequential test's looks."""
    if sequential:
        return first <= budget and first_decisive_look(c, first, budget, score,
                                                       test=test) is not None
    return certify(np.full(budget, score), c.pg, c.rid, c.delta).decision is not \
        Decision.INCONCLUSIVE


@pytest.mark.parametrize("how", ["fixed", "doubling", "betting"])
@pytest.mark.parametrize(("pg", "rid", "budget", "first"), [
    (0.8, 0.2, 4, 1), (0.8, 0.2, 13, 8), (0.8, 0.2, 16, 8), (0.7, 0.05, 58, 16),
    (0.7, 0.001, 100, 16), (0.7, 0.001, 1024, 16), (0.9, 0.01, 200, 8), (0.8, 0.2, 2, 1)])
def test_the_advice_names_values_that_reach_the_verdict(pg: float, rid: float, budget: int,
                                                        first: int, how: str) -> None:
    """Each suggested value, plugged back into the decision code, reaches the verdict the
    budget could not: the fewest questions do and one fewer does not ("or more"), and the
    looser PG or RID does at the same budget."""
    c = Criterion(pg, rid, 0.05)
    sequential, test = how != "fixed", "doubling" if how == "fixed" else how
    lines = budget_warnings(c, budget, sequential=sequential, first_look=first, still="STILL",
                            test=test)
    way = {"sequential": sequential, "first": first, "test": test}
    reach = {s: decides(c, budget, s, **way) for s in (1.0, 0.0)}
    assert len(lines) == (0 if all(reach.values()) else 1)
    for line in lines:
        found = ADVICE.search(line)
        assert found is not None, line
        assert found[1] == ("max_questions" if sequential else "questions")
        fewest = int(found[2].replace("_", ""))
        for score in [s for s, reached in reach.items() if not reached]:
            assert decides(c, fewest, score, **way), line
        smaller = fewest - 1
        if smaller >= first:
            assert not all(decides(c, smaller, s, **way) for s in (1.0, 0.0)), line
        if found[3]:  # a looser criterion at the same budget
            given = dict(re.findall(r"(pg|rid)=([\d.]+)", found[3]))
            looser = Criterion(float(given.get("pg", pg)), float(given.get("rid", rid)), 0.05)
            assert decides(looser, budget, 1.0, **way), line
            assert looser.pg <= pg and looser.rid >= rid
            # the grid's next value toward the asked criterion no longer does
            tighter = Criterion(min(pg, looser.pg + 0.01) if "pg" in given else pg,
                                max(rid, looser.rid - 0.01) if "rid" in given else rid, 0.05)
            assert not decides(tighter, budget, 1.0, **way), line
        assert line.endswith("STILL") is (not reach[1.0] and reach[0.0])


def test_the_audit_example_line_worked_by_hand() -> None:
    """Looks from 8 up to 16 at the defaults. The doubling test: 16 perfect answers give at
    best L(1, 16, δ_2) = 0.0076^(1/16) = 0.737 (δ_2 = 0.3/(4π²)), so PG 0.73 with RID 0.27
    (>= 1 - 0.737) would do; a budget of 26 makes 26 the third look, 0.00338^(1/26) = 0.8035
    >= 0.8. The betting test: its bets need 18 right answers, and within 16 those on "mean
    above PG" reach 20 from PG 0.77 down, those on "ridiculous rate below RID" from RID 0.23
    up (by_hand)."""
    still = "the audit can still find that a model does not understand"
    (line,) = budget_warnings(DEFAULT_CRITERION, 16, sequential=True, first_look=8,
                              still=still, test="doubling")
    assert line == ("with PG 0.8, RID 0.2, δ 0.05, looks from 8 up to 16 cannot certify even a "
                    "perfect model: use max_questions=26 or more, or pg=0.73 rid=0.27; "
                    "the audit can still find that a model does not understand")
    pg = next(p / 100 for p in range(80, 0, -1)
              if by_hand.constant_wealth(100 / p - 1, 16) >= 20)
    rid = by_hand.loosest_rid(16, 0.2)
    assert (pg, rid) == (0.77, 0.23)
    (line,) = budget_warnings(DEFAULT_CRITERION, 16, sequential=True, first_look=8,
                              still=still)
    assert line == ("with PG 0.8, RID 0.2, δ 0.05, looks from 8 up to 16 cannot certify even a "
                    "perfect model: use max_questions=18 or more, or pg=0.77 rid=0.23; "
                    "the audit can still find that a model does not understand")
    with flags_named():  # as the command line words it
        assert budget_warnings(DEFAULT_CRITERION, 16, sequential=True, first_look=8,
                               still=still)[0].endswith(
            "use --max-questions 18 or more, or --pg 0.77 --rid 0.23; " + still)


def test_certify_warns_with_working_values_and_says_its_calls_first(cli: Cli) -> None:
    """`--questions 4` cannot certify at the defaults (14 can; at 4 a perfect model's
    L = 0.05^(1/4) = 0.47 would need RID 0.53 > PG, so no looser criterion is offered) but can
    refute: U(0, 4, 0.025) = 0.60 < 0.8. Before the first call (after the run folder's line)
    a line says the calls, rephrasings included, on stderr (stdout is the JSON); the stub
    counts them: 4 + 3."""
    with StubEndpoints(1, route=replying("I don't know.")) as stub:
        done = cli(["certify", "--model", "openai/m", "--base-url", stub.urls[0], "--scope",
                    "arithmetic/small", "--questions", "4", "--rephrase", "3", "--json"])
        calls = stub.chats(0)
    assert done.returncode == 0, done.stderr
    (warning,) = warnings_of(done.stderr)
    assert warning == ("warning: with PG 0.8, RID 0.2, δ 0.05, 4 questions cannot certify even "
                       "a perfect model: use --questions 14 or more; it can still find that "
                       "the model does not understand")
    lines = done.stderr.splitlines()
    start = lines.index("certify: 4 questions + 3 rephrasings (--rephrase 3) = 7 calls")
    assert lines[start - 1].startswith("run folder:")  # the folder is made; no call yet
    assert calls == 7
    (scope,) = json.loads(done.stdout)["scopes"]
    assert scope["verdict"]["decision"] == "does_not_understand"


@pytest.mark.parametrize(("extra", "line"), [
    (["--questions", "2", "--rephrase", "0"],
     "certify: 2 questions = 2 calls (--rephrase 0)"),
    (["--sequential", "--max-questions", "32", "--rephrase", "4", "--sequential-test",
      "doubling"],
     "certify: up to 32 questions (looks at 16, 32) + up to 4 rephrasings (--rephrase 4) = "
     "up to 36 calls"),
    # the betting test's looks from 16 (by_hand.looks: 16, 18, 21, 24, 27, 31, 32)
    (["--sequential", "--max-questions", "32", "--rephrase", "4"],
     "certify: up to 32 questions (looks at 16, 18, 21, ..., 32) + up to 4 rephrasings "
     "(--rephrase 4) = up to 36 calls"),
])
def test_the_start_line_of_other_budgets(cli: Cli, extra: list[str], line: str) -> None:
    """No rephrasings; and a sequential run, which may stop at its first look. Two questions
    can decide nothing at the defaults (U(0, 2, 0.025) = 0.84 >= 0.8 and L(1, 2, 0.025) = 0.16
    <= 0.2): one line says so, with the 14 that can reach both verdicts."""
    with StubEndpoints(1, route=replying("I don't know.")) as stub:
        done = cli(["certify", "--model", "openai/m", "--base-url", stub.urls[0], "--scope",
                    "arithmetic/small", "--no-progress", *extra])
    assert done.returncode == 0, done.stderr
    assert line in done.stderr.splitlines()
    if "2" in extra:
        (warning,) = warnings_of(done.stderr)
        assert "2 questions can decide nothing" in warning
        assert "use --questions 14 or more" in warning


@pytest.mark.filterwarnings("ignore:with PG .* 4 questions cannot certify:UserWarning")
def test_a_resumed_run_keeps_the_criterion_it_was_made_with(cli: Cli, tmp_path: Path) -> None:
    """A run folder made before the defaults changed (its run.json says PG 0.7, RID 0.001, and
    its command line gives none) goes on under its own criterion, from the CLI and from
    Python, not under today's default; a new run gets PG 0.8, RID 0.2."""
    with StubEndpoints(1, route=replying("I don't know.")) as stub:
        url = stub.urls[0]
        done = cli(["certify", "--model", "openai/m", "--base-url", url, "--scope",
                    "arithmetic/small", "--questions", "4", "--rephrase", "0", "--json"])
        first = json.loads(done.stdout)
        assert first["scopes"][0]["verdict"]["pg"] == 0.8
        run = Path(first["run"])
        info = json.loads((run / "run.json").read_text())
        info["config"].update(pg=0.7, rid=0.001)  # as the version of the old defaults wrote it
        (run / "run.json").write_text(json.dumps(info))
        done = cli(["certify", "--resume", str(run), "--base-url", url, "--json"])
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)["scopes"][0]["verdict"]
    assert (verdict["pg"], verdict["rid"], verdict["delta"]) == (0.7, 0.001, 0.05)

    where = {"runs_dir": tmp_path / "py-runs", "cache": tmp_path / "calls.sqlite",
             "rephrase": 0, "questions": 4}
    made = vs.certify(ScriptedModel("scripted/calc", reply=calculator), "arithmetic/small",
                      **where)
    info = json.loads((made.run_dir / "run.json").read_text())
    info["config"].update(pg=0.7, rid=0.001)
    (made.run_dir / "run.json").write_text(json.dumps(info))
    again = vs.certify(ScriptedModel("scripted/calc", reply=calculator), "arithmetic/small",
                       resume=made.run_dir, **where)
    assert (again.criterion.pg, again.criterion.rid) == (0.7, 0.001)
    with pytest.raises(vs.UserError, match="pg"):  # a criterion given anew is refused
        vs.certify(ScriptedModel("scripted/calc", reply=calculator), "arithmetic/small",
                   resume=made.run_dir, pg=0.8, **where)


def test_plan_names_a_criterion_that_decides_when_the_rates_sit_on_a_threshold(
        cli: Cli) -> None:
    """An expected score of exactly PG never decides; PG 0.05 lower does, and the count it
    names is the fewest at which Procedure 4.1 certifies scores of 0.8 (none of them 0)."""
    args = ["plan", "--expected-score", "0.8", "--expected-rid", "0"]
    words = cli(args).stdout
    assert "the expected score 0.8 sits on PG 0.8" in words and "--pg 0.75" in words
    out = json.loads(cli([*args, "--json"]).stdout)
    assert out["fixed_questions"] is None
    near = out["nearby"]
    assert (near["pg"], near["rid"]) == (0.75, 0.2)
    n = near["fixed_questions"]
    assert certify(np.full(n, 0.8), 0.75, 0.2, 0.05).decision is Decision.UNDERSTANDS
    assert certify(np.full(n - 1, 0.8), 0.75, 0.2, 0.05).decision is Decision.INCONCLUSIVE
    assert f"within {n:,} questions" in words
