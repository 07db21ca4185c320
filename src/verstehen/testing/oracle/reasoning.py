"""Reasoning prose written before an answer: about `tokens` words with the distractors a real
reasoning reply has.

- Yes/No: the words "yes" and "no" in sentences, and a tentative "Maybe the answer is no."
  (the other answer) before the final one.
- numbers: intermediate numbers (a rough first figure, which is the other answer, and the
  steps of the calculation without its end); never the word "answer".
- matrices: a draft matrix (the other answer's) written inline as a Python literal.
- poems, lines, words, blanks: a draft (the other answer's first line, or word) in quotes.
- choices: the other option discussed, with no cue ("the answer is", "I choose") that a reader
  takes for a choice.
Sentences form paragraphs of at least 40 words, one line each (so a paragraph is never taken
for a line of verse); any positive `tokens` gives at least one paragraph.
"""

from __future__ import annotations

import numpy as np

from verstehen.testing.oracle.answers import Answer

PARAGRAPH_WORDS = 40

_FILLER = {
    "yes_no": (
        "Yes and no both look possible at first glance, which is why this needs a careful check.",
        "There is no reason to rush, so I will look at each part of the question in turn.",
        "I should not say yes just because one part looks right, nor no because of one odd "
        "number.",
        "Each condition in the definition has to be checked against the example exactly.",
    ),
    "number": (
        "Splitting the numbers into easier parts makes the arithmetic safer.",
        "I will double-check the digits once more, since a slipped digit is easy to miss.",
        "Carrying and borrowing need care at every place value.",
        "Keeping track of the decimal point matters as much as the digits themselves.",
    ),
    "matrix": (
        "Each cell lists Player 1's payoff first and Player 2's second.",
        "Checking rows and columns one by one matters, because one payoff can change the "
        "verdict.",
        "I will recheck the comparisons between strategies after every change I make.",
        "The shape of the matrix has to stay exactly as asked.",
    ),
    "poem": (
        "Stresses matter as much as syllable counts, so I read each line slowly.",
        "The required word and the form both have to be kept in view.",
        "Counting syllables word by word avoids the usual mistakes with words like fire or "
        "every.",
        "A natural word order reads better than a forced one.",
    ),
    "word": (
        "Perfect rhymes share every sound from the last stressed vowel on, slant rhymes only "
        "part of them.",
        "Comparing the vowel and the final consonants separately helps here.",
        "The word should be a common one, so that its pronunciation is not in doubt.",
        "Spelling can mislead, so I compare the sounds rather than the letters.",
    ),
    "fill": (
        "The text around the blank fixes how many syllables and which stresses are needed.",
        "Whatever goes into the blank has to fit the words on either side of it.",
        "Syllables, stresses and rhymes all decide whether the result is an instance.",
        "A short replacement is easier to check than a long one.",
    ),
    "choice": (
        "I will rule out the options that contradict the stem.",
        "Some options are close in meaning, so the details of the question decide.",
        "Reading the stem again helps to see what exactly it asks.",
        "Only one option should survive every check.",
    ),
}
_OPENING = {
    "yes_no": "Let me work through the question step by step before I commit to yes or no.",
    "number": "Let me work this out carefully rather than guess.",
    "matrix": "Let me build the payoff matrix step by step, keeping each condition in view.",
    "poem": "Let me plan the lines and count the syllables of every word.",
    "word": "Let me compare the sounds of a few candidate words.",
    "fill": "Let me look at the text around the blank and what it needs.",
    "choice": "Let me read each option carefully before deciding.",
}
_CLOSING = {
    "yes_no": "Having checked every part, I am confident now.",
    "number": "That settles the calculation.",
    "matrix": "The final matrix below meets every requirement.",
    "poem": "The final version below keeps the form.",
    "word": "The final word below is the one that works.",
    "fill": "The final text for the blank is below.",
    "choice": "Only one option survives every check.",
}


def _group(kind: str) -> str:
    return "poem" if kind == "line" else kind


def _distractor(answer: Answer, other: Answer) -> str:
    """The sentence that states something other than the final answer."""
    kind = _group(answer.kind)
    if kind == "yes_no":
        return (f"Maybe the answer is {other.text.lower()}. But before settling on that, I want "
                "to check it once more.")
    if kind == "number":
        steps = answer.working.rsplit(" = ", 1)[0]
        return (f"My first rough figure was {other.text}, which I should not trust. Working it "
                f"through: {steps}.")
    if kind == "matrix":
        return (f"A first draft would be {other.text}, but I need to check it against every "
                "condition.")
    if kind == "poem":
        mine = set(answer.text.split("\n"))
        lines = other.text.split("\n")
        first = next((line for line in lines if line not in mine), lines[0])
        return f'A first draft line, "{first}", does not quite work yet.'
    if kind in ("word", "fill"):
        return f'"{other.text}" comes to mind first, but I should check it properly.'
    return (f"Option {other.text} looks tempting at first, but it does not fit every detail "
            "of the question.")


def reasoning(answer: Answer, other: Answer, tokens: int, rng: np.random.Generator) -> str:
    """About `tokens` words of reasoning towards `answer`, with `other` as its distractor
    (module doc); "" when tokens <= 0."""
    if tokens <= 0:
        return ""
    kind = _group(answer.kind)
    filler, closing = _FILLER[kind], _CLOSING[kind]
    sentences = [_OPENING[kind]]
    count = len(sentences[0].split())
    distractor = _distractor(answer, other)
    budget = max(tokens - len(closing.split()) - len(distractor.split()), 0)
    placed = False
    order: list[int] = []
    while True:
        if not placed and count >= 0.6 * budget:
            sentences.append(distractor)
            count += len(distractor.split())
            placed = True
        if placed and count + len(closing.split()) >= tokens:
            break
        if not order:
            order = rng.permutation(len(filler)).tolist()
        sentence = filler[order.pop()]
        sentences.append(sentence)
        count += len(sentence.split())
    sentences.append(closing)
    return "\n\n".join(_paragraphs(sentences))


def _paragraphs(sentences: list[str]) -> list[str]:
    """Sentences joined into lines of at least PARAGRAPH_WORDS words (the last one merged into
    the one before when it is shorter)."""
    out: list[list[str]] = [[]]
    for s in sentences:
        if sum(len(x.split()) for x in out[-1]) >= PARAGRAPH_WORDS:
            out.append([])
        out[-1].append(s)
    if len(out) > 1 and sum(len(x.split()) for x in out[-1]) < PARAGRAPH_WORDS:
        tail = out.pop()
        out[-1] += tail
    return [" ".join(p) for p in out]
