"""Imaginary question answering results as plain-text tables and CSV (paper Figs. 2, 5, 8-10),
and the printouts of the `imagine` steps, which read the typed results."""

from __future__ import annotations

import csv
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from verstehen.errors import UserError
from verstehen.methods.imagination.plots import plot_matrix
from verstehen.methods.imagination.results import (
    AnalyzeResult,
    AnswerResult,
    GenerateResult,
    MatrixResult,
    Pooling,
)
from verstehen.methods.imagination.similarity import QmPairSimilarity
from verstehen.methods.imagination.stats import (
    POSITIONS,
    DecileRates,
    FictionRate,
    IQARates,
    LengthRanks,
    MatrixRow,
    PositionRanks,
    PositionRates,
    sort_kinds,
)
from verstehen.report.tables import plural, table

QTYPE_NAMES = {"DQ": "direct questions", "CQ": "context questions",
               "SQ": "sequential questions"}
RANKS = ("shortest", "2nd shortest", "3rd shortest", "longest")
CSV_COLUMNS = ("content", "qtype", "qm", "am", "n", "answered", "declined", "chose_e", "unparsed",
               "kappa", "kappa_se", "alpha", "alpha_se", "e_rate")


def format_rates(r: IQARates, which: str) -> str:
    """`0.54 (0.05) n=80` for "kappa" (n answered) or "alpha" (n answered + declined); `— n=0`."""
    if which == "kappa":
        rate, se, n = r.kappa, r.kappa_se, r.answered
    elif which == "alpha":
        rate, se, n = r.alpha, r.alpha_se, r.answered + r.declined
    else:
        raise ValueError(f"which must be 'kappa' or 'alpha', not {which!r}")
    if rate is None or se is None:
        return f"— n={n}"
    return f"{rate:.2f} ({se:.2f}) n={n}"


def _grid(cells: dict[tuple[str, str], IQARates], which: str, corner: str) -> str:
    rows = sorted({r for r, _ in cells})
    cols = sorted({c for _, c in cells})
    return table([corner, *cols], [[row, *(format_rates(cells[(row, col)], which)
                                           if (row, col) in cells else "" for col in cols)]
                                   for row in rows])


def matrix_text(matrix: Sequence[MatrixRow]) -> str:
    """Per content and qtype (DQ, CQ, SQ): a κ table then an α table, rows AM, columns QM (as
    the paper's Figure 2); then a note."""
    parts = []
    for content, qtype in sort_kinds((r.content, r.qtype) for r in matrix):
        cells = {(r.am, r.qm): r for r in matrix if (r.content, r.qtype) == (content, qtype)}
        name = f"{QTYPE_NAMES.get(qtype, qtype)} ({qtype}), {content}"
        parts.append(f"Correctness rate κ — {name}\n" + _grid(cells, "kappa", "AM \\ QM"))
        parts.append(f"Answering rate α — {name}\n" + _grid(cells, "alpha", "AM \\ QM"))
    unparsed = sum(r.unparsed for r in matrix)
    total = sum(r.n for r in matrix)
    chose_e = sum(r.chose_e for r in matrix)
    parts.append("standard errors in parentheses; κ over answered, α over answered + declined "
                 f"({chose_e} chose E)\n{unparsed} of {total} answers unparsed or failed, "
                 "not counted")
    return "\n\n".join(parts)


def _num(x: float | int | None) -> str:
    return "" if x is None else repr(x)


def write_matrix_csv(matrix: Sequence[MatrixRow], path: Path) -> None:
    """One row per (content, qtype, qm, am) with counts, rates and SEs; empty fields for
    None."""
    try:
        with Path(path).open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(CSV_COLUMNS)
            for r in matrix:
                w.writerow([r.content, r.qtype, r.qm, r.am,
                            *(_num(getattr(r, c)) for c in CSV_COLUMNS[4:])])
    except OSError as exc:
        raise UserError(f"cannot write {path} ({exc.strerror or exc}): give a writable "
                        "path") from None


