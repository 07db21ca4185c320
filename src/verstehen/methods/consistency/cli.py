"""`verstehen consistency`: conceptual consistency (Sahu et al., ICLR 2023), flags and handler."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

from verstehen.cli.flags import Parser, model_flag, positive_int, run_flags, settings_from
from verstehen.cli.runs import finish
from verstehen.methods.consistency.knowledge import RELATIONS_14
from verstehen.methods.consistency.procedure import ANSWER_BY, ConsistencyPlan
from verstehen.methods.consistency.run import run_consistency
from verstehen.methods.consistency.templates import STYLES


def add_parsers(commands: argparse._SubParsersAction, engine: Parser) -> None:
    """Add `consistency`."""
    cc = commands.add_parser("consistency", parents=[run_flags(engine)],
                             help="does knowing the background facts predict answering the "
                                  "question? (conceptual consistency, Sahu et al. 2023)")
    model_flag(cc)
    cc.add_argument("--questions", type=Path, required=True,
                    help="CSQA-format questions (jsonl), e.g. dev_rand_split.jsonl")
    cc.add_argument("--kb", type=Path, required=True,
                    help="knowledge base: TSV/CSV of relation,start,end[,weight], or "
                         "ConceptNet's assertions CSV")
    cc.add_argument("--limit", type=positive_int, default=None, help="the first N questions")
    cc.add_argument("--relations", default=",".join(RELATIONS_14),
                    help="comma-separated relations (default the paper's 14)")
    cc.add_argument("--max-path-length", type=positive_int, default=1,
                    help="background facts on KB paths up to this long between the "
                         "question's concepts (default 1, the paper's)")
    cc.add_argument("--question-style", choices=sorted(STYLES), default="fixed",
                    help="relation templates: grammar fixed, or appendix Table 2 verbatim")
    cc.add_argument("--resamples", type=positive_int, default=1000,
                    help="bootstrap resamples for the intervals of the overall CC and of "
                         "the background score by relation (default 1000; the per-relation "
                         "and per-concept intervals use 200 each)")
    cc.add_argument("--answer-by", choices=ANSWER_BY, default="auto",
                    help="likelihood: the paper's label likelihoods (a model without prompt "
                         "log-probabilities is refused); generation: parsed yes/no replies, "
                         "not the paper's method; default auto: likelihood where the model "
                         "gives prompt log-probabilities (a server's are probed once), else "
                         "generation")
    cc.set_defaults(func=cmd_consistency)


def cmd_consistency(args: argparse.Namespace) -> int:
    """Ask the background facts and the anchor questions; print CC, S_B, S_A and the tables."""
    plan = ConsistencyPlan(relations=args.relations, max_path_length=args.max_path_length,
                           template_style=args.question_style, seed=args.seed,
                           max_tokens=args.max_tokens, answer_by=args.answer_by)
    result = asyncio.run(run_consistency(
        args.model, args.questions, args.kb, plan, limit=args.limit, resamples=args.resamples,
        base_url=args.base_url, settings=settings_from(args)))
    return finish(args, result, lambda done: print(done.text()))
