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
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from verstehen.domains.base import LONG_ANSWER_TOKENS, SHORT_ANSWER_TOKENS
from verstehen.domains.catalog import CONCEPTS, DOMAINS, Concept, canonical_name
from verstehen.engine.lifecycle import Context, Made, Started, run_method
from verstehen.engine.runner import Runner
from verstehen.engine.session import RunSettings, Session
from verstehen.engine.store import RunStore
from verstehen.engine.usage import ModelUsage
from verstehen.errors import UserError
from verstehen.methods.potemkin.instances import INSTANCE_REQUESTS, instance_check
from verstehen.methods.potemkin.items import resolve_concepts
from verstehen.methods.potemkin.lines import IncoherenceConfig, PairRecord, pair_lines
from verstehen.methods.potemkin.results import CheckerView, Incoherence, PotemkinIncoherenceResult
from verstehen.methods.potemkin.run import check_max_tokens
from verstehen.models.base import GenerateParams, Model, model_name, user
from verstehen.parse import parse_yes_no
from verstehen.prompts import prompt
from verstehen.stats.rates import rate_se

COMMAND = "potemkin-incoherence"

GENERATE_TOKENS, CLASSIFY_TOKENS = LONG_ANSWER_TOKENS, SHORT_ANSWER_TOKENS


@dataclass(frozen=True)
class IncoherencePlan:
    """Examples per concept and polarity, generation temperature, the answer budget (None:
    each prompt's own), seed."""

    per_concept: int = 5
    temperature: float = 0.7
    max_tokens: int | None = None
    seed: int = 0


def generate_prompt(concept: Concept, want: bool) -> str:
    """Ask for an instance (want) or a non-instance, in a form the checker can read."""
    polarity = "is an instance" if want else "is not an instance"
    form = INSTANCE_REQUESTS.get(concept.scope or "", "")
    return prompt("potemkin/incoherence_generate", polarity=polarity, name=concept.name,
                  form=form).strip()


async def _pair(runner: Runner, model: Model, concept: Concept, want: bool, index: int,
                plan: IncoherencePlan, store: RunStore) -> None:
    ask = generate_prompt(concept, want)
    made = await runner.generate(
        model, user(ask), GenerateParams(temperature=plan.temperature, seed=plan.seed,
                                         max_tokens=plan.max_tokens or GENERATE_TOKENS),
        sample_index=index)
    record: PairRecord = {
        "kind": "pair", "model": model.name, "concept": concept.key, "domain": concept.domain,
        "want": want, "index": index, "generate_prompt": ask, "example": None,
        "classify_prompt": None, "classify_text": None, "said": None, "mismatch": None,
        "is_instance": None, "check_reason": None, "error": made.error,
    }
    if made.ok:
        example = made.value.text.strip()
        question = prompt("potemkin/classify", name=concept.name, example=example)
        judged = await runner.generate(model, user(question), GenerateParams(
            temperature=0.0, seed=plan.seed, max_tokens=plan.max_tokens or CLASSIFY_TOKENS))
        record["example"], record["classify_prompt"] = example, question
        record["error"] = judged.error
        if judged.ok:
            said = parse_yes_no(judged.value.text)
            record["classify_text"], record["said"] = judged.value.text, said
            record["mismatch"] = None if said is None else said != want
        if concept.scope:
            check = instance_check(concept.scope, example)
            record["is_instance"], record["check_reason"] = check.is_instance, check.reason
    store.append(dict(record))


async def ask_pairs(runner: Runner, model: Model, concepts: Sequence[Concept],
                    store: RunStore, plan: IncoherencePlan) -> None:
    """Generate and self-classify per_concept instances and non-instances of each concept."""
    jobs = [(c, want, i) for c in concepts for want in (True, False)
            for i in range(plan.per_concept)]
    runner.progress.add_total(2 * len(jobs))
    await asyncio.gather(*(_pair(runner, model, c, want, i, plan, store)
                           for c, want, i in jobs))


