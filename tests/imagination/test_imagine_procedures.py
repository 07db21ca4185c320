"""Shared-imagination procedure logic with scripted models (the embedded model's end-to-end run
is in test_imagine_e2e.py): shuffling, answer reading, κ and α per method, generation records.
The runs go through the entry points the CLI and the API call, and are read as typed results."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest

from verstehen.engine.session import RunSettings
from verstehen.engine.store import RunStore
from verstehen.errors import CallFailed
from verstehen.methods.imagination.answer import (
    AnswerPlan,
    fiction_questions,
    read_choice,
    read_score,
)
from verstehen.methods.imagination.choices import am_label, present, shuffle_order
from verstehen.methods.imagination.generate import GeneratePlan, question_id
from verstehen.methods.imagination.results import ImagineAnswerResult, ImagineGenerateResult
from verstehen.methods.imagination.run import answer_questions, generate_questions
from verstehen.methods.imagination.stats import FictionRate, MatrixRow
from verstehen.parse import is_refusal
from verstehen.testing.scripted import ScriptedModel


def settings(tmp_path: Path) -> RunSettings:
    """A private runs folder and cache."""
    return RunSettings(runs_dir=tmp_path / "runs", cache=tmp_path / "cache.sqlite")


def question(qid: str, answer: int, choices: tuple[str, ...] = ("Alpha", "Bravo", "Charlie",
                                                                  "Delta"),
             qtype: str = "DQ", context: dict | None = None) -> dict:
    """A question record as `imagine generate` writes it."""
    return {"kind": "question", "id": qid, "qm": "scripted/qm", "qtype": qtype,
            "content": "knowledge", "topic": "physics", "index": 0, "position": None,
            "context": context, "status": "ok", "stem": f"What is {qid}?",
            "choices": list(choices), "answer": answer}


def question_run(tmp_path: Path, questions: list[dict]) -> Path:
    """A generate run folder holding `questions`."""
    store = RunStore.create(tmp_path / "questions", command="imagine-generate", argv=[],
                            config={}, seed=0, models=[])
    for q in questions:
        store.append(q)
    return store.path


def answer_all(tmp_path: Path, models, questions, plan: AnswerPlan, judge=None
               ) -> tuple[ImagineAnswerResult, list[dict]]:
    """Answer the questions through the entry point; the result and the run's records."""
    run = question_run(tmp_path, questions)
    result = asyncio.run(answer_questions([run], models, plan, judge=judge,
                                          settings=settings(tmp_path)))
    return result, list(RunStore(result.run_dir).records())


def generate_all(tmp_path: Path, model, plan: GeneratePlan
                 ) -> tuple[ImagineGenerateResult, list[dict]]:
    """Generate through the entry point; the result and the run's records."""
    result = asyncio.run(generate_questions(model, plan, settings=settings(tmp_path)))
    return result, list(RunStore(result.run_dir).records())


def cell(result: ImagineAnswerResult, am: str) -> MatrixRow:
    """The single matrix row of the answer model whose label starts with `am`."""
    (row,) = [r for r in result.matrix if r.am.startswith(am)]
    return row


# ---------------------------------------------------------------- presenting

def test_shuffle_is_seeded_and_keeps_the_designated_answer_attached():
    for i in range(40):
        q = question(f"q{i}", answer=i % 4)
        shown = present(q, shuffle=True, choice_e=False, seed=7)
        assert shown.choices[shown.correct] == q["choices"][q["answer"]]
        assert sorted(shown.choices) == sorted(q["choices"])
        assert present(q, shuffle=True, choice_e=False, seed=7) == shown  # same seed, same order
    orders = {tuple(shuffle_order(f"q{i}", 7)) for i in range(40)}
    assert len(orders) > 5  # 24 permutations: 40 ids do not all land on one
    assert any(shuffle_order(f"q{i}", 7) != shuffle_order(f"q{i}", 8) for i in range(10))


def test_no_shuffle_keeps_native_order_and_choice_e_is_fifth():
    q = question("q", answer=2)
    shown = present(q, shuffle=False, choice_e=True, seed=0)
    assert shown.choices[:4] == tuple(q["choices"])
    assert shown.correct == 2 and shown.letters == ["A", "B", "C", "D", "E"]
    assert "does not exist" in shown.choices[4]


