"""Imaginary question generation (Shared Imagination, Zhou et al., section 2.1, 3.4, 3.6).

A question model (QM) invents multiple-choice questions about concepts that do not exist and
names a "correct" choice: directly (DQ), after writing a paragraph or story it then asks about
(CQ), or five in a row (SQ, the warm-up variant). Replies that do not parse into a stem, four
choices and an answer are kept as records with the reason and left out of answering.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections import Counter
from dataclasses import dataclass

from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.methods.imagination.parse import (
    ParsedQuestion,
    QuestionFailure,
    parse_concept,
    parse_question,
    parse_questions,
)
from verstehen.methods.imagination.records import (
    Context,
    QuestionRecord,
    UsableQuestion,
    write_record,
)
from verstehen.methods.imagination.results import QuestionCounts
from verstehen.models.base import GenerateParams, Message, Model, user
from verstehen.prompts import prompt

# the paper's 17 college subjects (section 2.2) and 10 story topics (appendix H)
KNOWLEDGE_TOPICS = (
    "mathematics", "computer science", "physics", "chemistry", "biology", "geography",
    "sociology", "psychology", "economics", "accounting", "marketing", "law", "politics",
    "history", "literature", "philosophy", "religion")
STORY_TOPICS = (
    "friendship", "family relationship", "young adulthood", "an ancient empire",
    "an interpersonal conflict", "a roadtrip", "a childhood in poverty", "future technology",
    "a long-lasting war", "an intergalactic civilization")
KINDS = {"direct": "DQ", "context": "CQ", "sequential": "SQ"}
# per topic, the paper's 20 direct and 20 context questions (section 2.2) and 10 five-question
# replies (section 3.4: "we run this prompt 10 times on each topic")
PAPER_COUNTS = {"direct": 20, "context": 20, "sequential": 10}
SEQUENCE = 5
# what a usable question is: its id hashes these fields (question_id)
CONTENT_KEYS = ("qm", "content", "qtype", "topic", "position", "context", "stem", "choices",
                "answer")
# token budgets: a question, a context paragraph, a story, five questions
BUDGET = {"question": 400, "paragraph": 500, "story": 1000, "sequence": 1500}


@dataclass(frozen=True)
class GeneratePlan:
    """What to generate: kinds (direct, context, sequential), content, topics, count per topic
    and kind (None: the paper's, see `count`), sampling."""

    kinds: tuple[str, ...] = ("direct", "context")
    content: str = "knowledge"
    topics: tuple[str, ...] = KNOWLEDGE_TOPICS
    per_topic: int | None = None
    tries: int = 1
    temperature: float = 1.0
    max_tokens: int | None = None
    seed: int = 0

    def count(self, kind: str) -> int:
        """Slots per topic of one kind: per_topic, or the paper's (20 direct, 20 context, 10
        five-question replies)."""
        return self.per_topic if self.per_topic is not None else PAPER_COUNTS[kind]

    def params(self, budget: str) -> GenerateParams:
        """Sampling parameters with the budget for one kind of text, or max_tokens when given."""
        tokens = self.max_tokens or BUDGET[budget]
        return GenerateParams(temperature=self.temperature, max_tokens=tokens, seed=self.seed)


def qm_label(model: str, temperature: float) -> str:
    """The question model's name, with its temperature when it is not the paper's 1."""
    return model if temperature == 1.0 else f"{model} [T={temperature:g}]"


def question_id(question: QuestionRecord | UsableQuestion) -> str:
    """A usable question's id, a hash of what it is: QM label, content, type, topic, position,
    context, stem, choices and designated answer (CONTENT_KEYS). Two different questions never
    share an id (whatever seed or run wrote them); the same question written twice has one."""
    q = question
    key = json.dumps([q["qm"], q["content"], q["qtype"], q["topic"], q["position"],
                      q["context"], q["stem"], q["choices"], q["answer"]],
                     sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def slot_id(qm: str, plan: GeneratePlan, qtype: str, topic: str, index: int,
            position: int | None) -> str:
    """The id of a reply that gave no usable question: its sample (QM, content, type, topic,
    sample index, position) and the run's seed, which draws it."""
    key = f"{qm}|{plan.content}|{qtype}|{topic}|{index}|{position}|seed {plan.seed}"
    return hashlib.sha256(key.encode()).hexdigest()[:16]


def _record(model: Model, plan: GeneratePlan, qtype: str, topic: str, index: int,
            position: int | None, reply: str | None,
            parsed: ParsedQuestion | QuestionFailure | None, error: str | None,
            context: Context | None = None) -> QuestionRecord:
    qm = qm_label(model.name, plan.temperature)
    record: QuestionRecord = {
        "kind": "question", "id": slot_id(qm, plan, qtype, topic, index, position),
        "qm": qm, "qtype": qtype, "content": plan.content, "topic": topic,
        "index": index, "position": position, "context": context, "reply": reply,
        "status": "error", "reason": error, "stem": None, "choices": None, "answer": None}
    if isinstance(parsed, ParsedQuestion):
        record.update({"status": "ok", "reason": None, "stem": parsed.stem,
                       "choices": list(parsed.choices), "answer": parsed.answer})
        record["id"] = question_id(record)
    elif isinstance(parsed, QuestionFailure):
        record.update({"status": "dropped", "reason": parsed.reason})
    return record


async def _direct(runner: Runner, model: Model, plan: GeneratePlan, topic: str,
                  index: int) -> list[QuestionRecord]:
    name = "imagination/story_dq" if plan.content == "story" else "imagination/dq"
    out = await runner.generate(model, user(prompt(name, topic=topic)), plan.params("question"),
                                sample_index=index)
    if not out.ok:
        return [_record(model, plan, "DQ", topic, index, None, None, None, out.error)]
    text = out.value.text
    return [_record(model, plan, "DQ", topic, index, None, text, parse_question(text), None)]


async def _context(runner: Runner, model: Model, plan: GeneratePlan, topic: str,
                   index: int) -> list[QuestionRecord]:
    story = plan.content == "story"
    first = prompt("imagination/story_context" if story else "imagination/cq_context",
                   topic=topic)
    out = await runner.generate(model, user(first), plan.params("story" if story else
                                                                "paragraph"),
                                sample_index=index)
    if not out.ok:
        return [_record(model, plan, "CQ", topic, index, None, None, None, out.error)]
    written = out.value.text
    read = ("", written.strip()) if story else parse_concept(written)
    if isinstance(read, QuestionFailure):
        return [_record(model, plan, "CQ", topic, index, None, written, read, None)]
    context: Context = {"concept": read[0], "paragraph": read[1]}
    second = prompt("imagination/story_question" if story else "imagination/cq_question")
    messages: list[Message] = [*user(first), {"role": "assistant", "content": written},
                               *user(second)]
    asked = await runner.generate(model, messages, plan.params("question"), sample_index=index)
    if not asked.ok:
        return [_record(model, plan, "CQ", topic, index, None, None, None, asked.error, context)]
    text = asked.value.text
    return [_record(model, plan, "CQ", topic, index, None, text, parse_question(text), None,
                    context)]


async def _sequence(runner: Runner, model: Model, plan: GeneratePlan, topic: str,
                    index: int) -> list[QuestionRecord]:
    out = await runner.generate(model, user(prompt("imagination/sequential", topic=topic)),
                                plan.params("sequence"), sample_index=index)
    if not out.ok:
        return [_record(model, plan, "SQ", topic, index, k + 1, None, None, out.error)
                for k in range(SEQUENCE)]
    text = out.value.text
    return [_record(model, plan, "SQ", topic, index, k + 1, text, parsed, None)
            for k, parsed in enumerate(parse_questions(text, SEQUENCE))]


_MAKERS = {"direct": _direct, "context": _context, "sequential": _sequence}
_CALLS = {"direct": 1, "context": 2, "sequential": 1}


async def run_generate(runner: Runner, model: Model, plan: GeneratePlan,
                       store: RunStore) -> None:
    """Generate plan.count(kind) slots of each kind on each topic; record each reply with its
    status.

    A slot whose reply yields no usable question is drawn again, up to `tries` times.
    """
    jobs = [(kind, topic, i) for kind in plan.kinds for topic in plan.topics
            for i in range(plan.count(kind))]
    runner.progress.add_total(sum(_CALLS[kind] for kind, _, _ in jobs))

    async def one(kind: str, topic: str, slot: int) -> None:
        # try t of slot i samples index i + t * count: distinct within the run, and the
        # first try of every slot is the sample a run without retries draws
        for attempt in range(plan.tries):
            if attempt:
                runner.progress.add_total(_CALLS[kind])
            records = await _MAKERS[kind](runner, model, plan, topic,
                                          slot + attempt * plan.count(kind))
            for record in records:
                record["slot"], record["try"] = slot, attempt + 1
                write_record(store, record)
            if any(r["status"] != "dropped" for r in records):
                return  # kept, or a call failed (a rerun retries it)

    with runner.progress.growing(plan.tries > 1):  # a dropped reply is drawn again
        await asyncio.gather(*(one(*job) for job in jobs))


def count_questions(records: list[QuestionRecord]) -> dict[str, QuestionCounts]:
    """Per question type: written, kept (and of them, repeats of a question kept before),
    dropped with the most common reasons, failed calls."""
    questions = [r for r in records if r["kind"] == "question"]
    by_type: dict[str, QuestionCounts] = {}
    for qtype in ("DQ", "CQ", "SQ"):
        rows = [r for r in questions if r["qtype"] == qtype]
        if not rows:
            continue
        # a dropped reply always has its reason
        dropped = Counter(r["reason"] or "" for r in rows if r["status"] == "dropped")
        slots = {(r["topic"], r.get("slot", r["index"])) for r in rows}
        filled = {(r["topic"], r.get("slot", r["index"])) for r in rows if r["status"] == "ok"}
        kept = [r for r in rows if r["status"] == "ok"]
        by_type[qtype] = QuestionCounts(
            asked=len(rows), kept=len(kept), slots=len(slots),
            filled=len(filled), dropped=sum(dropped.values()),
            reasons=dict(dropped.most_common(6)),
            failed=len({(r["topic"], r["index"]) for r in rows if r["status"] == "error"}),
            repeated=len(kept) - len({question_id(r) for r in kept}))
    return by_type
