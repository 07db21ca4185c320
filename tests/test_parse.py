"""Reading model answers, in the shapes models actually write them."""

from __future__ import annotations

import pytest

from verstehen.methods.certification.scopes.parse_numbers import parse_number
from verstehen.parse import answer_text, is_idk, parse_choice, parse_yes_no

IDK = [
    "I don't know",
    "I don’t know.",
    "i dont know",
    "I do not know.",
    "**I don't know**",
    '"I don\'t know"',
    "Don't know",
    "IDK",
    "idk",
    "Unknown",
    "unknown.",
    "Not sure.",
    "I'm not sure.",
    "I cannot answer this question.",
    "I can't determine the result without a calculator.",
    "I'm unable to compute this exactly.",
    "I am unable to answer.",
    "Sorry, I don't know.",
    "Answer: I don't know",
    "No idea",
    "I do not know the answer.",
    "  I DON'T KNOW!!  ",
    "<think>hmm, hard</think>\nI don't know",
]

NOT_IDK = [
    "The answer is 42",
    "42",
    "B. I don't know about others but B is right",
    "B",
    "I think it is 42",
    "I'm not sure, but it is probably 42",
    "I don't know for certain, but I'd guess 579",
    "Not sure, however the answer is C",
    "Unknowns are tricky: 5",
    "I know: 5",
    "",
    "The value is unknown to me",  # does not *start* with the phrase
]


@pytest.mark.parametrize("text", IDK)
def test_is_idk(text: str) -> None:
    assert is_idk(text)


@pytest.mark.parametrize("text", NOT_IDK)
def test_is_not_idk(text: str) -> None:
    assert not is_idk(text)


NUMBERS = [
    ("42", 42.0),
    ("-3.5", -3.5),
    ("−3.5", -3.5),  # unicode minus
    ("1,234,567.89", 1234567.89),
    ("1 234 567", 1234567.0),
    ("1.2e6", 1.2e6),
    ("2.5e-3", 0.0025),
    ("1.2 × 10^6", 1.2e6),
    ("1.2 x 10^6", 1.2e6),
    ("1.2*10**6", 1.2e6),
    ("1.2 \\times 10^{6}", 1.2e6),
    ("1.2 × 10⁶", 1.2e6),
    ("10^6", 1e6),
    ("$5", 5.0),
    ("-$5", -5.0),
    ("= 579", 579.0),
    ("579.", 579.0),
    ("579.00", 579.0),
    ("**579**", 579.0),
    ("`579`", 579.0),
    ("$$579$$", 579.0),
    (".5", 0.5),
    ("The answer is 579.", 579.0),
    ("The answer is -333.", -333.0),
    ("Answer: 1,234", 1234.0),
    ("The answer is: 123 + 456 = 579", 579.0),
    ("The final answer is \\boxed{579}", 579.0),
    ("123 + 456 = 579", 579.0),
    ("123-456=-333", -333.0),
    ("123 × 456 = 123×400 + 123×56 = 49200 + 6888 = 56088", 56088.0),
    ("579\nCheck: 579 - 456 = 123", 579.0),  # a number-only first line wins over a check
    ("The answer is 579. Check: 579 - 456 = 123", 579.0),
    ("The sum of 123 and 456 is 579.", 579.0),  # last number of the first sentence
    ("It is 12. Because 5 + 7 makes 12 and not 13.", 12.0),
    ("Sure!\n579", 579.0),
    ("Approximately 1.5 million.", 1.5e6),
    ("3/4", 0.75),
    ("-1/2", -0.5),
    ("The answer is 3/4.", 0.75),
    ("<think>123 + 456 is 570? no</think>\n579", 579.0),
    # reasoning first, then the final answer: the last line wins over intermediate numbers
    ("37 × 48 is close to 37 × 50 = 1850, minus 37 × 2 = 74.\n\n1776", 1776.0),
    ("The answer is probably 1800. Let me be exact: 1850 - 74.\n\n1776", 1776.0),
    ("Roughly 1850 - 74 = 1776, so:\n```\n1776\n```", 1776.0),
    ("First 37 × 50 = 1850.\n37 × 48 = 1850 − 74 = 1776", 1776.0),
    ("My first guess was 1800.\nFinal answer: 1776", 1776.0),
]

NO_NUMBER = ["", "banana", "nan", "NaN", "inf", "-inf", "infinity", "I don't know",
             "1e999", "1/0", "<think>unfinished 123 + 4", "The answer is unknown."]


@pytest.mark.parametrize(("text", "expected"), NUMBERS)
def test_parse_number(text: str, expected: float) -> None:
    assert parse_number(text) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("text", NO_NUMBER)
def test_parse_number_none(text: str) -> None:
    assert parse_number(text) is None


def test_fraction_only_as_whole_answer() -> None:
    # inside a sentence, "3/4" is two numbers and the sentence rule takes the last one
    assert parse_number("Roughly 3/4 of it") == 4.0
    assert parse_number("1,5") == 5.0  # not a thousands separator: 1 and 5


