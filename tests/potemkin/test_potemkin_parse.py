"""Reading the answers the Potemkin prompts ask for: ANSWER tags, final tags, matrices, lists."""

from __future__ import annotations

import pytest

from verstehen.domains.base import Item, grade_yes_no
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.parse import ParseFailure, parse_game
from verstehen.parse import (
    after_final_tag,
    numbered_items,
    parse_correct_incorrect,
    parse_yes_no,
)


@pytest.mark.parametrize(("reply", "expected"), [
    ("ANSWER: Yes", True),
    ("ANSWER: No", False),
    ("**ANSWER:** No", False),
    ("answer: yes.", True),
    ("Let me think. The lines have 5, 7 and 5 syllables.\n\nANSWER: Yes", True),
    ("At first I thought ANSWER: Yes, but on reflection ANSWER: No", False),  # the last cue wins
    ("Yes, this is a haiku.", True),
    ("No. The second line has eight syllables.", False),
    ("The answer is no", False),
    ("The answer to your question is:\n\nNo.", False),              # a bare last line
    ("Let me see.\n**Yes**", True),
    ("I'm sorry, but I can't help with that request.", None),      # refusal
    ("asdf qwerty zxcv", None),                                        # garbage
    ("There is no rhyme here, but it might still count.", None),   # "no" in prose is not an answer
    ("", None),
])
def test_yes_no_answers(reply: str, expected: bool | None) -> None:
    """Every format of the classify prompt's 'ANSWER: Yes' / 'ANSWER: No', and non-answers."""
    assert parse_yes_no(reply) is expected


def test_refusal_to_classify_is_idk_and_garbage_is_unparsed() -> None:
    """A professed ignorance is an answer ("idk", wrong); garbage is unparsed, with a reason."""
    item = Item("classify", True)
    assert grade_yes_no(item, "I don't know.").outcome == "idk"
    garbage = grade_yes_no(item, "%%% ???")
    assert garbage.outcome == "unparsed" and garbage.reason
    assert grade_yes_no(item, "ANSWER: No").outcome == "wrong"


def test_matrix_after_output_marker_is_the_answer() -> None:
    """Text after the last <OUTPUT> counts: a draft matrix before it is ignored."""
    reply = ("A first try: [[(9, 9), (9, 9)], [(9, 9), (9, 9)]] is boring.\n"
             "<OUTPUT>\n[[ (3,1), (0,0) ],\n [ (0,0), (1,3) ]]")
    game = parse_game(reply)
    assert not isinstance(game, ParseFailure)
    assert game == Game.of([[(3, 1), (0, 0)], [(0, 0), (1, 3)]])


@pytest.mark.parametrize("reply", ["I cannot create payoff matrices.", "<OUTPUT>\n", "[[(1, 2)"])
def test_refused_or_broken_matrix_is_a_parse_failure_with_a_reason(reply: str) -> None:
    """No matrix, an empty output, a cut-off matrix: a failure naming what is wrong."""
    failure = parse_game(reply)
    assert isinstance(failure, ParseFailure) and failure.reason


@pytest.mark.parametrize(("reply", "expected"), [
    ("Step 1 ... FINAL ANSWER: B) Second cousins", "B) Second cousins"),
    ("**Final Answer:** third cousins", "third cousins"),
    ("final answer:   42\n", "42"),
    ("FINAL ANSWER: draft\nmore thinking\nFINAL ANSWER: kept", "kept"),
    ("No tag here at all", None),
])
def test_text_after_the_final_tag(reply: str, expected: str | None) -> None:
    """The text after the last final tag; None without a tag."""
    assert after_final_tag(reply) == expected


@pytest.mark.parametrize(("reply", "expected"), [
    ("The reasoning holds.\nFINAL ANSWER: correct", True),
    ("FINAL ANSWER: incorrect", False),
    ("**FINAL ANSWER:** Incorrect.", False),
    ("FINAL ANSWER: not correct", False),
    ("FINAL ANSWER: incorrect (the correct value is 4)", False),   # the first verdict word counts
    ("I checked each step.\nThe answer is correct.", True),          # no tag: the last line
    ("The answer is correct.\nBut wait, I am unsure.", None),        # last line gives no verdict
    ("I'm sorry, I can't grade this.", None),
    ("", None),
])
def test_judge_grades(reply: str, expected: bool | None) -> None:
    """The self-judge's 'correct' / 'incorrect' after the final tag."""
    assert parse_correct_incorrect(reply) is expected


def test_numbered_questions_in_the_shapes_models_write() -> None:
    """1. / 2) / **Question 3:** items, continuation lines joined, prose around them dropped."""
    reply = ("Here are three questions:\n\n1. What is a cousin?\n2) Who are second cousins?\n"
             "   Explain briefly.\n**Question 3:** What is a great-grandparent?\n\nGood luck!")
    assert numbered_items(reply) == ["What is a cousin?",
                                     "Who are second cousins? Explain briefly.",
                                     "What is a great-grandparent?"]
    assert numbered_items(reply, 2) == ["What is a cousin?",
                                        "Who are second cousins? Explain briefly."]


def test_bulleted_questions_when_nothing_is_numbered() -> None:
    """A bulleted list is read when no numbered one exists; plain prose gives nothing."""
    assert numbered_items("- First?\n- Second?") == ["First?", "Second?"]
    assert numbered_items("I would rather not write questions.") == []
