"""Shared imagination end to end on the embedded model.

SmolLM2-135M writes a usable question in a few percent of its replies, and which replies parse
differs across CPUs, so no check here may depend on it writing one. Generation on the embedded
model (from Python) is checked for what holds whatever it writes (every reply recorded with a
status and a reason, retries per slot, the same generation from the command line served from
the cache). Answering, by generation (from the command line, in process) and by next-token
likelihood (from Python), runs the embedded model on questions a scripted question model wrote
into an ordinary `imagine generate` run folder, so there is always something to answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import io
import json
import re
from pathlib import Path

import pytest

from verstehen.cli.main import main
from verstehen.methods.imagination.api import imagine_answer, imagine_generate
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.models import get_model
from verstehen.testing.scripted import ScriptedModel

MODEL = "local/smollm2-135m"
TRIES = 3
GENERATE = {"topics": "physics,law", "per_topic": 2, "kinds": "direct", "tries": TRIES,
            "max_tokens": 160}
GENERATE_ARGS = ["imagine", "generate", "--topics", "physics,law", "--per-topic", "2",
                 "--kind", "direct", "--tries", str(TRIES), "--max-tokens", "160",
                 "--no-progress", "--json"]


def records_of(run: str | Path) -> list[dict]:
    """Every record of a run folder."""
    return [json.loads(line) for line in Path(run, "records.jsonl").read_text().splitlines()]


def config_of(run: str | Path) -> dict:
    """The config in a run folder's run.json."""
    return json.loads(Path(run, "run.json").read_text())["config"]


def invented_question(prompt: str, counter: list[int]) -> str:
    """A well-formed reply in the paper's template, different on every call."""
    counter[0] += 1
    n = counter[0]
    topic = re.search(r"On the topic of (.+?),", prompt)
    return (f"Question: In {topic[1] if topic else 'science'}, what does the Zorvian "
            f"principle number {n} state about flux?\n"
            f"A. Flux doubles under pressure\nB. Flux halves at dusk number {n}\n"
            "C. Flux is conserved in quiet rooms\nD. Flux vanishes near mirrors\nAnswer: C")


def in_process(args: list[str], folders: dict[str, Path]) -> dict:
    """`verstehen ARGS --json` in this process, into the given runs folder and cache: the
    JSON it printed."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main([*args, "--runs-dir", str(folders["runs_dir"]),
                     "--cache", str(folders["cache"])])
    assert code == 0
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A private runs folder and cache for the module."""
    tmp = tmp_path_factory.mktemp("imagine")
    return {"runs_dir": tmp / "runs", "cache": tmp / "calls.sqlite"}


@pytest.fixture(scope="module")
def generated(folders: dict[str, Path]) -> ImagineGenerateResult:
    """The embedded model as question model, from Python."""
    return imagine_generate(MODEL, **GENERATE, **folders)


@pytest.fixture(scope="module")
def answered(folders: dict[str, Path]) -> dict:
    """The embedded model answering questions a scripted question model wrote into an
    ordinary generate run: by generation from the command line, by likelihood from Python."""
    counter = [0]
    scripted = ScriptedModel("scripted/qm", reply=lambda p: invented_question(p, counter))
    questions = imagine_generate(scripted, topics=("physics", "law"), per_topic=2,
                                 kinds=("direct",), **folders)
    by_cli = in_process(["imagine", "answer", "--questions", str(questions.run_dir),
                         "--model", MODEL, "--no-progress", "--json"], folders)
    letter = imagine_answer(questions, models=[MODEL], method="letter", **folders)
    return {"questions": questions.run_dir, "generate": Path(by_cli["run"]), "letter": letter}


@pytest.mark.slow
def test_every_reply_is_recorded_with_its_status(generated: ImagineGenerateResult) -> None:
    """Each reply is kept (its stem and choices are in the reply) or dropped with a reason;
    a slot stops at its first kept question, else after `tries` draws."""
    records = records_of(generated.run_dir)
    assert records and all(r["reply"] for r in records)
    kept = [r for r in records if r["status"] == "ok"]
    assert generated.kept == len(kept)
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
    by_type = generated.by_type["DQ"]
    assert by_type.asked == len(records) and by_type.slots == 4


