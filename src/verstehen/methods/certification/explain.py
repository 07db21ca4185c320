"""Certification with explanations: the model writes a program per question family (sec. 5).

A family counts as explained when the model's reply holds code that defines the entry
function; that is decided by reading the code, before it runs, so the choice of explained
families cannot depend on how well the programs score. Each program then answers
`program_questions` fresh questions of its family in the sandbox (no model calls), and
Chernoff bounds on those scores stand in for the paper's exactly known s_α and r_α.
"""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.grading import Graded
from verstehen.methods.certification.decide import ExplainedFamily, certify_explained
from verstehen.methods.certification.procedure import Asker, CertifyPlan, scope_summary, scores_of
from verstehen.methods.certification.records import AnswerRecord, ExplanationRecord
from verstehen.methods.certification.sandbox import Limits, SandboxResult, run_program
from verstehen.methods.certification.sandbox import extract_code as code_in
from verstehen.methods.certification.scope_result import ScopeResult
from verstehen.models.base import GenerateParams, Model, user
from verstehen.scopes.base import ExplainableScope, Question

PROGRAM_TOKENS = 384
# A reply of PROGRAM_TOKENS tokens holds a few KB of code; even at 100 characters a token it is
# 38,400 characters. Longer text is no program we asked for, and bounds what ast.parse reads.
MAX_PROGRAM_CHARS = 50_000
DEFAULT_LIMITS = Limits()


@dataclass(frozen=True)
class SandboxLimit:
    """A family whose program could not be run to the end through no fault of its own (a
    sandbox limit on a busy machine, twice): it stays unscored and the scope has no verdict."""

    family: str
    reason: str


def defines_function(code: str, name: str) -> str | None:
    """None if `code` parses and defines `name` at top level; otherwise why not. Never raises:
    the size is capped, and every error of the parser (its depth guards raise RecursionError
    and MemoryError; NUL bytes and lone surrogates ValueError) is a reason."""
    if len(code) > MAX_PROGRAM_CHARS:
        return f"program of {len(code):,} characters, over the limit of {MAX_PROGRAM_CHARS:,}"
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return f"syntax error: {exc.msg} (line {exc.lineno})"
    except (RecursionError, MemoryError):
        return "syntax error: the program is nested too deeply to parse"
    except ValueError as exc:  # NUL bytes (3.11), lone surrogates (UnicodeEncodeError)
        return f"unreadable program: {type(exc).__name__}: {str(exc)[:200]}"
    except Exception as exc:
        return f"unreadable program: {exc!r:.200}"
    if not any(isinstance(node, ast.FunctionDef) and node.name == name for node in tree.body):
        return f"no function named {name}"
    return None


def offered_program(reply: str, entry: str) -> tuple[str | None, str | None]:
    """(code, None) when the reply holds code defining `entry`; (None, why not) otherwise."""
    code = code_in(reply)
    if code is None:
        return None, "no code in the reply"
    why = defines_function(code, entry)
    return (code, None) if why is None else (None, why)


def run_failure(run: SandboxResult, n_questions: int) -> str | None:
    """Why a run gives no usable outputs (it failed, or its outputs do not match the questions
    one to one); None when every question has an output to grade."""
    if not run.ok:
        return run.error if isinstance(run.error, str) else "the program failed"
    outputs = run.outputs
    if not isinstance(outputs, list) or len(outputs) != n_questions:
        count = len(outputs) if isinstance(outputs, list) else "no"
        return f"malformed sandbox result: {count} outputs for {n_questions} questions"
    if not all(isinstance(out, dict) and ("value" in out or isinstance(out.get("error"), str))
               for out in outputs):
        return "malformed sandbox result: an output is neither a value nor an error"
    return None


def grade_outputs(questions: Sequence[Question], run: SandboxResult,
                  grade: Callable[[Question, Any], Graded]) -> tuple[list[Graded], str | None]:
    """One grade per question and the run's failure (None if it ran); never raises: a failed or
    malformed run scores 0 on every question, and so does an output the grader chokes on."""
    failure = run_failure(run, len(questions))
    graded: list[Graded] = []
    for i, q in enumerate(questions):
        out = run.outputs[i] if failure is None else None
        if isinstance(out, dict) and "value" in out:
            try:
                graded.append(grade(q, out["value"]))
            except Exception as exc:
                graded.append(Graded(0.0, "unparsed", reason=f"grading failed: {exc!r:.300}"))
            continue
        why = failure if failure is not None else out.get("error")  # type: ignore[union-attr]
        graded.append(Graded(0.0, "unparsed", reason=f"program failed: {why}"))
    return graded, failure


