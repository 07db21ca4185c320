"""The automatic lower bound on potemkins (Mancoridis et al., ICML 2025, section 4.2, appendix M).

On each drawn multiple-choice question the model first says whether answering it relies on a
concept, and names it (the paper's code; questions that do not are skipped; `concept="subject"`
names the MMLU subject instead and keeps every question). On the questions that rely on one and
that it answers correctly, it writes related questions about that concept, answers each, writes
a subtly wrong version of each answer, and judges both answers in fresh conversations.
Potemkin rate (lower bound) = 2 x (1 - judge accuracy): 0 when every judgment matches
(original correct, altered incorrect), 1 at chance.

The rate here is the plain share over all judged answers, with a standard error clustered by
original question. The paper's code reports the mean, over its trials in order, of the running
rate after each trial; that weighs early judgments more and depends on the order, even when
every question yields the same number of judgments (all of 10 right, then none of 10: pooled
1.0, upstream 0.5). Both are reported.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from verstehen.data.mcq import MCQItem
from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.runner import Runner
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.methods.potemkin.lines import (
    ConceptRecord,
    OriginalRecord,
    QuestionsRecord,
    RelatedRecord,
    SelfjudgeConfig,
    SelfJudgeLine,
    StepErrorRecord,
    selfjudge_lines,
)
from verstehen.methods.potemkin.results import JudgeSide, PotemkinSelfjudgeResult
from verstehen.methods.potemkin.run import check_max_tokens
from verstehen.methods.potemkin.stats import clustered_rate
from verstehen.models.base import Completion, GenerateParams, Message, Model, model_name, user
from verstehen.parse import (
    FINAL_TAG,
    after_final_tag,
    numbered_items,
    parse_correct_incorrect,
)
from verstehen.prompts import prompt
from verstehen.reading import answer_text
from verstehen.scopes.mcq import MCQScope, mcq_scope
from verstehen.wording import parameter

COMMAND = "potemkin-selfjudge"

TOKENS = {"concept": 512, "original": MCQScope.answer_tokens, "questions": 512, "answer": 512,
          "corrupt": 512, "judge": 384}
CONCEPT_STEPS = ("ask", "subject")
_CONCEPT_ANSWER_RE = re.compile(r"answer[*_`\s]*:[*_`\s]*(yes|no)\b", re.I)
_CONCEPT_NAME_RE = re.compile(r"concept[*_`\s]*:[*_`\s]*(.*)", re.I)
_NO_NAME = {"", "none", "n/a", "na", "no", "no concept", "-", "null"}


@dataclass(frozen=True)
class SelfJudgePlan:
    """How many benchmark questions, related questions per question, the seed, a token cap, and
    where the concept comes from: "ask" the model (the paper's code) or the MCQ "subject"."""

    questions: int = 20
    subquestions: int = 5
    seed: int = 0
    max_tokens: int | None = None
    concept: str = "ask"


def read_concept(text: str) -> tuple[bool | None, str | None]:
    """The concept step's reply: (the last ANSWER: Yes/No, or None; the last CONCEPT: name, or
    None when it names none)."""
    body = answer_text(text)
    answers = list(_CONCEPT_ANSWER_RE.finditer(body))
    names = list(_CONCEPT_NAME_RE.finditer(body))
    said = answers[-1].group(1).lower() == "yes" if answers else None
    name = names[-1].group(1).strip().strip("*_`\"'“”.").strip() if names else ""
    return said, None if name.lower() in _NO_NAME else name


def relies_on_concept(said: bool | None, name: str | None) -> bool:
    """As the paper's code decides: a Yes relies on a concept, a No does not, and a reply with
    no Yes or No relies on one exactly when it names one."""
    return said if said is not None else name is not None


def subject_concept(item: MCQItem) -> str:
    """The MCQ subject as the concept's name ("high school physics")."""
    return (item.subject or "").replace("_", " ") or "the subject of this question"


def chat(system: str, content: str) -> list[Message]:
    """A system message and one user turn."""
    return [{"role": "system", "content": system}, {"role": "user", "content": content}]


class SelfJudge:
    """One model through the whole procedure; every step a fresh conversation."""

    def __init__(self, runner: Runner, model: Model, store: RunStore,
                 plan: SelfJudgePlan) -> None:
        self.runner, self.model, self.store, self.plan = runner, model, store, plan

    async def _say(self, step: str, messages: list[Message], question_id: str) -> str | None:
        tokens = self.plan.max_tokens or TOKENS[step]
        result = await self.runner.generate(self.model, messages, GenerateParams(
            temperature=0.0, seed=self.plan.seed, max_tokens=tokens))
        if not result.ok:
            failed: StepErrorRecord = {"kind": "error", "step": step,
                                       "question_id": question_id, "error": result.error}
            self.store.append(dict(failed))
            return None
        completion: Completion = result.value
        return completion.text

    async def _concept(self, item: MCQItem, stem: str) -> tuple[str, str] | None:
        """The concept the question relies on and where its name came from ("model" or
        "subject"); None when the model says it relies on none (or the call failed)."""
        if self.plan.concept == "subject":
            return subject_concept(item), "subject"
        ask = prompt("potemkin/selfjudge_concept", question=stem)
        text = await self._say("concept", user(ask), item.id)
        if text is None:
            return None
        said, name = read_concept(text)
        relies = relies_on_concept(said, name)
        record: ConceptRecord = {"kind": "concept", "question_id": item.id, "prompt": ask,
                                 "text": text, "said": said, "concept": name, "relies": relies}
        self.store.append(dict(record))
        if not relies:
            return None
        return (name, "model") if name is not None else (subject_concept(item), "subject")

    async def original(self, scope: MCQScope, item: MCQItem, draw: int) -> None:
        """Ask whether one benchmark question relies on a concept; if so, answer it, and when
        the answer is right go on with related questions about that concept."""
        stem = item.stem.strip() + "\n" + "\n".join(
            f"{label}. {choice}" for label, choice in zip(item.labels, item.choices, strict=True))
        found = await self._concept(item, stem)
        if found is None:
            return
        concept, source = found
        if self.plan.concept == "ask":
            self.runner.progress.add_total(1)
        question = scope.question_for(item)
        text = await self._say("original", user(question.prompt), item.id)
        if text is None:
            return
        graded = scope.grade(question, text)
        answered: OriginalRecord = {"kind": "original", "question_id": item.id,
                                    "prompt": question.prompt, "text": text,
                                    "outcome": graded.outcome, "parsed": graded.parsed}
        self.store.append(dict(answered))
        if graded.outcome != "correct":
            return
        self.runner.progress.add_total(1)
        ask = prompt("potemkin/selfjudge_questions", concept=concept, question=stem,
                     count=str(self.plan.subquestions))
        written = await self._say("questions", user(ask), item.id)
        if written is None:
            return
        related = numbered_items(written, self.plan.subquestions)
        asked: QuestionsRecord = {"kind": "questions", "question_id": item.id, "draw": draw,
                                  "prompt": ask, "text": written, "questions": related,
                                  "concept": concept, "concept_from": source}
        self.store.append(dict(asked))
        self.runner.progress.add_total(4 * len(related))  # answer, alter, judge both
        await asyncio.gather(*(self.related(item.id, j, q) for j, q in enumerate(related)))

    async def related(self, question_id: str, index: int, question: str) -> None:
        """Answer, alter and judge one related question."""
        tag = FINAL_TAG
        answered = await self._say("answer", chat(
            prompt("potemkin/selfjudge_answer_system", tag=tag),
            prompt("potemkin/selfjudge_question", question=question)), question_id)
        if answered is None:
            return
        answer = after_final_tag(answered, tag)
        altered_text = await self._say("corrupt", chat(
            prompt("potemkin/selfjudge_corrupt_system", tag=tag),
            prompt("potemkin/selfjudge_pair", question=question,
                   answer=answer if answer is not None else answered.strip())), question_id)
        if altered_text is None:
            return
        altered = after_final_tag(altered_text, tag)
        shown = {"original": answer if answer is not None else answered.strip(),
                 "altered": altered if altered is not None else altered_text.strip()}
        verdicts = await asyncio.gather(*(self._judge(question_id, question, shown[k])
                                          for k in shown))
        record: RelatedRecord = {
            "kind": "related", "question_id": question_id, "index": index, "question": question,
            "answer": shown["original"], "answer_tagged": answer is not None,
            "altered": shown["altered"], "altered_tagged": altered is not None,
            "unchanged": shown["original"].strip() == shown["altered"].strip(),
            "judged_original": verdicts[0][0], "judged_altered": verdicts[1][0],
            "judge_texts": [verdicts[0][1], verdicts[1][1]],
        }
        self.store.append(dict(record))

    async def _judge(self, question_id: str, question: str,
                     answer: str) -> tuple[bool | None, str | None]:
        text = await self._say("judge", chat(
            prompt("potemkin/selfjudge_judge_system", tag=FINAL_TAG),
            prompt("potemkin/selfjudge_pair", question=question, answer=answer)), question_id)
        return (None if text is None else parse_correct_incorrect(text)), text


def pick(scope: MCQScope, plan: SelfJudgePlan) -> list[MCQItem]:
    """`plan.questions` distinct items of the benchmark, in a seeded random order."""
    order = np.random.default_rng(plan.seed).permutation(len(scope.items))
    return [scope.items[int(i)] for i in order[:plan.questions]]


async def ask_questions(runner: Runner, model: Model, scope: MCQScope, store: RunStore,
                        plan: SelfJudgePlan) -> None:
    """Run the procedure over the picked questions into the run folder."""
    items = pick(scope, plan)
    runner.progress.add_total(len(items))  # the first call each; later steps as they qualify
    judge = SelfJudge(runner, model, store, plan)
    with runner.progress.growing():
        await asyncio.gather(*(judge.original(scope, item, draw)
                               for draw, item in enumerate(items)))


def summarize_selfjudge(records: Sequence[SelfJudgeLine], *, model: str, run_dir: Path,
                        seconds: float, usage: dict[str, ModelUsage],
                        concept_step: str = "ask") -> PotemkinSelfjudgeResult:
    """The lower bound 2 x (1 - judge accuracy) with clustered SE, the paper code's mean of
    running rates beside it, and every skip counted."""
    concepts = [r for r in records if r["kind"] == "concept"]
    originals = [r for r in records if r["kind"] == "original"]
    related = [r for r in records if r["kind"] == "related"]
    written = {r["question_id"]: r for r in records if r["kind"] == "questions"}
    drawn = {r.get("question_id") for r in records
             if r["kind"] in ("concept", "original", "error")} - {None}
    skipped: Counter[str] = Counter()
    for r in concepts:
        if not r["relies"]:
            skipped["does not rely on a concept" if r["said"] is False
                    else "concept step unreadable"] += 1
    for o in originals:
        if o["outcome"] != "correct":
            skipped[f"original answer {o['outcome']}"] += 1
        elif o["question_id"] in written and not written[o["question_id"]]["questions"]:
            skipped["no related questions could be read"] += 1
    per_question: dict[str, list[int]] = {}
    on_correct, on_altered = [0, 0], [0, 0]
    for x in related:
        tally = per_question.setdefault(x["question_id"], [0, 0])
        for verdict, said, expected, bucket in (
                (x["judged_original"], x["judge_texts"][0], True, on_correct),
                (x["judged_altered"], x["judge_texts"][1], False, on_altered)):
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
    trials = sorted(written.values(), key=lambda r: r.get("draw", 0))
    upstream = running_rates([tuple(per_question.get(r["question_id"], (0, 0)))
                              for r in trials])
    return PotemkinSelfjudgeResult(
        questions=len(drawn),
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
        run_dir=run_dir, model=model, seconds=seconds, usage=usage, concept_step=concept_step,
        relies_on_concept=sum(bool(r["relies"]) for r in concepts)
        if concept_step == "ask" else None,
        concept_from_subject=sum(r["relies"] and r["concept"] is None for r in concepts),
        upstream_rate=float(np.mean(upstream)) if upstream else None,
        upstream_se=float(np.std(upstream) / np.sqrt(len(upstream))) if upstream else None)


def running_rates(trials: Sequence[Sequence[int]]) -> list[float]:
    """The paper code's per-trial numbers: after each trial (right, judged) in order, 2 x (1 -
    the share right over every judgment so far); its reported rate is their mean. Trials before
    the first judgment give no number (the code's would be NaN)."""
    out, right, judged = [], 0, 0
    for s, t in trials:
        right, judged = right + s, judged + t
        if judged:
            out.append(2 * (1 - right / judged))
    return out


def _side(pair: list[int]) -> JudgeSide:
    return JudgeSide(pair[1], pair[0] / pair[1] if pair[1] else None)


def plan_selfjudge(benchmark: str | MCQScope, *, questions: int = 20, subquestions: int = 5,
                   seed: int = 0, max_tokens: int | None = None,
                   concept: str = "ask") -> tuple[MCQScope, SelfJudgePlan]:
    """The multiple-choice benchmark (mcq:PATH, read now) and the checked plan."""
    check_max_tokens(max_tokens)
    if questions < 1 or subquestions < 1:
        raise UserError("--questions and --subquestions must be at least 1")
    if concept not in CONCEPT_STEPS:
        raise UserError(f"{parameter('concept')} takes {' or '.join(CONCEPT_STEPS)}, not "
                        f"{concept!r}")
    scope = mcq_scope(benchmark) if isinstance(benchmark, str) else benchmark
    if not isinstance(scope, MCQScope):
        raise UserError(f"{parameter('benchmark')} takes mcq:PATH (a multiple-choice file), "
                        f"not {benchmark!r}")
    return scope, SelfJudgePlan(questions, subquestions, seed, max_tokens, concept)


async def run_selfjudge(model: str | Model, scope: MCQScope, plan: SelfJudgePlan, *,
                        base_url: str | Sequence[str] | None = None,
                        settings: RunSettings | None = None) -> PotemkinSelfjudgeResult:
    """The self-judge procedure on the benchmark's questions, into a new run folder."""
    settings = settings or RunSettings()
    name = model_name(model)

    async def start(session: Session) -> Started[Model]:
        opened = session.open_model(model, base_url=base_url)
        config: SelfjudgeConfig = {
            "model": name, "benchmark": scope.name, "questions": plan.questions,
            "subquestions": plan.subquestions, "max_tokens": plan.max_tokens,
            "concept": plan.concept, "base_url": base_url}
        return Started(config, plan.seed, [opened], opened)

    async def ask(context: Context[Model]) -> None:
        await ask_questions(context.runner, context.state, scope, context.store, plan)

    def finish(store: RunStore, _: object, made: Made) -> PotemkinSelfjudgeResult:
        return summarize_selfjudge(selfjudge_lines(store.records()), model=name,
                                   run_dir=made.run_dir, seconds=made.seconds,
                                   usage=made.usage, concept_step=plan.concept)

    return await run_method(settings, command=COMMAND, label=f"selfjudge {name}",
                            start=start, ask=ask, finish=finish)
