"""The Potemkin results for the terminal: the paper's Tables 1 and 6 as text, the Figure 4 plot,
and the printouts of `potemkin run|score|incoherence|selfjudge` (and `annotate import`)."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

from verstehen.methods.potemkin.results import (
    Incoherence,
    IncoherenceResult,
    PotemkinResult,
    SelfJudgeResult,
)
from verstehen.methods.potemkin.stats import (
    OVERALL,
    TASKS,
    KeystoneExpansion,
    PotemkinRate,
    PotemkinScores,
    Table1,
    Table6,
)
from verstehen.report.figures import new_figure, nothing_to_plot, save_png
from verstehen.report.tables import plural, table

TITLE_WIDTH = 80  # characters of a title line of the 6-inch Figure 4 at font size 9


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


def expansion_figure(exp: KeystoneExpansion) -> Any:
    """Paper Figure 4: share understood against keystone size k, ± 1 SE, with the models
    counted; when there is nothing to plot, why."""
    fig = new_figure(6.0, 4.6)
    ax = fig.add_subplot()
    points = [p for p in exp.points if p.share is not None]
    ax.errorbar([p.k for p in points], [p.share for p in points],
                yerr=[p.se or 0.0 for p in points], marker="o", capsize=3,
                label="share understood ± 1 SE; SE = √(share·(1 − share) / n_eff),\n"
                      "n_eff = Σ P(keystone passed) over the (model, concept) pairs")
    for p in exp.points:
        if p.share is None and points:
            ax.text(p.k, 0.02, "no pair", ha="center", fontsize=7, color="0.4")
        elif p.share is not None:
            ax.annotate(f"n_eff {p.n_eff:.1f}", (p.k, p.share + (p.se or 0.0)),
                        xytext=(0, 4), textcoords="offset points", ha="center", fontsize=7,
                        color="0.4")
    ks = [p.k for p in exp.points]
    ax.set_xticks(ks)
    if ks:
        ax.set_xlim(min(ks) - 0.5, max(ks) + 0.5)
    ax.set_ylim(0, 1)
    ax.set_xlabel("keystone size k (correct classify answers after the definition)")
    ax.set_ylabel(f"share understood (next {exp.next_uses} uses right)")
    counted = [textwrap.fill("definition: " + expansion_definition(exp), TITLE_WIDTH),
               textwrap.fill("models: " + (", ".join(exp.models) or "none"), TITLE_WIDTH)]
    if exp.dropped_models:
        counted.append(textwrap.fill("left out, classify accuracy not above chance (1/2): "
                                     + ", ".join(exp.dropped_models), TITLE_WIDTH))
    ax.set_title("\n".join(["Keystone expansion (paper Figure 4)", *counted]), fontsize=9)
    if points:
        fig.legend(loc="outside lower center", fontsize=7)
    else:
        nothing_to_plot(ax, _why_empty(exp))
    return fig


def _why_empty(exp: KeystoneExpansion) -> str:
    if exp.dropped_models and not exp.models:
        return ("no model's classify accuracy is above chance (1/2) on the concepts whose "
                "definition it got right, and only such models are counted (`potemkin score "
                "--all-models` counts all)")
    if not exp.models:
        return "no graded use answers"
    if exp.definition == "paper":
        return ("no (model, concept) with a passed keystone has a classify answer left after "
                "k of them")
    return (f"no (model, concept) with a passed keystone has {exp.next_uses} more use "
            "answers after k classify answers (`potemkin score --next-uses` sets how many)")


def plot_expansion(exp: KeystoneExpansion, path: Path) -> None:
    """Write Figure 4 (`expansion_figure`) as a PNG."""
    save_png(expansion_figure(exp), path)


def show_tables(scores: PotemkinScores) -> None:
    """Print Table 1, Table 6 and the keystone expansion."""
    print("Potemkin rate per model and task (paper Table 1)")
    print(table1_text(scores.table1))
    print("\nPer domain (paper Table 6)")
    print(table6_text(scores.table6))
    print("\nKeystone expansion (paper Figure 4)")
    print(expansion_text(scores.keystone_expansion))


def show_scores(scores: PotemkinScores) -> None:
    """The tables of `potemkin score`, and where the plot went (if one was asked for)."""
    show_tables(scores)
    if scores.plot is not None:
        print(f"plot: {scores.plot}")


def show_run(result: PotemkinResult) -> None:
    """Print a run's keystones, grading and agreement, then its tables."""
    folder, keystones = result.run_dir, result.keystones
    if result.keystone_asked:
        known = [k for k in keystones if k.keystone is not None]
        passed = sum(bool(k.keystone) for k in known)
        print(f"keystone (definition) correct for {passed} of {len(known)} graded concepts"
              + (f"; {plural(len(keystones) - len(known), 'definition')} not graded yet"
                 if len(known) < len(keystones) else ""))
    else:
        print("keystone not asked (--tasks without define): rates are not conditioned on "
              "a definition")
    print("grades by: " + ", ".join(f"{k} {v}" for k, v in sorted(result.grades_by.items())))
    if result.waiting_for_keystone:
        waiting = sum(result.waiting_for_keystone.values())
        print(f"{plural(waiting, 'use answer')} "
              f"{'waits for its' if waiting == 1 else 'wait for their'} concept's definition "
              "to be graded "
              f"(--judge, or `verstehen annotate export {folder}`)")
    for name, a in result.agreement.items():
        kappa = "undefined" if a.kappa is None else f"{a.kappa:.2f}"
        print(f"{name.replace('_', ' ')}: Cohen's kappa {kappa}, agree {a.agree:.0%} "
              f"(n {a.n})")
    scores = result.scores
    if scores is not None:
        print()
        show_tables(scores)
        if result.plot is not None:
            print(f"plot: {folder / result.plot}")
    else:
        print("no graded use answers yet: no tables")
    if result.unparsed_reasons:
        print(f"unparsed answers, most common reason: {next(iter(result.unparsed_reasons))}")
    print(f"records: {result.records_path} (all answers: {folder / 'records.jsonl'})")


