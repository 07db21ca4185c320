"""What an audit asks: the subjects' targets (exact concepts, or arithmetic scopes), the
criterion, the budget, and whether that budget can reach every verdict: one that cannot
certify even a perfect model gets a warning before anything is loaded or asked.

A target is certified on its scope. A concept target is also asked for its definition (the
keystone) and for its own examples (incoherence); its certification answers are the use
answers of the Potemkin lens, since they are classify, generate and edit items graded exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from verstehen.domains.catalog import (
    BUILT_IN_DOMAINS,
    BY_KEY,
    CONCEPTS,
    DOMAINS,
    PAPER_CONCEPTS,
    Concept,
    canonical_name,
)
from verstehen.errors import UserError
from verstehen.methods.certification.plan import DEFAULT_DELTA, DEFAULT_PG, DEFAULT_RID
from verstehen.methods.certification.scopes.concepts import STRATA
from verstehen.methods.certification.scopes.draw import PHRASINGS
from verstehen.methods.certification.sequential import (
    budget_warnings,
    first_decisive_look,
    schedule_of,
)
from verstehen.methods.certification.verdict import DEFAULT_TEST, SEQUENTIAL_TESTS, Criterion
from verstehen.wording import parameter, setting

ARITHMETIC = ("arithmetic/small", "arithmetic")
DEFAULT_SUBJECT = "game-theory"
# The criterion is certify's (DEFAULT_CRITERION: PG 0.8, RID 0.2, δ 0.05): 0/1 scores make
# every wrong answer ridiculous, so RID = 1 - PG asks one thing of a concept, accuracy of at
# least PG. The betting test looks at 8, 12, 16, 20, ..., 512 (about 1/8 apart, in whole
# blocks of a concept's four strata): a model that is always wrong is told so after 8
# questions, a perfect one is certified after 20 (18 on arithmetic, one answer a block;
# `reach` computes both), and a good but imperfect one gets the questions it needs while
# "understands" is within reach (true accuracy 0.9: certified in over 99.9% of runs after 111
# questions on average, bench/audit_power.py).
DEFAULT_MAX_QUESTIONS, DEFAULT_FIRST_LOOK = 512, 8
# a concept's questions come in blocks holding each stratum once (ConceptScope, scopes.draw)
CONCEPT_BLOCK = sum(len(strata) for strata in STRATA.values())


@dataclass(frozen=True)
class Target:
    """One thing an audit certifies: a concept (with its definition) or an arithmetic scope."""

    key: str              # "game-theory/strict-dominance", or "arithmetic/small"
    name: str             # "Strict Dominance", or the scope's name
    subject: str          # the catalog domain ("game-theory", "poetry") or "arithmetic"
    scope: str            # the certification scope
    concept: Concept | None = None

    @property
    def block(self) -> int:
        """How many answers a block of its draws holds (the betting test looks at whole
        blocks): a concept's four strata, else one."""
        return CONCEPT_BLOCK if self.concept is not None else 1


@dataclass(frozen=True)
class Reach:
    """Where the sequential test decides for a perfect model (every answer right) and for one
    whose every answer is ridiculous; None when the budget never does."""

    understands_at: int | None
    does_not_at: int | None


@dataclass(frozen=True)
class AuditPlan:
    """The checked plan: targets, criterion, budget per target, and the per-concept extras."""

    targets: tuple[Target, ...]
    subjects: tuple[str, ...]
    criterion: Criterion
    max_questions: int = DEFAULT_MAX_QUESTIONS
    first_look: int = DEFAULT_FIRST_LOOK
    rephrase: int = 0
    examples: int = 1          # incoherence: instances, and as many non-instances, per concept
    seed: int = 0
    max_tokens: int | None = None
    phrasings: str = "benchmark"
    # None: the default (the betting test), or a resumed audit's own (`run.resolved_test`)
    sequential_test: str | None = None

    @property
    def test(self) -> str:
        """The sequential test the targets are certified by."""
        return self.sequential_test or DEFAULT_TEST

    @property
    def concepts(self) -> tuple[Concept, ...]:
        """The targets that are concepts (asked to define and to make examples)."""
        return tuple(t.concept for t in self.targets if t.concept is not None)

    def reach_of(self, target: Target) -> Reach:
        """Where a perfect and an always-wrong model are decided on this target."""
        return reach(self.criterion, self.first_look, self.max_questions, test=self.test,
                     block=target.block)

    @property
    def reach(self) -> Reach:
        """Which verdicts the budget can reach at all, and after how many questions every
        target has reached it (the latest target's; None when one never does)."""
        reaches = [self.reach_of(t) for t in self.targets] or [
            reach(self.criterion, self.first_look, self.max_questions, test=self.test)]

        def latest(found: list[int | None]) -> int | None:
            return None if None in found else max(n for n in found if n is not None)

        return Reach(latest([r.understands_at for r in reaches]),
                     latest([r.does_not_at for r in reaches]))


