"""The Potemkin benchmark (Mancoridis et al., ICML 2025, section 3): define, then use.

Each concept's definition is the keystone; classify, generate and edit answers are graded by the
concept's checker, the benchmark's labels, a judge model or people. `plan_run` checks the inputs
and builds every item before any model call; `run_potemkin` (what `verstehen potemkin run` and
the Python API's `potemkin()` call) asks them into a run folder, and `outputs.write_outputs`
turns the folder into the tables.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from verstehen.domains.base import Item, grade_yes_no
from verstehen.domains.catalog import CONCEPTS, DOMAINS
from verstehen.domains.registry import concept_tasks
from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.runner import Runner
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.grading import grade_reply
from verstehen.methods.potemkin.benchmark import load_benchmark
from verstehen.methods.potemkin.items import (
    ALL_TASKS,
    Task,
    UseItem,
    build_items,
    comma_list,
    resolve_concepts,
)
from verstehen.methods.potemkin.lines import AnswerRecord, JudgeRecord, PotemkinRunConfig
from verstehen.methods.potemkin.outputs import write_outputs
from verstehen.methods.potemkin.results import PotemkinRunResult
from verstehen.methods.potemkin.summary import check_unparsed_flag
from verstehen.models.base import GenerateParams, Model, model_name, user
from verstehen.parse import parse_yes_no
from verstehen.prompts import prompt
from verstehen.wording import parameter, setting

COMMAND = "potemkin-run"  # run.json's command, which `verstehen annotate` checks
SOURCES = ("generated", "benchmark", "both")
JUDGE_TOKENS = 64


def judge_prompt(item: UseItem, response: str) -> str:
    """The judge's prompt: the concept's definition, the question and the model's answer."""
    c = item.concept
    name = "potemkin/judge_define" if item.task == "define" else "potemkin/judge_use"
    return prompt(name, domain=DOMAINS[c.domain].lower(), name=c.name, definition=c.definition,
                  question=item.prompt, response=response.strip())


@dataclass(frozen=True)
class Grade:
    """How code graded a reply: right or wrong (None: unparsed, or left to the judge), the
    outcome ("to judge" for a judge item; None: no reply to grade) and why."""

    correct: bool | None
    outcome: str | None
    reason: str | None = None


NOT_ANSWERED = Grade(None, None)  # the call failed


def grade(item: UseItem, reply: str, finish_reason: str | None = None,
          cap: int | None = None) -> Grade:
    """correct/outcome/reason of a reply that code can grade (a reply cut off is unreadable:
    `grading.grade_reply`); judge items stay ungraded."""
    if item.grading == "judge":
        return Grade(None, "to judge")
    if item.grading == "label":
        graded = grade_yes_no(Item("classify", item.label), reply)
    else:
        assert item.item is not None and item.concept.scope is not None
        tasks = concept_tasks(item.concept.scope)
        assert tasks is not None
        graded = tasks.grade(item.item, reply)
    graded = grade_reply(graded, reply, finish_reason, cap)
    correct = None if graded.outcome in ("unparsed", "truncated") else graded.score == 1.0
    return Grade(correct, graded.outcome, graded.reason)


