"""Incoherence (Mancoridis et al., ICML 2025, section 4.1, appendices K and L).

The model writes an instance or a non-instance of a concept, then, in a fresh conversation,
classifies its own example. Incoherence = 2 x the share of mismatches (0 coherent, 1 chance).
For exactly-graded concepts the checker also says whether the example really is an instance, so
"wrong" (the example misses the concept) and "incoherent" (the model disowns its example) are
told apart.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from typing import Any

from verstehen.domains.catalog import DOMAINS, Concept
from verstehen.engine.runner import Runner
from verstehen.engine.store import RunStore
from verstehen.models.base import GenerateParams, Model, user
from verstehen.parse import parse_yes_no
from verstehen.prompts import prompt
from verstehen.stats.rates import rate_se

GENERATE_TOKENS, CLASSIFY_TOKENS = 400, 64


@dataclass(frozen=True)
class IncoherencePlan:
    """Examples per concept and polarity, generation temperature, answer budget cap, seed."""

    per_concept: int = 5
    temperature: float = 0.7
    max_tokens: int | None = None
    seed: int = 0


def generate_prompt(concept: Concept, want: bool) -> str:
    """Ask for an instance (want) or a non-instance, in a form the checker can read."""
    from verstehen.methods.potemkin.instances import INSTANCE_REQUESTS

    polarity = "is an instance" if want else "is not an instance"
    form = INSTANCE_REQUESTS.get(concept.scope or "", "")
    return prompt("potemkin/incoherence_generate", polarity=polarity, name=concept.name,
                  form=form).strip()


async def _pair(runner: Runner, model: Model, concept: Concept, want: bool, index: int,
                plan: IncoherencePlan, store: RunStore) -> None:
    cap = plan.max_tokens or 10**9
    ask = generate_prompt(concept, want)
    made = await runner.generate(
        model, user(ask), GenerateParams(temperature=plan.temperature, seed=plan.seed,
                                         max_tokens=min(GENERATE_TOKENS, cap)),
        sample_index=index)
    record: dict[str, Any] = {
        "kind": "pair", "model": model.name, "concept": concept.key, "domain": concept.domain,
        "want": want, "index": index, "generate_prompt": ask, "example": None,
        "classify_prompt": None, "classify_text": None, "said": None, "mismatch": None,
        "is_instance": None, "check_reason": None, "error": made.error,
    }
    if made.ok:
        example = made.value.text.strip()
        question = prompt("potemkin/classify", name=concept.name, example=example)
        judged = await runner.generate(model, user(question), GenerateParams(
            temperature=0.0, seed=plan.seed, max_tokens=min(CLASSIFY_TOKENS, cap)))
        record.update(example=example, classify_prompt=question, error=judged.error)
        if judged.ok:
            said = parse_yes_no(judged.value.text)
            record.update(classify_text=judged.value.text, said=said,
                          mismatch=None if said is None else said != want)
        if concept.scope:
            from verstehen.methods.potemkin.instances import instance_check

            check = instance_check(concept.scope, example)
            record.update(is_instance=check.is_instance, check_reason=check.reason)
    store.append(record)


async def run_incoherence(runner: Runner, model: Model, concepts: list[Concept],
                          store: RunStore, plan: IncoherencePlan) -> dict[str, Any]:
    """Generate and self-classify per_concept instances and non-instances of each concept."""
    jobs = [(c, want, i) for c in concepts for want in (True, False)
            for i in range(plan.per_concept)]
    runner.progress.add_total(2 * len(jobs))
    await asyncio.gather(*(_pair(runner, model, c, want, i, plan, store)
                           for c, want, i in jobs))
    summary = summarize_incoherence(list(store.records()))
    summary["run"] = str(store.path)
    store.write_summary(summary)
    return summary


def incoherence(records: list[dict[str, Any]]) -> dict[str, Any]:
    """2 x mismatch rate with SE and n over classified pairs; unparsed ones counted apart."""
    judged = [r for r in records if r["mismatch"] is not None]
    unparsed = sum(r["error"] is None and r["said"] is None for r in records)
    out: dict[str, Any] = {"n": len(judged), "unparsed": unparsed,
                           "incoherence": None, "se": None}
    if judged:
        rate, se = rate_se(sum(r["mismatch"] for r in judged), len(judged))
        out.update(incoherence=2 * rate, se=2 * se)
    return out


def checked(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Checker's view: how often the example misses what was asked, crossed with coherence."""
    tested = [r for r in records if r["is_instance"] is not None]
    out: dict[str, Any] = {"n": len(tested), "wrong": None, "se": None, "cells": {}}
    if not tested:
        return out
    rate, se = rate_se(sum(r["is_instance"] != r["want"] for r in tested), len(tested))
    cells = Counter(
        ("right" if r["is_instance"] == r["want"] else "wrong") + ", "
        + ("unparsed" if r["mismatch"] is None else
           "incoherent" if r["mismatch"] else "coherent") for r in tested)
    out.update(wrong=rate, se=se, cells=dict(sorted(cells.items())))
    return out


def summarize_incoherence(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Incoherence per domain and overall (paper Table 7), plus the checker's view."""
    pairs = [r for r in records if r["kind"] == "pair"]
    done = [r for r in pairs if r["error"] is None]
    by_domain = {DOMAINS[d]: incoherence([r for r in done if r["domain"] == d])
                 for d in DOMAINS if any(r["domain"] == d for r in done)}
    return {
        "model": pairs[0]["model"] if pairs else None,
        "by_domain": by_domain,
        "overall": incoherence(done),
        "checker": checked(done),
        "unchecked_reasons": dict(Counter(
            r["check_reason"] for r in done
            if r["is_instance"] is None and r["check_reason"]).most_common(5)),
        "failed_calls": len(pairs) - len(done),
    }
