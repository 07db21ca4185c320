"""Generated positives pass their checker, negatives fail it, masked items have a solution."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from verstehen.domains.poetry import generate as gen
from verstehen.domains.poetry.checks import (
    is_anapestic,
    is_haiku,
    is_iambic_pentameter,
    is_shakespearean_sonnet,
    perfect_rhyme,
    slant,
)
from verstehen.domains.poetry.tasks import POETRY_TASKS

SEEDS = st.integers(0, 2**32 - 1)
FEW = settings(max_examples=25, deadline=None)


@FEW
@given(SEEDS)
def test_haiku(seed: int) -> None:
    rng = np.random.default_rng(seed)
    assert is_haiku(gen.haiku(rng)).ok
    assert not is_haiku(gen.haiku_negative(rng)).ok


@FEW
@given(SEEDS)
def test_sonnet(seed: int) -> None:
    rng = np.random.default_rng(seed)
    text = gen.sonnet(rng)
    v = is_shakespearean_sonnet(text, max_mismatches=0, loose_pairs=0)
    assert v.ok, v.reason
    assert not is_shakespearean_sonnet(gen.sonnet_negative(rng)).ok


@FEW
@given(SEEDS)
def test_lines_and_phrases(seed: int) -> None:
    rng = np.random.default_rng(seed)
    assert is_iambic_pentameter(gen.iambic_line(rng), max_mismatches=0).ok
    assert not is_iambic_pentameter(gen.iambic_negative(rng)).ok
    feet = 1 + seed % 4
    assert is_anapestic(gen.anapestic_phrase(rng, feet), feet=feet).ok
    assert not is_anapestic(gen.anapest_negative(rng, feet)).ok


@FEW
@given(SEEDS)
def test_pairs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = gen.rhyme_pair(rng)
    assert perfect_rhyme(a.word, b.word).ok and not slant(a.word, b.word).ok
    s, t = gen.slant_pair(rng)
    assert slant(s, t).ok and not perfect_rhyme(s, t).ok
    u, v = gen.unrelated_pair(rng)
    assert not slant(u, v).ok and not perfect_rhyme(u, v).ok


@settings(max_examples=15, deadline=None)
@given(SEEDS, st.sampled_from(sorted(POETRY_TASKS)), st.booleans())
def test_masked_items_have_a_solution(seed: int, key: str, make: bool) -> None:
    task = POETRY_TASKS[key]
    item = task.edit_item(np.random.default_rng(seed), make)
    assert item.data["masked"].count("_") == 1
    g = task.grade(item, item.data["solution"])
    assert g.score == 1.0, g.reason


def test_vocabulary_words_are_unambiguous() -> None:
    from verstehen.domains.poetry.lexicon import lexicon
    from verstehen.domains.poetry.meter import word_classes

    entries = lexicon().entries
    assert len(entries) > 600
    assert all(len(word_classes(e.word)) == 1 for e in entries)


def test_vocabulary_has_no_word_that_reads_as_not_knowing() -> None:
    """A stored solution such as "unknown" would be graded as an "I don't know" reply."""
    from verstehen.domains.poetry.lexicon import lexicon
    from verstehen.parse import is_idk

    assert not [e.word for e in lexicon().entries if is_idk(e.word)]
