"""Reading the invented multiple-choice questions of the shared-imagination probe."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.methods.imagination.parse import (
    ParsedQuestion,
    QuestionFailure,
    parse_concept,
    parse_question,
    parse_questions,
)

TEMPLATE = """Question: What is the main use of a zorblat?
A. Cooking rice
B. Measuring wind
C. Storing seeds
D. Tuning harps
Answer: B"""

ZORBLAT = ParsedQuestion(
    "What is the main use of a zorblat?",
    ("Cooking rice", "Measuring wind", "Storing seeds", "Tuning harps"),
    1,
)


def block(n: int, answer: str = "C") -> str:
    return (
        f"Question {n}: Which colour is flimb number {n}?\n"
        f"A. Red {n}\nB. Green {n}\nC. Blue {n}\nD. Black {n}\nAnswer: {answer}\n"
    )


def test_template_exactly() -> None:
    assert parse_question(TEMPLATE) == ZORBLAT


def test_choices_on_one_line() -> None:
    text = (
        "Question: What is the main use of a zorblat?\n"
        "A. Cooking rice B. Measuring wind C. Storing seeds D. Tuning harps\nAnswer: B"
    )
    assert parse_question(text) == ZORBLAT


def test_choices_on_one_line_with_parentheses_and_stem() -> None:
    text = "Q: Who built the Glass Tower? (A) Ana (B) Bo (C) Cy (D) Di\nAnswer: (D)"
    assert parse_question(text) == ParsedQuestion(
        "Who built the Glass Tower?", ("Ana", "Bo", "Cy", "Di"), 3
    )


def test_one_line_split_needs_labels_in_order() -> None:
    text = "Question: Pick one.\nA. Plan B. Later\nB. Plan C\nC. Plan D. Now\nD. Nothing\nAnswer: A"
    # "Plan B." is followed by B. on its own line, so the duplicated B is reported
    assert parse_question(text) == QuestionFailure("duplicated label B")
    text = "Question: Pick one.\nA. Plan A\nB. Plan B\nC. Plan C\nD. Nothing D. at all\nAnswer: D"
    parsed = parse_question(text)
    assert isinstance(parsed, ParsedQuestion)
    assert parsed.choices == ("Plan A", "Plan B", "Plan C", "Nothing D. at all")


def test_markdown_bold_and_other_labels() -> None:
    text = """**Question:** What is the main use of a `zorblat`?