def write_matrix(matrix: Sequence[MatrixRow], folder: Path) -> tuple[Path | None, Path | None]:
    """matrix.csv and matrix.png of the grid into `folder`: their paths (None, None when the
    grid is empty and nothing is written)."""
    if not matrix:
        return None, None
    folder.mkdir(parents=True, exist_ok=True)
    write_matrix_csv(matrix, folder / "matrix.csv")
    plot_matrix(matrix, folder / "matrix.png")
    return folder / "matrix.csv", folder / "matrix.png"


def length_rank_text(dist: Sequence[LengthRanks]) -> str:
    """Paper Fig. 5 as a table: QM, content, qtype, fraction of answers of each length rank."""
    rows = [[r.qm, r.content, r.qtype, *(f"{x:.2f}" for x in r.fractions)] for r in dist]
    return (table(["QM", "content", "qtype", *RANKS], rows)
            + "\nfraction of questions whose designated answer has that length rank among the "
            "four choices (characters; a tie takes the lower rank)")


def _by_index(groups: Mapping[str, Sequence[IQARates]], which: str, names: list[str]) -> str:
    rows = [[am, *(format_rates(groups[am][i], which) for i in range(len(names)))]
            for am in sorted(groups)]
    return table(["AM", *names], rows)


def decile_text(deciles: Sequence[DecileRates]) -> str:
    """Paper Fig. 10 as tables: per content and qtype, κ then α by AM (rows) and length decile
    (columns)."""
    parts = []
    for content, qtype in sort_kinds((d.content, d.qtype) for d in deciles):
        groups = {d.am: d.rates for d in deciles if (d.content, d.qtype) == (content, qtype)}
        k = max(len(rs) for rs in groups.values())
        names = [f"d{i + 1}" for i in range(k)]  # d1 shortest
        for which, title in (("kappa", "Correctness rate κ"), ("alpha", "Answering rate α")):
            parts.append(f"{title} by question length, {k} equal groups (d1 shortest) — "
                         f"{qtype}, {content}\n" + _by_index(groups, which, names))
    return "\n\n".join(parts) if parts else "no answers"


def position_text(positions: Sequence[PositionRates]) -> str:
    """Paper Fig. 9 as tables: κ then α of sequential questions by AM (rows) and position."""
    if not positions:
        return "no sequential answers"
    names = [str(p) for p in POSITIONS]
    groups = {p.am: p.rates for p in positions}
    return "\n\n".join(f"{title} by position in the sequence (SQ)\n"
                       + _by_index(groups, which, names)
                       for which, title in (("kappa", "Correctness rate κ"),
                                            ("alpha", "Answering rate α")))


def position_rank_text(ranks: Sequence[PositionRanks]) -> str:
    """Paper Fig. 9 (right) as a table: per position, n and the fraction of each length rank."""
    rows = [[str(r.position), str(r.n), *(f"{x:.2f}" for x in r.fractions)] for r in ranks]
    return (table(["position", "n", *RANKS], rows)
            + "\nlength rank of the designated answer of sequential questions by position, all "
            "question models together")


def pooling_text(pooling: Pooling) -> str:
    """What was counted once or could not be matched when runs were pooled ("" when nothing)."""
    lines = []
    if pooling.repeated_questions:
        lines.append(f"{pooling.repeated_questions} of {plural(pooling.questions, 'question')} "
                     f"read {'repeats' if pooling.repeated_questions == 1 else 'repeat'} one "
                     "already read (same QM, content, type, topic, position, context and "
                     "text): counted once")
    if pooling.repeated_answers:
        lines.append(f"{pooling.repeated_answers} of {plural(pooling.answers, 'answer')} read "
                     f"{'repeats' if pooling.repeated_answers == 1 else 'repeat'} an answer of "
                     "the same AM to the same question: counted once (the last run's)")
    if pooling.unmatched_answers:
        lines.append(f"{plural(pooling.unmatched_answers, 'answer')} of runs made before "
                     "question ids hashed the question "
                     f"{'has' if pooling.unmatched_answers == 1 else 'have'} no question run "
                     "left to match them: counted under their old ids, which another seed's "
                     "run can share")
    return "\n".join(lines)