async def explain_family(runner: Runner, model: Model, scope: ExplainableScope,
                         store: RunStore, family: str, index: int, seed: int,
                         program_questions: int, limits: Limits = DEFAULT_LIMITS
                         ) -> ExplainedFamily | SandboxLimit | None:
    """Ask for one family's program; run it on fresh questions; None if no program was offered,
    a SandboxLimit if the sandbox could not run it to the end, twice, for reasons of its own."""
    rng = np.random.default_rng([seed, 1, index])
    shown = scope.sample_family(rng, family)
    prompt = scope.program_prompt(shown)
    params = GenerateParams(temperature=0.0, max_tokens=PROGRAM_TOKENS, seed=seed)
    result = await runner.generate(model, user(prompt), params)
    record: ExplanationRecord = {"kind": "explanation", "scope": scope.name, "model": model.name,
                              "family": family, "prompt": prompt,
                              "text": result.value.text if result.ok else None,
                              "error": result.error, "offered": False, "reason": None}
    code = None
    if result.ok:  # reading a long reply takes a while: off the event loop
        code, record["reason"] = await asyncio.to_thread(offered_program, result.value.text,
                                                         scope.program_entry)
    if code is None:
        store.append(record)
        return None
    questions = [scope.sample_family(rng, family) for _ in range(program_questions)]
    inputs = [scope.program_args(q) for q in questions]
    run = await asyncio.to_thread(run_program, code, scope.program_entry, inputs, limits)
    if run.infrastructure:  # a busy machine: once more, then the family stays unscored
        run = await asyncio.to_thread(run_program, code, scope.program_entry, inputs, limits)
    if run.infrastructure:
        reason = run.error or "sandbox limit"
        record.update({"offered": True, "code": code, "program_ok": False,
                       "program_error": reason, "sandbox_limit": True,
                       "questions": len(questions), "mean_score": None, "ridiculous": None,
                       "examples": []})
        store.append(record)
        return SandboxLimit(family, reason)
    graded, failure = grade_outputs(questions, run, scope.grade_output)
    record.update({
        "offered": True, "code": code, "program_ok": failure is None, "program_error": failure,
        "sandbox_limit": False,
        "seconds": round(run.seconds, 3) if isinstance(run.seconds, float) else None,
        "questions": len(graded), "mean_score": float(np.mean([g.score for g in graded])),
        "ridiculous": sum(g.ridiculous for g in graded),
        "examples": [{"args": args, "score": g.score, "parsed": g.parsed, "reason": g.reason}
                     for args, g in list(zip(inputs, graded, strict=True))[:5]]})
    store.append(record)
    return ExplainedFamily(family, scope.families[family],
                           scores=np.array([g.score for g in graded]))


async def run_explained(runner: Runner, model: Model, scope: ExplainableScope, store: RunStore,
                        plan: CertifyPlan, program_questions: int) -> ScopeResult:
    """Procedure 5.1: explained families from programs, the rest from `plan.questions` answers."""
    runner.progress.add_total(len(scope.families))  # a program asked for each family
    with runner.progress.growing():  # then the questions of the families left unexplained
        found = await asyncio.gather(*(
            explain_family(runner, model, scope, store, family, k, plan.seed, program_questions)
            for k, family in enumerate(sorted(scope.families))))
    explained = [fam for fam in found if isinstance(fam, ExplainedFamily)]
    limited = [fam for fam in found if isinstance(fam, SandboxLimit)]
    covered = {fam.family for fam in explained} | {fam.family for fam in limited}
    asker = Asker(runner, model, scope, store, plan)
    records: list[AnswerRecord] = []
    if len(covered) < len(scope.families):
        records = await asker.ask_range(0, plan.questions, keep=lambda q: q.family not in covered)
    verdict = None
    if not asker.errors and not limited:  # an unscored family leaves the scope undecided
        c = plan.criterion
        verdict = certify_explained(scores_of(records), explained, c.pg, c.rid, c.delta)
    summary = scope_summary(scope, records, verdict, None, asker.errors,
                            tuple(sorted(fam.family for fam in explained)))
    return replace(summary, sandbox_limits={fam.family: fam.reason for fam in limited})