**A)** Cooking rice
- B. Measuring wind
(C) Storing seeds
D: __Tuning harps__
**Answer:** B"""
    assert parse_question(text) == ParsedQuestion(
        "What is the main use of a zorblat?", ZORBLAT.choices, 1
    )


def test_markdown_header_question() -> None:
    text = TEMPLATE.replace("Question:", "### Question 1:")
    assert parse_question(text) == ZORBLAT


def test_prose_before_and_after() -> None:
    text = f"Sure! Here is a question about zorblats.\n\n{TEMPLATE}\n\nExplanation: they spin."
    assert parse_question(text) == ZORBLAT


def test_stem_over_several_lines() -> None:
    text = TEMPLATE.replace("zorblat?", "zorblat\nin the northern valleys?")
    parsed = parse_question(text)
    assert isinstance(parsed, ParsedQuestion)
    assert parsed.stem == "What is the main use of a zorblat in the northern valleys?"


def test_no_question_label_uses_text_above_choice_a() -> None:
    text = "Here is a question:\nWhat is the main use of a zorblat?\n" + TEMPLATE.split("?\n", 1)[1]
    assert parse_question(text) == ZORBLAT


def test_answer_letter_with_text() -> None:
    assert parse_question(TEMPLATE.replace("Answer: B", "Answer: C. Storing seeds")).answer == 2


def test_answer_in_parentheses() -> None:
    assert parse_question(TEMPLATE.replace("Answer: B", "Answer: (D)")).answer == 3


def test_answer_as_text_only() -> None:
    assert parse_question(TEMPLATE.replace("Answer: B", "Answer: cooking RICE!")).answer == 0


def test_answer_on_next_line() -> None:
    assert parse_question(TEMPLATE.replace("Answer: B", "Answer:\nD. Tuning harps")).answer == 3


def test_the_correct_answer_is() -> None:
    text = TEMPLATE.replace("Answer: B", "The correct answer is C.")
    assert parse_question(text).answer == 2
    assert parse_question(TEMPLATE.replace("Answer: B", "Correct answer: A")).answer == 0


def test_text_answer_matching_no_choice() -> None:
    text = TEMPLATE.replace("Answer: B", "Answer: Painting walls")
    assert parse_question(text) == QuestionFailure("answer not one of the choices")


def test_missing_answer() -> None:
    text = TEMPLATE.replace("Answer: B", "I hope this helps!")
    assert parse_question(text) == QuestionFailure("no answer line")


def test_answer_e() -> None:
    text = TEMPLATE.replace("Answer: B", "Answer: E")
    assert parse_question(text) == QuestionFailure("answer E is not one of A-D")


def test_five_choices() -> None:
    text = TEMPLATE.replace("Answer: B", "E. Mending nets\nAnswer: B")
    assert parse_question(text) == QuestionFailure("found 5 choices, expected 4")


def test_three_choices() -> None:
    text = TEMPLATE.replace("D. Tuning harps\n", "")
    assert parse_question(text) == QuestionFailure("found 3 choices, expected 4")


def test_duplicated_choices() -> None:
    text = TEMPLATE.replace("D. Tuning harps", "D. measuring wind.")
    assert parse_question(text) == QuestionFailure("duplicated choices")


def test_duplicated_label() -> None:
    text = TEMPLATE.replace("D. Tuning", "C. Tuning")
    assert parse_question(text) == QuestionFailure("duplicated label C")


def test_empty_choice() -> None:
    text = TEMPLATE.replace("C. Storing seeds", "C.")
    assert parse_question(text) == QuestionFailure("empty choice C")


def test_no_question_statement() -> None:
    text = TEMPLATE.replace("Question: What is the main use of a zorblat?", "Question:")
    assert parse_question(text) == QuestionFailure("no question statement")


def test_two_blocks_last_wins() -> None:
    second = TEMPLATE.replace("zorblat", "glimmet").replace("Answer: B", "Answer: A")
    parsed = parse_question(f"{TEMPLATE}\n\n{second}")
    assert isinstance(parsed, ParsedQuestion)
    assert (parsed.stem, parsed.answer) == ("What is the main use of a glimmet?", 0)


def test_two_blocks_last_broken_earlier_complete_wins() -> None:
    broken = "Question: What is a glimmet?\nA. A fish\nB. A fish"
    assert parse_question(f"{TEMPLATE}\n{broken}") == ZORBLAT


def test_smollm_repeated_question_with_extra_choice() -> None:
    text = """Question: What's a 2020s popular product that has a magical ability?