class PotemkinAsker:
    """Asks a run's items, grades what code can grade, asks the judge for the rest."""

    def __init__(self, runner: Runner, model: Model, judge: Model | None, store: RunStore,
                 *, seed: int, max_tokens: int | None) -> None:
        self.runner, self.model, self.judge, self.store = runner, model, judge, store
        self.seed, self.cap = seed, max_tokens

    def _params(self, tokens: int) -> GenerateParams:
        return GenerateParams(temperature=0.0, seed=self.seed, max_tokens=self.cap or tokens)

    async def ask(self, item: UseItem) -> None:
        """Answer, grade and (when the item needs it and a judge is set) judge one item."""
        params = self._params(item.max_tokens)
        result = await self.runner.generate(self.model, user(item.prompt), params)
        graded = (grade(item, result.value.text, result.value.finish_reason, params.max_tokens)
                  if result.ok else NOT_ANSWERED)
        record: AnswerRecord = {
            "kind": "answer", "id": item.id, "model": self.model.name,
            "concept": item.concept.key, "domain": item.concept.domain, "task": item.task,
            "source": item.source, "grading": item.grading, "prompt": item.prompt,
            "label": item.label, "text": result.value.text if result.ok else None,
            "correct": graded.correct, "outcome": graded.outcome, "reason": graded.reason,
            "cached": result.cached, "error": result.error,
        }
        self.store.append(dict(record))
        if result.ok and item.grading == "judge" and self.judge is not None:
            await self._judge(self.judge, item, result.value.text)

    async def _judge(self, judge: Model, item: UseItem, response: str) -> None:
        text = judge_prompt(item, response)
        result = await self.runner.generate(judge, user(text), self._params(JUDGE_TOKENS))
        verdict = parse_yes_no(result.value.text) if result.ok else None
        record: JudgeRecord = {
            "kind": "judge", "id": item.id, "model": self.model.name, "judge": judge.name,
            "prompt": text, "text": result.value.text if result.ok else None,
            "verdict": verdict, "reason": None if verdict is not None or not result.ok
            else "no Yes/No answer found in the judge's reply",
            "cached": result.cached, "error": result.error,
        }
        self.store.append(dict(record))


async def ask_items(runner: Runner, model: Model, judge: Model | None,
                    items: Sequence[UseItem], store: RunStore, *, seed: int,
                    max_tokens: int | None) -> None:
    """Ask every item into the run folder (answers already cached cost nothing)."""
    asker = PotemkinAsker(runner, model, judge, store, seed=seed, max_tokens=max_tokens)
    judged = sum(item.grading == "judge" for item in items) if judge is not None else 0
    runner.progress.add_total(len(items) + judged)
    await asyncio.gather(*(asker.ask(item) for item in items))


@dataclass(frozen=True)
class RunPlan:
    """What a run asks, built before any call: the items, the tasks and where items come from.

    `benchmark_items` and `benchmark_skipped` are the benchmark rows read and those left out by
    reason (None and empty without a benchmark checkout).
    """

    items: tuple[UseItem, ...]
    tasks: tuple[Task, ...]
    source: str
    items_per_concept: int | None
    benchmark_dir: Path | None
    benchmark_items: int | None
    benchmark_skipped: dict[str, int]
    seed: int
    max_tokens: int | None
    unparsed: str = "wrong"  # an unreadable generate or edit answer: "wrong" or "exclude"

    @property
    def keystone_asked(self) -> bool:
        """Whether the definition is asked (else the use rates are not conditioned on one)."""
        return "define" in self.tasks


def check_max_tokens(max_tokens: int | None) -> None:
    """A token cap is at least 1."""
    if max_tokens is not None and max_tokens < 1:
        raise UserError(f"--max-tokens must be at least 1, not {max_tokens}")


