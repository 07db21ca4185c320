"""Every condition a poetry prompt states is graded, and nothing else is.

`STATED` lists, per concept, each condition its generate prompt states and the words that state
it in both phrasings; `BREAKS` holds, per condition, a reply that breaks that condition only
(graded 0 "wrong", its reason naming the condition), beside `CORRECT`, a reply that meets
every one. Edit prompts state one condition: the filled text is (or is not) an instance.
"Reply with only the poem" and "Include only the text that should replace the blank" say what
to write, not what the answer must be: replies with a title, a lead-in or a remark are read at
their answer. Last, the benchmark's own conditions that code can check (`conditions`).
"""

from __future__ import annotations

import numpy as np
import pytest

from verstehen.domains.base import Item
from verstehen.domains.poetry.conditions import (
    ends_with_word,
    form_condition,
    uses_word,
    vowel_letters,
)
from verstehen.domains.poetry.tasks import POETRY_TASKS

from test_poetry_checks import BASHO, SONNET_18

SHAPE = {"word": "shape"}
DAY = {"word": "day"}
TWO_FEET = {"feet": 2}
# concept -> (the data of its generate item, {condition: (words of phrasing 0, of phrasing 1)})
STATED: dict[str, tuple[dict[str, object], dict[str, tuple[str, str]]]] = {
    "poetry/haiku": ({"word": "pond"}, {
        "form": ("instance of the concept Haiku", "Write a haiku"),
        "word": ("must include the word pond", 'uses the word "pond"')}),
    "poetry/shakespearean-sonnet": ({"word": "summer"}, {
        "form": ("instance of the concept Shakespearean Sonnet", "Write a Shakespearean sonnet"),
        "word": ("must include the word summer", 'uses the word "summer"')}),
    "poetry/iambic-pentameter": (DAY, {
        "form": ("instance of the concept Iambic Pentameter", "line of iambic pentameter"),
        "one line": ("one line", "a single line"),
        "last word": ('ends with the word "day"', 'ending in the word "day"')}),
    "poetry/anapest": (TWO_FEET, {
        "form": ("instance of the concept Anapest", "in anapestic meter"),
        "feet": ("exactly 2 feet", "exactly 2 feet"),
        "one line": ("a word or phrase", "a phrase")}),
    "poetry/rhyme": (SHAPE, {
        "relation": ('rhymes perfectly with "shape"', 'rhymes perfectly with "shape"'),
        "one word": ("a word", "one word"),
        "another word": ('a word that rhymes perfectly with "shape"',
                         'one word that rhymes perfectly with "shape"')}),
    "poetry/slant-rhyme": (SHAPE, {
        "relation": ('slant rhyme with "shape"', 'slant rhyme for "shape"'),
        "one word": ("a word", "one word"),
        "another word": ('a word that forms a slant rhyme with "shape"',
                         'one word that is a slant rhyme for "shape"')}),
}
CORRECT = {
    "poetry/haiku": BASHO,
    "poetry/shakespearean-sonnet": SONNET_18,
    "poetry/iambic-pentameter": "Shall I compare thee to a summer's day?",
    "poetry/anapest": "in the night and the day",
    "poetry/rhyme": "tape",
    "poetry/slant-rhyme": "keep",
}
ONE_LINE_SHORT = BASHO.replace("An old silent pond", "An old and silent pond")
# (concept, condition, the data when it differs from STATED's, reply, words of the reason)
BREAKS = [
    ("poetry/haiku", "form", None, ONE_LINE_SHORT, "line 1 has 6 syllables, not 5"),
    ("poetry/haiku", "word", {"word": "river"}, BASHO, 'does not use the word "river"'),
    ("poetry/shakespearean-sonnet", "form", None, SONNET_18.rsplit("\n", 1)[0],
     "13 lines, not 14"),
    ("poetry/shakespearean-sonnet", "word", {"word": "river"}, SONNET_18,
     'does not use the word "river"'),
    ("poetry/iambic-pentameter", "form", None, "Compare me to a summer day", "8 syllables"),
    ("poetry/iambic-pentameter", "one line", None,
     "Shall I compare thee to a summer's day?\nThou art more lovely than a summer day",
     "2 lines, not 1"),
    ("poetry/iambic-pentameter", "last word", {"word": "night"},
     "Shall I compare thee to a summer's day?", 'does not end with the word "night"'),
    ("poetry/anapest", "form", None, "furthermore and the day", "mismatch"),
    ("poetry/anapest", "feet", {"feet": 1}, "in the night and the day",
     "2 anapestic feet, not exactly 1 foot"),
    ("poetry/anapest", "one line", None, "in the night\nand the day", "2 lines, not 1"),
    ("poetry/rhyme", "relation", None, "keep", '"shape" and "keep" do not rhyme perfectly'),
    ("poetry/rhyme", "one word", None, "tape or cape", "3 words, where one word was asked"),
    ("poetry/rhyme", "another word", None, "shape", 'the given word "shape" itself'),
    ("poetry/slant-rhyme", "relation", None, "tape", '"shape" and "tape" rhyme perfectly'),
    ("poetry/slant-rhyme", "one word", None, "**keep or heap**",
     "3 words, where one word was asked"),
    ("poetry/slant-rhyme", "another word", None, '"Shape"', 'the given word "shape" itself'),
]


@pytest.mark.parametrize("key", sorted(STATED))
def test_each_stated_condition_is_in_both_phrasings_and_has_a_breaking_reply(key: str) -> None:
    data, conditions = STATED[key]
    item = Item("generate", None, data)
    for p0, p1 in conditions.values():
        assert p0 in POETRY_TASKS[key].render(item, 0)
        assert p1 in POETRY_TASKS[key].render(item, 1)
    assert {c for k, c, *_ in BREAKS if k == key} == set(conditions)


