"""The Potemkin results for the terminal: the paper's Tables 1 and 6 as text (Figure 4: plots.py),
the printout of `potemkin score`, and the pieces (rates, incoherences, pair records) that the
typed results (results.py) compose into the printouts of `potemkin run|incoherence|selfjudge`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.domains.catalog import DOMAINS, canonical_name
from verstehen.engine.store import RunStore
from verstehen.methods.potemkin.incoherence_rate import Incoherence
from verstehen.methods.potemkin.lines import PairRecord, pair_lines
from verstehen.methods.potemkin.stats import (
    OVERALL,
    TASKS,
    KeystoneExpansion,
    PotemkinRate,
    PotemkinScores,
    Table1,
    Table6,
)
from verstehen.text.tables import plural, table


def unreadable(r: PotemkinRate) -> str:
    """`, 3 unreadable (as wrong)` or `, 3 unreadable (left out)`; empty when there are none."""
    if not r.unparsed:
        return ""
    return f", {r.unparsed} unreadable ({'as wrong' if r.unparsed_wrong else 'left out'})"


def format_rate(r: PotemkinRate) -> str:
    """`0.57 (0.06) n=40`, or `—  n=0` when no answer counted; then the unreadable answers."""
    if r.rate is None or r.se is None:
        return f"—  n={r.n}{unreadable(r)}"
    return f"{r.rate:.2f} ({r.se:.2f}) n={r.n}{unreadable(r)}"


def _note(rows: list[dict[str, PotemkinRate]]) -> str:
    excluded = sum(r.excluded for rates in rows for r in rates.values())
    wrong = any(r.unparsed_wrong for rates in rows for r in rates.values())
    return ("classify is scaled ×2 so chance accuracy (1/2) reads 1; standard errors in "
            "parentheses; n counts the answers in the rate; unreadable classify answers are "
            "left out (as in the paper), unreadable generate and edit answers "
            + ("count as wrong (--unparsed exclude leaves them out)" if wrong
               else "are left out (--unparsed exclude)")
            + f"; {plural(excluded, 'answer')} without a passed keystone "
            + ("is" if excluded == 1 else "are") + " not counted")


def table1_text(t1: Table1) -> str:
    """Paper Table 1 as text: model, classify, generate, edit; then a note on scaling."""
    rows = [[model, *(format_rate(rates[t]) for t in TASKS)] for model, rates in t1.items()]
    pooled = [t1[OVERALL]] if OVERALL in t1 else []
    return table(["model", *TASKS], rows) + "\n" + _note(pooled)


def table6_text(t6: Table6) -> str:
    """Paper Table 6 as text: domain, model, classify, generate, edit; then the note."""
    rows = [[domain if i == 0 else "", model, *(format_rate(rates[t]) for t in TASKS)]
            for domain, models in t6.items() for i, (model, rates) in enumerate(models.items())]
    pooled = [models[OVERALL] for models in t6.values() if OVERALL in models]
    return table(["domain", "model", *TASKS], rows) + "\n" + _note(pooled)


def expansion_definition(exp: KeystoneExpansion) -> str:
    """In a line, which definition of keystone expansion produced `exp`."""
    if exp.definition == "paper":
        return f"the paper's: classify answers, the next {exp.next_uses} drawn with replacement"
    return (f"all uses (--expansion all-uses): classify, generate and edit answers, the next "
            f"{exp.next_uses} drawn without replacement")


def expansion_rule(exp: KeystoneExpansion) -> str:
    """What "understood" meant in `exp`, and which pairs it left out."""
    n = exp.next_uses
    if exp.definition == "paper":
        return (f"understood: the next {n} use answers all right, drawn with replacement from "
                "the concept's other classify answers, after the definition and k classify "
                "answers (drawn without replacement) are right, as the paper computes Figure 4; "
                "a concept with no classify answer left after k is left out")
    return (f"understood: the next {n} use answers (classify, generate and edit) all right, "
            "drawn without replacement from the concept's other use answers, after the "
            f"definition and k classify answers are right; a concept with fewer than {n} left is "
            "left out (--expansion all-uses; the paper counts classify answers only, drawn "
            "with replacement)")


def expansion_text(exp: KeystoneExpansion) -> str:
    """Paper Figure 4 as a table: k, share understood (SE), effective pairs, pairs counted and
    left out; then the definition and the models."""
    rows = [[str(p.k), "—" if p.share is None or p.se is None else f"{p.share:.2f} ({p.se:.2f})",
             f"{p.n_eff:.1f}", str(p.pairs), "—" if p.left_out is None else str(p.left_out)]
            for p in exp.points]
    lines = [table(["k", "share understood", "n_eff", "pairs", "left out"], rows),
             expansion_rule(exp),
             "models: " + (", ".join(exp.models) or "none")]
    if exp.dropped_models:
        lines.append("dropped (classify accuracy not above chance): "
                     + ", ".join(exp.dropped_models))
    return "\n".join(lines)


def tables_text(scores: PotemkinScores) -> str:
    """Table 1, Table 6 and the keystone expansion, each under its title."""
    return "\n".join(["Potemkin rate per model and task (paper Table 1)",
                      table1_text(scores.table1),
                      "\nPer domain (paper Table 6)", table6_text(scores.table6),
                      "\nKeystone expansion (paper Figure 4)",
                      expansion_text(scores.keystone_expansion)])


def rates_headline(t1: Table1) -> str:
    """The potemkin rate per task of all models pooled (of the one model when it is alone),
    in one line."""
    row = OVERALL if OVERALL in t1 else next(iter(t1), None)
    if row is None:
        return "potemkin rate: no use answer counted"
    return (f"potemkin rate ({row}): "
            + "; ".join(f"{task} {format_rate(t1[row][task])}" for task in TASKS))


def scores_text(scores: PotemkinScores) -> str:
    """What `verstehen potemkin score` prints: the tables, and where the plot went (if one was
    asked for)."""
    plot = [] if scores.plot is None else [f"plot: {scores.plot}"]
    return "\n".join([tables_text(scores), *plot])


def _each(n: int, one: str, many: str) -> str:
    """"the model's one ...", "both of ...", "all 5 of ..." (`many` has a {} for the count)."""
    if n == 1:
        return one
    return ("both of " if n == 2 else f"all {n} of ") + many


def _why_no_incoherence(inc: Incoherence | None, pairs: Sequence[PairRecord] | None) -> str:
    if pairs is None:  # only the counts at hand
        failed, unread, made = 0, inc.unparsed if inc else 0, None
    else:
        failed = sum(r["error"] is not None for r in pairs)
        unread = sum(r["error"] is None and r["mismatch"] is None for r in pairs)
        made = len(pairs)
    if made == 0:
        return "no example was made"
    if not unread and not failed:
        return "no example was classified"
    unreadable_ = "self-classification" + ("" if unread == 1 else "s")
    calls = "example" + ("" if failed == 1 else "s")
    if not failed:
        return (_each(unread, "the model's self-classification was", "the model's "
                               "self-classifications were") + " unreadable (no yes or no)")
    if not unread:
        return "the calls failed for " + _each(failed, "its example", "its examples")
    return (f"{unread} {unreadable_} unreadable (no yes or no), the calls failed for {failed} "
            f"{calls}")


def incoherence_words(inc: Incoherence | None, pairs: Sequence[PairRecord] | None = None) -> str:
    """An incoherence as text, "0.50 ± 0.35 (n=2), 1 self-classification unreadable", or,
    when there is no number, why not: "— (n=0): both of the model's self-classifications were
    unreadable (no yes or no)". `pairs` are the pair records it rests on, failed ones too
    (None: only `inc`'s counts)."""
    if inc is not None and inc.incoherence is not None and inc.se is not None:
        left = f", {plural(inc.unparsed, 'self-classification')} unreadable" \
            if inc.unparsed else ""
        return f"{inc.incoherence:.2f} ± {inc.se:.2f} (n={inc.n}){left}"
    return f"— (n=0): {_why_no_incoherence(inc, pairs)}"


def pair_domain(pair: PairRecord) -> str:
    """The title of a pair record's domain, as `PotemkinIncoherenceResult.by_domain` is keyed
    (an old run's domain names too)."""
    domain = canonical_name(pair["domain"])
    return DOMAINS.get(domain, domain)


def pairs_by_domain(run_dir: Path) -> dict[str, list[PairRecord]] | None:
    """An incoherence run's pair records by domain title, failed ones too, and under "Overall"
    all of them; None when the folder has no records."""
    if not (Path(run_dir) / "records.jsonl").is_file():
        return None
    pairs = pair_lines(RunStore(Path(run_dir)).records())
    out: dict[str, list[PairRecord]] = {"Overall": pairs}
    for r in pairs:
        out.setdefault(pair_domain(r), []).append(r)
    return out