def plan_run(*, concepts: str | Sequence[str] | None = None,
             tasks: str | Sequence[str] = ALL_TASKS, source: str | None = None,
             benchmark_dir: Path | str | None = None, items_per_concept: int | None = None,
             seed: int = 0, max_tokens: int | None = None,
             unparsed: str = "wrong") -> RunPlan:
    """Check the inputs and build every item (concepts: keys, names or domains; default the
    exactly graded ones, or all 32 from a benchmark checkout). `unparsed` says what an
    unreadable generate or edit answer counts as: "wrong" (the paper) or "exclude"."""
    chosen = comma_list(tasks)
    bad = [t for t in chosen if t not in ALL_TASKS]
    if bad or not chosen:
        given = tasks if isinstance(tasks, str) else ",".join(tasks)
        raise UserError(f"{parameter('tasks')} takes a comma list of {', '.join(ALL_TASKS)}, "
                        f"not {given!r}")
    folder = None if benchmark_dir is None else Path(benchmark_dir)
    source = source or ("benchmark" if folder else "generated")
    if source not in SOURCES:
        raise UserError(f"{parameter('source')} takes {', '.join(SOURCES)}, not {source!r}")
    if source != "generated" and folder is None:
        raise UserError(f"{setting('source', source)} needs {parameter('benchmark_dir')} (a "
                        "checkout of github.com/MarinaMancoridis/PotemkinBenchmark)")
    if items_per_concept is not None and items_per_concept < 1:
        raise UserError(f"{parameter('items_per_concept')} must be at least 1, not "
                        f"{items_per_concept}")
    check_max_tokens(max_tokens)
    check_unparsed_flag(unparsed)
    benchmark = load_benchmark(folder) if folder is not None else None
    default = CONCEPTS if source != "generated" else [c for c in CONCEPTS if c.scope]
    picked = resolve_concepts([concepts] if isinstance(concepts, str) else concepts, default)
    task_list = cast(tuple[Task, ...], chosen)
    items = build_items(picked, task_list, source=source, per_concept=items_per_concept,
                        seed=seed, benchmark=benchmark)
    if not any(i.task != "define" for i in items) and task_list != ("define",):
        raise UserError("no use-task items for these concepts and tasks: choose other "
                        f"{parameter('concepts')} or pass {parameter('benchmark_dir')}")
    return RunPlan(tuple(items), task_list, source, items_per_concept, folder,
                   len(benchmark.items) if benchmark else None,
                   benchmark.skipped if benchmark else {}, seed, max_tokens, unparsed)


async def run_potemkin(model: str | Model, plan: RunPlan, *, judge: str | Model | None = None,
                       base_url: str | Sequence[str] | None = None,
                       judge_base_url: str | Sequence[str] | None = None,
                       settings: RunSettings | None = None,
                       session: Session | None = None) -> PotemkinRunResult:
    """Ask the plan's items (the judge grades definitions and free-text answers) into a new
    run folder; the keystones, grades and tables. In an open `session`, it is left open."""
    settings = settings or RunSettings()
    name = model_name(model)
    judge_name = None if judge is None else model_name(judge)

    async def start(session: Session) -> Started[tuple[Model, Model | None]]:
        opened = session.open_model(model, base_url=base_url)
        judging = None if judge is None else session.open_model(judge, base_url=judge_base_url)
        config: PotemkinRunConfig = {
            "model": name, "judge": judge_name, "tasks": list(plan.tasks),
            "source": plan.source, "concepts": sorted({i.concept.key for i in plan.items}),
            "items": len(plan.items), "items_per_concept": plan.items_per_concept,
            "max_tokens": plan.max_tokens,
            "benchmark_dir": str(plan.benchmark_dir) if plan.benchmark_dir else None,
            "keystone_asked": plan.keystone_asked, "base_url": base_url,
            "judge_base_url": judge_base_url, "benchmark_skipped": plan.benchmark_skipped,
            "unparsed": plan.unparsed,
        }
        # a model judging itself is one model: run.json names it once
        models = [opened] + ([judging] if judging is not None and judging is not opened else [])
        return Started(config, plan.seed, models, (opened, judging))

    async def ask(context: Context[tuple[Model, Model | None]]) -> None:
        answering, judging = context.state
        await ask_items(context.runner, answering, judging, plan.items, context.store,
                        seed=plan.seed, max_tokens=plan.max_tokens)

    def finish(store: RunStore, _: object, made: Made) -> PotemkinRunResult:
        return write_outputs(store, keystone_asked=plan.keystone_asked, seconds=made.seconds,
                             usage=made.usage, unparsed=plan.unparsed)

    return await run_method(settings, command=COMMAND, label=f"potemkin {name}", start=start,
                            ask=ask, finish=finish, session=session)
