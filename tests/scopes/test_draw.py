"""Which question a run asks at each index: stratified blocks, the canonical phrasing, keep."""

from __future__ import annotations

from collections import Counter

import pytest

from verstehen.auditing.plan import make_plan
from verstehen.domains.catalog import CONCEPTS
from verstehen.methods.certification.scopes import get_scope
from verstehen.methods.certification.scopes.concepts import ConceptScope
from verstehen.methods.certification.scopes.draw import StratifiedScope, question_at, stratum_at

EXACT = [c.scope for c in CONCEPTS if c.scope]


def kind_of(question) -> str:
    """classify:yes / classify:no / generate / edit, from the question itself."""
    if question.family == "classify":
        return f"classify:{'yes' if question.answer else 'no'}"
    return question.family


def test_every_block_holds_each_stratum_once_in_a_shuffled_order() -> None:
    strata = ("a", "a", "b", "c")
    for seed in (0, 1, 7):
        drawn = [stratum_at(strata, seed, i) for i in range(64)]
        for block in range(16):
            assert Counter(drawn[4 * block:4 * block + 4]) == Counter(strata)
    orders = {tuple(stratum_at(strata, 0, 4 * b + i) for i in range(4)) for b in range(16)}
    assert len(orders) > 1  # shuffled per block, not one fixed order


@pytest.mark.parametrize("spec", EXACT)
def test_the_default_audits_first_look_asks_every_task_of_each_concept(spec: str) -> None:
    """The audit's first look is 8 questions: 2 instances and 2 near misses to classify, 2 to
    generate and 2 to edit, for every exact concept (seed 0, the audit's default)."""
    plan = make_plan("all")
    scope = get_scope(spec)
    assert isinstance(scope, StratifiedScope)
    first = [question_at(scope, plan.seed, i) for i in range(plan.first_look)]
    assert Counter(kind_of(q) for q in first) == {"classify:yes": 2, "classify:no": 2,
                                                  "generate": 2, "edit": 2}
    # every later look, a multiple of the block, keeps the shares exactly
    sixty_four = Counter(kind_of(question_at(scope, 0, i)) for i in range(64))
    assert set(sixty_four.values()) == {16}


def test_one_task_scopes_balance_what_they_can() -> None:
    classify = get_scope("game-theory/pure-nash/classify")
    answers = Counter(question_at(classify, 3, i).answer for i in range(16))
    assert answers == {True: 8, False: 8}
    generate = get_scope("game-theory/pure-nash/generate")
    assert {question_at(generate, 3, i).family for i in range(8)} == {"generate"}


def test_concepts_are_asked_in_the_benchmarks_wording_other_scopes_draw_theirs() -> None:
    scope = get_scope("game-theory/zero-sum")
    first = [question_at(scope, 5, i) for i in range(12)]
    assert first == [question_at(scope, 5, i) for i in range(12)]
    assert {q.phrasing for q in first} == {0}
    # phrasing 0 is the benchmark's: its edit prompt opens "Change the following example"
    assert all(q.prompt.startswith("Change the following example") for q in first
               if q.family == "edit")
    drawn = [question_at(scope, 5, i, all_phrasings=True) for i in range(12)]
    assert {q.phrasing for q in drawn} == {0, 1}
    # the same item either way: only the wording differs
    assert [q.id for q in drawn] == [q.id for q in first]
    # arithmetic has no benchmark wording: its natural rephrasings belong to the scope
    arithmetic = get_scope("arithmetic")
    assert len({question_at(arithmetic, 0, i).phrasing for i in range(40)}) == 5


def test_keep_restricts_the_draw_and_never_waits_on_a_refused_stratum() -> None:
    scope = get_scope("arithmetic/small")
    kept = [question_at(scope, 0, i, keep=lambda q: q.family != "/") for i in range(30)]
    assert all(q.family != "/" for q in kept)
    concept = get_scope("poetry/haiku")
    assert isinstance(concept, ConceptScope)
    # indices 0..7 hold two edit slots; a restricted draw is not stratified, so it ends
    no_edits = [question_at(concept, 0, i, keep=lambda q: q.family != "edit") for i in range(8)]
    assert {q.family for q in no_edits} <= {"classify", "generate"}
