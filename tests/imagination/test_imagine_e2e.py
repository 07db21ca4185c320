"""Shared imagination end to end on the embedded model.

SmolLM2-135M writes a usable question in a few percent of its replies, and which replies parse
differs across CPUs, so no check here may depend on it writing one. Generation on the embedded
model is checked for what holds whatever it writes (every reply recorded with a status and a
reason, retries per slot, a rerun served from the cache). Answering, by generation and by
next-token likelihood, runs the embedded model on questions a scripted question model wrote
into an ordinary `imagine generate` run folder, so there is always something to answer.
"""

from __future__ import annotations

import asyncio
import csv
import json
import os
import re
from pathlib import Path

import pytest

from verstehen.engine.cache import Cache
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.methods.imagination.generate import GeneratePlan, run_generate
from verstehen.testing.scripted import ScriptedModel

from conftest import run_cli

MODEL = "local/smollm2-135m"
TRIES = 3
GENERATE = ["imagine", "generate", "--topics", "physics,law", "--per-topic", "2",
            "--kind", "direct", "--tries", str(TRIES), "--max-tokens", "160", "--no-progress",
            "--json"]


def records_of(run: str | Path) -> list[dict]:
    """Every record of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


def invented_question(prompt: str, counter: list[int]) -> str:
    """A well-formed reply in the paper's template, different on every call."""
    counter[0] += 1
    n = counter[0]
    topic = re.search(r"On the topic of (.+?),", prompt)
    return (f"Question: In {topic[1] if topic else 'science'}, what does the Zorvian "
            f"principle number {n} state about flux?\n"
            f"A. Flux doubles under pressure\nB. Flux halves at dusk number {n}\n"
            "C. Flux is conserved in quiet rooms\nD. Flux vanishes near mirrors\nAnswer: C")


def scripted_question_run(runs: Path) -> Path:
    """An `imagine generate` run folder whose questions a scripted question model wrote."""
    counter = [0]
    model = ScriptedModel("scripted/qm", reply=lambda p: invented_question(p, counter))
    plan = GeneratePlan(kinds=("direct",), topics=("physics", "law"), per_topic=2)
    store = RunStore.create(runs, command="imagine-generate", argv=[],
                            config={"model": model.name, "base_url": None}, seed=0,
                            models=[model.identity()])

    async def go() -> None:
        runner = Runner(Cache(runs / "scripted.sqlite"))
        try:
            await run_generate(runner, model, plan, store)
        finally:
            runner.cache.close()

    asyncio.run(go())
    return store.path


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A private cache and runs folder, no API keys."""
    tmp = tmp_path_factory.mktemp("imagine")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_BASE_URL"))}
    env.update(VERSTEHEN_CACHE=str(tmp / "calls.sqlite"), VERSTEHEN_RUNS_DIR=str(tmp / "runs"))
    return env


@pytest.fixture(scope="module")
def generated(env: dict[str, str]) -> dict:
    """The embedded model as question model: the summary of its generate run."""
    made = run_cli(GENERATE, env, timeout=900)
    assert made.returncode == 0, made.stderr
    return json.loads(made.stdout)


@pytest.fixture(scope="module")
def answered(env: dict[str, str]) -> dict:
    """The embedded model answering scripted questions, by generation and by likelihood."""
    questions = scripted_question_run(Path(env["VERSTEHEN_RUNS_DIR"]))
    out: dict = {"questions": questions}
    for method in ("generate", "letter"):
        done = run_cli(["imagine", "answer", "--questions", str(questions), "--model", MODEL,
                        "--method", method, "--no-progress", "--json"], env, timeout=600)
        assert done.returncode == 0, done.stderr
        out[method] = json.loads(done.stdout)
    return out


@pytest.mark.slow
def test_every_reply_is_recorded_with_its_status(generated: dict) -> None:
    """Each reply is kept (its stem and choices are in the reply) or dropped with a reason;
    a slot stops at its first kept question, else after --tries draws."""
    records = records_of(generated["run"])
    assert records and all(r["reply"] for r in records)
    kept = [r for r in records if r["status"] == "ok"]
    assert generated["kept"] == len(kept)
    assert all(r["status"] == "dropped" and r["reason"] for r in records if r not in kept)
    for r in kept:
        assert r["stem"] in r["reply"].replace("**", "")
        assert all(c in r["reply"].replace("**", "") for c in r["choices"])
        assert len(set(r["choices"])) == 4 and r["answer"] in range(4)
    slots = {(r["topic"], r["slot"]) for r in records}
    assert len(slots) == 4
    for slot in slots:
        tries = sorted(r["try"] for r in records if (r["topic"], r["slot"]) == slot)
        assert tries == list(range(1, len(tries) + 1)) and len(tries) <= TRIES
        statuses = [r["status"] for r in records if (r["topic"], r["slot"]) == slot]
        assert statuses.count("ok") <= 1 and (statuses[-1] == "ok" or len(tries) == TRIES)
    by_type = generated["by_type"]["DQ"]
    assert by_type["asked"] == len(records) and by_type["slots"] == 4


@pytest.mark.slow
def test_rerun_pays_for_nothing(generated: dict, env: dict[str, str]) -> None:
    """The same generate command again is served from the cache, with the same replies."""
    done = run_cli(GENERATE, env, timeout=300)
    assert done.returncode == 0, done.stderr
    again = json.loads(done.stdout)
    usage = again["usage"][MODEL]
    assert usage["calls"] == usage["cache_hits"] > 0
    first = sorted(r["reply"] for r in records_of(generated["run"]))
    assert first == sorted(r["reply"] for r in records_of(again["run"]))


@pytest.mark.slow
def test_generated_answers_are_graded_where_the_answer_landed(answered: dict) -> None:
    """The shown choice under the graded letter is the QM's designated text; outcomes follow."""
    questions = {r["id"]: r for r in records_of(answered["questions"])}
    answers = records_of(answered["generate"]["run"])
    assert len(answers) == len(questions) == 4
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
def test_letter_answers_are_the_most_likely_next_token(answered: dict) -> None:
    """Likelihood answering never refuses, and picks the highest of the four recorded scores,
    which a fresh model instance reproduces."""
    from verstehen.models.local import LocalModel

    answers = records_of(answered["letter"]["run"])
    assert len(answers) == 4 and {a["outcome"] for a in answers} <= {"correct", "wrong"}
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
def test_matrix_pools_both_answer_runs(answered: dict, env: dict[str, str],
                                       tmp_path: Path) -> None:
    """One row per answer model; counts and κ follow from the records; the PNG is written."""
    out = tmp_path / "matrix"
    done = run_cli(["imagine", "matrix", answered["generate"]["run"], answered["letter"]["run"],
                    "--out", str(out)], env)
    assert done.returncode == 0, done.stderr
    rows = {r["am"]: r for r in csv.DictReader((out / "matrix.csv").open())}
    assert set(rows) == {MODEL, f"{MODEL} [letter]"}
    for am, method in ((MODEL, "generate"), (f"{MODEL} [letter]", "letter")):
        answers = records_of(answered[method]["run"])
        answered_ = [a for a in answers if a["outcome"] in ("correct", "wrong")]
        assert int(rows[am]["n"]) == len(answers) == 4
        assert int(rows[am]["answered"]) == len(answered_)
        if answered_:
            right = sum(a["outcome"] == "correct" for a in answered_)
            assert float(rows[am]["kappa"]) == pytest.approx(right / len(answered_))
    assert (out / "matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
