"""Running certification on one model and several scopes, for `certify` and `audit`."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from verstehen.cli.main import EXIT_CALL_FAILED, print_json, run_async, session_from
from verstehen.engine.session import Session
from verstehen.engine.store import RunStore, default_runs_dir
from verstehen.errors import UserError
from verstehen.methods.certification.decide import Criterion
from verstehen.methods.certification.procedure import CertifyPlan, run_certify
from verstehen.methods.certification.report import explain, verdict_row
from verstehen.models import DEFAULT_MODEL
from verstehen.report.tables import table
from verstehen.scopes import get_scope
from verstehen.scopes.base import ExplainableScope, Scope

DEFAULT_QUESTIONS, DEFAULT_MAX_QUESTIONS = 100, 1024
HEADER = ["scope", "verdict", "n", "mean score [L, U]", "ridiculous [L, U]", "decided by",
          "more"]


def plan_from(args: argparse.Namespace, criterion: Criterion) -> CertifyPlan:
    """The checked question plan of the flags."""
    if args.sequential and args.questions is not None:
        raise UserError("give --questions N (fixed) or --sequential --max-questions N, not both")
    n = (args.max_questions or DEFAULT_MAX_QUESTIONS) if args.sequential else (
        args.questions or DEFAULT_QUESTIONS)
    if n < 1:
        raise UserError(f"the number of questions must be at least 1, not {n}")
    if args.first_look < 1 or (args.sequential and args.first_look > n):
        raise UserError(f"--first-look must lie in [1, {n}], not {args.first_look}")
    if args.rephrase < 0:
        raise UserError(f"--rephrase must be at least 0, not {args.rephrase}")
    if args.explanations and args.sequential:
        raise UserError("--explanations works with --questions N, not with --sequential")
    if args.explanations and args.program_questions < 1:
        raise UserError("--program-questions must be at least 1")
    return CertifyPlan(criterion, n, sequential=args.sequential, first_look=args.first_look,
                       seed=args.seed, rephrase=args.rephrase)


def scopes_from(args: argparse.Namespace, specs: list[str]) -> list[Scope]:
    """Build every scope before any model call, so a bad spec costs nothing."""
    scopes = [get_scope(spec, idk_score=args.idk_score, wrong_score=args.wrong_score)
              for spec in specs]
    if args.explanations:
        for scope in scopes:
            if not isinstance(scope, ExplainableScope):
                raise UserError(f"scope {scope.name} has no question families a program could "
                                "answer: drop --explanations")
    return scopes


def run_scopes(args: argparse.Namespace, argv: list[str], criterion: Criterion,
               specs: list[str], *, command: str) -> int:
    """Certify args.model on each scope into one run folder; print verdicts; exit code."""
    plan = plan_from(args, criterion)
    scopes = scopes_from(args, specs)
    model_name = args.model or DEFAULT_MODEL

    async def go() -> int:
        session = session_from(args, f"{command} {model_name}")
        started = time.monotonic()
        try:
            model = session.open_model(model_name, base_url=args.base_url)
            store = RunStore.create(
                args.runs_dir or default_runs_dir(), command=command, argv=argv,
                config={"model": model_name, "scopes": specs, "pg": criterion.pg,
                        "rid": criterion.rid, "delta": criterion.delta,
                        "questions": plan.questions, "sequential": plan.sequential,
                        "first_look": plan.first_look, "rephrase": plan.rephrase,
                        "explanations": args.explanations, "base_url": args.base_url},
                seed=plan.seed, models=[model.identity()])
            print(f"run folder: {store.path}", file=sys.stderr)
            summaries = []
            for scope in scopes:
                summaries.append(await certify_one(session, model, scope, store, plan, args))
        finally:
            await session.close()
        summary = {"run": str(store.path), "model": model_name,
                   "criterion": {"pg": criterion.pg, "rid": criterion.rid,
                                 "delta": criterion.delta},
                   "scopes": summaries, "seconds": round(time.monotonic() - started, 1),
                   "usage": session.runner.usage_summary()}
        store.write_summary(summary)
        show(summary, as_json=args.json)
        return EXIT_CALL_FAILED if any(s["failed_calls"] for s in summaries) else 0

    return run_async(go())


async def certify_one(session: Session, model: Any, scope: Scope, store: RunStore,
                      plan: CertifyPlan, args: argparse.Namespace) -> dict[str, Any]:
    """One scope's certification, with or without explanations."""
    if args.explanations:
        from verstehen.methods.certification.explain import run_explained

        assert isinstance(scope, ExplainableScope)
        return await run_explained(session.runner, model, scope, store, plan,
                                   args.program_questions)
    return await run_certify(session.runner, model, scope, store, plan)


def show(summary: dict[str, Any], *, as_json: bool) -> None:
    """Print the summary: one JSON object, or a table and each verdict in words."""
    if as_json:
        print_json(summary)
        return
    c = summary["criterion"]
    print(f"{summary['model']}: PG {c['pg']:g}, RID {c['rid']:.6g}, δ {c['delta']:g}")
    print(table(HEADER, [verdict_row(s) for s in summary["scopes"]]))
    for scope in summary["scopes"]:
        print(f"\n{scope['scope']}:")
        if scope["verdict"] is None:
            print(f"  {scope['failed_calls']} calls failed; rerun the same command to retry "
                  "them (answers already given come from the cache)")
            continue
        print("\n".join(explain(scope["verdict"])))
        outcomes = ", ".join(f"{k} {v}" for k, v in scope["outcomes"].items())
        print(f"  answers: {outcomes}")
        families = scope.get("by_family") or {}
        if len(families) > 1:
            print("  by family: " + "; ".join(
                f"{f} {g['mean']:.3f} ± {g['se']:.3f} (n {g['n']})" for f, g in families.items()))
        if scope["unparsed_reasons"]:
            top = next(iter(scope["unparsed_reasons"]))
            print(f"  unparsed answers, most common reason: {top}")
        if (r := scope.get("rephrase")) is not None:
            print(f"  rephrased: score changed on {r['disagreements']} of {r['n']} questions "
                  f"({r['rate']:.0%} ± {r['se']:.0%})")
    print(f"\nrecords: {summary['run']}/records.jsonl ({summary['seconds']} s)")