Options: A.
B.
C.
D.
Question: What's a 2020s popular product that has a magical ability?
A. The X-Men movie.
B. The Batmobile.
C. The X-Tremendra.
D. The X-Dragon.
C. The X-Dragon, a magical artifact created by a fan of the Batmobile franchise."""
    assert parse_question(text) == QuestionFailure("duplicated label C")
    assert parse_question(text.split("\nQuestion:")[0]) == QuestionFailure("empty choice A")


def test_smollm_question_without_choices() -> None:
    text = (
        "Question: Can you give me a detailed explanation of the [option A] in the [type] "
        "of the [type] of [type]?"
    )
    assert parse_question(text) == QuestionFailure("no choices")


def test_loose_answer_letters() -> None:
    assert parse_question(TEMPLATE.replace("Answer: B", "Answer: d")).answer == 3
    assert parse_question(TEMPLATE.replace("Answer: B", "Answer: C Storing seeds")).answer == 2


def test_empty_reply() -> None:
    assert parse_question(" \n\n") == QuestionFailure("empty reply")


def test_sequential_five() -> None:
    text = "Here are five questions.\n\n" + "\n".join(block(n) for n in range(1, 6))
    parsed = parse_questions(text, 5)
    assert [p.stem for p in parsed] == [f"Which colour is flimb number {n}?" for n in range(1, 6)]
    assert parsed[4] == ParsedQuestion(
        "Which colour is flimb number 5?", ("Red 5", "Green 5", "Blue 5", "Black 5"), 2
    )


def test_sequential_four_of_five() -> None:
    parsed = parse_questions("\n".join(block(n) for n in range(1, 5)), 5)
    assert len(parsed) == 5
    assert all(isinstance(p, ParsedQuestion) for p in parsed[:4])
    assert parsed[4] == QuestionFailure("question 5 missing")


def test_sequential_broken_in_the_middle() -> None:
    blocks = [block(n, answer="Z" if n == 3 else "A") for n in range(1, 6)]
    parsed = parse_questions("\n".join(blocks), 5)
    assert parsed[2] == QuestionFailure("answer Z is not one of A-D")
    assert [p.answer for i, p in enumerate(parsed) if i != 2] == [0, 0, 0, 0]


def test_sequential_bold_labels_and_unnumbered_fallback() -> None:
    bold = "\n".join(block(n).replace(f"Question {n}:", f"**Question {n}:**") for n in (1, 2))
    assert [p.stem for p in parse_questions(bold, 2)] == [
        "Which colour is flimb number 1?",
        "Which colour is flimb number 2?",
    ]
    plain = "\n".join(block(n).replace(f"Question {n}:", "Question:") for n in (1, 2))
    assert [p.choices[0] for p in parse_questions(plain, 3)[:2]] == ["Red 1", "Red 2"]
    assert parse_questions(plain, 3)[2] == QuestionFailure("question 3 missing")


def test_concept_normal() -> None:
    text = "Concept: Florbix\nContent: Florbix is a blue mineral found in caves."
    assert parse_concept(text) == ("Florbix", "Florbix is a blue mineral found in caves.")


def test_concept_bold_with_preamble() -> None:
    text = "Sure, here it is.\n\n**Concept:** Florbix\n**Content:** Florbix glows at night."
    assert parse_concept(text) == ("Florbix", "Florbix glows at night.")


def test_concept_multiline_content() -> None:
    text = (
        "Concept: Florbix\nContent:\nFlorbix is a blue mineral\nfound in deep caves.\n\n"
        "Let me know if you need more."
    )
    assert parse_concept(text) == ("Florbix", "Florbix is a blue mineral found in deep caves.")


def test_concept_missing_content() -> None:
    assert parse_concept("Concept: Florbix\n") == QuestionFailure("no content paragraph")


def test_concept_missing_concept_line() -> None:
    assert parse_concept("Content: A glowing stone.") == ("", "A glowing stone.")
    assert parse_concept("Hi!\n\nFlorbix is a stone that glows.") == (
        "",
        "Florbix is a stone that glows.",
    )


PIECES = "Question:|Question 2:|A.|B)|(C)|D:|E.|Answer:|**|Answer: A|The correct answer is|Options:"
PIECES = [*PIECES.split("|"), "Content:", "Concept:", "\n", "\n\n"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=30),
            st.sampled_from(PIECES),
        ),
        max_size=20,
    ).map(" ".join)
)
def test_never_raises(text: str) -> None:
    for result in (parse_question(text), *parse_questions(text, 3)):
        assert isinstance(result, (ParsedQuestion, QuestionFailure))
    assert isinstance(parse_concept(text), (tuple, QuestionFailure))


def test_the_template_copied_unfilled_is_a_failure():
    # seen from SmolLM2-135M: the template echoed, with an answer letter under it
    echoed = ("Question: [question statement]\nA. [choice A]\nB. [choice B]\nC. [choice C]\n"
              "D. [choice D]\nThe answer is: C")
    assert parse_question(echoed) == QuestionFailure("template placeholder left in")
    half = "Question: [question statement]\nA. Quarks\nB. Gluons\nC. Leptons\nD. Bosons\nAnswer: A"
    assert parse_question(half) == QuestionFailure("template placeholder left in")
    filled = "Question: Which [sic] particle binds zorbs?\nA. Quarks\nB. Gluons\nC. Leptons\n" \
             "D. Bosons\nAnswer: B"
    assert parse_question(filled) == ParsedQuestion("Which [sic] particle binds zorbs?",
                                                    ("Quarks", "Gluons", "Leptons", "Bosons"), 1)
    assert parse_concept("Concept: Zorbs\nContent: [a single paragraph of text]") == \
        QuestionFailure("template placeholder left in")


@pytest.mark.parametrize("reply, reason", [
    # seen from SmolLM2-135M at temperature 1
    ("Question: 5. [question statement]\nA. 4.\nB. 6.\nC. 5.\nD. 9.\n\nThe answer is option C",
     "template placeholder left in"),
    ("Question: Can the concept of drowning a whale be made real?\nA. C\nB. D\nC. E\nD. A\n"
     "Answer: C", "a choice is only a letter"),
    ("Question: Is it proven?\nA. (B)\nB. (D)\nC. (C)\nD. (A)\nAnswer: A",
     "a choice is only a letter"),
])
def test_small_model_junk_is_dropped(reply, reason):
    assert parse_question(reply) == QuestionFailure(reason)


def test_an_options_heading_is_not_part_of_the_stem():
    reply = ("Question: What is the meaning of zorbs?\nOptions:\nA. Flux\nB. Spin\nC. Charm\n"
             "D. Glue\nAnswer: B")
    assert parse_question(reply) == ParsedQuestion("What is the meaning of zorbs?",
                                                   ("Flux", "Spin", "Charm", "Glue"), 1)
