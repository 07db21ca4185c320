"""Background facts of an anchor question (conceptual consistency, Sahu et al., ICLR 2023, 3.1).

Concepts of the anchor are matched to knowledge-base concepts by word overlap; the positive facts
are the edges on short paths between two of them; each positive tuple (c1, r, c2) gets one
negative (c1, r, c2'), c2' drawn from frequent English concepts with no such edge in the
loaded knowledge base (the only one checked: a partial base can miss a true edge).

Concept matching, the paper's "> 50% of words match", read both ways: a KB concept matches a
phrase (1..max_words consecutive words of one text of the anchor, its stem or one choice, not
all stopwords; no phrase runs from the stem into a choice or from one choice into the next)
when more than half of the concept's words are in the phrase AND more than half of the
phrase's words are in the concept; they must share a word that is not a stopword, and
concepts made only of stopwords never match. A word that is not itself a KB concept also stands
for its simple lemmas that are KB words: -s, -es, -ies -> -y, -ing, -ing -> -e, -ed, -ed -> -e
(stems of 3 letters or more).
"""

from __future__ import annotations

import hashlib
import random
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

from verstehen.errors import UserError
from verstehen.methods.consistency.knowledge import Edge, KnowledgeBase, tokenize

_STOPWORDS_TEXT = """
a about above after again against all also am an and any are as at be because been before being
below between both but by can could did do does doing done down during each few for from further
had has have having he her here hers him his how i if in into is it its itself just me more most
my no nor not of off on once only or other our ours out over own same she should so some such
than that the their theirs them then there these they this those through to too under until up
very was we were what when where which while who whom why will with would you your yours
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())
# ConceptNet's symmetric relations among the 14: the reverse edge makes a negative true as well
SYMMETRIC = frozenset({"Antonym", "RelatedTo", "SimilarTo", "Synonym"})


@dataclass(frozen=True, order=True)
class Fact:
    """A background tuple (c1, relation, c2); `positive` is False for a mined negative."""

    relation: str
    c1: str
    c2: str
    positive: bool

    @property
    def key(self) -> str:
        """A stable text id: relation|c1|c2|+ (or -)."""
        return f"{self.relation}|{self.c1}|{self.c2}|{'+' if self.positive else '-'}"


class _Index:
    """Word -> KB concepts containing it, built once per knowledge base."""

    def __init__(self, kb: KnowledgeBase) -> None:
        self.concepts = kb.concepts()
        self.words: dict[str, frozenset[str]] = {}
        self.by_word: dict[str, list[str]] = {}
        for concept in sorted(self.concepts):
            words = frozenset(concept.split("_"))
            if words <= STOPWORDS:
                continue
            self.words[concept] = words
            for w in words - STOPWORDS:
                self.by_word.setdefault(w, []).append(concept)
        self.vocab = frozenset().union(*self.words.values())

    def forms(self, token: str) -> frozenset[str]:
        """The token and, unless it is a concept itself, its stripped forms that are KB words."""
        if token in STOPWORDS or token in self.concepts:
            return frozenset({token})
        stems = []
        if token.endswith("ies"):
            stems.append(token[:-3] + "y")
        if token.endswith("es"):
            stems.append(token[:-2])
        if token.endswith("s") and not token.endswith("ss"):
            stems.append(token[:-1])
        if token.endswith("ing"):
            stems += [token[:-3], token[:-3] + "e"]
        if token.endswith("ed"):
            stems += [token[:-2], token[:-1]]
        return frozenset({token, *(s for s in stems if len(s) >= 3 and s in self.vocab)})

    def match(self, forms: list[frozenset[str]]) -> list[str]:
        """KB concepts sharing more than half of their words with the phrase, and vice versa."""
        n = len(forms)
        seen = frozenset().union(*forms)
        found = []
        candidates = {c for f in seen - STOPWORDS for c in self.by_word.get(f, ())}
        for concept in sorted(candidates):
            words = self.words[concept]
            if 2 * len(words & seen) > len(words) and 2 * sum(1 for f in forms if f & words) > n:
                found.append(concept)
        return found


_INDEXES: weakref.WeakKeyDictionary[KnowledgeBase, _Index] = weakref.WeakKeyDictionary()


def _index(kb: KnowledgeBase) -> _Index:
    if kb not in _INDEXES:
        _INDEXES[kb] = _Index(kb)
    return _INDEXES[kb]


def anchor_concepts(text: str, kb: KnowledgeBase, *, max_words: int = 3) -> list[str]:
    """KB concepts matched by a phrase of 1..max_words words of `text` (not all stopwords), in
    order of first appearance; see `_Index.match` and `_Index.forms` for the rule."""
    index = _index(kb)
    tokens = tokenize(text)
    forms = [index.forms(t) for t in tokens]
    found: dict[str, None] = {}
    for i in range(len(tokens)):
        for n in range(1, min(max_words, len(tokens) - i) + 1):
            span = tokens[i:i + n]
            if all(t in STOPWORDS for t in span):
                continue
            distinct = list({t: f for t, f in zip(span, forms[i:i + n], strict=True)}.values())
            for concept in index.match(distinct):
                found.setdefault(concept)
    return list(found)


def question_concepts(texts: Sequence[str], kb: KnowledgeBase, *, max_words: int = 3
                      ) -> list[str]:
    """KB concepts of an anchor's texts (stem, then each choice), each text matched on its own
    so that no phrase spans two of them; in order of first appearance."""
    found: dict[str, None] = {}
    for text in texts:
        found.update(dict.fromkeys(anchor_concepts(text, kb, max_words=max_words)))
    return list(found)


def background_facts(concepts: Sequence[str], kb: KnowledgeBase, *,
                     max_path_length: int = 1) -> list[Fact]:
    """Positive facts: every edge on a simple path of at most `max_path_length` edges (either
    direction) between two different concepts of `concepts`; sorted, without duplicates."""
    if max_path_length < 1:
        raise UserError(f"max path length must be 1 or more, got {max_path_length}")
    anchors = set(concepts) & kb.concepts()
    found: set[Edge] = set()

    def walk(path: list[str]) -> None:
        last = path[-1]
        final = len(path) == max_path_length  # the next step is the last one allowed
        for nxt in (anchors & kb.neighbours(last)) if final else kb.neighbours(last):
            if nxt in path:
                continue
            if nxt in anchors:
                for u, v in pairwise([*path, nxt]):
                    found.update(e for e in kb.out_edges(u) if e.end == v)
                    found.update(e for e in kb.out_edges(v) if e.end == u)
            elif not final:
                walk([*path, nxt])

    for anchor in sorted(anchors):
        walk([anchor])
    return sorted({Fact(e.relation, e.start, e.end, True) for e in found if e.start != e.end})


def negative_pool(kb: KnowledgeBase, *, size: int = 2000, single_words: bool = True
                  ) -> list[str]:
    """The `size` most frequent KB concepts whose words are all alphabetic and known to
    wordfreq, not all stopwords (by default one word each, as "in the English dictionary" reads);
    most frequent (wordfreq, whole phrase) first, ties alphabetical."""
    from wordfreq import word_frequency, zipf_frequency  # see knowledge.tokenize

    scored = []
    for concept in kb.concepts():
        words = concept.split("_")
        if STOPWORDS.issuperset(words) or (single_words and len(words) > 1):
            continue
        if all(w.replace("'", "").isalpha() and zipf_frequency(w, "en") > 0 for w in words):
            scored.append((-word_frequency(" ".join(words), "en"), concept))
    return [concept for _, concept in sorted(scored)[:size]]


def _rng(seed: int, key: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}\x00{key}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def negative_for(fact: Fact, kb: KnowledgeBase, *, seed: int, pool: Sequence[str]
                 ) -> Fact | None:
    """A negative (c1, r, c2') for a positive fact: c2' uniform over the pool concepts with no
    edge (c1, r, c2') in `kb` (nor (c2', r, c1) for a symmetric r), not c1 or c2; seeded by
    seed + fact."""
    r, c1 = fact.relation, fact.c1

    def valid(c: str) -> bool:
        return c not in (c1, fact.c2) and not kb.has(r, c1, c) and not (
            r in SYMMETRIC and kb.has(r, c, c1))

    if not pool:
        return None
    rng = _rng(seed, fact.key)
    for _ in range(32):  # rejection sampling: uniform over the valid concepts
        pick = pool[rng.randrange(len(pool))]
        if valid(pick):
            return Fact(r, c1, pick, False)
    rest = [c for c in pool if valid(c)]
    return Fact(r, c1, rng.choice(rest), False) if rest else None


def with_negatives(positives: Sequence[Fact], kb: KnowledgeBase, *, seed: int,
                   pool: Sequence[str]) -> list[Fact]:
    """Each positive followed by its negative (when the pool has one)."""
    out: list[Fact] = []
    for fact in positives:
        out.append(fact)
        negative = negative_for(fact, kb, seed=seed, pool=pool)
        if negative is not None:
            out.append(negative)
    return out