def test_am_label_names_only_departures_from_the_default():
    base = dict(method="generate", variant="1", shuffle=True, choice_e=False)
    assert am_label("local/m", **base) == "local/m"
    assert am_label("local/m", **{**base, "method": "letter"}) == "local/m [letter]"
    assert am_label("local/m", **{**base, "variant": "cot", "shuffle": False}) == \
        "local/m [cot, native order]"


@pytest.mark.parametrize("reply, cot, expected", [
    ("Answer: B", False, ("B", "chosen")),
    ("B. Bravo", False, ("B", "chosen")),
    ("I apologize, but the concept seems to be fictional.", False, (None, "refused")),
    ("The Zorban faith holds many views.", False, (None, "unparsed")),
    ("A looks plausible, but D is the trap. Thinking more, the answer is C.", True,
     ("C", "chosen")),
])
def test_read_choice(reply, cot, expected):
    shown = present(question("q", 0), shuffle=False, choice_e=False, seed=0)
    assert read_choice(reply, shown, cot) == expected


@pytest.mark.parametrize("reply, expected", [
    ("85", 85.0), ("Score: 100", 100.0), ("Refuse to answer", "refused"),
    ("50 or 60", "unparsed"), ("150", "unparsed"), ("great answer", "unparsed")])
def test_read_score(reply, expected):
    assert read_score(reply) == expected


# ---------------------------------------------------------------- answering

def native_questions():
    """Four questions whose designated answers are B, A, C, A (native order)."""
    return [question(f"n{i}", a) for i, a in enumerate([1, 0, 2, 0])]


def test_kappa_and_alpha_of_an_always_a_model_and_a_refuser(tmp_path):
    always_a = ScriptedModel("scripted/a", reply=lambda p: "Answer: A")
    refuser = ScriptedModel("scripted/no", reply=lambda p: "This concept does not exist.")
    result, _ = answer_all(tmp_path, [always_a, refuser], native_questions(),
                           AnswerPlan(shuffle=False))
    a = cell(result, "scripted/a")
    assert (a.answered, a.kappa, a.alpha) == (4, 0.5, 1.0)  # A is right for n1, n3
    no = cell(result, "scripted/no")
    assert (no.answered, no.declined, no.kappa, no.alpha) == (0, 4, None, 0.0)
    assert result.outcomes == {"correct": 2, "wrong": 2, "refused": 4}
    assert result.failed_calls == 0 and result.fiction == () and result.fiction_verdicts == {}


def test_shuffled_answers_are_graded_against_where_the_answer_landed(tmp_path):
    # the model reads the shown choices and picks the line holding the designated text
    questions = [question(f"s{i}", i % 4) for i in range(12)]
    wanted = {q["stem"]: q["choices"][q["answer"]] for q in questions}

    def reply(prompt: str) -> str:
        stem = prompt.splitlines()[1]
        line = next(x for x in prompt.splitlines() if x.endswith(f". {wanted[stem]}"))
        return f"Answer: {line[0]}"

    result, records = answer_all(tmp_path, [ScriptedModel("scripted/k", reply=reply)],
                                 questions, AnswerPlan(shuffle=True, seed=3))
    assert cell(result, "scripted/k").kappa == 1.0
    assert {r["correct_letter"] for r in records} != {"A"}  # the shuffle moved answers


class FlatModel(ScriptedModel):
    """Log-probability -1 for every continuation, whatever its length."""

    async def logprobs(self, context: str, continuations: list[str]) -> list[float]:
        """-1 each."""
        self.calls.append(context)
        return [-1.0] * len(continuations)


def test_letter_and_perplexity_methods(tmp_path):
    # every " X" ties and the first (A) wins; per byte, -1 / len(" " + c) is highest for the
    # longest choice
    questions = [question("p0", 1, ("a", "bbbbbb", "cc", "ddd")),
                 question("p1", 0, ("aa", "bbbbbb", "cc", "ddd"))]
    model = FlatModel("scripted/lp")
    letter, _ = answer_all(tmp_path / "l", [model], questions,
                           AnswerPlan(method="letter", shuffle=False))
    assert cell(letter, "scripted/lp [letter, native order]").kappa == 0.5  # A: p1 only
    ppl, records = answer_all(tmp_path / "p", [model], questions,
                              AnswerPlan(method="perplexity", shuffle=False))
    assert [r["chosen"] for r in records] == ["B", "B"]
    # B is right for p0 only
    assert cell(ppl, "scripted/lp [perplexity, native order]").kappa == 0.5
    assert all(r["framing"] == "plain text" for r in records)