def reach(criterion: Criterion, first_look: int, max_questions: int, *,
          test: str = DEFAULT_TEST, block: int = 1) -> Reach:
    """Where a perfect model, and an always-ridiculous one, get their verdicts (looks in whole
    blocks of `block` answers)."""
    return Reach(first_decisive_look(criterion, first_look, max_questions, 1.0, test=test,
                                     block=block),
                 first_decisive_look(criterion, first_look, max_questions, 0.0, test=test,
                                     block=block))


def _concept_target(concept: Concept) -> Target:
    assert concept.scope is not None
    return Target(concept.key, concept.name, concept.domain, concept.scope, concept)


def subject_names(plugins: bool = True) -> list[str]:
    """The subjects `--subject` takes by name: the domains with exact concepts, arithmetic, all
    (`plugins=False`: the built-in domains only, reading no plugin)."""
    concepts = CONCEPTS if plugins else PAPER_CONCEPTS
    domains = [d for d in (DOMAINS if plugins else BUILT_IN_DOMAINS)
               if any(c.scope and c.domain == d for c in concepts)]
    return [*domains, "arithmetic", "all"]


def _one_subject(given: str) -> list[Target]:
    spec = canonical_name(given)  # "literary" is poetry
    exact = [c for c in CONCEPTS if c.scope]
    if spec == "all":
        return [_concept_target(c) for c in exact] + _one_subject("arithmetic")
    if spec == "arithmetic":
        return [Target(s, s, "arithmetic", s) for s in ARITHMETIC]
    if spec in ARITHMETIC:
        return [Target(spec, spec, "arithmetic", spec)]
    if spec in DOMAINS:
        found = [_concept_target(c) for c in exact if c.domain == spec]
        if not found:
            raise UserError(f"the {DOMAINS[spec].lower()} concepts are graded by a judge, not "
                            f"by code: audit one of {', '.join(subject_names())}, or run "
                            f"`verstehen potemkin run --concepts {spec} --judge MODEL`")
        return found
    concept = BY_KEY.get(spec)
    if concept is None:
        raise UserError(f"unknown subject {given!r}: give one of {', '.join(subject_names())}, "
                        "or a concept key from `verstehen concepts --exact`")
    if concept.scope is None:
        raise UserError(f"{concept.key} is graded by a judge, not by code: the audit certifies "
                        "exact concepts (see `verstehen concepts --exact`)")
    return [_concept_target(concept)]


def resolve_subjects(specs: str | Sequence[str] | None) -> tuple[tuple[str, ...],
                                                                 tuple[Target, ...]]:
    """The subjects as given (comma lists too) and their targets, each once, in order."""
    given = [specs] if isinstance(specs, str) else list(specs or [DEFAULT_SUBJECT])
    names = tuple(p.strip() for text in given for p in text.split(",") if p.strip())
    if not names:
        raise UserError("--subject is empty: give e.g. game-theory, poetry, arithmetic or all")
    targets: dict[str, Target] = {}
    for name in names:
        for target in _one_subject(name):
            targets.setdefault(target.key, target)
    return names, tuple(targets.values())