def fiction_text(rates: Sequence[FictionRate]) -> str:
    """Paper Fig. 8 (right) as a table: QM, AM, detection rate (SE) n, unparsed."""
    rows = [[r.qm, r.am, "—" if r.rate is None or r.se is None else f"{r.rate:.2f} ({r.se:.2f})",
             str(r.judged), str(r.unparsed)] for r in rates]
    return (table(["QM", "AM", "detection rate", "n judged", "unparsed"], rows)
            + "\ndetection rate: share of context paragraphs judged not real (fictional)")


def similarity_text(pairs: Sequence[QmPairSimilarity], method: str) -> str:
    """Paper Fig. 3 (bottom left) as a table of mean intra-topic cosine between QMs."""
    sim = {(p.qm_a, p.qm_b): p.cosine for p in pairs}
    models = sorted({m for pair in sim for m in pair})
    if not models:
        return ("no two questions share a topic (needs two questions on one topic from a "
                "model, or one each from two models)")
    rows = [[m1, *(f"{sim[(m1, m2)]:.2f}" if (m1, m2) in sim else "—" for m2 in models)]
            for m1 in models]
    return (table(["QM", *models], rows)
            + f"\nmean intra-topic cosine similarity of questions ({method}); the diagonal "
            "leaves out a question paired with itself")


def show_generate(result: GenerateResult) -> None:
    """Kept and dropped questions per type, the reasons, and the next command."""
    rows = [[qtype, f"{t.filled} of {t.slots}", str(t.asked), str(t.kept), str(t.repeated),
             str(t.dropped), str(t.failed),
             "; ".join(f"{reason} ({n})" for reason, n in t.reasons.items()) or "-"]
            for qtype, t in result.by_type.items()]
    print(f"{result.qm}: questions by type (DQ direct, CQ after a context, SQ five in a "
          "row); a slot is filled when a try gives a usable question; a repeat is a kept "
          "question written before in this run, answered once")
    print(table(["type", "filled", "written", "kept", "repeats", "dropped", "failed",
                 "why dropped"], rows))
    print(f"next: verstehen imagine answer --questions {result.run_dir} --model MODEL ...")


def show_answer(result: AnswerResult) -> None:
    """The matrix as text, the outcome counts, fictionality rates and where the figures are."""
    print(matrix_text(result.matrix))
    if result.repeated_questions:
        print(f"{plural(result.repeated_questions, 'question')} of the question runs "
              f"{'repeats' if result.repeated_questions == 1 else 'repeat'} one already "
              "read (same QM, content, type, topic, position, context and text): answered "
              "once")
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(result.outcomes.items())))
    if result.fiction_verdicts:
        print(fiction_text(result.fiction))
    if result.matrix_png is not None:
        print(f"figures: {result.matrix_png}, {result.matrix_csv}")


def show_matrix(result: MatrixResult) -> None:
    """The pooled matrix as text and where the figures are."""
    print(matrix_text(result.matrix))
    if note := pooling_text(result.pooling):
        print(note)
    if result.matrix_png is not None:
        print(f"figures: {result.matrix_png}, {result.matrix_csv}")
    else:
        print("no answers in these runs", file=sys.stderr)


def show_analysis(result: AnalyzeResult) -> None:
    """Every analysis the runs had data for, as tables."""
    sections = []
    if result.length_ranks:
        sections.append(length_rank_text(result.length_ranks)
                        + f"\nfigure: {result.length_ranks_png}")
    if result.deciles:
        sections.append(decile_text(result.deciles))
    if result.positions:
        sections.append(position_text(result.positions))
    if result.position_ranks:
        sections.append(position_rank_text(result.position_ranks))
    if result.warmup_png is not None:
        sections[-1] += f"\nfigure: {result.warmup_png}"
    if result.fiction:
        sections.append(fiction_text(result.fiction))
    for sim in result.similarity:
        sections.append(f"{sim.content} {sim.texts}:\n" + similarity_text(sim.pairs, sim.method))
    if note := pooling_text(result.pooling):
        sections.append(note)
    print("\n\n".join(sections) if sections else "nothing to analyze in these runs")
