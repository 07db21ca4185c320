"""Conceptual consistency in the HTML report: CC with S_B and S_A, the tables per relation and
concept and the yes/no bias (paper Figures 5-7), every number linked to the anchor questions or
background facts behind it; several runs side by side."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from verstehen.engine.store import RunStore
from verstehen.methods.consistency.breakdowns import CCEntry, RateEntry, concepts_in_facts
from verstehen.methods.consistency.records import AnchorRecord, FactRecord, Record, typed
from verstehen.methods.consistency.results import ConsistencyResult
from verstehen.methods.consistency.stats import (
    LEVEL,
    Consistency,
    background_score,
    facts_of,
    scored_anchors,
)
from verstehen.methods.consistency.summary import read_results
from verstehen.methods.consistency.text import base_rate_warning, concept_selection
from verstehen.report.html import Page, RecordView, figure, num, rate, table
from verstehen.report.markup import Content, Html, concat, el
from verstehen.results import load_result

GRADES = {True: "right", False: "wrong", None: "unanswered"}


def cc_text(cc: float | None, low: float | None, high: float | None) -> str:
    """"0.62 [0.55, 0.69]": CC with its bootstrap interval; without one "0.62"; "—" for none."""
    if cc is None:
        return "—"
    if low is None or high is None:
        return f"{cc:.2f}"
    return f"{cc:.2f} [{low:.2f}, {high:.2f}]"


def by_relation_text(c: Consistency) -> str:
    """"0.52 [0.50, 0.54] (14 relations)": the Figure 4a background score; "—" for none."""
    if c.s_b_relations is None:
        return "—"
    return (f"{cc_text(c.s_b_relations, c.s_b_relations_low, c.s_b_relations_high)} "
            f"({c.relations} relations)")


def cc_cell(e: CCEntry) -> str:
    """"0.62 [0.55, 0.69] (n=200)": a CC entry with its interval and count."""
    return f"{cc_text(e.cc, e.low, e.high)} (n={e.n})"


def _failed(error: object) -> str:
    return f"(the call failed: {error})"


def anchor_view(r: AnchorRecord) -> RecordView:
    """An anchor question: its stem (and choices), the chosen label, right or wrong, and its
    concepts and background facts."""
    question = r["stem"]
    if r.get("choices"):
        labels = r.get("labels") or [chr(ord("A") + i) for i in range(len(r["choices"]))]
        question += "\n" + "\n".join(f"{label}. {choice}"
                                     for label, choice in zip(labels, r["choices"], strict=False))
    if r.get("error"):
        answer = _failed(r["error"])
    else:
        answer = r["chosen"] if r["chosen"] is not None else "(no choice read from the reply)"
        if r.get("reply"):
            answer += f"\n\n— the reply: {r['reply']}"
    concepts = ", ".join(r["concepts"]) or "none"
    why = (f"correct answer {r['answer']}; concepts: {concepts}; "
           f"{len(dict.fromkeys(r['facts']))} background facts")
    return RecordView(f"anchor {r['id']}", question, answer, GRADES[r["correct"]], why)


def fact_view(r: FactRecord) -> RecordView:
    """A background fact: the yes/no question, what the model said, right or wrong against
    whether the fact is true, and the relation."""
    if r.get("error"):
        answer = _failed(r["error"])
    elif r["said_yes"] is None:
        answer = "no answer (the votes tied or none parsed)"
    else:
        answer = "said yes" if r["said_yes"] else "said no"
    if combos := r["combos"]:
        answer += f" ({sum(combos)} of {len(combos)} combos favour yes)"
    elif r.get("votes"):
        answer += " (votes: " + ", ".join({True: "yes", False: "no", None: "?"}[v]
                                          for v in r["votes"]) + ")"
    correct = None if r["said_yes"] is None else r["said_yes"] == r["positive"]
    why = (f"{r['relation']}: {r['c1']} -> {r['c2']}, "
           + ("a true fact" if r["positive"] else "negative: a sampled false twin"))
    twin = "" if r["positive"] else " · false twin"
    return RecordView(f"{r['relation']} · {r['c1']} → {r['c2']}{twin}", r["question"] + "?",
                      answer, GRADES[correct], why)


class Run:
    """A run folder's anchors and facts (the last record of each wins, as the summary reads
    them), each stored once in the page's book when linked."""

    def __init__(self, page: Page, run: Path) -> None:
        self.page, self.run = page, run
        self.anchor_lines: dict[str, tuple[int, AnchorRecord]] = {}
        self.fact_lines: dict[str, tuple[int, FactRecord]] = {}
        for line, raw in enumerate(RunStore(run).records()):
            if (r := typed(raw)) is None:
                continue
            if r["kind"] == "anchor":
                self.anchor_lines[r["id"]] = (line, r)
            elif r["kind"] == "fact":
                self.fact_lines[r["key"]] = (line, r)
        latest: list[Record] = [r for _, r in self.fact_lines.values()]
        latest += [r for _, r in self.anchor_lines.values()]
        self.anchors, self.facts = read_results(latest)
        scored, _, _ = scored_anchors(self.anchors, self.facts)
        self.scored = [a.id for a, _ in scored]

    def anchors_link(self, text: str, title: str, ids: Iterable[str]) -> Html:
        """`text` linked to these anchor questions."""
        books = [self.page.book.record(f"{self.run}:{line}", anchor_view(r))
                 for line, r in (self.anchor_lines[i] for i in ids)]
        return self.page.book.link(text, title, books)

    def facts_link(self, text: str, title: str, keys: Iterable[str]) -> Html:
        """`text` linked to these background facts."""
        books = [self.page.book.record(f"{self.run}:{line}", fact_view(r))
                 for line, r in (self.fact_lines[k] for k in keys)]
        return self.page.book.link(text, title, books)

    def with_relation(self, relation: str) -> tuple[list[str], list[str]]:
        """The anchors whose answered facts of `relation` give a background score, and those
        of them whose anchor question was answered (the "S_B on r" and its CC)."""
        known = [a for a in self.anchors if background_score(
            [f for f in facts_of(a, self.facts) if f.relation == relation]) is not None]
        return [a.id for a in known], [a.id for a in known if a.correct is not None]

    def has(self, relation: str) -> set[str]:
        """The anchors with a fact of `relation` among theirs."""
        return {a.id for a in self.anchors
                if any(f.relation == relation for f in facts_of(a, self.facts))}