def _rate(value: float | None, se: float | None, n: int) -> str:
    return f"—  (n {n})" if value is None or se is None else f"{value:.2f} ({se:.2f})  n {n}"


def _incoherence_row(name: str, i: Incoherence) -> list[str]:
    return [name, _rate(i.incoherence, i.se, i.n), str(i.unparsed)]


def show_incoherence(result: IncoherenceResult) -> None:
    """Incoherence per domain and overall (paper Table 7) and the checker's view."""
    rows = [_incoherence_row(domain, d) for domain, d in result.by_domain.items()]
    rows.append(_incoherence_row("Overall", result.overall))
    print(f"{result.model}: incoherence = 2 x mismatch rate (0 coherent, 1 chance), "
          "standard errors in parentheses")
    print(table(["domain", "incoherence", "unparsed"], rows))
    c = result.checker
    if c.n:
        print(f"\nexactly graded concepts: the example misses what was asked in "
              f"{_rate(c.wrong, c.se, c.n)}")
        print("  " + "; ".join(f"{k} {v}" for k, v in c.cells.items()))
    if result.unchecked_reasons:
        print(f"  not checked, most common reason: {next(iter(result.unchecked_reasons))}")
    print(f"\nrecords: {result.run_dir}/records.jsonl ({result.seconds} s)")


def show_selfjudge(result: SelfJudgeResult) -> None:
    """The lower bound with its SE, the judge's two sides, and what was skipped."""
    r = result
    if r.concept_step == "ask":
        unnamed = (f" ({r.concept_from_subject} named none: the subject stood in)"
                   if r.concept_from_subject else "")
        print(f"{r.model}: {r.relies_on_concept} of {plural(r.questions, 'benchmark question')} "
              f"{'relies' if r.relies_on_concept == 1 else 'rely'} on "
              f"a concept, by the model's word{unnamed}; {r.answered_correctly} of those "
              f"answered correctly; {plural(r.related_questions, 'related question')}; "
              f"{plural(r.judgments, 'judgment')}")
    else:
        print(f"{r.model}: {r.answered_correctly} of {plural(r.questions, 'benchmark question')} "
              f"answered correctly (concept: the subject's name); "
              f"{plural(r.related_questions, 'related question')}; "
              f"{plural(r.judgments, 'judgment')}")
    if r.potemkin_rate is None or r.se is None:
        print("potemkin rate (lower bound): —  (no judgment could be read)")
    else:
        print(f"potemkin rate (lower bound) = 2 x (1 - judge accuracy) = "
              f"{r.potemkin_rate:.2f} ({r.se:.2f}), n {plural(r.judgments, 'judgment')} "
              f"over {plural(r.clusters, 'question')} (SE clustered by question)")
    if r.upstream_rate is not None and r.upstream_se is not None:
        print(f"  as the paper's code reports it (the mean of the running rate after each "
              f"question, in draw order): {r.upstream_rate:.2f} ({r.upstream_se:.2f})")
    for side, words in ((r.judge_accepts_correct, "judged its own answer correct"),
                        (r.judge_rejects_altered, "judged the altered answer incorrect")):
        if side.n:
            print(f"  {words}: {side.rate:.0%} of {side.n}")
    if r.skipped:
        print("skipped: " + ", ".join(f"{k} {v}" for k, v in r.skipped.items()))
    print(f"answers without the final tag (whole reply used): {r.untagged_answers}; "
          f"alterations identical to the answer: {r.unchanged_alterations}")
    print(f"\nrecords: {r.run_dir}/records.jsonl ({r.seconds} s)")
