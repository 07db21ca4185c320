"""The parameters of `verstehen consistency` and `consistency()`, declared once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.data.mcq import MCQ_SOURCE, MCQItem
from verstehen.engine.session import RunSettings
from verstehen.engine.store.inputs import FILE
from verstehen.methods.consistency.knowledge import RELATIONS_14, KnowledgeBase
from verstehen.methods.consistency.procedure import ANSWER_BY, ConsistencyPlan
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.run import run_consistency
from verstehen.methods.consistency.templates import STYLES
from verstehen.methods.options import (
    COUNT,
    SHARED,
    Options,
    api_functions,
    max_tokens_option,
    option,
    options_class,
    seed_option,
)
from verstehen.models import DEFAULT_MODEL, Model


def _relations(text: str) -> tuple[str, ...]:
    """--relations' comma-separated names."""
    return tuple(text.split(","))


@options_class
class ConsistencyOptions(Options):
    """What a conceptual-consistency run asks and how."""

    model: str | Model = option(default=DEFAULT_MODEL, help="provider/model", flag=SHARED,
                                kw_only=False)
    questions: Path | str | Sequence[MCQItem] = option(
        help="CSQA-format questions (jsonl), e.g. dev_rand_split.jsonl, or "
             "hf:DATASET[:CONFIG][@REVISION][#SPLIT] from the local Hugging Face cache, or "
             "hf:PATH[#SPLIT] a dataset folder on disk (PATH starting /, ./, ../ or ~) (from "
             "Python: a path, a spec or loaded items)", kind=Path, reads=MCQ_SOURCE)
    kb: Path | str | KnowledgeBase = option(
        help="knowledge base: TSV/CSV of relation,start,end[,weight], or ConceptNet's "
             "assertions CSV (from Python: a path or a loaded KnowledgeBase)", kind=Path,
        reads=FILE)
    limit: int | None = option(default=None, help="the first N questions", kind=int,
                               range=COUNT)
    relations: str | Sequence[str] = option(
        default=RELATIONS_14, help="comma-separated relations", read=_relations,
        shown="the paper's 14")
    max_path_length: int = option(
        default=1, help="background facts on KB paths up to this long between the "
                        "question's concepts (default {default}, the paper's)", range=COUNT)
    question_style: str = option(
        default="fixed", choices=sorted(STYLES),
        help="relation templates: grammar fixed, or appendix Table 2 verbatim")
    resamples: int = option(
        default=1000, range=COUNT,
        help="bootstrap resamples for the intervals of the overall CC and of the background "
             "score by relation (default {default}; the per-relation and per-concept intervals "
             "use 200 each)")
    answer_by: str = option(
        default="auto", choices=ANSWER_BY,
        help="likelihood: the paper's label likelihoods (a model without prompt "
             "log-probabilities is refused); generation: parsed yes/no replies, not the "
             "paper's method; default {default}: likelihood where the model gives prompt "
             "log-probabilities (a server's are probed once), else generation")
    seed: int = seed_option()
    max_tokens: int | None = max_tokens_option()


async def run_options(options: ConsistencyOptions, settings: RunSettings) -> ConsistencyResult:
    """Conceptual consistency of `model` on the first `limit` CSQA-format `questions` with
    background facts from `kb`: CC with its bootstrap interval, S_B, S_A and the breakdowns."""
    names = (tuple(options.relations.split(",")) if isinstance(options.relations, str)
             else tuple(options.relations))  # the plan's field is a tuple
    plan = ConsistencyPlan(relations=names, max_path_length=options.max_path_length,
                           template_style=options.question_style, seed=options.seed,
                           max_tokens=options.max_tokens, answer_by=options.answer_by)
    return await run_consistency(options.model, options.questions, options.kb, plan,
                                 limit=options.limit, resamples=options.resamples,
                                 base_url=settings.base_url, settings=settings)


consistency_async, consistency = api_functions(ConsistencyOptions, run_options, "consistency")
