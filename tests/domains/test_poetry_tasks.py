"""The poetry use tasks: classify answers, generate and edit grading, phrasings, determinism."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verstehen.domains.base import ConceptTasks, Item
from verstehen.domains.poetry.extract import extract_fill, extract_poem, extract_word
from verstehen.domains.poetry.tasks import POETRY_TASKS

BASHO = "An old silent pond\nA frog jumps into the pond—\nSplash! Silence again."
KEYS = ["poetry/haiku", "poetry/shakespearean-sonnet", "poetry/slant-rhyme", "poetry/anapest",
        "poetry/rhyme", "poetry/iambic-pentameter"]


def test_registry() -> None:
    assert sorted(POETRY_TASKS) == sorted(KEYS)
    for key, task in POETRY_TASKS.items():
        assert isinstance(task, ConceptTasks) and task.key == key and task.phrasings == 2


@pytest.mark.parametrize("key", KEYS)
def test_classify_answers_match_the_checker(key: str) -> None:
    task = POETRY_TASKS[key]
    rng = np.random.default_rng(7)
    for positive in (True, False, True, False):
        item = task.classify_item(rng, positive)
        assert item.kind == "classify" and item.answer is positive
        assert task.check(item.data["example"]).ok is positive
        assert task.max_tokens(item) >= 1024  # room for 600 tokens of reasoning, then Yes/No
        assert task.grade(item, "ANSWER: Yes" if positive else "No.").score == 1.0
        assert task.grade(item, "ANSWER: No" if positive else "Yes").outcome == "wrong"
        assert task.grade(item, "Maybe.").outcome == "unparsed"


@pytest.mark.parametrize("key", KEYS)
def test_items_are_json_deterministic_and_phrasings_keep_content(key: str) -> None:
    task = POETRY_TASKS[key]
    for make in (lambda r: task.classify_item(r, True), task.generate_item,
                 lambda r: task.edit_item(r, False)):
        a, b = make(np.random.default_rng(11)), make(np.random.default_rng(11))
        assert a == b
        assert json.loads(json.dumps(a.data)) == a.data
        p0, p1 = task.render(a, 0), task.render(a, 1)
        assert p0 != p1
        for value in a.data.values():
            if isinstance(value, str) and value != a.data.get("solution"):
                assert value in p0 and value in p1
        if a.kind == "generate":
            for v in a.data.values():
                assert str(v) in p0 and str(v) in p1
    with pytest.raises(ValueError):
        task.render(a, 2)


def test_classify_phrasing_zero_is_the_benchmark_wording() -> None:
    task = POETRY_TASKS["poetry/haiku"]
    item = Item("classify", True, {"example": BASHO})
    assert task.render(item, 0) == (
        "Is the following example an instance of the concept Haiku? Please answer with either "
        "'ANSWER: Yes' or 'ANSWER: No'.\n\n" + BASHO)
    assert task.render(item, 1).endswith("Reply with Yes or No.")


def test_generate_haiku_grading() -> None:
    task = POETRY_TASKS["poetry/haiku"]
    item = Item("generate", None, {"word": "pond"})
    assert task.grade(item, BASHO).outcome == "correct"
    wrapped = f"<think>5-7-5...</think>Here is a haiku:\n\n```\n{BASHO}\n```\n\nThis haiku evokes"
    assert task.grade(item, wrapped).outcome == "correct"
    g = task.grade(item, BASHO.replace("An old silent pond", "An old and silent pond"))
    assert g.outcome == "wrong" and "6" in (g.reason or "")
    g = task.grade(Item("generate", None, {"word": "river"}), BASHO)
    assert g.outcome == "wrong" and "river" in (g.reason or "")
    assert task.grade(item, "").outcome == "unparsed"
    assert task.grade(item, "<think>I am still thinking").outcome == "unparsed"


def test_generate_grading_mentions_estimates() -> None:
    task = POETRY_TASKS["poetry/haiku"]
    item = Item("generate", None, {"word": "pond"})
    g = task.grade(item, "Zorblax in the pond\nA frog jumps into the pond\nSplash! Silence again.")
    assert g.outcome == "correct" and "estimated pronunciation: zorblax" in (g.reason or "")


def test_generate_word_pairs() -> None:
    slant = POETRY_TASKS["poetry/slant-rhyme"]
    item = Item("generate", None, {"word": "shape"})
    assert slant.grade(item, "keep").outcome == "correct"
    assert slant.grade(item, "I'd say **keep**").outcome == "correct"
    assert slant.grade(item, "tape").outcome == "wrong"  # a perfect rhyme
    assert slant.grade(item, "shape").outcome == "wrong"
    assert slant.grade(item, "there are many options here").outcome == "unparsed"
    rhyme = POETRY_TASKS["poetry/rhyme"]
    assert rhyme.grade(item, '"Tape"').outcome == "correct"
    assert rhyme.grade(item, "keep").outcome == "wrong"


def test_generate_lines() -> None:
    iamb = POETRY_TASKS["poetry/iambic-pentameter"]
    item = Item("generate", None, {"word": "day"})
    assert iamb.grade(item, "Shall I compare thee to a summer's day?").outcome == "correct"
    g = iamb.grade(Item("generate", None, {"word": "night"}),
                   "Shall I compare thee to a summer's day?")
    assert g.outcome == "wrong" and "night" in (g.reason or "")
    two = "Shall I compare thee to a summer's day?\nThou art more lovely and more temperate"
    assert iamb.grade(item, two).outcome == "wrong"
    ana = POETRY_TASKS["poetry/anapest"]
    assert ana.grade(Item("generate", None, {"feet": 1}), "Interrupt").outcome == "correct"
    assert ana.grade(Item("generate", None, {"feet": 2}), "in the night").outcome == "wrong"
    assert ana.grade(Item("generate", None, {"feet": 2}),
                     "In the night and the day").outcome == "correct"


def test_generate_sonnet_grading() -> None:
    from test_poetry_checks import SONNET_18

    task = POETRY_TASKS["poetry/shakespearean-sonnet"]
    g = task.grade(Item("generate", None, {"word": "summer"}), "**Sonnet 18**\n\n" + SONNET_18)
    assert g.outcome == "correct" and "estimated pronunciation" in (g.reason or "")
    assert task.max_tokens(Item("generate", None, {"word": "x"})) >= 250


def test_edit_grading() -> None:
    haiku = POETRY_TASKS["poetry/haiku"]
    masked = "An old _ pond\nA frog jumps into the pond—\nSplash! Silence again."
    make = Item("edit", None, {"masked": masked, "make_instance": True, "solution": "silent"})
    assert haiku.grade(make, "silent").outcome == "correct"
    assert haiku.grade(make, '"quiet"').outcome == "correct"
    g = haiku.grade(make, "still")
    assert g.outcome == "wrong" and "4" in (g.reason or "")
    assert haiku.grade(make, "silent\nAn old silent pond").outcome == "unparsed"
    assert haiku.grade(make, "...").outcome == "unparsed"
    unmake = Item("edit", None, {"masked": masked, "make_instance": False, "solution": "still"})
    assert haiku.grade(unmake, "still").outcome == "correct"
    assert haiku.grade(unmake, "silent").outcome == "wrong"
    # the paper's examples: "Old" + " man" is no 5-syllable line; "Further" + "than before"
    masked = "_ man\nA frog jumps into the pond\nSplash! Silence again."
    first = Item("edit", None, {"masked": masked, "make_instance": True, "solution": "An old"})
    assert haiku.grade(first, "Old").outcome == "wrong"
    assert haiku.grade(first, "An old and wise").outcome == "correct"  # 4 + 1
    ana = POETRY_TASKS["poetry/anapest"]
    further = Item("edit", None, {"masked": "Further _", "make_instance": True, "solution": ""})
    assert ana.grade(further, "than before").outcome == "wrong"
    slant = POETRY_TASKS["poetry/slant-rhyme"]
    pair = Item("edit", None, {"masked": '"Glow" and "_"', "make_instance": True, "solution": ""})
    assert slant.grade(pair, "leather").outcome == "wrong"
    assert slant.grade(pair, "goat").outcome == "correct"  # assonance
    assert slant.grade(pair, "two words").outcome == "unparsed"


def test_extraction_rules() -> None:
    assert extract_poem('"An old pond\nA frog"') == "An old pond\nA frog"
    assert extract_poem("Sure! Here's one:\n\n*An old pond (4)*\n> A frog") == "An old pond\nA frog"
    assert extract_poem("# Title\n\nline one\nline two") == "line one\nline two"
    assert extract_poem("   \n") is None
    assert extract_word("Answer: keep.") == "keep"
    assert extract_word("keep and sleep") is None
    assert extract_fill("Answer: 'quiet'") == "quiet"
    assert extract_fill("a\nb") is None


PROSE = ("Let me count the syllables of each candidate word before I settle on one, since the "
         "line needs exactly five of them and the word has to fit.")  # over 100 characters


def test_extraction_reads_the_final_answer_after_reasoning_or_a_draft() -> None:
    assert extract_poem(f"{PROSE}\n\nFinal answer:\nline one\nline two") == "line one\nline two"
    assert extract_poem("Draft:\nold one\nold two\n\n**Final answer:**\n\nnew one\nnew two") == (
        "new one\nnew two")
    assert extract_poem(f"{PROSE}\n\nHere is a haiku:\n\nline one\nline two") == (
        "line one\nline two")
    assert extract_poem(f"{PROSE}\n\n**Title**\n\nline one\nline two") == "line one\nline two"
    assert extract_poem("```\nold one\n```\nBetter still:\n```\nnew one\nnew two\n```") == (
        "new one\nnew two")  # the last fence
    assert extract_poem("The wind says this:\nline two\nline three") == "line two\nline three"
    assert extract_word("**Answer:** glow") == "glow"
    assert extract_word('Here is a word that rhymes with "snow":\n\nglow') == "glow"
    assert extract_word('Draft: "show" does not work.\nFinal answer: glow') == "glow"
    assert extract_word(f"{PROSE}\n\nglow") == "glow"
    assert extract_fill("Here is the text for the blank:\n\nriver") == "river"
    assert extract_fill(f"{PROSE}\n\nFinal answer: **river**") == "river"
    assert extract_fill("**Answer:** the quiet river sleeps") == "the quiet river sleeps"
    assert extract_fill("river\nAn old river pond") is None  # still two lines, no flag
    assert extract_fill("```\nAnswer: river\n```") == "river"  # a flag inside a fence
