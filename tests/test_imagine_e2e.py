"""Shared imagination end to end on the embedded model, as question model and answer model:
2 topics x 3 direct questions (SmolLM2-135M writes a usable question in a few percent of its
replies, so each slot may be drawn up to 10 times), answered by generation and by next-token
likelihood, pooled into the QM x AM matrix. The checks are on the procedure's consistency with
the recorded replies, not on the model's quality."""

from __future__ import annotations

import csv
import json
import os
import re
from pathlib import Path

import pytest

from conftest import run_cli

MODEL = "local/smollm2-135m"
GENERATE = ["imagine", "generate", "--topics", "physics,law", "--per-topic", "3",
            "--kind", "direct", "--tries", "10", "--max-tokens", "160", "--no-progress", "--json"]


def records_of(run: str) -> list[dict]:
    """Every record of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


@pytest.fixture(scope="module")
def imagined(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Questions, answers by generation, answers by likelihood: summaries and environment."""
    tmp = tmp_path_factory.mktemp("imagine")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(VERSTEHEN_CACHE=str(tmp / "calls.sqlite"), VERSTEHEN_RUNS_DIR=str(tmp / "runs"))
    made = run_cli(GENERATE, env, timeout=900)
    assert made.returncode == 0, made.stderr
    questions = json.loads(made.stdout)
    out = {"env": env, "tmp": tmp, "questions": questions}
    for method in ("generate", "letter"):
        done = run_cli(["imagine", "answer", "--questions", questions["run"], "--model", MODEL,
                        "--method", method, "--no-progress", "--json"], env, timeout=600)
        assert done.returncode == 0, done.stderr
        out[method] = json.loads(done.stdout)
    return out


@pytest.mark.slow
def test_kept_questions_are_what_the_model_wrote(imagined: dict) -> None:
    """Every kept question's stem and choices are in its reply; the answer names one choice."""
    records = records_of(imagined["questions"]["run"])
    kept = [r for r in records if r["status"] == "ok"]
    assert imagined["questions"]["kept"] == len(kept) >= 1
    for r in kept:
        assert r["stem"] in r["reply"].replace("**", "")
        assert all(c in r["reply"].replace("**", "") for c in r["choices"])
        assert len(set(r["choices"])) == 4 and r["answer"] in range(4)
    slots = {(r["topic"], r["slot"]) for r in records}
    assert len(slots) == 6
    for slot in slots:  # a slot stops at its first kept question, else after 10 tries
        tries = sorted(r["try"] for r in records if (r["topic"], r["slot"]) == slot)
        assert tries == list(range(1, len(tries) + 1)) and len(tries) <= 10
        statuses = [r["status"] for r in records if (r["topic"], r["slot"]) == slot]
        assert statuses.count("ok") <= 1 and (statuses[-1] == "ok" or len(tries) == 10)


@pytest.mark.slow
def test_generated_answers_are_graded_where_the_answer_landed(imagined: dict) -> None:
    """The shown choice under the graded letter is the QM's designated text; outcomes follow."""
    questions = {r["id"]: r for r in records_of(imagined["questions"]["run"])}
    answers = records_of(imagined["generate"]["run"])
    assert len(answers) == imagined["questions"]["kept"]
    for a in answers:
        q = questions[a["question_id"]]
        shown = dict(re.findall(r"^([A-D])\. (.*)$", a["prompt"], flags=re.M))
        assert shown[a["correct_letter"]] == q["choices"][q["answer"]]
        assert sorted(shown.values()) == sorted(q["choices"])
        if a["outcome"] in ("correct", "wrong"):
            assert a["chosen"] in a["reply"] or shown[a["chosen"]] in a["reply"]
            assert (a["outcome"] == "correct") == (a["chosen"] == a["correct_letter"])
        else:
            assert a["outcome"] in ("refused", "unparsed") and a["chosen"] is None


@pytest.mark.slow
def test_letter_answers_are_the_most_likely_next_token(imagined: dict) -> None:
    """Likelihood answering never refuses, and picks the highest of the four recorded scores,
    which a fresh model instance reproduces."""
    import asyncio

    from verstehen.models.local import LocalModel

    answers = records_of(imagined["letter"]["run"])
    assert {a["outcome"] for a in answers} <= {"correct", "wrong"}
    for a in answers:
        best = max(range(4), key=lambda i: a["logprobs"][i])
        assert a["chosen"] == "ABCD"[best]

    async def rescore() -> list[float]:
        model = LocalModel("smollm2-135m")
        try:
            return await model.logprobs(answers[0]["prompt"], [" A", " B", " C", " D"])
        finally:
            await model.aclose()

    assert asyncio.run(rescore()) == pytest.approx(answers[0]["logprobs"], abs=1e-4)


@pytest.mark.slow
def test_matrix_pools_both_answer_runs(imagined: dict) -> None:
    """One row per answer model; counts and κ follow from the records; the PNG is written."""
    out = imagined["tmp"] / "matrix"
    done = run_cli(["imagine", "matrix", imagined["generate"]["run"], imagined["letter"]["run"],
                    "--out", str(out)], imagined["env"])
    assert done.returncode == 0, done.stderr
    rows = {r["am"]: r for r in csv.DictReader((out / "matrix.csv").open())}
    assert set(rows) == {MODEL, f"{MODEL} [letter]"}
    for am, method in ((MODEL, "generate"), (f"{MODEL} [letter]", "letter")):
        answers = records_of(imagined[method]["run"])
        answered = [a for a in answers if a["outcome"] in ("correct", "wrong")]
        assert int(rows[am]["n"]) == len(answers) == imagined["questions"]["kept"]
        assert int(rows[am]["answered"]) == len(answered)
        if answered:
            right = sum(a["outcome"] == "correct" for a in answered)
            assert float(rows[am]["kappa"]) == pytest.approx(right / len(answered))
    assert (out / "matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_rerun_pays_for_nothing(imagined: dict) -> None:
    """The same generate command again is served from the cache, with the same questions."""
    done = run_cli(GENERATE, imagined["env"], timeout=300)
    assert done.returncode == 0, done.stderr
    again = json.loads(done.stdout)
    usage = again["usage"][MODEL]
    assert usage["calls"] == usage["cache_hits"] > 0
    first = [(r["stem"], r["choices"]) for r in records_of(imagined["questions"]["run"])]
    assert sorted(map(str, first)) == sorted(
        map(str, [(r["stem"], r["choices"]) for r in records_of(again["run"])]))
