"""The certification commands that need no model: certify --scores, bounds, plan; bad input."""

from __future__ import annotations

import json
from pathlib import Path

import by_hand
import pytest

from verstehen.testing.stub_endpoints import Route, StubEndpoints
from verstehen.testing.stub_server import chat_answer

from conftest import Cli, cli_error


def write(path: Path, text: str) -> Path:
    """Write a file and return its path."""
    path.write_text(text)
    return path


def test_certify_scores_understands(cli: Cli, tmp_path: Path) -> None:
    """100 scores of mean 0.9 with no zero pass PG 0.8 / RID 0.05 (Tables 1-2: 0.811, 0.0295)."""
    scores = write(tmp_path / "s.txt", "\n".join(["1"] * 80 + ["0.5"] * 20) + "\n")
    done = cli(["certify", "--scores", str(scores), "--pg", "0.8", "--rid", "0.05",
                "--delta", "0.05", "--json"])
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["decision"] == "understands"
    assert verdict["n"] == 100
    assert verdict["score_lower"] == pytest.approx(0.811171, abs=5e-7)
    assert verdict["ridiculous_upper"] == pytest.approx(0.0295130, abs=5e-8)


def test_certify_scores_jsonl_and_words(cli: Cli, tmp_path: Path) -> None:
    """JSONL with a score field; PG 0.97 fails by Bad-Grade (U(0.9, 100, 0.025) = 0.962)."""
    rows = [{"score": 1.0}] * 80 + [{"score": 0.5, "id": "x"}] * 20
    scores = write(tmp_path / "s.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    done = cli(["certify", "--scores", str(scores), "--pg", "0.97", "--rid", "0.05"])
    assert done.returncode == 0, done.stderr
    assert "DOES NOT UNDERSTAND" in done.stdout
    assert "below the passing grade 0.97" in done.stdout


def test_certify_scores_inconclusive_says_how_many_more(cli: Cli,
                                                        tmp_path: Path) -> None:
    """Ten perfect answers cannot show a 0.001 ridiculous rate: inconclusive, with a count."""
    scores = write(tmp_path / "s.txt", "1\n" * 10)
    done = cli(["certify", "--scores", str(scores), "--rid", "0.001", "--json"])
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["decision"] == "inconclusive"
    # U(0, n, 0.05) = 1 - 0.05**(1/n) <= 0.001 first holds at n = 2995
    assert verdict["more_questions"] == 2995 - 10


def test_bounds_json(cli: Cli) -> None:
    """bounds prints Table 1's L(0.9, 1000, 0.05) and Hoeffding's x ± sqrt(ln(1/δ)/2n)."""
    done = cli(["bounds", "--mean", "0.9", "--n", "1000", "--delta", "0.05", "--json"])
    out = json.loads(done.stdout)
    assert out["chernoff_lower"] == pytest.approx(0.875192, abs=5e-7)
    assert out["hoeffding_lower"] == pytest.approx(0.9 - (2.995732 / 2000) ** 0.5, abs=1e-6)
    assert out["hoeffding_lower"] < out["chernoff_lower"] < 0.9 < out["chernoff_upper"]


def test_plan_matches_the_paper_rule_of_thumb(cli: Cli) -> None:
    """No ridiculous answer at RID 0.00052: 1,000 questions are too few, 10,000 enough."""
    done = cli(["plan", "--pg", "0.7", "--rid", "0.00052", "--expected-score", "0.9",
                "--expected-rid", "0", "--json"])
    out = json.loads(done.stdout)
    assert out["expected_verdict"] == "understands"
    assert 1_000 < out["fixed_questions"] <= 10_000
    assert out["sequential_questions"] >= out["fixed_questions"]


@pytest.mark.parametrize(("args", "needle"), [
    (["plan", "--pg", "0.001", "--rid", "0.01", "--expected-score", "0.5",
      "--expected-rid", "0"], "RID"),
    (["plan", "--delta", "1.5", "--expected-score", "0.5", "--expected-rid", "0"], "delta"),
    (["plan", "--delta", "0", "--expected-score", "0.5", "--expected-rid", "0"], "delta"),
    (["bounds", "--mean", "1.2", "--n", "10"], "[0, 1]"),
    (["bounds", "--mean", "0.5", "--n", "0"], "at least 1"),
    (["certify", "--scope", "no-such-scope"], "no-such-scope"),
    (["certify"], "--scope"),
    (["audit", "--scope", "no-such-scope"], "no-such-scope"),
    (["certify", "--scope", "arithmetic", "--questions", "5", "--sequential"], "not both"),
    (["certify", "--scope", "mcq:/no/such/file.jsonl"], "/no/such/file.jsonl"),
])
def test_bad_criterion_or_scope(cli: Cli, args: list[str], needle: str) -> None:
    """PG <= RID, δ outside (0, 1), bad bounds input, unknown scope: one line, exit 2."""
    cli_error(cli, args, needle)


@pytest.mark.parametrize(("content", "needle"), [
    ("", "has no scores"),
    ("\n\n", "has no scores"),
    ("0.5\nhigh\n", ":2:"),
    ("0.5\n1.5\n", "outside [0, 1]"),
    ('{"value": 1}\n', "score"),
])
def test_bad_scores_file(cli: Cli, tmp_path: Path, content: str,
                         needle: str) -> None:
    """An empty file, a non-numeric or out-of-range score, JSON without a score field."""
    scores = write(tmp_path / "s.txt", content)
    cli_error(cli, ["certify", "--scores", str(scores)], needle)


def test_missing_scores_file(cli: Cli, tmp_path: Path) -> None:
    """A scores path that does not exist is named."""
    cli_error(cli, ["certify", "--scores", str(tmp_path / "nope.txt")], "nope.txt")


def test_scopes_lists_every_scope(cli: Cli) -> None:
    """The listing names each scope get_scope accepts."""
    done = cli(["scopes"])
    assert done.returncode == 0
    for name in ("arithmetic:", "arithmetic/small:", "mcq:<path>:"):
        assert any(line.startswith(name) for line in done.stdout.splitlines()), name


def test_certify_scores_sequential_applies_the_looks_in_order(cli: Cli, tmp_path: Path) -> None:
    """16 perfect scores at PG 0.8, RID 0.2: fixed n, L(1, 16, 0.05) = 0.05^(1/16) = 0.829
    >= 0.8 and U(0, 16, 0.05) = 0.171 <= 0.2 certify. Sequentially, the betting test's looks
    from 8 (one score a block) are 8, 9, 11, 13, 15, 17, ...: its bets need 18 right answers
    to reach 1/δ = 20 (by_hand), so with a budget of 32 the 16 scores end undecided at the
    look at 15 (the last they reach), their lower bound the θ at which the bets on "mean
    above θ" just reach 20. With the file's 16 as the budget, "understands" is out of reach
    from the first look on (16 right answers are not 18), so the looks stop at 8."""
    assert by_hand.perfect_needs(0.8, 0.2, 0.05) == 18
    assert by_hand.looks(8, 32) == [8, 9, 11, 13, 15, 17, 20, 23, 26, 30, 32]
    scores = write(tmp_path / "s.txt", "1\n" * 16)
    fixed = cli(["certify", "--scores", str(scores), "--pg", "0.8", "--rid", "0.2", "--json"])
    assert json.loads(fixed.stdout)["verdict"]["decision"] == "understands"
    looks = ["certify", "--scores", str(scores), "--pg", "0.8", "--rid", "0.2", "--sequential",
             "--first-look", "8"]
    done = cli([*looks, "--max-questions", "32", "--json"])
    assert done.returncode == 0, done.stderr
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["decision"] == "inconclusive" and verdict["n"] == 15
    details = verdict["details"]
    assert (details["look"], details["first_look"], details["budget"]) == (5, 8, 32)
    assert details["test"] == "betting" and not details["out_of_reach"]
    lo, hi = 0.5, 1.0  # the bound by hand: where 15 right answers' wealth crosses 20
    for _ in range(50):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if by_hand.wealth([1.0] * 15, mid, True) >= 20 else (lo, mid)
    assert verdict["score_lower"] == pytest.approx(lo, abs=1e-9)
    words = cli([*looks, "--max-questions", "32"]).stdout
    assert "INCONCLUSIVE" in words and "the betting test: look 5 of the looks from 8 up to 32" \
        in words
    stopped = json.loads(cli([*looks, "--json"]).stdout)["verdict"]
    assert stopped["decision"] == "inconclusive" and stopped["n"] == 8
    assert stopped["details"]["out_of_reach"] and stopped["details"]["budget"] == 16
    assert "no later look could certify understanding" in cli(looks).stdout


def test_certify_scores_sequential_stops_at_the_first_decisive_look(cli: Cli,
                                                                     tmp_path: Path) -> None:
    """Eight zeros, then perfect scores: the first look (8 scores) finds the mean below PG 0.8
    (the bets on "mean below 0.8" reach 2/δ = 40 after a few zeros, by_hand), and the later
    perfect scores do not count, as a run would have stopped."""
    assert by_hand.zero_needs(0.8, 0.2, 0.05) <= 8
    scores = write(tmp_path / "s.txt", "0\n" * 8 + "1\n" * 120)
    done = cli(["certify", "--scores", str(scores), "--pg", "0.8", "--rid", "0.2",
                "--sequential", "--first-look", "8", "--max-questions", "64", "--json"])
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["decision"] == "does_not_understand" and verdict["n"] == 8
    assert verdict["details"]["look"] == 1 and verdict["details"]["budget"] == 64


@pytest.mark.parametrize(("extra", "needle"), [
    (["--questions", "10"], "leave out --questions"),
    (["--max-questions", "10"], "add --sequential"),
    (["--sequential", "--first-look", "32"], "lower --first-look"),
])
def test_certify_scores_refuses_flags_it_would_ignore(cli: Cli, tmp_path: Path,
                                                       extra: list[str], needle: str) -> None:
    """A flag --scores cannot use is one line, not silently dropped."""
    scores = write(tmp_path / "s.txt", "1\n" * 16)
    cli_error(cli, ["certify", "--scores", str(scores), *extra], needle)


def replying(text: str) -> Route:
    """A stub endpoint's route: every chat completion answers `text`."""
    async def route(i: int, method: str, path: str, payload: dict) -> tuple[int, dict] | None:
        if not path.endswith("/chat/completions"):
            return None
        answer = chat_answer(payload)
        answer["choices"][0]["message"]["content"] = text
        return 200, answer
    return route


@pytest.mark.parametrize(("extra", "needles", "n"), [
    (["--questions", "4"], ["4 questions cannot certify even a perfect model",
                            "use --questions 2,995 or more;", "does not understand"], 4),
    (["--questions", "100"], ["100 questions cannot certify",
                              "use --questions 2,995 or more, or --rid 0.03;"], 100),
    (["--sequential", "--max-questions", "1024", "--sequential-test", "doubling"],
     ["looks from 16 up to 1,024", "use --max-questions 8,095 or more, or --rid 0.01;"], 16),
    (["--sequential", "--max-questions", "1024"],
     ["looks from 16 up to 1,024",
      f"use --max-questions {by_hand.perfect_needs(0.7, 0.001, 0.05):,} or more, or --rid "
      f"{by_hand.loosest_rid(1024):g};"],
     16),
])
def test_a_budget_that_cannot_certify_a_perfect_model_warns_in_one_line_and_decides(
        cli: Cli, extra: list[str], needles: list[str], n: int) -> None:
    """At PG 0.7, RID 0.001 (the defaults before issue 30) these budgets cannot certify even a
    perfect model, yet Procedure 4.1 may find that a model does not understand at any n: one
    warning line naming what would certify (U(0, n, 0.05) = 1 - 0.05^(1/n) <= 0.001 from
    n = 2,995; sequential, a budget in (4096, 8192] is look 10, δ_10 = 0.3/(100π²), from
    ln(1/δ_10) / -ln(0.999) = 8,094.6; at 100, U(0, 100, 0.05) = 0.0295 asks RID 0.03, at
    looks up to 1024, U(0, 1024, δ_7) = 0.0072 asks 0.01; by the betting test, the answers its
    bet on "no answer ridiculous" needs, and the RID whose bets get there by 1024, by_hand),
    then the run. A model that never
    knows (arithmetic/small scores "I don't know" 0) fails at the mean: U(0, 4, δ/2) =
    1 - 0.025^(1/4) = 0.602 < PG 0.7 (the sequential run at its first look, 16 questions,
    δ_1 = 0.0304)."""
    with StubEndpoints(1, route=replying("I don't know.")) as stub:
        done = cli(["certify", "--model", "openai/m", "--base-url", stub.urls[0],
                    "--scope", "arithmetic/small", "--rephrase", "0", "--json",
                    "--pg", "0.7", "--rid", "0.001", *extra])
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and all(needle in warnings[0] for needle in needles), warnings
    (scope,) = json.loads(done.stdout)["scopes"]
    verdict = scope["verdict"]
    assert verdict["decision"] == "does_not_understand" and verdict["n"] == n
    if n == 4:
        assert verdict["score_upper"] == pytest.approx(1 - 0.025 ** 0.25, abs=1e-6)


def record(kind: str, scope: str, score: float | None) -> str:
    """One certification record line, as a run writes it (only the fields read here)."""
    return json.dumps({"kind": kind, "scope": scope, "model": "m", "score": score,
                       "error": None if score is not None else "HTTP 500"}) + "\n"


def test_scores_from_a_runs_records_take_the_asked_answers_of_one_scope(cli: Cli,
                                                                        tmp_path: Path) -> None:
    """An audit's records hold two scopes, rephrasings and a failed call: the verdict rests on
    the chosen scope's asked answers only, and without --scope the command says which exist."""
    lines = ([record("answer", "game-theory/pure-nash", 1.0)] * 6
             + [record("answer", "game-theory/zero-sum", 0.0)] * 4
             + [record("rephrase", "game-theory/pure-nash", 0.0)] * 3
             + [record("answer", "game-theory/pure-nash", None)]
             + [json.dumps({"kind": "explanation", "scope": "game-theory/pure-nash"}) + "\n"])
    records = write(tmp_path / "records.jsonl", "".join(lines))
    line = cli_error(cli, ["certify", "--scores", str(records)], "2 scopes",
                     "game-theory/pure-nash", "game-theory/zero-sum", "--scope")
    assert "records.jsonl" in line
    done = cli(["certify", "--scores", str(records), "--scope", "game-theory/pure-nash",
                "--json"])
    verdict = json.loads(done.stdout)["verdict"]
    assert verdict["n"] == 6 and verdict["mean_score"] == 1.0
    done = cli(["certify", "--scores", str(records), "--scope", "game-theory/zero-sum",
                "--json"])
    assert json.loads(done.stdout)["verdict"]["n"] == 4
    cli_error(cli, ["certify", "--scores", str(records), "--scope", "arithmetic"],
              "no graded answers of scope 'arithmetic'")
    plain = write(tmp_path / "plain.txt", "1\n0\n")
    cli_error(cli, ["certify", "--scores", str(plain), "--scope", "arithmetic"], "plain scores")