def _model(run: Path) -> str:
    return str(RunStore(run).info().get("config", {}).get("model") or run.name)


def _overall(result: ConsistencyResult, run: Run) -> Html:
    warning = base_rate_warning(result.consistency)
    return concat(_overall_table(result, run), el("p", warning, class_="warn") if warning
                  else None)


def _overall_table(result: ConsistencyResult, run: Run) -> Html:
    c = result.consistency
    scored, link = run.scored, run.anchors_link
    unanswered = [a.id for a in run.anchors if a.correct is None]
    no_background = [a.id for a in run.anchors
                     if a.correct is not None and a.id not in set(scored)]
    return table(
        [f"CC [{LEVEL:.0%} interval]", "S_B ± SE", f"S_B by relation [{LEVEL:.0%} interval]",
         "S_A ± SE", "n", "base rate", "unanswered", "no background"],
        [[link(cc_text(c.cc, c.cc_low, c.cc_high), "anchors in CC", scored),
          link(rate(c.s_b, c.s_b_se), "anchors in CC: background scores", scored),
          link(by_relation_text(c), "anchors in CC: background scores per relation "
               "(paper Figure 4a)", scored),
          link(rate(c.s_a, c.s_a_se), "anchors in CC: task answers", scored),
          link(str(c.n), "anchors in CC", scored),
          link(num(c.base_rate), "anchors in CC", scored),
          link(str(c.unanswered), "anchor questions unanswered", unanswered),
          link(str(c.no_background), "anchors without an answered fact", no_background)]])


def _relations(result: ConsistencyResult, run: Run) -> Html:
    rows: list[list[Content]] = []
    for r, e in result.by_relation.items():
        keys = [k for k, f in run.facts.items() if f.relation == r]
        right = sum(run.facts[k].correct is True for k in keys)
        known, answered = run.with_relation(r)
        has = run.has(r)
        rows.append([
            r, run.facts_link(f"{len(keys)} ({right} right)", f"{r}: background facts",
                                   keys),
            run.anchors_link(rate(e.background.mean, e.background.se, e.background.n),
                             f"{r}: anchors with an answered {r} fact", known),
            run.anchors_link(cc_cell(e.cc), f"{r}: anchors scored on {r} facts only", answered),
            run.anchors_link(cc_cell(e.with_), f"anchors in CC with a {r} fact",
                             [i for i in run.scored if i in has]),
            run.anchors_link(cc_cell(e.without), f"anchors in CC without a {r} fact",
                             [i for i in run.scored if i not in has])])
    return table(["relation", "facts", "S_B on r ± SE", "CC of S_B on r", "CC with r",
                  "CC without r"], rows)


