"""Conceptual consistency's procedure (Sahu et al., ICLR 2023, section 3).

For each anchor question: the knowledge-base concepts it mentions, the facts among them (each
with a sampled false twin), the model's yes/no answer to each fact by majority-vote likelihood
prompting (5 meta-prompts x 7 label pairs, the likeliest label wins), and its answer to the
anchor question (the likeliest choice). Models without exact log-probabilities answer by
generation instead: a parsed yes/no per meta-prompt and a majority over them, recorded as
method "generation". Which of the two answers a run is settled before its first question
(`answering_method`, one probe of a served model) and holds for every call of the run. Facts
shared by several anchors are asked once.
"""

from __future__ import annotations

import asyncio
import sys
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from verstehen.data.mcq import MCQItem
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.errors import UnsupportedCapability, UserError
from verstehen.methods.consistency.background import (
    Fact,
    background_facts,
    negative_pool,
    question_concepts,
    with_negatives,
)
from verstehen.methods.consistency.knowledge import (
    RELATIONS_14,
    KnowledgeBase,
    normalize_relation,
)
from verstehen.methods.consistency.records import (
    AnchorRecord,
    AnchorReply,
    FactRecord,
    FactReply,
)
from verstehen.methods.consistency.stats import LABEL_PAIRS, majority_answer, vote_answer
from verstehen.methods.consistency.templates import (
    fact_question,
    meta_prompts,
    relation_templates,
    render_meta,
)
from verstehen.models.base import GenerateParams, Model, user
from verstehen.parse import parse_choice, parse_yes_no
from verstehen.scopes.mcq import mcq_prompt
from verstehen.wording import setting

# auto: by likelihood where the model gives exact log-probabilities, else by generation
ANSWER_BY = ("auto", "likelihood", "generation")


@dataclass(frozen=True)
class ConsistencyPlan:
    """Relations kept, path length, relation template style, negative sampling seed, and how
    answers are read (`answer_by`, one of ANSWER_BY).

    Relations may be given as ConceptNet-style names in any spelling, or as one comma-separated
    text; they are kept normalized ("at location" -> "AtLocation"), each once. `UserError` for
    an unknown relation or style, a relation without a question template, or a length below 1.
    """

    relations: tuple[str, ...] = RELATIONS_14
    max_path_length: int = 1
    template_style: str = "fixed"
    seed: int = 0
    max_tokens: int | None = None  # the generation fallback's budget (default 16 tokens)
    answer_by: str = "auto"

    def __post_init__(self) -> None:
        names = (self.relations.split(",") if isinstance(self.relations, str)
                 else self.relations)
        relations = tuple(dict.fromkeys(normalize_relation(r) for r in names if r.strip()))
        if not relations:
            raise UserError("no relations: give relation names, e.g. IsA,UsedFor")
        object.__setattr__(self, "relations", relations)
        if self.max_path_length < 1:
            raise UserError(f"max_path_length must be at least 1, not {self.max_path_length}")
        templates = relation_templates(self.template_style)  # UserError for an unknown style
        if missing := [r for r in relations if r not in templates]:
            raise UserError(f"no question template for relation {missing[0]!r} "
                            f"(have {', '.join(sorted(templates))})")
        if self.max_tokens is not None and self.max_tokens < 1:
            raise UserError(f"max_tokens must be at least 1, not {self.max_tokens}")
        if self.answer_by not in ANSWER_BY:
            raise UserError(f"answer_by must be one of {', '.join(ANSWER_BY)}, "
                            f"not {self.answer_by!r}")

    def reply_params(self) -> GenerateParams:
        """Greedy decoding for a short generated answer (the fallback without logprobs)."""
        return GenerateParams(max_tokens=self.max_tokens or 16, seed=self.seed)


@dataclass(frozen=True)
class Anchor:
    """An anchor question with its knowledge-base concepts and background facts."""

    item: MCQItem
    concepts: tuple[str, ...]
    facts: tuple[Fact, ...]


def build_anchors(items: Sequence[MCQItem], kb: KnowledgeBase, plan: ConsistencyPlan
                  ) -> list[Anchor]:
    """Concepts, positive facts and their negatives for every item; no model call."""
    kb = kb.restricted(plan.relations)
    pool = negative_pool(kb)
    anchors = []
    for item in items:
        concepts = question_concepts([item.stem, *item.choices], kb)
        positives = background_facts(concepts, kb, max_path_length=plan.max_path_length)
        facts = with_negatives(positives, kb, seed=plan.seed, pool=pool)
        anchors.append(Anchor(item, tuple(concepts), tuple(facts)))
    return anchors


def combo_contexts(question: str) -> dict[str, list[str]]:
    """Every distinct prompt of the 35 (meta-prompt, label pair) combos and the labels scored
    after it; meta-prompts that do not name the labels share one prompt for all 14 labels."""
    needs: dict[str, list[str]] = defaultdict(list)
    for meta in meta_prompts():
        for pair in LABEL_PAIRS:
            needs[render_meta(meta, question, pair)] += [f" {pair[0]}", f" {pair[1]}"]
    return {context: list(dict.fromkeys(labels)) for context, labels in needs.items()}


