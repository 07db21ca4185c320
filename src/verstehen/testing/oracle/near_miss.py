"""The adversary's content: a plausible wrong answer to a question, one the scope reads and grades 0
"wrong" (not "unparsed": it must be read, and found wrong).

Each kind has candidates, most plausible first; the first that the scope grades "wrong" when
written plainly (`answers.bare`) is the adversary's answer:
- Yes/No: the other one.
- a generated matrix: the right one with one payoff off by 1 or 2 (else an extra row);
  an edited matrix: the shown one with one payoff moved and the claim as it was (else unchanged).
- a haiku or sonnet: the right one with the required word swapped for another noun of the same
  stresses (else without its last line); an iambic line that ends in the word but is one
  syllable off or trochaic; an anapestic phrase one foot longer than asked.
- a rhyme: a slant rhyme for a perfect one and a perfect rhyme for a slant one, else an
  unrelated word, else the word itself.
- a blank's text: one that leaves the text as it was (an instance, or not): a word of another
  stress pattern, a line out of meter, a rhyme where a non-rhyme was asked, ...
- a number: a slipped decimal point (10 times too big or small) or a sign error (for a
  difference), which the arithmetic scopes call ridiculous; a number off by a little scores
  above 0 there, so it cannot be the adversary's.
- a choice: the first other label.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from fractions import Fraction
from functools import cache
from itertools import product

import numpy as np

from verstehen.domains.base import Item
from verstehen.domains.game_theory.game import Game
from verstehen.domains.game_theory.tasks.base import GameConcept
from verstehen.domains.poetry import generate as gen
from verstehen.domains.poetry.checks import SONNET_PAIRS, perfect_rhyme, slant
from verstehen.domains.poetry.lexicon import IAMBIC, Entry, lexicon
from verstehen.domains.poetry.pronounce import words
from verstehen.domains.poetry.tasks_forms import Anapest, IambicPentameter, entry_of
from verstehen.domains.poetry.tasks_pairs import PairConcept, PerfectRhyme
from verstehen.methods.certification.scopes.arithmetic import ArithmeticScope
from verstehen.methods.certification.scopes.concepts import ConceptScope
from verstehen.scopes.base import Question, Scope
from verstehen.scopes.mcq import MCQScope
from verstehen.testing.oracle.answers import (
    Answer,
    bare,
    choice_answer,
    concept_answer,
    matrix_answer,
    number_answer,
)

# a blank's text too long for any line of the forms: never makes an instance
LONG_FILL = "the quiet river sleeps beneath the silver moon and dreams of distant shores tonight"


def wrong_answer(scope: Scope, question: Question, right: Answer) -> Answer:
    """The first candidate (module doc) the scope grades 0 "wrong"; RuntimeError if none is."""
    for candidate in _candidates(scope, question, right):
        graded = scope.grade(question, bare(candidate))
        if graded.score == 0.0 and graded.outcome == "wrong":
            return candidate
    raise RuntimeError(f"no wrong answer found for {question.id} of {scope.name}")


def _candidates(scope: Scope, question: Question, right: Answer) -> Iterator[Answer]:
    if isinstance(scope, ConceptScope):
        item = scope.item_of(question)
        if item.kind == "classify":
            yield Answer("yes_no", "No" if right.text == "Yes" else "Yes", right.lead)
        elif isinstance(scope.tasks, GameConcept):
            yield from (matrix_answer(g) for g in _games(item, right))
        else:
            rng = np.random.default_rng(zlib.crc32(question.id.encode()))
            texts = (_fills(scope.tasks, item, rng) if item.kind == "edit"
                     else _poems(scope.tasks, item, right, rng))
            yield from (concept_answer(scope, item, t) for t in texts)
    elif isinstance(scope, ArithmeticScope):
        yield from (number_answer(question, x)
                    for x in _slips(scope.exact_answer(question), question.data["op"]))
    elif isinstance(scope, MCQScope):
        yield from (choice_answer(label) for label in question.data["labels"]
                    if label != question.answer)


# ---------------------------------------------------------------- matrices

def _moved(game: Game, deltas: Iterable[int] = (1, -1, 2)) -> Iterator[Game]:
    """The game with one payoff moved by each delta, cell by cell (never below 0 when the game
    has no negative payoff)."""
    floor = 0 if min(x for row in game.cells for cell in row for x in cell) >= 0 else None
    m, n = game.shape
    for (i, j), p, d in product(product(range(m), range(n)), (0, 1), deltas):
        cell = list(game.cells[i][j])
        cell[p] += d
        if floor is None or cell[p] >= floor:
            yield game.with_cell(i, j, (cell[0], cell[1]))


def _games(item: Item, right: Answer) -> Iterator[Game]:
    if item.kind == "generate":
        assert right.game is not None
        yield from _moved(right.game)
        rows = right.game.cells
        yield Game((*rows, rows[-1]))  # an extra row: the wrong shape
    else:
        shown = Game.from_json(item.data["game"])
        yield from _moved(shown)
        yield shown


# ---------------------------------------------------------------- poems, lines and words

def _poems(tasks: object, item: Item, right: Answer, rng: np.random.Generator
           ) -> Iterator[str]:
    data = item.data
    if isinstance(tasks, PairConcept):
        related = tasks.relation
        near = slant if isinstance(tasks, PerfectRhyme) else perfect_rhyme
        for good in (lambda a, b: near(a, b).ok, lambda a, b: not related(a, b).ok):
            if (found := gen.partner(rng, data["word"], good)) is not None:
                yield found
        yield data["word"]
        return
    if isinstance(tasks, IambicPentameter):
        yield gen.iambic_negative(rng, entry_of(data["word"], ("noun", "verb", "adv")))
    elif isinstance(tasks, Anapest):
        yield gen.anapestic_phrase(rng, data["feet"] + 1)
    else:
        if (swapped := _swap_word(right.text, data["word"], rng)) is not None:
            yield swapped
        yield "\n".join(right.text.split("\n")[:-1])
    yield f"{right.text}\n{right.text}"


def _swap_word(poem: str, word: str, rng: np.random.Generator) -> str | None:
    """The poem with every `word` replaced by another noun of the same stresses."""
    cls = entry_of(word).cls
    nouns = [e.word for e in lexicon().entries
             if e.tag == "noun" and e.cls == cls and e.word != word]
    if not nouns:
        return None
    other = gen.pick(rng, nouns)

    def swap(m: re.Match[str]) -> str:
        return other.capitalize() if m.group(0)[0].isupper() else other
    return re.sub(rf"\b{re.escape(word)}\b", swap, poem, flags=re.I)


# ---------------------------------------------------------------- blanks

@cache
def _class_words() -> tuple[str, ...]:
    """One vocabulary word per stress pattern, shortest patterns first."""
    first: dict[str, str] = {}
    for e in lexicon().entries:
        first.setdefault(e.cls, e.word)
    return tuple(first[c] for c in sorted(first, key=lambda c: (len(c), c)))


def _rhymes_of(word: str) -> list[Entry]:
    """Vocabulary words that share `word`'s rhyme part, other than `word` itself."""
    tail = lexicon().by_word[word].tail if word in lexicon().by_word else None
    return [e for e in lexicon().rhyme_groups.get(tail or (), ()) if e.word != word]