LABELS = ["A", "B", "C", "D", "E"]

CHOICES = [
    ("B", "B"),
    ("b", "B"),
    ("(B)", "B"),
    ("B.", "B"),
    ("B) because it is", "B"),
    ("B: the second", "B"),
    ("Answer: B", "B"),
    ("Answer: (B) 42", "B"),
    ("The answer is B", "B"),
    ("The answer is B because the others are wrong.", "B"),
    ("**B**", "B"),
    ("**Answer: B**", "B"),
    ("I think the answer is (c)", "C"),
    ("(c)", "C"),
    ("[d]", "D"),
    ("answer is c", "C"),
    ("The correct answer is: d.", "D"),
    ("The correct option is E.", "E"),
    ("I'd go with (D)", "D"),
    ("I’d pick C.", "C"),
    ("I choose **d**", "D"),
    ("\\boxed{C}", "C"),
    ("A", "A"),
    ("A.", "A"),
    ("A: a dog", "A"),
    ("A\n\nA dog is a mammal, so...", "A"),
    ("The answer is A because dogs bark.", "A"),
    ("B. I don't know about others but B is right", "B"),
    ("The answer is B. So the answer is B.", "B"),
    ("My pick: (B)", "B"),  # no strong cue: the only parenthesized label
    ("<think>maybe A? (A) no</think>\nC", "C"),
    ("**Answer:** B", "B"),  # a bold flag with a space before the label
    ("Option A looks tempting, and option C is close.\n\nB", "B"),  # reasoning, then a label
]

NO_CHOICE = [
    "A dog is a mammal",  # the article, not choice A
    "A cat would do this",
    "The answer is a bit tricky",
    "The answer is B. Actually the answer is C.",  # two different answers
    "B. Also, the answer is C",
    "Both (B) and (C) could be right",
    "The answer is either B or C",
    "The answer is Bob",
    "I don't know",
    "banana",
    "",
    "F",  # not a label
]


@pytest.mark.parametrize(("text", "expected"), CHOICES)
def test_parse_choice(text: str, expected: str) -> None:
    assert parse_choice(text, LABELS) == expected


@pytest.mark.parametrize("text", NO_CHOICE)
def test_parse_choice_none(text: str) -> None:
    assert parse_choice(text, LABELS) is None


def test_whole_lowercase_label_is_unambiguous() -> None:
    assert parse_choice("a", LABELS) == "A"
    assert parse_choice("e.", LABELS) == "E"


def test_parse_choice_by_text() -> None:
    choices = ["bank", "library", "department store", "mall", "new york"]
    assert parse_choice("Department store.", LABELS, choices) == "C"
    assert parse_choice("new-york", LABELS, choices) == "E"
    assert parse_choice("the department store", LABELS, choices) is None  # not exact
    assert parse_choice("B", LABELS, choices) == "B"  # a label still wins
    twice = ["apple", "pear", "apple", "fig", "kiwi"]
    assert parse_choice("apple", LABELS, twice) is None  # two choices have that text


def test_parse_choice_other_labels() -> None:
    assert parse_choice("(3)", ["1", "2", "3", "4"]) == "3"
    assert parse_choice("D", ["A", "B", "C"]) is None


def test_answer_text() -> None:
    assert answer_text("<think>x</think>  42 ") == "42"
    assert answer_text("<think>never closed") == ""
    assert answer_text("no reasoning") == "no reasoning"


YES_NO = [
    ("ANSWER: Yes", True),
    ("ANSWER: No", False),
    ("answer: no.", False),
    ("**ANSWER: Yes**", True),
    ("Yes", True),
    ("no", False),
    ("Yes, because row 1 beats row 2 in every column.", True),
    ("**No**, there is no such strategy.", False),
    ("There is no dominant strategy here. ANSWER: No", False),
    ("There is no dominant strategy here.\n\nANSWER: Yes", True),  # the cue, not the prose
    ("ANSWER: No\nWait, let me reconsider. ANSWER: Yes", True),  # the last cue wins
    ("The answer is yes.", True),
    ("<think>no, no...</think>Yes.", True),
    ("Answer = No", False),
    ("$\\boxed{\\text{No}}$", False),  # LaTeX
    ("The final answer is \\boxed{Yes}.", True),
    ("Maybe the answer is no. Let me check again.\n\nANSWER: Yes", True),
    ("Maybe the answer is no. Let me check again.\n\n**Yes**", True),  # the final bare line
    ("ANSWER: Yes\nThat is, no strategy is dominated.", True),  # a later sentence is no answer
]


@pytest.mark.parametrize(("text", "expected"), YES_NO)
def test_parse_yes_no(text: str, expected: bool) -> None:
    assert parse_yes_no(text) is expected


@pytest.mark.parametrize("text", [
    "", "I think so.", "It depends on the payoffs.", "There is no dominant strategy.",
    "Nobody knows", "Yesterday it was yes", "None of them",
])
def test_parse_yes_no_none(text: str) -> None:
    assert parse_yes_no(text) is None