def incoherence(records: Sequence[PairRecord]) -> Incoherence:
    """2 x mismatch rate with SE and n over classified pairs; unparsed ones counted apart."""
    judged = [r for r in records if r["mismatch"] is not None]
    unparsed = sum(r["error"] is None and r["said"] is None for r in records)
    if not judged:
        return Incoherence(0, unparsed, None, None)
    rate, se = rate_se(sum(r["mismatch"] is True for r in judged), len(judged))
    return Incoherence(len(judged), unparsed, 2 * rate, 2 * se)


def checked(records: Sequence[PairRecord]) -> CheckerView:
    """Checker's view: how often the example misses what was asked, crossed with coherence."""
    tested = [r for r in records if r["is_instance"] is not None]
    if not tested:
        return CheckerView(0, None, None, {})
    rate, se = rate_se(sum(r["is_instance"] != r["want"] for r in tested), len(tested))
    cells = Counter(
        ("right" if r["is_instance"] == r["want"] else "wrong") + ", "
        + ("unparsed" if r["mismatch"] is None else
           "incoherent" if r["mismatch"] else "coherent") for r in tested)
    return CheckerView(len(tested), rate, se, dict(sorted(cells.items())))


def summarize_incoherence(pairs: Sequence[PairRecord], *, model: str, run_dir: Path,
                          seconds: float, usage: dict[str, ModelUsage]
                          ) -> PotemkinIncoherenceResult:
    """Incoherence per domain and overall (paper Table 7), plus the checker's view."""
    done = [_named_now(r) for r in pairs if r["error"] is None]
    by_domain = {DOMAINS[d]: incoherence([r for r in done if r["domain"] == d])
                 for d in DOMAINS if any(r["domain"] == d for r in done)}
    return PotemkinIncoherenceResult(
        model=model, by_domain=by_domain, overall=incoherence(done), checker=checked(done),
        unchecked_reasons=dict(Counter(
            r["check_reason"] for r in done
            if r["is_instance"] is None and r["check_reason"]).most_common(5)),
        failed_calls=len(pairs) - len(done), run_dir=run_dir, seconds=seconds, usage=usage)


def _named_now(pair: PairRecord) -> PairRecord:
    """The pair with its domain as verstehen names it now (an old run's names too)."""
    renamed = pair.copy()
    renamed["domain"] = canonical_name(pair["domain"])
    return renamed


def plan_incoherence(*, per_concept: int = 5, temperature: float = 0.7,
                     max_tokens: int | None = None, seed: int = 0) -> IncoherencePlan:
    """The checked plan (every count at least 1, the temperature at least 0)."""
    check_max_tokens(max_tokens)
    if per_concept < 1:
        raise UserError(f"--per-concept must be at least 1, not {per_concept}")
    if temperature < 0:
        raise UserError(f"--temperature must be at least 0, not {temperature}")
    return IncoherencePlan(per_concept, temperature, max_tokens, seed)


async def run_incoherence(model: str | Model, plan: IncoherencePlan, *,
                          concepts: str | Sequence[str] | None = None,
                          base_url: str | Sequence[str] | None = None,
                          settings: RunSettings | None = None,
                          session: Session | None = None) -> PotemkinIncoherenceResult:
    """Generate and self-classify examples of each concept (keys, names or domains; default
    all 32) into a new run folder; incoherence per domain and overall. In an open `session`,
    it is left open."""
    settings = settings or RunSettings()
    name = model_name(model)
    picked = resolve_concepts([concepts] if isinstance(concepts, str) else concepts, CONCEPTS)

    async def start(session: Session) -> Started[Model]:
        opened = session.open_model(model, base_url=base_url)
        config: IncoherenceConfig = {
            "model": name, "concepts": [c.key for c in picked], "per_concept": plan.per_concept,
            "temperature": plan.temperature, "max_tokens": plan.max_tokens, "base_url": base_url}
        return Started(config, plan.seed, [opened], opened)

    async def ask(context: Context[Model]) -> None:
        await ask_pairs(context.runner, context.state, picked, context.store, plan)

    def finish(store: RunStore, _: object, made: Made) -> PotemkinIncoherenceResult:
        return summarize_incoherence(pair_lines(store.records()), model=name,
                                     run_dir=made.run_dir, seconds=made.seconds,
                                     usage=made.usage)

    return await run_method(settings, command=COMMAND, label=f"incoherence {name}",
                            start=start, ask=ask, finish=finish, session=session)
