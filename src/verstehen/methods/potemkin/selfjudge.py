"""The automatic lower bound on potemkins (Mancoridis et al., ICML 2025, section 4.2, appendix M).

On multiple-choice questions the model answers correctly, it writes related questions, answers
each, writes a subtly wrong version of each answer, and judges both answers in fresh
conversations. Potemkin rate (lower bound) = 2 x (1 - judge accuracy): 0 when every judgment
matches (original correct, altered incorrect), 1 at chance.

The rate here is the plain share over all judged answers, with a standard error clustered by
original question. The upstream code averaged running means across trials instead, which weighs
answers unequally; the two agree when every question yields the same number of judgments.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from verstehen.data.mcq import MCQItem
from verstehen.engine.runner import ModelUsage, Runner
from verstehen.engine.session import RunSettings, Session, in_session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.potemkin.results import JudgeSide, SelfJudgeResult
from verstehen.methods.potemkin.run import check_max_tokens
from verstehen.methods.potemkin.stats import clustered_rate
from verstehen.models.base import GenerateParams, Message, Model, model_name, user
from verstehen.parse import FINAL_TAG, after_final_tag, numbered_items, parse_correct_incorrect
from verstehen.prompts import prompt
from verstehen.scopes import get_scope
from verstehen.scopes.mcq import MCQScope

COMMAND = "potemkin-selfjudge"

TOKENS = {"original": MCQScope.answer_tokens, "questions": 512, "answer": 512, "corrupt": 512,
          "judge": 384}


@dataclass(frozen=True)
class SelfJudgePlan:
    """How many benchmark questions, related questions per question, the seed and a token cap."""

    questions: int = 20
    subquestions: int = 5
    seed: int = 0
    max_tokens: int | None = None


def chat(system: str, content: str) -> list[Message]:
    """A system message and one user turn."""
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


class SelfJudge:
    """One model through the whole procedure; every step a fresh conversation."""

    def __init__(self, runner: Runner, model: Model, store: RunStore,
                 plan: SelfJudgePlan) -> None:
        self.runner, self.model, self.store, self.plan = runner, model, store, plan

    async def _say(self, step: str, messages: list[Message]) -> str | None:
        tokens = TOKENS[step] if self.plan.max_tokens is None \
            else min(TOKENS[step], self.plan.max_tokens)
        result = await self.runner.generate(self.model, messages, GenerateParams(
            temperature=0.0, seed=self.plan.seed, max_tokens=tokens))
        if not result.ok:
            self.store.append({"kind": "error", "step": step, "error": result.error})
            return None
        return result.value.text

    async def original(self, scope: MCQScope, item: MCQItem) -> None:
        """Answer one benchmark question; go on with related questions when it is right."""
        question = scope.question_for(item)
        text = await self._say("original", user(question.prompt))
        if text is None:
            return
        graded = scope.grade(question, text)
        self.store.append({"kind": "original", "question_id": item.id, "prompt": question.prompt,
                           "text": text, "outcome": graded.outcome, "parsed": graded.parsed})
        if graded.outcome != "correct":
            return
        self.runner.progress.add_total(1)
        stem = item.stem.strip() + "\n" + "\n".join(
            f"{label}. {choice}" for label, choice in zip(item.labels, item.choices, strict=True))
        concept = (item.subject or "").replace("_", " ") or "the subject of this question"
        ask = prompt("potemkin/selfjudge_questions", concept=concept, question=stem,
                     count=str(self.plan.subquestions))
        written = await self._say("questions", user(ask))
        if written is None:
            return
        related = numbered_items(written, self.plan.subquestions)
        self.store.append({"kind": "questions", "question_id": item.id, "prompt": ask,
                           "text": written, "questions": related})
        self.runner.progress.add_total(4 * len(related))  # answer, alter, judge both
        await asyncio.gather(*(self.related(item.id, j, q) for j, q in enumerate(related)))

    async def related(self, question_id: str, index: int, question: str) -> None:
        """Answer, alter and judge one related question."""
        tag = FINAL_TAG
        answered = await self._say("answer", chat(
            prompt("potemkin/selfjudge_answer_system", tag=tag),
            prompt("potemkin/selfjudge_question", question=question)))
        if answered is None:
            return
        answer = after_final_tag(answered, tag)
        altered_text = await self._say("corrupt", chat(
            prompt("potemkin/selfjudge_corrupt_system", tag=tag),
            prompt("potemkin/selfjudge_pair", question=question,
                   answer=answer if answer is not None else answered.strip())))
        if altered_text is None:
            return
        altered = after_final_tag(altered_text, tag)
        shown = {"original": answer if answer is not None else answered.strip(),
                 "altered": altered if altered is not None else altered_text.strip()}
        verdicts = await asyncio.gather(*(self._judge(question, shown[k]) for k in shown))
        self.store.append({
            "kind": "related", "question_id": question_id, "index": index, "question": question,
            "answer": shown["original"], "answer_tagged": answer is not None,
            "altered": shown["altered"], "altered_tagged": altered is not None,
            "unchanged": shown["original"].strip() == shown["altered"].strip(),
            "judged_original": verdicts[0][0], "judged_altered": verdicts[1][0],
            "judge_texts": [verdicts[0][1], verdicts[1][1]],
        })

    async def _judge(self, question: str, answer: str) -> tuple[bool | None, str | None]:
        text = await self._say("judge", chat(
            prompt("potemkin/selfjudge_judge_system", tag=FINAL_TAG),
            prompt("potemkin/selfjudge_pair", question=question, answer=answer)))
        return (None if text is None else parse_correct_incorrect(text)), text


def pick(scope: MCQScope, plan: SelfJudgePlan) -> list[MCQItem]:
    """`plan.questions` distinct items of the benchmark, in a seeded random order."""
    order = np.random.default_rng(plan.seed).permutation(len(scope.items))
    return [scope.items[int(i)] for i in order[:plan.questions]]


async def ask_questions(runner: Runner, model: Model, scope: MCQScope, store: RunStore,
                        plan: SelfJudgePlan) -> None:
    """Run the procedure over the picked questions into the run folder."""
    items = pick(scope, plan)
    runner.progress.add_total(len(items))  # later steps are added as questions qualify
    judge = SelfJudge(runner, model, store, plan)
    await asyncio.gather(*(judge.original(scope, item) for item in items))


def summarize_selfjudge(records: list[dict[str, Any]], *, model: str, run_dir: Path,
                        seconds: float, usage: dict[str, ModelUsage]) -> SelfJudgeResult:
    """The lower bound 2 x (1 - judge accuracy) with clustered SE, and every skip counted."""
    originals = [r for r in records if r["kind"] == "original"]
    related = [r for r in records if r["kind"] == "related"]
    written = {r["question_id"]: r for r in records if r["kind"] == "questions"}
    skipped = Counter()
    for r in originals:
        if r["outcome"] != "correct":
            skipped[f"original answer {r['outcome']}"] += 1
        elif r["question_id"] in written and not written[r["question_id"]]["questions"]:
            skipped["no related questions could be read"] += 1
    per_question: dict[str, list[int]] = {}
    on_correct, on_altered = [0, 0], [0, 0]
    for r in related:
        tally = per_question.setdefault(r["question_id"], [0, 0])
        for verdict, said, expected, bucket in (
                (r["judged_original"], r["judge_texts"][0], True, on_correct),
                (r["judged_altered"], r["judge_texts"][1], False, on_altered)):
            if verdict is None:
                skipped["unparseable grade" if said is not None else "judge call failed"] += 1
                continue
            tally[0] += verdict == expected
            tally[1] += 1
            bucket[0] += verdict == expected
            bucket[1] += 1
    rate = se = accuracy = clusters = None
    tallies = [t for t in per_question.values() if t[1]]
    if tallies:
        accuracy, cluster_se, _ = clustered_rate([s for s, _ in tallies],
                                                 [t for _, t in tallies])
        rate, se, clusters = 2 * (1 - accuracy), 2 * cluster_se, len(tallies)
    return SelfJudgeResult(
        questions=len(originals),
        answered_correctly=sum(r["outcome"] == "correct" for r in originals),
        related_questions=len(related),
        judgments=sum(t for _, t in per_question.values()),
        skipped=dict(skipped),
        untagged_answers=sum(not r["answer_tagged"] for r in related)
        + sum(not r["altered_tagged"] for r in related),
        unchanged_alterations=sum(r["unchanged"] for r in related),
        failed_calls=sum(r["kind"] == "error" for r in records),
        potemkin_rate=rate, se=se, judge_accepts_correct=_side(on_correct),
        judge_rejects_altered=_side(on_altered), judge_accuracy=accuracy, clusters=clusters,
        run_dir=run_dir, model=model, seconds=seconds, usage=usage)


def _side(pair: list[int]) -> JudgeSide:
    return JudgeSide(pair[1], pair[0] / pair[1] if pair[1] else None)


def plan_selfjudge(benchmark: str | MCQScope, *, questions: int = 20, subquestions: int = 5,
                   seed: int = 0, max_tokens: int | None = None) -> tuple[MCQScope, SelfJudgePlan]:
    """The multiple-choice benchmark (mcq:PATH, read now) and the checked plan."""
    check_max_tokens(max_tokens)
    if questions < 1 or subquestions < 1:
        raise UserError("--questions and --subquestions must be at least 1")
    scope = get_scope(benchmark) if isinstance(benchmark, str) else benchmark
    if not isinstance(scope, MCQScope):
        raise UserError(f"--benchmark takes mcq:PATH (a multiple-choice file), not "
                        f"{benchmark!r}")
    return scope, SelfJudgePlan(questions, subquestions, seed, max_tokens)


async def run_selfjudge(model: str | Model, scope: MCQScope, plan: SelfJudgePlan, *,
                        base_url: str | None = None,
                        settings: RunSettings | None = None) -> SelfJudgeResult:
    """The self-judge procedure on the benchmark's questions, into a new run folder."""
    settings = settings or RunSettings()
    name = model_name(model)

    async def body(session: Session) -> RunStore:
        opened = session.open_model(model, base_url=base_url)
        store = settings.create_run(COMMAND, {
            "model": name, "benchmark": scope.name, "questions": plan.questions,
            "subquestions": plan.subquestions, "max_tokens": plan.max_tokens,
            "base_url": base_url}, plan.seed, [opened.identity()])
        await ask_questions(session.runner, opened, scope, store, plan)
        return store

    timed = await in_session(settings, f"selfjudge {name}", body)
    store = timed.value
    result = summarize_selfjudge(list(store.records()), model=name, run_dir=store.path,
                                 seconds=timed.seconds, usage=timed.usage)
    store.write_summary(result.to_dict())
    return result
