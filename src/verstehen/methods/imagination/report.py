"""Imaginary question answering results as plain-text tables and CSV (paper Figs. 2, 5, 8-10)."""

from __future__ import annotations

import csv
from pathlib import Path

from verstehen.errors import UserError
from verstehen.methods.imagination.plots import plot_length_ranks as plot_length_ranks
from verstehen.methods.imagination.plots import plot_matrix as plot_matrix
from verstehen.methods.imagination.stats import POSITIONS, IQARates, sort_qtypes
from verstehen.report.tables import table

QTYPE_NAMES = {"DQ": "direct questions", "CQ": "context questions",
               "SQ": "sequential questions"}
RANKS = ("shortest", "2nd shortest", "3rd shortest", "longest")
CSV_COLUMNS = ("qtype", "qm", "am", "n", "answered", "declined", "chose_e", "unparsed",
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


def matrix_text(matrix: dict[tuple[str, str, str], IQARates]) -> str:
    """Per qtype (DQ, CQ, SQ): a κ table then an α table, rows AM, columns QM (as the paper's
    Figure 2); then a note."""
    parts = []
    for qtype in sort_qtypes(q for q, _, _ in matrix):
        cells = {(am, qm): r for (q, qm, am), r in matrix.items() if q == qtype}
        name = QTYPE_NAMES.get(qtype, qtype)
        parts.append(f"Correctness rate κ — {name} ({qtype})\n"
                     + _grid(cells, "kappa", "AM \\ QM"))
        parts.append(f"Answering rate α — {name} ({qtype})\n"
                     + _grid(cells, "alpha", "AM \\ QM"))
    unparsed = sum(r.unparsed for r in matrix.values())
    total = sum(r.n for r in matrix.values())
    chose_e = sum(r.chose_e for r in matrix.values())
    parts.append("standard errors in parentheses; κ over answered, α over answered + declined "
                 f"({chose_e} chose E)\n{unparsed} of {total} answers unparsed or failed, "
                 "not counted")
    return "\n\n".join(parts)


def _num(x: float | int | None) -> str:
    return "" if x is None else repr(x)


def write_matrix_csv(matrix: dict[tuple[str, str, str], IQARates], path: Path) -> None:
    """One row per (qtype, qm, am) with counts, rates and SEs; empty fields for None."""
    try:
        with Path(path).open("w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(CSV_COLUMNS)
            for (qtype, qm, am), r in matrix.items():
                w.writerow([qtype, qm, am, *(_num(getattr(r, c)) for c in CSV_COLUMNS[3:])])
    except OSError as exc:
        raise UserError(f"cannot write {path} ({exc.strerror or exc}): give a writable "
                        "path") from None


def length_rank_text(dist: dict[tuple[str, str], list[float]]) -> str:
    """Paper Fig. 5 as a table: QM, qtype, fraction of answers of each length rank."""
    rows = [[qm, qtype, *(f"{x:.2f}" for x in fr)] for (qm, qtype), fr in dist.items()]
    return (table(["QM", "qtype", *RANKS], rows)
            + "\nfraction of questions whose designated answer has that length rank among the "
            "four choices (characters; a tie takes the lower rank)")


def _by_index(groups: dict[str, list[IQARates]], which: str, names: list[str]) -> str:
    rows = [[am, *(format_rates(groups[am][i], which) for i in range(len(names)))]
            for am in sorted(groups)]
    return table(["AM", *names], rows)


def decile_text(deciles: dict[tuple[str, str], list[IQARates]]) -> str:
    """Paper Fig. 10 as tables: per qtype, κ then α by AM (rows) and length decile (columns)."""
    parts = []
    for qtype in sort_qtypes(q for q, _ in deciles):
        groups = {am: rs for (q, am), rs in deciles.items() if q == qtype}
        k = max(len(rs) for rs in groups.values())
        names = [f"d{i + 1}" for i in range(k)]  # d1 shortest
        for which, title in (("kappa", "Correctness rate κ"), ("alpha", "Answering rate α")):
            parts.append(f"{title} by question length, {k} equal groups (d1 shortest) — {qtype}\n"
                         + _by_index(groups, which, names))
    return "\n\n".join(parts) if parts else "no answers"


def position_text(positions: dict[str, list[IQARates]]) -> str:
    """Paper Fig. 9 as tables: κ then α of sequential questions by AM (rows) and position."""
    if not positions:
        return "no sequential answers"
    names = [str(p) for p in POSITIONS]
    return "\n\n".join(f"{title} by position in the sequence (SQ)\n"
                       + _by_index(positions, which, names)
                       for which, title in (("kappa", "Correctness rate κ"),
                                            ("alpha", "Answering rate α")))


def fiction_text(rates: dict[tuple[str, str],
                             tuple[float | None, float | None, int, int]]) -> str:
    """Paper Fig. 8 (right) as a table: QM, AM, detection rate (SE) n, unparsed."""
    rows = [[qm, am, "—" if rate is None or se is None else f"{rate:.2f} ({se:.2f})", str(n),
             str(bad)] for (qm, am), (rate, se, n, bad) in rates.items()]
    return (table(["QM", "AM", "detection rate", "n judged", "unparsed"], rows)
            + "\ndetection rate: share of context paragraphs judged not real (fictional)")


def similarity_text(sim: dict[tuple[str, str], float], method: str) -> str:
    """Paper Fig. 3 (bottom left) as a table of mean intra-topic cosine between QMs."""
    models = sorted({m for pair in sim for m in pair})
    if not models:
        return ("no two questions share a topic (needs two questions on one topic from a "
                "model, or one each from two models)")
    rows = [[m1, *(f"{sim[(m1, m2)]:.2f}" if (m1, m2) in sim else "—" for m2 in models)]
            for m1 in models]
    return (table(["QM", *models], rows)
            + f"\nmean intra-topic cosine similarity of questions ({method}); the diagonal "
            "leaves out a question paired with itself")
