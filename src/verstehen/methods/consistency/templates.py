"""Background questions and meta-prompts of conceptual consistency (Sahu et al., ICLR 2023).

Relation templates are appendix Table 2 (style "paper", verbatim) or the same with the grammar
fixed (style "fixed"); the meta-prompts are Table 1 and the label pairs section 3.2.
"""

from __future__ import annotations

from functools import cache

from verstehen.errors import UserError
from verstehen.methods.consistency.background import Fact
from verstehen.prompts import template

STYLES = ("paper", "fixed")


@cache
def relation_templates(style: str = "fixed") -> dict[str, str]:
    """Relation name -> question template with {c1} and {c2}, for style "paper" or "fixed"."""
    if style not in STYLES:
        raise UserError(f"unknown question style {style!r} (use {' or '.join(STYLES)})")
    out: dict[str, str] = {}
    for line in template(f"consistency/relations_{style}").splitlines():
        if line.strip():
            relation, text = line.split("\t", 1)
            out[relation.strip()] = text.strip()
    return out


def fact_question(fact: Fact, *, style: str = "fixed") -> str:
    """The yes/no question for a tuple, without its "?"; concepts shown with spaces."""
    templates = relation_templates(style)
    if fact.relation not in templates:
        raise UserError(f"no question template for relation {fact.relation!r} "
                        f"(have {', '.join(sorted(templates))})")
    return templates[fact.relation].format(c1=fact.c1.replace("_", " "),
                                           c2=fact.c2.replace("_", " "))


@cache
def meta_prompts() -> tuple[str, ...]:
    """The five meta-prompts of Table 1, with {question}, {label_a} and {label_b}."""
    return tuple(line for line in template("consistency/meta_prompts").splitlines()
                 if line.strip())


def render_meta(meta: str, question: str, pair: tuple[str, str]) -> str:
    """`meta` filled with the question (no "?") and the (positive, negative) label pair."""
    return meta.format(question=question, label_a=pair[0], label_b=pair[1])