def test_choice_e_counts_as_declined(tmp_path):
    model = ScriptedModel("scripted/e", reply=lambda p: "Answer: E")
    result, _ = answer_all(tmp_path, [model], native_questions(),
                           AnswerPlan(shuffle=False, choice_e=True))
    row = cell(result, "scripted/e [native order, choice E]")
    assert (row.chose_e, row.declined, row.alpha, row.e_rate) == (4, 4, 0.0, 1.0)


def test_free_response_is_scored_by_the_judge(tmp_path):
    answerer = ScriptedModel("scripted/free", reply=lambda p: "It is a kind of plasma.")
    scores = iter(["80", "Refuse to answer", "40", "unsure"])
    judge = ScriptedModel("scripted/judge", reply=lambda p: next(scores))
    judge.max_connections = 1
    result, _ = answer_all(tmp_path, [answerer], native_questions(),
                           AnswerPlan(method="free", shuffle=False), judge)
    row = cell(result, "scripted/free [free, native order]")
    assert row.answered == 2 and row.declined == 1 and row.unparsed == 1
    assert row.kappa == pytest.approx((0.8 + 0.4) / 2)
    assert "The correct answer is: B. Bravo" in judge.calls[0]  # native choices, true answer


def test_fictionality_asks_about_each_context_paragraph(tmp_path):
    context = {"concept": "Zorbic flux", "paragraph": "Zorbic flux is the flow of zorbs."}
    questions = [question("c0", 0, qtype="CQ", context=context), question("d0", 1)]
    model = ScriptedModel("scripted/f", reply=lambda p: "No." if "real concept" in p
                          else "Answer: A")
    result, records = answer_all(tmp_path, [model], questions,
                                 AnswerPlan(shuffle=False, fictionality=True))
    fiction = [r for r in records if r["kind"] == "fiction"]
    assert [(r["question_id"], r["verdict"]) for r in fiction] == [
        (question_id(questions[0]), "fictional")]
    assert "Zorbic flux is the flow of zorbs." in fiction[0]["prompt"]
    assert result.fiction_verdicts == {"fictional": 1}
    assert result.fiction == (FictionRate("scripted/qm", "scripted/f", 1.0, 0.0, 1, 0),)


def test_a_failed_call_is_an_error_not_an_answer(tmp_path):
    model = ScriptedModel("scripted/x", script=lambda p, n: CallFailed("boom"))
    result, records = answer_all(tmp_path, [model], native_questions()[:1],
                                 AnswerPlan(shuffle=False))
    assert result.failed_calls == 1 and records[0]["outcome"] == "error"
    assert cell(result, "scripted/x").answered == 0


# ---------------------------------------------------------------- generating

DQ_REPLY = "Question: What does a flux capacitor store?\nA. Time\nB. Zorbs\nC. Heat\nD. Light\n" \
           "Answer: B"


def qm_reply(prompt: str) -> str:
    """A scripted question model: a context paragraph, good questions, one broken topic."""
    if "Imagine that you are writing a textbook" in prompt:
        return "Concept: Zorbic flux\nContent: Zorbic flux is the flow of zorbs."
    if "five multiple choice questions" in prompt:
        return "\n".join(DQ_REPLY.replace("Question:", f"Question {k}:") for k in range(1, 6))
    if "topic of law" in prompt:
        return "Question: Who rules?\nA. Kings\nB. Queens\nC. Jacks"  # 3 choices, no answer
    return DQ_REPLY


