"""The concept catalog, `verstehen concepts`, and the scope wrapper over a concept's use tasks."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from verstehen.domains.base import Item, grade_yes_no
from verstehen.domains.catalog import CONCEPTS, DOMAINS, concept_by_name
from verstehen.domains.registry import EXACT_SCOPES, concept_tasks
from verstehen.errors import UserError
from verstehen.grading import Graded
from verstehen.methods.certification.scopes import get_scope, scope_listing, scope_names
from verstehen.methods.certification.scopes.concepts import ConceptScope
from verstehen.scopes.base import Scope

from conftest import Cli, cli_error, shared_data

# ---------------------------------------------------------------- the catalog

# the paper's Table 3, by domain (its layout misplaces "Symmetric Game" under psychological
# biases; section B counts 12 literary, 9 game-theory and 11 psychological concepts; verstehen
# names the literary domain poetry)
PAPER_COUNTS = {"poetry": 12, "game-theory": 9, "psych": 11}


def test_catalog_has_the_papers_32_concepts() -> None:
    assert len(CONCEPTS) == 32
    assert Counter(c.domain for c in CONCEPTS) == PAPER_COUNTS
    assert len({c.key for c in CONCEPTS}) == 32 and len({c.name for c in CONCEPTS}) == 32
    assert set(DOMAINS) == set(PAPER_COUNTS)
    assert all(c.definition.endswith(".") and len(c.definition) > 30 for c in CONCEPTS)


def test_exact_grading_covers_game_theory_and_poetic_form() -> None:
    exact = {c.name for c in CONCEPTS if c.grading == "exact"}
    game_theory = {c.name for c in CONCEPTS if c.domain == "game-theory"}
    assert game_theory <= exact
    assert exact - game_theory == {"Haiku", "Shakespearean Sonnet", "Slant Rhyme", "Anapest"}
    assert all(c.grading == "judge" for c in CONCEPTS if c.domain == "psych")


def test_catalog_names_match_the_published_benchmark() -> None:
    labels = shared_data("PotemkinBenchmark/BenchmarkDataset/labeled_instances.csv")
    import csv

    with labels.open(newline="") as f:
        names = {row["Concept"].strip() for row in csv.DictReader(f)}
    assert len(names) == 31  # every concept but Slant Rhyme has labeled instances
    assert all(concept_by_name(n) is not None for n in names)
    assert concept_by_name("pure nash equilibrium").key == "game-theory/pure-nash"


# ---------------------------------------------------------------- the CLI


def test_concepts_command_lists_every_concept_with_its_grading(cli: Cli) -> None:
    done = cli(["concepts"])
    assert done.returncode == 0, done.stderr
    for c in CONCEPTS:
        assert c.key in done.stdout
    assert done.stdout.count("[exact, --scope ") == 13
    assert done.stdout.count("[judge or human labels]") == 19
    as_json = json.loads(cli(["concepts", "--json", "--domain", "game-theory"]).stdout)
    assert [c["grading"] for c in as_json] == ["exact"] * 9
    assert as_json[0]["scope"] == "game-theory/strict-dominance"


def test_concepts_command_bad_input(cli: Cli) -> None:
    cli_error(cli, ["concepts", "--domain", "psych", "--exact"], "no concept matches")
    cli_error(cli, ["concepts", "--domain", "chemistry"], "--domain", "chemistry")
    cli_error(cli, ["certify", "--scope", "poetry/haiku", "--explanations", "--questions", "2"],
              "poetry/haiku", "drop --explanations")
    cli_error(cli, ["certify", "--scope", "game-theory/zero-sum/define", "--questions", "2"],
              "unknown scope 'game-theory/zero-sum/define'")


# ---------------------------------------------------------------- the scope wrapper


class CoinTasks:
    """A stand-in concept: items are integers; "instances" are the even ones."""

    key, name, phrasings = "test/even", "evenness", 2

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        return Item("classify", positive, {"n": 2 * int(rng.integers(50)) + (not positive)})

    def generate_item(self, rng: np.random.Generator) -> Item:
        return Item("generate", None, {"above": int(rng.integers(100))})

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        return Item("edit", None, {"n": int(rng.integers(100)), "make": make_instance})

    def render(self, item: Item, phrasing: int) -> str:
        return (["Is {}?", "Tell me: {}"][phrasing]).format(json.dumps(item.data, sort_keys=True))

    def max_tokens(self, item: Item) -> int:
        return 8 if item.kind == "classify" else 64

    def grade(self, item: Item, reply: str) -> Graded:
        if item.kind == "classify":
            return grade_yes_no(item, reply)
        n = int(reply)
        ok = n % 2 == 0 if item.kind == "generate" or item.data["make"] else n % 2 == 1
        return Graded(float(ok), "correct" if ok else "wrong", n)


def test_concept_scope_mixes_the_three_tasks_and_balances_classify() -> None:
    scope = ConceptScope(CoinTasks())
    assert isinstance(scope, Scope) and scope.name == "test/even"
    rng = np.random.default_rng(0)
    questions = [scope.sample(rng) for _ in range(4000)]
    kinds = Counter(q.family for q in questions)
    # the scope's shares: classify 1/2, generate 1/4, edit 1/4 (SE of a 1/4 count: 27)
    assert abs(kinds["classify"] - 2000) < 130 and set(kinds) == {"classify", "generate", "edit"}
    assert abs(kinds["generate"] - 1000) < 130 and abs(kinds["edit"] - 1000) < 130
    classify = [q for q in questions if q.family == "classify"]
    assert abs(sum(q.answer for q in classify) / len(classify) - 0.5) < 0.05
    assert {q.max_tokens for q in classify} == {8}
    assert scope.answer_tokens == 64


def test_concept_scope_single_task_rephrase_and_grading() -> None:
    scope = ConceptScope(CoinTasks(), ("classify",))
    assert scope.name == "test/even/classify"
    q = scope.sample(np.random.default_rng(5))
    other = scope.rephrase(q, 1 - q.phrasing)
    assert other.id == q.id and other.prompt != q.prompt and other.data == q.data
    truth = "Yes" if q.answer else "No"
    assert scope.grade(q, f"ANSWER: {truth}").score == 1.0
    wrong = scope.grade(q, "ANSWER: " + ("No" if q.answer else "Yes"))
    assert wrong.ridiculous and wrong.outcome == "wrong"
    assert scope.grade(q, "Hmm, hard to say.").outcome == "unparsed"
    same = ConceptScope(CoinTasks(), ("classify",)).sample(np.random.default_rng(5))
    assert same == q  # same seed, same question


def test_item_ids_name_content_not_wording() -> None:
    scope = ConceptScope(CoinTasks(), ("edit",))
    rng = np.random.default_rng(1)
    ids = {}
    for _ in range(300):
        q = scope.sample(rng)
        key = json.dumps(q.data, sort_keys=True)
        assert ids.setdefault(key, q.id) == q.id
    assert len(set(ids.values())) == len(ids)


# ---------------------------------------------------------------- the registry


@pytest.mark.not_fast  # builds every exact scope and its three kinds of task: seconds
def test_every_exact_scope_resolves_to_its_tasks() -> None:
    catalog_scopes = {c.scope for c in CONCEPTS if c.scope}
    assert catalog_scopes <= set(EXACT_SCOPES)
    for name in EXACT_SCOPES:
        tasks = concept_tasks(name)
        assert tasks is not None and tasks.key == name, name
        assert name in scope_listing() and name in scope_names()
        for kind in ("classify", "generate", "edit"):
            scope = get_scope(f"{name}/{kind}")
            assert isinstance(scope, ConceptScope) and scope.kinds == (kind,)


def test_every_exact_scope_samples_renders_and_grades() -> None:
    rng = np.random.default_rng(7)
    for name in EXACT_SCOPES:
        scope = get_scope(name)
        for _ in range(12):
            q = scope.sample(rng)
            json.dumps(q.data)  # records hold it
            assert q.prompt.strip() and q.max_tokens and q.max_tokens <= scope.answer_tokens
            for phrasing in range(scope.phrasings):
                again = scope.rephrase(q, phrasing)
                assert again.data == q.data and again.id == q.id
            graded = scope.grade(q, "I have no idea what you mean.")
            assert graded.score == 0.0 and graded.outcome in {"unparsed", "idk", "wrong"}, name
            if q.family == "classify":
                assert scope.grade(q, "ANSWER: " + ("Yes" if q.answer else "No")).score == 1.0


def test_concept_scope_errors() -> None:
    with pytest.raises(UserError, match="do not apply"):
        get_scope("game-theory/pure-nash", idk_score=0.5)
    with pytest.raises(UserError, match="unknown scope 'game-theory/pure-nash/define'"):
        get_scope("game-theory/pure-nash/define")
    with pytest.raises(UserError, match="unknown scope 'poetry/limerick'"):
        get_scope("poetry/limerick")




def test_reference_replies_grade_right_and_an_idk_word_can_be_an_answer() -> None:
    """Every reference a concept builds passes its own checker (generators agree with checkers)."""
    rng = np.random.default_rng(11)
    for name in EXACT_SCOPES:
        scope = get_scope(name)
        referenced = 0
        for _ in range(30):
            q = scope.sample(rng)
            reference = scope.tasks.reference(scope.item_of(q))
            if reference is not None:
                referenced += 1
                graded = scope.grade(q, reference)
                assert graded.score == 1.0 and graded.outcome == "correct", (name, q.data, graded)
        assert referenced >= 10, name  # classify items always have one
    anapest = concept_tasks("poetry/anapest")
    assert anapest is not None
    item = Item("edit", None, {"masked": "My _ souvenir", "make_instance": True})
    # my un-KNOWN | sou-ve-NIR: two anapests (cmudict: unknown AH0 N OW1, souvenir 2 0 1)
    assert anapest.grade(item, "unknown").outcome == "correct"
    assert anapest.grade(item, "I don't know").outcome == "idk"


def test_either_name_of_the_literary_domain_is_taken(cli: Cli) -> None:
    """`--domain poetry` lists the literary concepts; a concept key is a scope name too."""
    from verstehen.methods.certification.scopes import get_scope

    poetry = cli(["concepts", "--domain", "poetry", "--json"])
    literary = cli(["concepts", "--domain", "literary", "--json"])
    assert poetry.returncode == 0 and poetry.stdout == literary.stdout
    assert {c["key"] for c in json.loads(poetry.stdout)} >= {"poetry/haiku", "poetry/anapest"}
    assert get_scope("literary/haiku").name == get_scope("poetry/haiku").name
    assert get_scope("literary/anapest/classify").name == "poetry/anapest/classify"
