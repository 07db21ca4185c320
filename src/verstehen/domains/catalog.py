"""The concept catalog: the Potemkin paper's 32 concepts (its Table 3) in three domains, with
definitions of our own, then the concepts of installed plugin domains (`domains/plugins.py`).

`name` is the paper's spelling (it keys the published benchmark's rows); `scope` names the
certification scope when verstehen grades the concept exactly by code (the key itself: one
name for both), and is None when the concept needs a judge model or human labels. A plugin's
concepts are all graded exactly; they join `CONCEPTS`, `DOMAINS`, `BY_KEY` and `BY_NAME` when
one of those is first used, not at import (a command that reads no concept loads no plugin
domain; one left out is one line on stderr). `PAPER_CONCEPTS` and `BUILT_IN_DOMAINS` are the
built-in ones alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from verstehen.domains.plugins import ConceptDomain, Installed, domain_registry
from verstehen.plugins import LazyMapping, LazySequence, once
from verstehen.registries import Registry

Grading = Literal["exact", "judge"]

BUILT_IN_DOMAINS = {
    "poetry": "Literary techniques",
    "game-theory": "Game theory",
    "psych": "Psychological biases",
}
# the paper's literary techniques are `poetry` (the exactly graded ones are poetic forms, and
# their code lives in domains/poetry); `literary`, the name runs were first written with, is
# taken for it on input and when reading an old run folder
DOMAIN_ALIASES = {"literary": "poetry"}


def canonical_name(name: str) -> str:
    """A domain, concept key or scope spec with its domain spelled as verstehen spells it
    ("literary" -> "poetry", "literary/haiku/classify" -> "poetry/haiku/classify")."""
    head, sep, rest = name.partition("/")
    return DOMAIN_ALIASES.get(head, head) + sep + rest


@dataclass(frozen=True)
class Concept:
    """One concept of the catalog."""

    key: str          # "<domain>/<slug>", e.g. "game-theory/pure-nash"
    name: str         # as the paper writes it, e.g. "Pure Nash Equilibrium"
    definition: str
    scope: str | None = None  # the exactly-graded scope, when there is one

    @property
    def domain(self) -> str:
        """The domain slug: poetry, game-theory, psych or a plugin's domain."""
        return self.key.split("/", 1)[0]

    @property
    def grading(self) -> Grading:
        """"exact" when a checker grades the use tasks, else "judge" (a judge model or people)."""
        return "exact" if self.scope else "judge"


def _c(key: str, name: str, definition: str, scope: str | None = None) -> Concept:
    return Concept(key, name, definition, scope)


