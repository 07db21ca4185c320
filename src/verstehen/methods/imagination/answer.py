"""Imaginary question answering (Shared Imagination, Zhou et al., sections 2.1, 3.2, 3.3, 3.5, 3.7).

Each answer model (AM) answers every question in a fresh conversation, greedily, by one of four
methods: `generate` (Table 4, with a Table 14 wording or chain of thought; refusals detected),
`letter` (the most likely next token among " A" .. " D" after section 3.5's plain prompt),
`perplexity` (the choice text most likely per byte as the answer, section 3.2) and `free` (no
choices; a judge grades the reply 0-100 with Figure 21's prompt). With `fictionality`, each AM
is also asked whether each context paragraph describes a real concept (section 3.3).
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass

from verstehen.engine.runner import CallResult, Runner
from verstehen.engine.store import RunStore
from verstehen.errors import UnsupportedCapability
from verstehen.methods.imagination.choices import (
    LETTERS,
    Shown,
    am_label,
    answer_prompt,
    judge_prompt,
    letter_prompt,
    present,
)
from verstehen.methods.imagination.records import (
    AnswerRecord,
    FictionRecord,
    UsableQuestion,
    write_record,
)
from verstehen.methods.imagination.stats import length_rank
from verstehen.models.base import GenerateParams, Model, user
from verstehen.parse import is_refusal, parse_choice, parse_yes_no
from verstehen.prompts import prompt
from verstehen.wording import setting

BUDGET = {"answer": 64, "cot": 512, "free": 128, "judge": 16, "fiction": 32}
_ANSWER_CUE = re.compile(r"(?i)\banswer\b")
_SCORE = re.compile(r"\b(\d{1,3})\b")


@dataclass(frozen=True)
class AnswerPlan:
    """How answer models answer: method, shuffling, fifth choice, wording, budget cap, seed."""

    method: str = "generate"
    shuffle: bool = True
    choice_e: bool = False
    variant: str = "1"
    fictionality: bool = False
    max_tokens: int | None = None
    seed: int = 0

    def params(self, budget: str) -> GenerateParams:
        """Greedy decoding with the budget for one kind of reply, or max_tokens when given."""
        tokens = self.max_tokens or BUDGET[budget]
        return GenerateParams(temperature=0.0, max_tokens=tokens, seed=self.seed)


def _outcome(chosen: str | None, shown: Shown, plan: AnswerPlan) -> str:
    if chosen == "E" and plan.choice_e:
        return "choice_e"
    return "correct" if chosen == LETTERS[shown.correct] else "wrong"


def read_choice(text: str, shown: Shown, cot: bool) -> tuple[str | None, str]:
    """The chosen label and the outcome kind: a label, a refusal, or unparsed.

    Refusals are looked for in the reply without any echo of the question and its choices
    (an echoed "completely made-up concept" is not a refusal).
    """
    tail = text
    if cot and (cues := list(_ANSWER_CUE.finditer(text))):
        tail = text[cues[-1].start():]
    chosen = parse_choice(tail, shown.letters, list(shown.choices))
    if chosen is not None:
        return chosen, "chosen"
    own = text
    for echoed in sorted((shown.stem, *shown.choices), key=len, reverse=True):
        own = own.replace(echoed, " ")
    return None, "refused" if is_refusal(own) else "unparsed"


def read_score(text: str) -> float | str:
    """A judge's 0-100 score, "refused" for "Refuse to answer", or "unparsed"."""
    if "refuse" in text.lower():
        return "refused"
    found = [int(m.group(1)) for m in _SCORE.finditer(text)]
    return float(found[0]) if len(found) == 1 and 0 <= found[0] <= 100 else "unparsed"


async def _generate(runner: Runner, model: Model, shown: Shown, plan: AnswerPlan,
                    record: AnswerRecord) -> None:
    ask = answer_prompt(shown, plan.variant)
    out = await runner.generate(model, user(ask),
                                plan.params("cot" if plan.variant == "cot" else "answer"))
    record.update({"prompt": ask, "error": out.error})
    if out.ok:
        chosen, kind = read_choice(out.value.text, shown, plan.variant == "cot")
        record.update({"reply": out.value.text, "chosen": chosen,
                       "outcome": kind if chosen is None else _outcome(chosen, shown, plan)})


async def _scores(runner: Runner, model: Model, context: str, continuations: list[str]
                  ) -> CallResult[list[float]]:
    """`runner.logprobs`, its refusal for a model without them naming the way out."""
    try:
        return await runner.logprobs(model, context, continuations)
    except UnsupportedCapability as exc:
        raise UnsupportedCapability(
            f"{exc}; or answer by generation: {setting('method', 'generate')}") from None


async def _letter(runner: Runner, model: Model, shown: Shown, plan: AnswerPlan,
                  record: AnswerRecord) -> None:
    context = letter_prompt(shown)
    out = await _scores(runner, model, context, [f" {x}" for x in shown.letters])
    record.update({"prompt": context, "error": out.error})
    if out.ok:
        scores = list(out.value)
        chosen = shown.letters[scores.index(max(scores))]
        record.update({"logprobs": scores, "chosen": chosen,
                       "outcome": _outcome(chosen, shown, plan)})


