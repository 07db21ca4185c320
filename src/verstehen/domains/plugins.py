"""Concept domains from installed packages: entry points of group `verstehen.domains`.

A package adds a domain of exactly-graded concepts with an entry point naming a `ConceptDomain`,
e.g. in its pyproject.toml:

    [project.entry-points."verstehen.domains"]
    parity = "parity_domain:DOMAIN"

Its concepts join the catalog (`domains/catalog.py`: `verstehen concepts`, the audit's
subjects, the Potemkin procedures) and the exact scopes (`domains/registry.py`: `certify
--scope`, `verstehen scopes`) when the catalog is first used. A concept's tasks may also
be `domains.base.InstanceTests` (the audit's incoherence lens then checks the model's own
examples); the registry gives those that are not an instance test saying it has none, and
wraps each so that what its code raises is one line (`domains/guarded.py`).

A domain that does not load (whatever its import raises but Ctrl-C), or whose name, a
concept's key or name is taken (a built-in one stays), malformed or not printable text, or a
concept with fewer than two phrasings (a rephrase check asks an item again in another), is left
out whole, said in one line on stderr once per process, never a crash.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from verstehen.plugins import is_printable
from verstehen.registries import Registry

if TYPE_CHECKING:  # not at run time: domains.base imports numpy, which the catalog needs not
    from verstehen.domains.base import ConceptTasks

GROUP = "verstehen.domains"
_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# names a domain cannot take: the audit's and certification's own subjects and scope prefixes
RESERVED = frozenset({"all", "arithmetic", "mcq"})
# what `domains.base.ConceptTasks` asks of an object, checked by name as isinstance() would
TASKS_MEMBERS = ("key", "name", "phrasings", "classify_item", "generate_item", "edit_item",
                 "render", "max_tokens", "grade", "reference")


@dataclass(frozen=True)
class PluginConcept:
    """One exactly-graded concept of a plugin domain: its name and definition as `verstehen
    concepts` lists them, and its use tasks, whose `key` ("<domain>/<slug>") is the concept's
    catalog key and certification scope."""

    name: str          # as a title, e.g. "Even Number"
    definition: str
    tasks: ConceptTasks


@dataclass(frozen=True)
class ConceptDomain:
    """A domain of exactly-graded concepts from an installed package: its name (the first part
    of each concept's key, e.g. "parity"), its title ("Parity of whole numbers") and its
    concepts."""

    name: str
    title: str
    concepts: tuple[PluginConcept, ...]


@dataclass(frozen=True)
class Installed:
    """The plugin domains that loaded, and a line for each one left out."""

    domains: tuple[ConceptDomain, ...] = ()
    problems: tuple[str, ...] = ()


def domain_registry(taken_domains: Collection[str], taken_keys: Collection[str],
                    taken_names: Collection[str]) -> Registry[ConceptDomain]:
    """The registry of plugin domains whose domain names, concept keys and (lower-case)
    concept names are not taken (by the built-in catalog, nor by a domain loaded before)."""

    def clash(domain: ConceptDomain, known: Sequence[ConceptDomain]) -> str | None:
        try:
            _check_free(domain, {*taken_domains, *RESERVED, *(d.name for d in known)},
                        {*taken_keys, *(c.tasks.key for d in known for c in d.concepts)},
                        {*taken_names, *(c.name.lower() for d in known for c in d.concepts)})
        except ValueError as exc:
            return str(exc)
        return None

    return Registry("domain plugin", GROUP, check=_domain, name=lambda d: d.name, clash=clash)


def _domain(value: object, where: str) -> ConceptDomain:
    """`value` when it is a well-formed ConceptDomain; TypeError or ValueError saying what is
    wrong otherwise."""
    if not isinstance(value, ConceptDomain):
        raise TypeError(f"{where} is a {type(value).__name__}, not a "
                        "verstehen.domains.plugins.ConceptDomain")
    if not isinstance(value.name, str) or not _SLUG.fullmatch(value.name):
        raise ValueError(f"domain name {value.name!r} is not a slug (lower-case words "
                         "joined by '-')")
    if not is_printable(value.title) or not value.title.strip():
        raise ValueError(f"domain {value.name!r} has no title of printable text")
    if not value.concepts:
        raise ValueError(f"domain {value.name!r} has no concepts")
    for concept in value.concepts:
        if not isinstance(concept, PluginConcept):
            raise TypeError(f"domain {value.name!r} lists a {type(concept).__name__}, not a "
                            "PluginConcept")
        tasks = concept.tasks
        if missing := [name for name in TASKS_MEMBERS if not hasattr(tasks, name)]:
            raise TypeError(f"the tasks of {concept.name!r} are a {type(tasks).__name__}, "
                            f"not a verstehen.domains.base.ConceptTasks (no "
                            f"{', '.join(missing)})")
        head, _, slug = str(tasks.key).partition("/")
        if not isinstance(tasks.key, str) or head != value.name or not _SLUG.fullmatch(slug):
            raise ValueError(f"concept key {tasks.key!r} is not {value.name}/<slug>")
        if not is_printable(concept.name, concept.definition, tasks.name):
            raise ValueError(f"concept {tasks.key!r}: its names and definition are not all "
                             "printable text")
        if not (concept.name.strip() and concept.definition.strip()):
            raise ValueError(f"concept {tasks.key!r} needs a name and a definition")
        if not (type(tasks.phrasings) is int and tasks.phrasings >= 2):
            raise ValueError(f"concept {tasks.key!r} has {_phrasings(tasks.phrasings)}: it "
                             f"needs at least 2 phrasings (render(item, phrasing) for phrasing "
                             f"0 and 1 at least), as a rephrase check asks an item again in "
                             f"another phrasing")
    return value


def _phrasings(value: object) -> str:
    """How many phrasings a concept has, in words ("1 phrasing"), or what it gave instead."""
    if type(value) is int:
        return f"{value} phrasing" + ("" if value == 1 else "s")
    return f"phrasings {value!r}, not a whole number"


def _check_free(domain: ConceptDomain, domains: set[str], keys: set[str],
                names: set[str]) -> None:
    """ValueError when the domain's name, or a concept's key or name, is taken (also within
    the domain)."""
    if domain.name in domains:
        raise ValueError(f"a domain named {domain.name!r} is known already")
    for concept in domain.concepts:
        if concept.tasks.key in keys:
            raise ValueError(f"a concept {concept.tasks.key!r} is known already")
        if concept.name.lower() in names:
            raise ValueError(f"a concept named {concept.name!r} is known already")
        keys.add(concept.tasks.key)
        names.add(concept.name.lower())