@pytest.mark.slow
def test_rerun_pays_for_nothing(generated: ImagineGenerateResult, folders: dict[str, Path]) -> None:
    """The same generation from the command line is served from the cache, with the same
    replies, into a run folder configured as the Python one."""
    again = in_process(GENERATE_ARGS, folders)
    usage = again["usage"][MODEL]
    assert usage["calls"] == usage["cache_hits"] > 0
    first = sorted(r["reply"] for r in records_of(generated.run_dir))
    assert first == sorted(r["reply"] for r in records_of(again["run"]))
    assert config_of(again["run"]) == config_of(generated.run_dir)
    assert again["by_type"] == generated.to_dict()["by_type"]


@pytest.mark.slow
def test_generated_answers_are_graded_where_the_answer_landed(answered: dict) -> None:
    """The shown choice under the graded letter is the QM's designated text; outcomes follow."""
    questions = {r["id"]: r for r in records_of(answered["questions"])}
    answers = records_of(answered["generate"])
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
    which a fresh model instance reproduces (the run scored them in a batch, the rescore one
    at a time: equal within batch-shape rounding, see tests/models/test_local_batch.py)."""
    answers = records_of(answered["letter"].run_dir)
    assert len(answers) == 4 and {a["outcome"] for a in answers} <= {"correct", "wrong"}
    for a in answers:
        best = max(range(4), key=lambda i: a["logprobs"][i])
        assert a["chosen"] == "ABCD"[best]

    async def rescore() -> list[float]:
        model = get_model(MODEL)
        try:
            return await model.logprobs(answers[0]["prompt"], [" A", " B", " C", " D"])
        finally:
            await model.aclose()

    assert asyncio.run(rescore()) == pytest.approx(answers[0]["logprobs"], abs=0.05)


@pytest.mark.slow
def test_matrix_pools_both_answer_runs(answered: dict, cli, tmp_path: Path) -> None:
    """One row per answer model; counts and κ follow from the records; the PNG is written."""
    out = tmp_path / "matrix"
    runs = {"generate": answered["generate"], "letter": answered["letter"].run_dir}
    done = cli(["imagine", "matrix", str(runs["generate"]), str(runs["letter"]),
                "--out", str(out)])
    assert done.returncode == 0, done.stderr
    rows = {r["am"]: r for r in csv.DictReader((out / "matrix.csv").open())}
    assert set(rows) == {MODEL, f"{MODEL} [letter]"}
    for am, method in ((MODEL, "generate"), (f"{MODEL} [letter]", "letter")):
        answers = records_of(runs[method])
        answered_ = [a for a in answers if a["outcome"] in ("correct", "wrong")]
        assert int(rows[am]["n"]) == len(answers) == 4
        assert int(rows[am]["answered"]) == len(answered_)
        if answered_:
            right = sum(a["outcome"] == "correct" for a in answered_)
            assert float(rows[am]["kappa"]) == pytest.approx(right / len(answered_))
    assert (out / "matrix.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.slow
def test_answer_from_python_returns_typed_rates(answered: dict) -> None:
    """imagine_answer on the embedded model: one typed matrix row whose counts and κ follow
    from the records, summary.json its JSON form, run.json as the command line writes it."""
    letter: ImagineAnswerResult = answered["letter"]
    (row,) = letter.matrix
    assert (row.qtype, row.qm, row.am) == ("DQ", "scripted/qm", f"{MODEL} [letter]")
    answers = records_of(letter.run_dir)
    right = sum(a["outcome"] == "correct" for a in answers)
    assert (row.n, row.answered, row.declined) == (4, 4, 0)
    assert row.kappa == pytest.approx(right / 4)
    assert sum(letter.outcomes.values()) == 4 and letter.failed_calls == 0
    assert letter.usage[MODEL].calls == 4
    summary = json.loads((letter.run_dir / "summary.json").read_text())
    assert summary == json.loads(json.dumps(letter.to_dict()))
    assert list(config_of(letter.run_dir)) == list(config_of(answered["generate"]))
    assert config_of(letter.run_dir)["method"] == "letter"
