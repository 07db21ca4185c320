"""`verstehen consistency`: conceptual consistency (Sahu et al., ICLR 2023)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from verstehen.errors import UserError


def add_parsers(commands: Any, engine: argparse.ArgumentParser) -> None:
    """Add `consistency`."""
    from verstehen.cli.flags import run_flags
    from verstehen.methods.consistency.knowledge import RELATIONS_14
    from verstehen.models import DEFAULT_MODEL

    cc = commands.add_parser("consistency", parents=[run_flags(engine)],
                             help="does knowing the background facts predict answering the "
                                  "question? (conceptual consistency, Sahu et al. 2023)")
    cc.set_defaults(func=lambda args: cmd_consistency(args, args.argv))
    cc.add_argument("--model", default=DEFAULT_MODEL, help=f"default {DEFAULT_MODEL}")
    cc.add_argument("--questions", type=Path, required=True,
                    help="CSQA-format questions (jsonl), e.g. dev_rand_split.jsonl")
    cc.add_argument("--kb", type=Path, required=True,
                    help="knowledge base: TSV/CSV of relation,start,end[,weight], or "
                         "ConceptNet's assertions CSV")
    cc.add_argument("--limit", type=int, default=None, help="the first N questions")
    cc.add_argument("--relations", default=",".join(RELATIONS_14),
                    help="comma-separated relations (default the paper's 14)")
    cc.add_argument("--max-path-length", type=int, default=1,
                    help="background facts on KB paths up to this long between the "
                         "question's concepts (default 1, the paper's)")
    cc.add_argument("--question-style", choices=["fixed", "paper"], default="fixed",
                    help="relation templates: grammar fixed, or appendix Table 2 verbatim")
    cc.add_argument("--resamples", type=int, default=1000,
                    help="bootstrap resamples for the overall CC's interval (default 1000; "
                         "the per-relation and per-concept intervals use 200 each)")


def _plan(args: argparse.Namespace) -> tuple[Any, Any, list[Any]]:
    """Check flags and data and build every anchor before any call."""
    from verstehen.data.mcq import load_mcq
    from verstehen.methods.consistency.knowledge import load_knowledge, normalize_relation
    from verstehen.methods.consistency.run import ConsistencyPlan, build_anchors

    for flag, value in (("--limit", args.limit), ("--max-path-length", args.max_path_length),
                        ("--resamples", args.resamples), ("--max-tokens", args.max_tokens)):
        if value is not None and value < 1:
            raise UserError(f"{flag} must be at least 1, not {value}")
    relations = tuple(dict.fromkeys(normalize_relation(r) for r in args.relations.split(",")
                                    if r.strip()))
    if not relations:
        raise UserError("--relations is empty: give relation names, e.g. IsA,UsedFor")
    items = load_mcq(args.questions)[: args.limit]
    kb = load_knowledge(args.kb, relations)
    plan = ConsistencyPlan(relations=relations, max_path_length=args.max_path_length,
                           template_style=args.question_style, seed=args.seed,
                           max_tokens=args.max_tokens)
    return plan, kb, build_anchors(items, kb, plan)


def cmd_consistency(args: argparse.Namespace, argv: list[str]) -> int:
    """Ask the background facts and the anchor questions; print CC, S_B, S_A and the tables."""
    from dataclasses import asdict

    from verstehen.cli.legacy import create_store, finish_run
    from verstehen.engine.store import RunStore
    from verstehen.methods.consistency.run import run_consistency
    from verstehen.methods.consistency.summary import summarize_consistency, write_figures
    from verstehen.models import split_name

    split_name(args.model)
    plan, kb, anchors = _plan(args)

    async def body(session: Any) -> dict[str, Any]:
        model = session.open_model(args.model, base_url=args.base_url)
        store = create_store(args, argv, "consistency", {
            "model": args.model, "questions": str(args.questions), "kb": str(args.kb),
            "limit": args.limit, "base_url": args.base_url, **asdict(plan)},
            [model.identity()])
        done = await run_consistency(session.runner, model, anchors, plan, store)
        summary = summarize_consistency(list(RunStore(store.path).records()),
                                        resamples=args.resamples, seed=args.seed)
        summary.update(done, **write_figures(summary, store.path))
        return summary

    distinct = len({f.key for a in anchors for f in a.facts})
    print(f"{len(anchors)} questions, {len(kb)} knowledge-base edges; {distinct} distinct "
          f"background facts to ask ({sum(len(a.facts) for a in anchors)} over the anchors)",
          file=sys.stderr)
    return finish_run(args, f"consistency {args.model}", body, _show)


def _show(summary: dict[str, Any]) -> None:
    from verstehen.methods.consistency.summary import summary_text

    print(summary_text(summary))
    print(f"\n{summary['seconds']} s; records and figures in {summary['run']}")
