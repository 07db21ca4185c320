"""The commands that call no model have API twins: `certify --scores` is `vs.certify_scores`,
`bounds` is `vs.bounds`, `plan` is `vs.plan`; each command's `--json` is its twin's
`to_dict()`, so the two faces cannot drift."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from certification import by_hand

import verstehen as vs

from conftest import Cli


def write(path: Path, text: str) -> Path:
    """Write a file and return its path."""
    path.write_text(text)
    return path


@pytest.mark.parametrize(("flags", "keywords"), [
    ([], {}),
    (["--pg", "0.9", "--rid", "0.05", "--delta", "0.1"], {"pg": 0.9, "rid": 0.05, "delta": 0.1}),
    (["--sequential", "--first-look", "4"], {"sequential": True, "first_look": 4}),
    (["--sequential", "--first-look", "4", "--max-questions", "64"],
     {"sequential": True, "first_look": 4, "max_questions": 64}),
])
def test_certify_scores_is_the_command_json(cli: Cli, tmp_path: Path, flags: list[str],
                                            keywords: dict) -> None:
    """The same file and criterion: the command's JSON is the API result's JSON form."""
    scores = write(tmp_path / "s.txt", "1\n0.5\n" + "1\n" * 18)
    done = cli(["certify", "--scores", str(scores), *flags, "--json"])
    assert done.returncode == 0, done.stderr
    result = vs.certify_scores(scores, **keywords)
    assert isinstance(result, vs.CertifyScoresResult)
    assert json.loads(done.stdout) == result.to_dict()
    assert result.scores == scores


def test_certify_scores_of_numbers_decides_as_by_hand() -> None:
    """16 perfect scores at PG 0.8, RID 0.2, δ 0.05: the KL-Chernoff lower bound on a mean of
    1 is δ^(1/n) = 0.05^(1/16) = 0.8293 >= PG and the upper bound on a rate of 0 is
    1 - 0.8293 = 0.1707 <= RID, so "understands" (worked out from KL(1 || q) = -ln q)."""
    result = vs.certify_scores([1.0] * 16, pg=0.8, rid=0.2, delta=0.05)
    assert result.scores is None
    assert result.verdict.decision is vs.Decision.UNDERSTANDS
    assert result.verdict.score_lower == pytest.approx(0.05 ** (1 / 16), abs=1e-6)
    assert result.verdict.ridiculous_upper == pytest.approx(1 - 0.05 ** (1 / 16), abs=1e-6)


def test_certify_scores_picks_a_scope_of_a_runs_records(cli: Cli, tmp_path: Path) -> None:
    """A records file of two scopes: `scope=` picks one, as --scope does (same JSON)."""
    lines = [json.dumps({"kind": "answer", "scope": scope, "score": score}) + "\n"
             for scope, score in [("game-theory/pure-nash", 1.0)] * 5
             + [("game-theory/zero-sum", 0.0)] * 3]
    records = write(tmp_path / "records.jsonl", "".join(lines))
    done = cli(["certify", "--scores", str(records), "--scope", "game-theory/zero-sum",
                "--json"])
    result = vs.certify_scores(records, scope="game-theory/zero-sum")
    assert json.loads(done.stdout) == result.to_dict()
    assert result.verdict.n == 3 and result.verdict.mean_score == 0.0


@pytest.mark.parametrize(("scores", "keywords", "needle"), [
    ([], {}, "no scores"),
    ([1.0, 1.5], {}, "score 2 (1.5) is outside [0, 1]"),
    (["x"], {}, "score 1 ('x') is not a number"),
    ([1.0] * 8, {"scope": "arithmetic"}, "leave it out"),
    ([1.0] * 8, {"max_questions": 8}, "add sequential=True"),  # a Python caller's words
    ([1.0] * 8, {"sequential": True}, "lower first_look"),
    ([1.0] * 8, {"pg": 0.1, "rid": 0.2}, "must be well below PG"),
])
def test_certify_scores_refuses_bad_input_in_one_line(scores: list, keywords: dict,
                                                      needle: str) -> None:
    """Bad scores or settings are a UserError, not a traceback from deep inside."""
    with pytest.raises(vs.UserError, match=None) as caught:
        vs.certify_scores(scores, **keywords)
    assert needle in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("args", [["--mean", "0.9", "--n", "1000", "--delta", "0.05"],
                                  ["--mean", "0", "--n", "3"]])
def test_bounds_is_the_command_json(cli: Cli, args: list[str]) -> None:
    """The command's JSON is vs.bounds' JSON form."""
    done = cli(["bounds", *args, "--json"])
    values = dict(zip(args[::2], args[1::2], strict=True))
    result = vs.bounds(float(values["--mean"]), int(values["--n"]),
                       delta=float(values.get("--delta", 0.05)))
    assert json.loads(done.stdout) == result.to_dict()


def test_bounds_as_by_hand() -> None:
    """Table 1 of the paper: L(0.9, 1000, 0.05) = 0.875192; Hoeffding's interval is
    x ± sqrt(ln(1/δ)/2n), at n = 16 and x = 1: 1 - sqrt(ln 20 / 32) = 0.69403."""
    assert vs.bounds(0.9, 1000).chernoff_lower == pytest.approx(0.875192, abs=5e-7)
    ones = vs.bounds(1.0, 16, delta=0.05)
    assert ones.chernoff_lower == pytest.approx(0.05 ** (1 / 16), abs=1e-9)
    assert ones.hoeffding_lower == pytest.approx(1 - math.sqrt(math.log(20) / 32), abs=1e-9)
    for bad, needle in [({"mean": 1.2, "n": 5}, "mean must lie in [0, 1]"),
                        ({"mean": 0.5, "n": 0}, "n must be a whole number"),
                        ({"mean": 0.5, "n": 2.5}, "n must be a whole number"),
                        ({"mean": 0.5, "n": 5, "delta": 1.0}, "delta must lie strictly")]:
        with pytest.raises(vs.UserError, match=None) as caught:
            vs.bounds(**bad)
        assert needle in str(caught.value)


@pytest.mark.parametrize("args", [
    ["--expected-score", "0.9", "--expected-rid", "0.05"],
    ["--expected-score", "0.8", "--expected-rid", "0.05"],  # on PG: a nearby criterion
    ["--expected-score", "0.95", "--expected-rid", "0.01", "--pg", "0.9", "--rid-test-length",
     "50", "--power", "0.8", "--first-look", "8"],
    ["--expected-score", "0.5", "--expected-rid", "0.5"],
])
def test_plan_is_the_command_json(cli: Cli, args: list[str]) -> None:
    """The command's JSON is vs.plan's JSON form, nearby criterion included."""
    done = cli(["plan", *args, "--json"])
    assert done.returncode == 0, done.stderr
    v = dict(zip(args[::2], args[1::2], strict=True))
    result = vs.plan(float(v["--expected-score"]), float(v["--expected-rid"]),
                     pg=float(v["--pg"]) if "--pg" in v else None,
                     rid_test_length=int(v["--rid-test-length"]) if "--rid-test-length" in v
                     else None, power=float(v.get("--power", 0.5)),
                     first_look=int(v.get("--first-look", 16)))
    assert json.loads(done.stdout) == result.to_dict()


def test_plan_as_by_hand() -> None:
    """A perfect model at PG 0.8, RID 0.2, δ 0.05: fixed n needs 0.05^(1/n) >= 0.8, so
    n >= ln 0.05 / ln 0.8 = 13.4, 14; sequential, the betting test decides at its first look
    (16, then about 1/8 further each) where the bets' wealth on all-right answers has reached
    1/δ, worked out in plain Python by `certification/by_hand.py`. On PG itself no n decides,
    and a criterion nearby is named."""
    perfect = vs.plan(1.0, 0.0, pg=0.8, rid=0.2, delta=0.05)
    needs = by_hand.perfect_needs(0.8, 0.2, 0.05)
    first_deciding = next(n for n in by_hand.looks(16, 10_000) if n >= needs)
    assert (perfect.fixed_questions, perfect.sequential_questions) == (14, first_deciding)
    assert perfect.expected_verdict == "understands" and perfect.nearby is None
    on_pg = vs.plan(0.8, 0.05)
    assert on_pg.fixed_questions is None and on_pg.nearby is not None
    assert on_pg.nearby.pg < 0.8
    with pytest.raises(vs.UserError, match="power must lie strictly between 0 and 1"):
        vs.plan(0.9, 0.05, power=1.0)
    with pytest.raises(vs.UserError, match="expected_rid must lie in"):
        vs.plan(0.9, 1.5)


def test_the_twins_results_are_frozen_with_a_json_form() -> None:
    """Like every result: frozen dataclasses whose JSON form survives json.dumps."""
    for result in (vs.certify_scores([1.0] * 4), vs.bounds(0.5, 10), vs.plan(0.9, 0.05)):
        assert type(result).__dataclass_params__.frozen
        assert json.loads(json.dumps(result.to_dict())) == result.to_dict()


def test_certify_scores_takes_the_sequential_test_from_both_faces(cli: Cli,
                                                                  tmp_path: Path) -> None:
    """`--scores --sequential` decides by the betting test unless `--sequential-test
    doubling` (Python: `sequential_test="doubling"`) picks the looks 16, 32, ...: on 40
    right answers the doubling test decides at its first look, 16 (0.0304^(1/16) >= 0.8,
    above), the betting test where its wealth reaches 1/δ (`by_hand`)."""
    betting = vs.certify_scores([1.0] * 40, sequential=True)
    doubling = vs.certify_scores([1.0] * 40, sequential=True, sequential_test="doubling")
    needs = by_hand.perfect_needs(0.8, 0.2, 0.05)
    assert betting.verdict.n == next(n for n in by_hand.looks(16, 40) if n >= needs)
    assert doubling.verdict.n == 16
    assert betting.to_dict()["verdict"]["details"]["test"] == "betting"
    scores = tmp_path / "scores.txt"
    scores.write_text("1\n" * 40)
    done = cli(["certify", "--scores", str(scores), "--sequential", "--sequential-test",
                "doubling", "--json"])
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {**doubling.to_dict(), "scores": str(scores)}