PAPER_CONCEPTS: tuple[Concept, ...] = (
    _c("poetry/haiku", "Haiku",
       "A poem of three lines whose syllables number five, seven and five.", "poetry/haiku"),
    _c("poetry/shakespearean-sonnet", "Shakespearean Sonnet",
       "Fourteen lines of iambic pentameter: three quatrains rhymed ABAB CDCD EFEF and a closing "
       "rhymed couplet GG.", "poetry/shakespearean-sonnet"),
    _c("poetry/analogy", "Analogy",
       "Explaining or arguing from a likeness: what holds of one thing is carried over to another "
       "thing that resembles it in the relevant respect."),
    _c("poetry/paradox", "Paradox",
       "A statement that seems to contradict itself yet, on reflection, holds a truth."),
    _c("poetry/anacoluthon", "Anacoluthon",
       "A sentence that abandons the grammatical structure it began with and continues in another, "
       "for effect."),
    _c("poetry/asyndeton", "Asyndeton",
       "Leaving out the conjunctions between a series of words or clauses (\"I came, I saw, I "
       "conquered\")."),
    _c("poetry/hyperbaton", "Hyperbaton",
       "Departing from the usual order of words to put emphasis on some of them."),
    _c("poetry/synesis", "Synesis",
       "Agreement that follows the meaning of a word rather than its grammatical form (\"the crowd "
       "were cheering\")."),
    _c("poetry/accismus", "Accismus",
       "Pretending to refuse or to be indifferent to something one in fact wants."),
    _c("poetry/slant-rhyme", "Slant Rhyme",
       "Two words whose endings sound alike without rhyming perfectly: from the last stressed "
       "vowel on, either the vowel or the closing consonants differ.", "poetry/slant-rhyme"),
    _c("poetry/enthymeme", "Enthymeme",
       "An argument that leaves one of its premises unstated, for the listener to supply."),
    _c("poetry/anapest", "Anapest",
       "A metrical foot of two unstressed syllables followed by a stressed one (da-da-DUM).",
       "poetry/anapest"),
    _c("game-theory/strict-dominance", "Strict Dominance",
       "A strategy that gives its player a strictly higher payoff than each of the player's other "
       "strategies, whatever the other players do.", "game-theory/strict-dominance"),
    _c("game-theory/iterated-dominance", "Iterated Dominance",
       "Removing strictly dominated strategies one after another, each time in the game that the "
       "earlier removals left, until none is dominated.", "game-theory/iterated-dominance"),
    _c("game-theory/weak-dominance", "Weak Dominance",
       "A strategy that does at least as well as each other strategy against everything the other "
       "players may do, and strictly better against something.", "game-theory/weak-dominance"),
    _c("game-theory/pure-nash", "Pure Nash Equilibrium",
       "A choice of one strategy per player from which no player can gain by switching alone.",
       "game-theory/pure-nash"),
    _c("game-theory/mixed-nash", "Mixed Strategy Nash Equilibrium",
       "A probability mix over strategies for each player such that no player can raise their "
       "expected payoff by changing their mix alone.", "game-theory/mixed-nash"),
    _c("game-theory/pareto-optimality", "Pareto Optimality",
       "An outcome no other outcome improves on for one player without making another worse off.",
       "game-theory/pareto-optimality"),
    _c("game-theory/best-response", "Best Response",
       "A strategy giving its player the highest expected payoff against the other players' given "
       "strategies.", "game-theory/best-response"),
    _c("game-theory/zero-sum", "Zero-Sum Game",
       "A game in which, in every outcome, the payoffs of the players add up to zero.",
       "game-theory/zero-sum"),
    _c("game-theory/symmetric", "Symmetric Game",
       "A game whose payoffs depend on the strategies played and not on who plays them: swapping "
       "the players swaps their payoffs.", "game-theory/symmetric"),
    _c("psych/fundamental-attribution-error", "Fundamental Attribution Error",
       "Explaining what others do by their character while overlooking the situation they are in."),
    _c("psych/black-and-white-thinking", "Black and White Thinking",
       "Seeing things in extremes, all good or all bad, with nothing in between."),
    _c("psych/sunk-cost-fallacy", "Sunk Cost Fallacy",
       "Continuing something because of what has already been spent on it, rather than because of "
       "what continuing will bring."),
    _c("psych/ikea-effect", "IKEA Effect",
       "Valuing a thing more because one has built or assembled it oneself."),
    _c("psych/pseudocertainty-effect", "Pseudocertainty Effect",
       "Choosing as if an outcome were certain when it is certain only given an earlier, uncertain "
       "stage."),
    _c("psych/endowment-effect", "Endowment Effect",
       "Valuing a thing more merely because one owns it."),
    _c("psych/naive-cynicism", "Naive Cynicism",
       "Expecting others to be more driven by self-interest and bias than oneself."),
    _c("psych/normalcy-bias", "Normalcy Bias",
       "Underrating a threat by assuming that things will go on as they always have."),
    _c("psych/spotlight-effect", "Spotlight Effect",
       "Believing that others notice one's appearance and actions far more than they do."),
    _c("psych/illusory-superiority", "Illusory Superiority",
       "Rating one's own abilities or qualities above those of the average person."),
    _c("psych/catastrophizing", "Catastrophizing",
       "Expecting the worst conceivable outcome and treating it as likely."),
)


@dataclass(frozen=True)
class _Catalog:
    """The built-in concepts and domains with those of the installed plugin domains."""

    installed: Installed
    domains: dict[str, str]
    concepts: tuple[Concept, ...]
    by_key: dict[str, Concept]
    by_name: dict[str, Concept]


# the installed packages' domains (the built-in ones are the paper's, above)
DOMAIN_PLUGINS: Registry[ConceptDomain] = domain_registry(
    {*BUILT_IN_DOMAINS, *DOMAIN_ALIASES}, {c.key for c in PAPER_CONCEPTS},
    {c.name.lower() for c in PAPER_CONCEPTS})


@once
def _catalog() -> _Catalog:
    """The catalog with the plugin domains, loaded (and those left out said) at the first use."""
    loaded = DOMAIN_PLUGINS.installed()
    plugins = Installed(loaded.entries, loaded.problems)
    concepts = PAPER_CONCEPTS + tuple(Concept(c.tasks.key, c.name, c.definition, c.tasks.key)
                                      for domain in plugins.domains for c in domain.concepts)
    return _Catalog(plugins, {**BUILT_IN_DOMAINS, **{d.name: d.title for d in plugins.domains}},
                    concepts, {c.key: c for c in concepts}, {c.name.lower(): c for c in concepts})


def installed() -> Installed:
    """The plugin domains that loaded, and a line for each one left out (loads them)."""
    return _catalog().installed


# every domain (slug -> title), concept, concept by key and by lower-case name, plugins' too
DOMAINS: Mapping[str, str] = LazyMapping(lambda: _catalog().domains)
CONCEPTS: Sequence[Concept] = LazySequence(lambda: _catalog().concepts)
BY_KEY: Mapping[str, Concept] = LazyMapping(lambda: _catalog().by_key)
BY_NAME: Mapping[str, Concept] = LazyMapping(lambda: _catalog().by_name)


def concept_by_name(name: str) -> Concept | None:
    """The concept whose paper name is `name` (case-insensitive), or None."""
    return BY_NAME.get(name.strip().lower())