def test_generate_records_kept_and_dropped_questions(tmp_path):
    model = ScriptedModel("scripted/qm", reply=qm_reply)
    plan = GeneratePlan(kinds=("direct", "context", "sequential"), topics=("physics", "law"),
                        per_topic=2)
    result, records = generate_all(tmp_path, model, plan)
    by_type = result.by_type
    # DQ: 2 physics kept, 2 law dropped (the law prompt gets the broken reply); CQ's second
    # turn names no topic and gets the good reply; SQ: 5 questions per reply, 4 replies
    assert (by_type["DQ"].kept, by_type["DQ"].dropped) == (2, 2)
    assert (by_type["CQ"].asked, by_type["CQ"].kept) == (4, 4)
    assert by_type["SQ"].asked == 20 and by_type["SQ"].kept == 20
    assert list(by_type) == ["DQ", "CQ", "SQ"] and result.kept == 26
    assert result.qm == "scripted/qm" and result.failed_calls == 0
    cq = [r for r in records if r["qtype"] == "CQ" and r["status"] == "ok"]
    assert cq and all(r["context"] == {"concept": "Zorbic flux",
                                       "paragraph": "Zorbic flux is the flow of zorbs."}
                      for r in cq)
    kept = [r for r in records if r["status"] == "ok"]
    assert all(r["choices"][r["answer"]] == "Zorbs" for r in kept)
    assert {r["position"] for r in records if r["qtype"] == "SQ"} == {1, 2, 3, 4, 5}
    # an id names what the question is: the scripted QM writes one text per topic and kind
    # (per position for SQ), so of 2 slots a topic the second repeats the first
    assert all(r["id"] == question_id(r) for r in kept)
    assert len({r["id"] for r in kept}) == len({json.dumps([r[k] for k in (
        "qtype", "topic", "position", "context", "stem")]) for r in kept}) == 13
    assert [by_type[t].repeated for t in ("DQ", "CQ", "SQ")] == [1, 2, 10]
    assert len({r["id"] for r in records if r["status"] != "ok"}) == 2
    dropped = [r for r in records if r["status"] == "dropped"]
    assert dropped and all(r["reason"] and re.search(r"choices|answer", r["reason"])
                           for r in dropped)
    # temperature 1: each sample index is its own seed, so the 2 per topic are 2 calls
    assert len([c for c in model.calls if "topic of physics, please write a multiple" in c]) == 2


def test_tries_draw_a_broken_slot_again_with_fresh_samples(tmp_path):
    model = ScriptedModel("scripted/qm", reply=qm_reply)
    plan = GeneratePlan(kinds=("direct",), topics=("physics", "law"), per_topic=2, tries=3,
                        temperature=0.7)
    result, records = generate_all(tmp_path, model, plan)
    dq = result.by_type["DQ"]
    law = [r for r in records if r["topic"] == "law"]
    # physics: both slots filled on the first try; law never parses: 2 slots x 3 tries
    assert (dq.slots, dq.filled, dq.asked, dq.kept) == (4, 2, 8, 2)
    assert dq.reasons == {"found 3 choices, expected 4": 6} and dq.dropped == 6
    assert result.qm == "scripted/qm [T=0.7]"
    assert sorted(r["index"] for r in law) == [0, 1, 2, 3, 4, 5]
    assert sorted((r["slot"], r["try"]) for r in law) == [(s, t) for s in (0, 1)
                                                          for t in (1, 2, 3)]
    assert {r["qm"] for r in records} == {"scripted/qm [T=0.7]"}
    assert len(model.calls) == 8 and len(set(model.seeds)) == 6  # physics and law share seeds


def test_story_questions_keep_the_whole_story_and_skip_fictionality(tmp_path):
    story = "Mara found a locket in the attic.\n\nInside was a map of the old mill."
    model = ScriptedModel("scripted/qm", reply=lambda p: story if "short story" in p
                          else DQ_REPLY)
    plan = GeneratePlan(kinds=("direct", "context"), content="story", topics=("friendship",),
                        per_topic=1)
    _, written = generate_all(tmp_path, model, plan)
    records = {r["qtype"]: r for r in written}
    assert records["CQ"]["context"] == {"concept": "", "paragraph": story}
    assert records["DQ"]["content"] == "story" and records["DQ"]["status"] == "ok"
    assert "Imagine a story about friendship" in model.calls[0] + model.calls[1]
    assert fiction_questions(written) == []  # "a real concept in friendship?"


@pytest.mark.parametrize("reply, refused", [
    ("I'm sorry, but I am not familiar with the Zorban faith.", True),
    ("There is no such thing as quantum voting.", True),
    ("This question cannot be answered since the concept does not exist.", True),
    ("Quantum foam is real and well studied.", False),
    ("The flux is measured in zorbs.", False),
])
def test_is_refusal(reply, refused):
    assert is_refusal(reply) is refused


def test_an_echoed_question_is_not_a_refusal():
    q = question("q", 0, ("A made-up concept", "Bravo", "Charlie", "Delta"))
    q["stem"] = "Which completely made-up concept explains the Earth's formation?"
    shown = present(q, shuffle=False, choice_e=False, seed=0)
    echo = f"Answer the following question.\n{q['stem']}\nA. A made-up concept"
    assert read_choice(echo, shown, False) == (None, "unparsed")
    assert read_choice(echo + "\nSorry, that concept does not exist.", shown, False) == \
        (None, "refused")