async def _perplexity(runner: Runner, model: Model, shown: Shown, plan: AnswerPlan,
                      record: AnswerRecord) -> None:
    turn = user(prompt("imagination/perplexity", stem=shown.stem))
    chat_text = getattr(model, "chat_text", None)
    rendered = await chat_text(turn) if chat_text is not None else None
    if rendered is not None:
        context, framing = rendered + "Answer:", "chat template"
    else:  # a provider or a base model without a template: the same turn as plain text
        context, framing = turn[0]["content"] + "\nAnswer:", "plain text"
    texts = [f" {c}" for c in shown.choices]
    out = await _scores(runner, model, context, texts)
    record.update({"prompt": context, "framing": framing, "error": out.error})
    if out.ok:
        per_byte = [lp / len(t.encode()) for lp, t in zip(out.value, texts, strict=True)]
        chosen = shown.letters[per_byte.index(max(per_byte))]
        record.update({"logprobs": list(out.value), "chosen": chosen,
                       "outcome": _outcome(chosen, shown, plan)})


async def _free(runner: Runner, model: Model, shown: Shown, plan: AnswerPlan,
                record: AnswerRecord, question: UsableQuestion, judge: Model | None) -> None:
    assert judge is not None
    ask = prompt("imagination/free_response", stem=shown.stem)
    out = await runner.generate(model, user(ask), plan.params("free"))
    record.update({"prompt": ask, "error": out.error})
    if not out.ok:
        return
    graded = await runner.generate(judge, user(judge_prompt(question, out.value.text)),
                                   plan.params("judge"))
    record.update({"reply": out.value.text, "error": graded.error})
    if graded.ok:
        score = read_score(graded.value.text)
        record["judge_reply"] = graded.value.text
        if isinstance(score, float):
            record.update({"score": score, "outcome": "correct" if score > 50 else "wrong"})
        else:
            record["outcome"] = score


async def answer_one(runner: Runner, model: Model, question: UsableQuestion, plan: AnswerPlan,
                     judge: Model | None = None) -> AnswerRecord:
    """One AM's answer to one question, as a record; outcome "error" when a call failed."""
    shown = present(question, shuffle=plan.shuffle, choice_e=plan.choice_e, seed=plan.seed)
    record: AnswerRecord = {
        "kind": "answer", "question_id": question["id"], "qm": question["qm"],
        "am": am_label(model.name, method=plan.method, variant=plan.variant,
                       shuffle=plan.shuffle, choice_e=plan.choice_e),
        "am_model": model.name, "method": plan.method, "variant": plan.variant,
        "qtype": question["qtype"], "content": question["content"], "topic": question["topic"],
        "position": question["position"],
        "question_chars": len(question["stem"]) + sum(len(c) for c in question["choices"]),
        "correct_rank": length_rank(question["choices"], question["answer"]),
        "order": list(shown.order), "correct_letter": LETTERS[shown.correct],
        "prompt": None, "reply": None, "chosen": None, "outcome": "error", "score": None,
        "error": None}
    if plan.method == "free":
        await _free(runner, model, shown, plan, record, question, judge)
    else:
        await {"generate": _generate, "letter": _letter,
               "perplexity": _perplexity}[plan.method](runner, model, shown, plan, record)
    if record["error"] is not None:
        record["outcome"] = "error"
    return record


async def fiction_one(runner: Runner, model: Model, question: UsableQuestion,
                      plan: AnswerPlan) -> FictionRecord:
    """Section 3.3: does the AM call the question's context paragraph real?"""
    assert question["context"] is not None  # fiction_questions picks those with one
    ask = prompt("imagination/fiction", topic=question["topic"],
                 paragraph=question["context"]["paragraph"])
    out = await runner.generate(model, user(ask), plan.params("fiction"))
    said = parse_yes_no(out.value.text) if out.ok else None
    verdict = "error" if not out.ok else "unparsed" if said is None else (
        "real" if said else "fictional")
    return {"kind": "fiction", "question_id": question["id"], "qm": question["qm"],
            "am": model.name, "topic": question["topic"], "prompt": ask,
            "reply": out.value.text if out.ok else None, "verdict": verdict, "error": out.error}


def fiction_questions(questions: list[UsableQuestion]) -> list[UsableQuestion]:
    """The questions whose context paragraph is about a concept (not a story)."""
    return [q for q in questions if q["context"] and q["content"] == "knowledge"]


async def run_answer(runner: Runner, models: list[Model], questions: list[UsableQuestion],
                     plan: AnswerPlan, store: RunStore, judge: Model | None = None) -> None:
    """Every AM answers every question; with fictionality, also judges the paragraphs."""
    jobs = [(m, q) for m in models for q in questions]
    fiction = [(m, q) for m in models for q in fiction_questions(questions)
               ] if plan.fictionality else []
    runner.progress.add_total(len(jobs) * (2 if plan.method == "free" else 1) + len(fiction))

    async def answer(model: Model, question: UsableQuestion) -> None:
        write_record(store, await answer_one(runner, model, question, plan, judge))

    async def ask_fiction(model: Model, question: UsableQuestion) -> None:
        write_record(store, await fiction_one(runner, model, question, plan))

    await asyncio.gather(*(answer(m, q) for m, q in jobs),
                         *(ask_fiction(m, q) for m, q in fiction))
