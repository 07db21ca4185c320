"""A knowledge base of (relation, start, end) edges between ConceptNet-style concepts.

`load_knowledge` reads a TSV/CSV edge table with a header, or ConceptNet's own assertions file
(`conceptnet-assertions-5.x.csv[.gz]`), and raises `UserError` naming file:line for bad input.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache
from itertools import chain
from pathlib import Path
from typing import TextIO

from verstehen.errors import UserError
from verstehen.textfiles import open_text

RELATIONS_14 = ("Antonym", "AtLocation", "CapableOf", "Causes", "Desires", "FormOf", "HasA",
                "IsA", "MadeOf", "PartOf", "RelatedTo", "SimilarTo", "Synonym", "UsedFor")
# ConceptNet 5.5-5.7 relations, beyond the paper's 14
_OTHER_RELATIONS = (
    "CausesDesire", "CreatedBy", "DefinedAs", "DerivedFrom", "DistinctFrom", "Entails",
    "EtymologicallyDerivedFrom", "EtymologicallyRelatedTo", "ExternalURL", "HasContext",
    "HasFirstSubevent", "HasLastSubevent", "HasPrerequisite", "HasProperty", "HasSubevent",
    "InstanceOf", "LocatedNear", "MannerOf", "MotivatedByGoal", "NotCapableOf", "NotDesires",
    "NotHasProperty", "NotUsedFor", "ObstructedBy", "ReceivesAction", "SymbolOf",
    "dbpedia/capital", "dbpedia/field", "dbpedia/genre", "dbpedia/genus", "dbpedia/influencedBy",
    "dbpedia/knownFor", "dbpedia/language", "dbpedia/leader", "dbpedia/occupation",
    "dbpedia/product",
)
_SEPARATORS = re.compile(r"[\s_\-]+")
_RELATION_KEYS = {_SEPARATORS.sub("", r).lower(): r for r in RELATIONS_14 + _OTHER_RELATIONS}
_RELATION_KEYS["cause"] = "Causes"  # the paper's Table 2 name
_PREFIX = re.compile(r"^/c/[a-z]{2,3}/")
_DROPPED, _DROP_FIRST = frozenset({"the", "a", "an"}), "to"


def normalize_concept(text: str) -> str:
    """ConceptNet's `standardized_concept_uri` text rule: drop a `/c/<lang>/` prefix and sense
    suffix, tokenize with wordfreq (lowercase, punctuation and hyphens split), drop "a"/"an"/"the"
    and leading "to" (unless nothing is left), join with "_": "Revolving Door" -> "revolving_door".
    """
    text = text.strip()
    if _PREFIX.match(text):
        text = text.split("/")[3]
    return _standardize(text)


def tokenize(text: str) -> list[str]:
    """wordfreq's tokens of a text: lowercase, punctuation and hyphens split."""
    from wordfreq import tokens  # ~90 ms: loaded when consistency first reads text

    return tokens.simple_tokenize(text)


@lru_cache(maxsize=1 << 16)
def _standardize(text: str) -> str:
    tokens = tokenize(text.replace("_", " "))
    kept = [t for t in tokens if t not in _DROPPED]
    while kept and kept[0] == _DROP_FIRST:
        kept.pop(0)
    return "_".join(kept or tokens)


def normalize_relation(text: str) -> str:
    """A ConceptNet relation name from "/r/AtLocation", "at location", "at_location" and the like;
    `UserError` for an unknown name."""
    key = text.strip().removeprefix("/r/").rstrip("/")
    found = _RELATION_KEYS.get(_SEPARATORS.sub("", key).lower())
    if found is None:
        raise UserError(f"unknown relation {text!r} (ConceptNet names such as "
                        f"{', '.join(RELATIONS_14)})")
    return found


@dataclass(frozen=True)
class Edge:
    """One directed edge: `relation` from concept `start` to concept `end`, weight if known."""

    relation: str
    start: str
    end: str
    weight: float | None = None


class KnowledgeBase:
    """Edges with lookups by triple, by start concept and by neighbour; a triple given twice is
    kept once, with the larger weight, in order of first appearance."""

    def __init__(self, edges: Iterable[Edge]) -> None:
        unique: dict[tuple[str, str, str], Edge] = {}
        for e in edges:
            key = (e.relation, e.start, e.end)
            old = unique.get(key)
            if old is None or (e.weight is not None and (old.weight is None or
                                                         e.weight > old.weight)):
                unique[key] = e
        self.edges: tuple[Edge, ...] = tuple(unique.values())
        self._triples = frozenset(unique)
        out: dict[str, list[Edge]] = {}
        near: dict[str, set[str]] = {}
        for e in self.edges:
            out.setdefault(e.start, []).append(e)
            near.setdefault(e.start, set()).add(e.end)
            near.setdefault(e.end, set()).add(e.start)
        self._out = {c: tuple(es) for c, es in out.items()}
        self._near = {c: frozenset(ns) for c, ns in near.items()}
        self._concepts = frozenset(near)

    def __len__(self) -> int:
        return len(self.edges)

    def has(self, relation: str, start: str, end: str) -> bool:
        """Whether the edge (start, relation, end) is in the base."""
        return (relation, start, end) in self._triples

    def concepts(self) -> frozenset[str]:
        """Every concept at either end of an edge."""
        return self._concepts

    def out_edges(self, concept: str) -> tuple[Edge, ...]:
        """The edges that start at `concept`."""
        return self._out.get(concept, ())

    def neighbours(self, concept: str) -> frozenset[str]:
        """Concepts joined to `concept` by an edge in either direction."""
        return self._near.get(concept, frozenset())

    def restricted(self, relations: Iterable[str]) -> KnowledgeBase:
        """The base with only the edges of `relations` (names normalized)."""
        keep = {normalize_relation(r) for r in relations}
        return KnowledgeBase(e for e in self.edges if e.relation in keep)