def _fills(tasks: object, item: Item, rng: np.random.Generator) -> Iterator[str]:
    """Texts for the blank that leave the instance as it was (module doc)."""
    masked, make = item.data["masked"], item.data["make_instance"]
    if isinstance(tasks, PairConcept):
        kept = next(w for w in re.findall(r'"([^"]*)"', masked) if w != "_").lower()
        if make:
            yield tasks.non_partner(rng, kept)
            yield kept
        elif (found := gen.partner(rng, kept, lambda a, b: tasks.relation(a, b).ok)):
            yield found
        return
    lines = masked.split("\n")
    k = next(i for i, line in enumerate(lines) if "_" in line)
    partner = next((j for pair in SONNET_PAIRS if k in pair for j in pair if j != k), None)
    sonnet = len(lines) == 14 and partner is not None
    rhymes = (_rhymes_of(words(lines[partner])[-1])
              if sonnet and words(lines[partner]) else [])
    if sonnet and lines[k].strip() == "_":  # a whole line
        ends = [e for e in rhymes if e.tag != "adj" and IAMBIC.fits(e.cls, 10 - len(e.cls))]
        if make:
            yield from (gen.iambic_negative(rng, e) for e in ends[:2])
        else:
            yield from _tried(lambda e: gen.iambic_line(rng, e), ends)
    else:
        if not make:
            yield from (e.word for e in rhymes)
        yield from _class_words()
    if make:
        yield LONG_FILL


def _tried(make: Callable[[Entry], str], entries: Iterable[Entry]) -> Iterator[str]:
    for e in entries:
        try:
            yield make(e)
        except RuntimeError:
            continue


# ---------------------------------------------------------------- numbers

def _slips(value: Fraction, op: str) -> Iterator[Fraction]:
    """A sign error for a difference, then a slipped decimal point, then bigger slips."""
    if value == 0:
        yield from (Fraction(10), Fraction(100))
        return
    if op == "-":
        yield -value
    yield from (value * 10, value / 10, value * 100, -value)