async def _facts_by_likelihood(runner: Runner, model: Model, questions: dict[str, str]
                               ) -> dict[str, FactReply]:
    """Majority-vote answers of every fact question, by key.

    The calls go out prompt-template-major (every fact's first prompt, then every fact's
    second...): consecutive prompts then share their template's opening in the KV cache.
    """
    needs = {key: combo_contexts(q) for key, q in questions.items()}
    calls = sorted(((j, q, key, context, labels) for key, q in questions.items()
                    for j, (context, labels) in enumerate(needs[key].items())))
    results = await asyncio.gather(*(runner.logprobs(model, context, labels)
                                     for _, _, _, context, labels in calls))
    scored: dict[str, dict[tuple[str, str], float]] = defaultdict(dict)
    errors: dict[str, str] = {}
    for (_, _, key, context, labels), result in zip(calls, results, strict=True):
        if not result.ok:
            errors.setdefault(key, result.error or "failed")
            continue
        scored[key].update({(context, label): lp
                            for label, lp in zip(labels, result.value, strict=True)})
    answers: dict[str, FactReply] = {}
    for key, question in questions.items():
        if key in errors:
            answers[key] = {"said_yes": None, "combos": None, "error": errors[key]}
            continue
        score = scored[key]
        pairs = [(score[(render_meta(m, question, p), f" {p[0]}")],
                  score[(render_meta(m, question, p), f" {p[1]}")])
                 for m in meta_prompts() for p in LABEL_PAIRS]
        said_yes, combos = majority_answer(pairs)
        answers[key] = {"said_yes": said_yes, "combos": list(combos), "error": None}
    return answers


async def _fact_by_generation(runner: Runner, model: Model, question: str,
                              params: GenerateParams) -> FactReply:
    """A fact's answer without log-probabilities: the majority of the parsed yes/no replies."""
    asks = [render_meta(m, question, LABEL_PAIRS[0]) for m in meta_prompts()]
    results = await asyncio.gather(*(runner.generate(model, user(a), params) for a in asks))
    if failed := next((r for r in results if not r.ok), None):
        return {"said_yes": None, "combos": None, "error": failed.error}
    votes = [parse_yes_no(r.value.text) for r in results]
    return {"said_yes": vote_answer(votes), "combos": None, "votes": votes, "error": None}


async def _anchor(runner: Runner, model: Model, item: MCQItem, likelihood: bool,
                  params: GenerateParams) -> AnchorReply:
    """The anchor's chosen label: the likeliest choice text, or the choice a reply names."""
    if likelihood:
        out = await runner.logprobs(model, f"Question: {item.stem}\nAnswer:",
                                    [f" {c}" for c in item.choices])
        if not out.ok:
            return {"chosen": None, "error": out.error}
        scores = list(out.value)
        return {"chosen": item.labels[scores.index(max(scores))], "logprobs": scores,
                "error": None}
    got = await runner.generate(model, user(mcq_prompt(item, 0)), params)
    if not got.ok:
        return {"chosen": None, "error": got.error}
    return {"chosen": parse_choice(got.value.text, item.labels, item.choices),
            "reply": got.value.text, "error": None}


async def answering_method(model: Model, answer_by: str) -> str:
    """How a run answers: "likelihood" (the paper's) or "generation", as `answer_by` asks.

    auto takes likelihood where the model has exact log-probabilities (a served model's are
    checked with one probe, `check_logprobs`), else generation, said on stderr in one line.
    likelihood without them is UnsupportedCapability naming the way out.
    """
    if answer_by == "generation":
        return "generation"
    try:
        if not model.capabilities.logprobs:
            raise UnsupportedCapability(f"{model.name} gives no exact log-probabilities, "
                                        f"which {setting('answer_by', 'likelihood')} needs")
        if (check := getattr(model, "check_logprobs", None)) is not None:
            await check()
        return "likelihood"
    except UnsupportedCapability as exc:
        if answer_by == "likelihood":
            raise UnsupportedCapability(
                f"{exc}; {setting('answer_by', 'generation')} (or auto) answers by generation "
                "instead (not the paper's method)") from None
    server = model.identity().get("base_url") or model.name
    print(f"verstehen: {server} gives no prompt log-probabilities: answering by generation "
          "(not the paper's method)", file=sys.stderr, flush=True)
    return "generation"


async def ask_anchors(runner: Runner, model: Model, anchors: Sequence[Anchor],
                      plan: ConsistencyPlan, store: RunStore, method: str) -> None:
    """Ask every distinct fact once and every anchor question, all by `method` ("likelihood"
    or "generation", from `answering_method`); record both."""
    likelihood = method == "likelihood"
    facts = {f.key: f for a in anchors for f in a.facts}
    per_fact = len(combo_contexts("x")) if likelihood else len(meta_prompts())
    runner.progress.add_total(len(facts) * per_fact + len(anchors))

    questions = {key: fact_question(f, style=plan.template_style) for key, f in facts.items()}

    async def ask_facts() -> None:
        if likelihood:
            answers = await _facts_by_likelihood(runner, model, questions)
        else:
            answers = dict(zip(questions, await asyncio.gather(
                *(_fact_by_generation(runner, model, q, plan.reply_params())
                  for q in questions.values())),
                strict=True))
        for key, f in facts.items():
            record: FactRecord = {"kind": "fact", "key": key, "relation": f.relation,
                                  "c1": f.c1, "c2": f.c2, "positive": f.positive,
                                  "question": questions[key], "method": method,
                                  **answers[key]}
            store.append(record)

    async def anchor(a: Anchor) -> None:
        answer = await _anchor(runner, model, a.item, likelihood, plan.reply_params())
        correct = None if answer["chosen"] is None else answer["chosen"] == a.item.answer
        record: AnchorRecord = {"kind": "anchor", "id": a.item.id, "stem": a.item.stem,
                                "answer": a.item.answer, "concepts": list(a.concepts),
                                "facts": [f.key for f in a.facts], "method": method,
                                "correct": correct, "chosen": answer["chosen"],
                                "error": answer["error"]}
        # the reply's optional keys by name: a ** item may hold keys its type does not declare
        if "logprobs" in answer:
            record["logprobs"] = answer["logprobs"]
        if "reply" in answer:
            record["reply"] = answer["reply"]
        store.append(record)

    await asyncio.gather(ask_facts(), *(anchor(a) for a in anchors))