def load_knowledge(path: Path, relations: Iterable[str] | None = RELATIONS_14) -> KnowledgeBase:
    """Edges of `relations` (None: all) from a TSV/CSV table with a header (relation, start, end
    [, weight]) or from ConceptNet's assertions file (English-English edges only)."""
    path = Path(path)
    keep = None if relations is None else {normalize_relation(r) for r in relations}
    if not path.is_file():
        raise UserError(f"{path}: no such file")
    try:
        with _open(path) as stream:
            first = stream.readline()
            if first.startswith("/a/"):
                edges = list(_assertions(path, first, stream, keep))
            else:
                edges = list(_table(path, first, stream, keep))
    except UnicodeDecodeError as e:
        raise UserError(f"{path}: not a UTF-8 text file ({e.reason})") from e
    except (OSError, EOFError) as e:
        raise UserError(f"{path}: cannot read: {e}") from e
    if not edges:
        which = "" if keep is None else f" of the relations {', '.join(sorted(keep))}"
        raise UserError(f"{path}: no edges{which}")
    return KnowledgeBase(edges)


def _open(path: Path) -> TextIO:
    return open_text(path, "knowledge base", gzipped=True)


def _relation(raw: str, where: str) -> str:
    try:
        return normalize_relation(raw)
    except UserError as e:
        raise UserError(f"{where}: {e}") from None


def _weight(raw: str, where: str) -> float | None:
    raw = raw.strip()
    if raw.upper() in ("", "NA", "NAN", "NONE", "NULL"):
        return None
    try:
        return float(raw)
    except ValueError:
        raise UserError(f"{where}: weight {raw!r} is not a number or NA") from None


def _table(path: Path, header: str, stream: TextIO, keep: set[str] | None) -> Iterator[Edge]:
    """Rows of a headed TSV/CSV: the delimiter is the header's (a tab, else a comma)."""
    delimiter = "\t" if "\t" in header or (path.suffix.lower() == ".tsv" and "," not in header) \
        else ","
    reader = csv.reader(io.StringIO(header), delimiter=delimiter)
    names = [n.strip().lower() for n in next(reader, [])]
    cols = {}
    for name in ("relation", "start", "end", "weight"):
        if name in names:
            cols[name] = names.index(name)
        elif name != "weight":
            raise UserError(f"{path}:1: no {name!r} column (need relation, start, end[, weight])")
    need = max(cols.values()) + 1
    rows = csv.reader(stream, delimiter=delimiter,
                      quoting=csv.QUOTE_NONE if delimiter == "\t" else csv.QUOTE_MINIMAL)
    line = 2
    try:
        for row in rows:
            where, line = f"{path}:{line}", rows.line_num + 2  # a quoted field can span lines
            if not any(cell.strip() for cell in row):
                continue
            if len(row) < need:
                raise UserError(f"{where}: expected at least {need} fields, got {len(row)}")
            relation = _relation(row[cols["relation"]], where)
            if keep is not None and relation not in keep:
                continue
            start, end = (normalize_concept(row[cols[c]]) for c in ("start", "end"))
            if not start or not end:
                raise UserError(f"{where}: empty concept")
            weight = _weight(row[cols["weight"]], where) if "weight" in cols else None
            yield Edge(relation, start, end, weight)
    except csv.Error as e:
        raise UserError(f"{path}:{rows.line_num + 1}: bad {path.suffix[1:] or 'csv'}: {e}") from e


def _assertions(path: Path, first: str, stream: TextIO, keep: set[str] | None
                ) -> Iterator[Edge]:
    """ConceptNet's assertions: uri, /r/Rel, /c/lang/start, /c/lang/end, JSON info (tabs)."""
    for n, text in enumerate(chain([first], stream), 1):
        if not text.strip():
            continue
        fields = text.rstrip("\r\n").split("\t")
        where = f"{path}:{n}"
        if len(fields) < 4:
            raise UserError(f"{where}: expected 5 tab-separated fields (uri, relation, start, "
                            f"end, info), got {len(fields)}")
        if not (fields[2].startswith("/c/en/") and fields[3].startswith("/c/en/")):
            continue
        relation = _relation(fields[1], where)
        if keep is not None and relation not in keep:
            continue
        weight = None
        if len(fields) > 4 and fields[4].strip():
            try:
                weight = float(json.loads(fields[4])["weight"])
            except (ValueError, KeyError, TypeError):
                raise UserError(f"{where}: info is not JSON with a numeric 'weight'") from None
        yield Edge(relation, normalize_concept(fields[2]), normalize_concept(fields[3]), weight)