def _concepts(result: ConsistencyResult, run: Run) -> Html:
    selection = concept_selection(len(result.by_concept), result.concepts)
    caption = el("p", f"{selection[0].upper() + selection[1:]}.")
    if not result.by_concept:
        return caption
    has, _ = concepts_in_facts(run.anchors, run.facts)
    rows: list[list[Content]] = []
    for concept, e in result.by_concept.items():
        listing = [a.id for a in run.anchors if concept in has[a.id]]
        listed = set(listing)
        rows.append([concept,
                     run.anchors_link(str(e.anchors), f"anchors with {concept} in their facts",
                                      listing),
                     run.anchors_link(cc_cell(e.with_),
                                      f"anchors in CC with {concept} in their facts",
                                      [i for i in run.scored if i in listed]),
                     run.anchors_link(cc_cell(e.without),
                                      f"anchors in CC without {concept} in their facts",
                                      [i for i in run.scored if i not in listed])])
    return caption + table(["concept", "anchors", "CC with", "CC without"], rows)


def _side(e: RateEntry) -> str:
    return rate(e.rate, e.se, e.n)


def _bias(result: ConsistencyResult, run: Run) -> Html:
    b = result.bias
    m = b.majority

    def answered(positive: bool) -> list[str]:
        return [k for k, f in run.facts.items()
                if f.positive == positive and f.said_yes is not None]

    rows: list[list[Content]] = [["majority vote",
             run.facts_link(_side(m.positive), "true facts (right: said yes)", answered(True)),
             run.facts_link(_side(m.negative), "false twins (right: said no)", answered(False)),
             num(m.accuracy),
             run.facts_link(str(m.unanswered), "facts unanswered",
                            [k for k, f in run.facts.items() if f.said_yes is None])]]
    if b.single is not None:
        s = b.single
        name = f"best single combo #{s.combo}" + (
            f" (meta-prompt {s.meta + 1}, {s.labels})" if s.meta is not None else "")
        rows.append([name, _side(s.positive), _side(s.negative), num(s.accuracy), ""])
    return table(["answer", "true facts: said yes", "false twins: said no", "balanced",
                  "unanswered"], rows)


def section(run: Path, page: Page) -> None:
    """A consistency run: CC, S_B and S_A; per relation, per concept, the yes/no bias and the
    figures, every number linked to its anchors or facts."""
    result = load_result(ConsistencyResult, run)
    read = Run(page, run)
    how = ("majority-vote likelihood" if result.method == "likelihood"
           else "generation (parsed yes/no, not the paper's likelihood)")
    body = concat(_overall(result, read),
                  el("h3", "Per relation (paper Figures 5 and 7a)"), _relations(result, read),
                  figure(run, result.relations_png, "background score vs CC per relation"),
                  el("h3", "Per concept (paper Figure 7b)"), _concepts(result, read),
                  el("h3", "Yes/no bias (paper Figure 6)"), _bias(result, read),
                  figure(run, result.bias_png, "accuracy on true facts and false twins"))
    page.section(f"Conceptual consistency: {_model(run)}", body,
                 note=f"CC: average precision of predicting a right anchor answer from S_B "
                      f"(the base rate is a score that knows nothing); {result.anchors} "
                      f"anchors, {result.facts} facts ({result.positive_facts} true) answered "
                      f"by {how}; failed calls: {result.failed_calls}; run {run.name}; "
                      f"{result.seconds} s")


def compare(runs: Sequence[Path], page: Page) -> None:
    """Several consistency runs: one row per run with CC, S_B, S_A and n."""
    rows: list[list[Content]] = []
    for run in runs:
        c = load_result(ConsistencyResult, run).consistency
        read = Run(page, run)
        rows.append([_model(run), run.name, cc_text(c.cc, c.cc_low, c.cc_high),
                     rate(c.s_b, c.s_b_se), by_relation_text(c), rate(c.s_a, c.s_a_se),
                     read.anchors_link(str(c.n), f"{run.name}: anchors in CC", read.scored)])
    page.section("Conceptual consistency side by side",
                 table(["model", "run", f"CC [{LEVEL:.0%} interval]", "S_B ± SE",
                        f"S_B by relation [{LEVEL:.0%} interval]", "S_A ± SE", "n"], rows),
                 note="CC with its bootstrap interval, S_B and S_A over the n anchors in CC; "
                      "S_B by relation: paper Figure 4a, S_B on each relation's facts "
                      "averaged over the anchors, then over the relations")