def make_plan(subjects: str | Sequence[str] | None = None, *, pg: float = DEFAULT_PG,
              rid: float = DEFAULT_RID, delta: float = DEFAULT_DELTA,
              max_questions: int = DEFAULT_MAX_QUESTIONS, first_look: int = DEFAULT_FIRST_LOOK,
              rephrase: int = 0, examples: int = 1, seed: int = 0,
              max_tokens: int | None = None, phrasings: str = "benchmark",
              sequential_test: str | None = None) -> AuditPlan:
    """The checked plan (a bad value is a UserError before any model is loaded)."""
    names, targets = resolve_subjects(subjects)
    try:
        criterion = Criterion(pg, rid, delta)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    for name, value, low in (("max_questions", max_questions, 1), ("first_look",
                             first_look, 1), ("rephrase", rephrase, 0),
                             ("examples", examples, 0), ("seed", seed, 0)):
        if value < low:
            raise UserError(f"{parameter(name)} must be at least {low}, not {value}")
    if first_look > max_questions:
        raise UserError(f"{parameter('first_look')} ({first_look}) must not exceed "
                        f"{parameter('max_questions')} ({max_questions})")
    if max_tokens is not None and max_tokens < 1:
        raise UserError(f"{parameter('max_tokens')} must be at least 1, not {max_tokens}")
    if phrasings not in PHRASINGS:
        raise UserError(f"{parameter('phrasings')} must be one of {', '.join(PHRASINGS)}, "
                        f"not {phrasings!r}")
    if sequential_test is not None and sequential_test not in SEQUENTIAL_TESTS:
        raise UserError(f"{parameter('sequential_test')} must be one of "
                        f"{', '.join(SEQUENTIAL_TESTS)}, not {sequential_test!r}")
    return AuditPlan(targets, names, criterion, max_questions, first_look, rephrase, examples,
                     seed, max_tokens, phrasings, sequential_test)


def reach_warnings(plan: AuditPlan) -> list[str]:
    """A line for each verdict the budget cannot reach at all ("understands" even for a
    perfect model, "does not understand" even for one always wrong), naming values that
    would; one line when it can reach neither."""
    return budget_warnings(plan.criterion, plan.max_questions, sequential=True,
                           first_look=plan.first_look, test=plan.test,
                           still="the audit can still find that a model does not understand")


def _few(looks: list[int]) -> str:
    return ", ".join(map(str, looks[:3])) + (f", ..., {looks[-1]}" if len(looks) > 3 else "")


def budget_line(plan: AuditPlan, models: int) -> str:
    """What the audit may ask, said before it starts: the looks, and the calls a model that is
    always wrong, a perfect one and one that needs the whole budget would take."""
    blocks = sorted({t.block for t in plan.targets}, reverse=True) or [1]
    looks = schedule_of(plan.test, plan.first_look, plan.max_questions, blocks[0])
    targets, concepts = len(plan.targets), len(plan.concepts)
    extra = concepts * (1 + 2 * 2 * plan.examples)  # a definition; examples made and judged
    rephrase = min(plan.rephrase, plan.max_questions)

    def calls(each: list[int | None]) -> str:  # each target's questions
        if None in each:
            return "-"
        asked = sum(n + min(rephrase, n) for n in each if n is not None)
        return f"{models * (asked + extra):,}"

    reaches = [plan.reach_of(t) for t in plan.targets]
    shown = _few(looks)
    if len(blocks) > 1:  # concepts (blocks of their strata) and arithmetic (no blocks)
        shown += (f" on concepts, "
                  f"{_few(schedule_of(plan.test, plan.first_look, plan.max_questions, 1))} "
                  "on arithmetic")
    rephrased = (f" + up to {rephrase} rephrasings ({setting('rephrase', plan.rephrase)})"
                 if rephrase else "")
    return (f"up to {plan.max_questions} questions{rephrased} per target (looks at {shown}) for "
            f"{targets} target{'s' if targets != 1 else ''} and {models} "
            f"model{'s' if models != 1 else ''}: {calls([r.does_not_at for r in reaches])} "
            f"calls if every answer is wrong, {calls([r.understands_at for r in reaches])} if "
            f"every one is right, at most {calls([plan.max_questions] * targets)}")