@pytest.mark.parametrize("key", sorted(CORRECT))
def test_a_reply_meeting_every_condition_is_correct(key: str) -> None:
    item = Item("generate", None, STATED[key][0])
    assert POETRY_TASKS[key].grade(item, CORRECT[key]).outcome == "correct"


@pytest.mark.parametrize(("key", "condition", "data", "reply", "why"), BREAKS,
                         ids=[f"{k}-{c}" for k, c, *_ in BREAKS])
def test_a_reply_breaking_one_condition_is_wrong_and_says_which(
        key: str, condition: str, data: dict[str, object] | None, reply: str, why: str) -> None:
    item = Item("generate", None, data or STATED[key][0])
    got = POETRY_TASKS[key].grade(item, reply)
    assert (got.score, got.outcome) == (0.0, "wrong")
    assert why in (got.reason or "")


@pytest.mark.parametrize("key", sorted(POETRY_TASKS))
def test_edit_the_filled_text_is_or_is_not_an_instance(key: str) -> None:
    task = POETRY_TASKS[key]
    rng = np.random.default_rng(5)
    make, unmake = task.edit_item(rng, True), task.edit_item(rng, False)
    assert task.grade(make, str(make.data["solution"])).outcome == "correct"
    assert task.grade(unmake, str(unmake.data["solution"])).outcome == "correct"
    # the same blanks asked the other way: the fill that made an instance keeps one, and the
    # one that broke it breaks it
    keeps = Item("edit", None, {**make.data, "make_instance": False})
    got = task.grade(keeps, str(make.data["solution"]))
    assert got.outcome == "wrong" and (got.reason or "").startswith("still an instance: ")
    breaks = Item("edit", None, {**unmake.data, "make_instance": True})
    got = task.grade(breaks, str(unmake.data["solution"]))
    assert got.outcome == "wrong" and got.reason


# ---------------------------------------------------------------- nothing unstated is graded


def test_what_the_prompts_do_not_ask_is_not_graded() -> None:
    haiku = POETRY_TASKS["poetry/haiku"]
    dressed = (f"Here is a haiku:\n\n**The Pond**\n{BASHO}\n\nThis haiku is about a frog, not "
               "about the theme you might expect.")
    assert haiku.grade(Item("generate", None, {"word": "pond"}), dressed).outcome == "correct"
    # a possessive uses the word
    frogs = "An old silent pond\nA frog's leap into the pond\nSplash! Silence again."
    assert haiku.grade(Item("generate", None, {"word": "frog"}), frogs).outcome == "correct"
    rhyme = POETRY_TASKS["poetry/rhyme"]
    assert rhyme.grade(Item("generate", None, SHAPE), '**"Tape"**').outcome == "correct"
    iamb = POETRY_TASKS["poetry/iambic-pentameter"]
    assert iamb.grade(Item("generate", None, DAY),
                      "Final answer:\n*Shall I compare thee to a summer's day?*\n\n"
                      "This line is iambic.").outcome == "correct"
    edit = Item("edit", None, {"masked": "An old _ pond\nA frog jumps into the pond—\n"
                               "Splash! Silence again.", "make_instance": True,
                               "solution": "silent"})
    said = "silent\n\n(Two syllables keep the first line at five.)"
    assert POETRY_TASKS["poetry/haiku"].grade(edit, said).outcome == "correct"


# ---------------------------------------------------------------- the word, and its forms


@pytest.mark.parametrize(("text", "used"), [
    ("My father's old coat", True),
    ("My Father’s old coat", True),  # a curly apostrophe
    ("a father-like care", True),
    ("FATHER", True),
    ("my fathers' coats", False),  # the plural's possessive: the plural
    ("my fathers", False),
    ("he fathered none", False),
    ("grandfather", False),
    ("a fatherly care", False),
])
def test_uses_word(text: str, used: bool) -> None:
    assert uses_word(text, "father") is used


def test_ends_with_word() -> None:
    assert ends_with_word("the close of the day.", "day")
    assert ends_with_word("the summer day's", "day")
    assert not ends_with_word("the close of days", "day")
    assert not ends_with_word("", "day")


# ---------------------------------------------------------------- the benchmark's conditions


@pytest.mark.parametrize(("condition", "text", "ok"), [
    ('Start with a word that begins with the letter "M".', "Moonlight's gleam", True),
    ('Start with a word that begins with the letter "M".', "Across the dust", False),
    ('Start with a word that begins with the letter "I".', "In the dark, I press", True),
    ("End with a one-vowel word.", "my heart with perfect plenitude—struck.", True),
    ("End with a one-vowel word.", "my heart with perfect plenitude", False),
    ("End with a one-vowel word.", "across the sky", True),  # "y" when no other vowel
    ("Start with a monosyllabic word.", '"dump" and "jump"', True),
    ("Start with a monosyllabic word.", "Meadows whisper", False),
    ("End with a two-syllable word.", "beside the river", True),
    ('End with a word that ends with the letter "e".', "a stone", True),
])
def test_form_conditions_code_can_check(condition: str, text: str, ok: bool) -> None:
    got = form_condition(condition, text)
    assert got is not None and got.ok is ok


@pytest.mark.parametrize("condition", [
    "Use dialogue.", "Do not use dialogue.", "Use the first-person perspective.",
    "Use the third-person perspective.", "Include a repeated phrase.",
    "Do not use any adverbs.", "Use alliteration at least once.",
])
def test_form_conditions_that_need_a_reader_are_not_checked(condition: str) -> None:
    assert form_condition(condition, "Moonlight's gleam") is None


def test_vowel_letters() -> None:
    assert [vowel_letters(w) for w in ("struck", "tomb", "sky", "rhythm", "plenitude")] == [
        1, 1, 1, 1, 4]
