"""The conceptual-consistency entry point: anchor questions and a knowledge base, one run folder.

`run_consistency` is what `verstehen consistency` and the Python API's `consistency()` call. It
loads the data and builds every anchor (its concepts, facts and their false twins) before it
opens the model, so a bad path, flag or relation costs nothing.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from verstehen.data.mcq import MCQItem, load_mcq, pinned_source
from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.errors import UserError
from verstehen.methods.consistency.knowledge import KnowledgeBase, load_knowledge
from verstehen.methods.consistency.plots import write_figures
from verstehen.methods.consistency.procedure import (
    Anchor,
    ConsistencyPlan,
    answering_method,
    ask_anchors,
    build_anchors,
)
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.summary import summarize_consistency
from verstehen.models import Model, model_name, split_name
from verstehen.text.tables import plural


def load_anchors(questions: Path | str | Sequence[MCQItem], kb: Path | str | KnowledgeBase,
                 plan: ConsistencyPlan, *, limit: int | None = None
                 ) -> tuple[list[Anchor], KnowledgeBase]:
    """The first `limit` questions (a CSQA-format file, or loaded items) as anchors, and the
    knowledge base (a file, or loaded) kept to the plan's relations; no model call."""
    if limit is not None and limit < 1:
        raise UserError(f"limit must be at least 1, not {limit}")
    items = load_mcq(questions) if isinstance(questions, (str, Path)) else list(questions)
    knowledge = (load_knowledge(Path(kb), plan.relations) if isinstance(kb, (str, Path))
                 else kb.restricted(plan.relations))
    return build_anchors(items[:limit], knowledge, plan), knowledge


async def run_consistency(model: str | Model, questions: Path | str | Sequence[MCQItem],
                          kb: Path | str | KnowledgeBase, plan: ConsistencyPlan, *,
                          limit: int | None = None, resamples: int = 1000,
                          base_url: str | Sequence[str] | None = None,
                          settings: RunSettings | None = None) -> ConsistencyResult:
    """Ask the model every background fact and anchor question; CC, S_B, S_A and the tables
    (with `resamples` bootstrap draws for CC's interval), figures and summary.json.

    Questions and knowledge base are files or loaded objects (run.json records a file's path,
    null for a loaded object). With `settings.announce` (the CLI) a line on stderr counts the
    questions, edges and facts before the model is opened.
    """
    settings = settings or RunSettings()
    if isinstance(model, str):
        split_name(model)
    if resamples < 1:
        raise UserError(f"resamples must be at least 1, not {resamples}")
    anchors, knowledge = load_anchors(questions, kb, plan, limit=limit)
    if settings.announce:
        distinct = len({f.key for a in anchors for f in a.facts})
        print(f"{plural(len(anchors), 'question')}, "
              f"{plural(len(knowledge), 'knowledge-base edge')}; "
              f"{plural(distinct, 'distinct background fact')} to ask "
              f"({sum(len(a.facts) for a in anchors)} over the anchors)", file=sys.stderr)
    name = model_name(model)

    async def start(session: Session) -> Started[tuple[Model, str]]:
        opened = session.open_model(model, base_url=base_url)
        # settled before the run folder is made: a refusal leaves none behind
        method = await answering_method(opened, plan.answer_by)
        config = {"model": name, "questions": (pinned_source(questions)
                                               if isinstance(questions, (str, Path)) else None),
                  "kb": _source(kb),
                  "limit": limit, "base_url": base_url, **asdict(plan)}
        return Started(config, plan.seed, [opened], (opened, method))

    async def ask(context: Context[tuple[Model, str]]) -> None:
        model, answer_by = context.state
        await ask_anchors(context.runner, model, anchors, plan, context.store, answer_by)

    def finish(store: RunStore, _: object, made: Made) -> ConsistencyResult:
        summary = summarize_consistency(store.records(), resamples=resamples, seed=plan.seed)
        relations_png, bias_png = write_figures(summary, store.path)
        return ConsistencyResult(**vars(summary), run_dir=made.run_dir,
                                 relations_png=relations_png, bias_png=bias_png,
                                 seconds=made.seconds, usage=made.usage)

    return await run_method(settings, command="consistency", label=f"consistency {name}",
                            start=start, ask=ask, finish=finish)


def _source(data: object) -> str | None:
    """A data file's path as run.json records it; None for data loaded in Python."""
    return str(data) if isinstance(data, (str, Path)) else None
