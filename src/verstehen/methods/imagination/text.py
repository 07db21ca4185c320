"""Imaginary question answering results as plain-text tables and CSV (paper Figs. 2, 5, 8-10):
the pieces the typed results (results.py) compose into the printouts of the `imagine` steps."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from verstehen.engine.store.csv_files import write_csv
from verstehen.methods.imagination.plots import plot_matrix
from verstehen.methods.imagination.pooling import Pooling
from verstehen.methods.imagination.similarity import QmPairSimilarity, SimilarityTable
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
from verstehen.text.display import Table
from verstehen.text.tables import plural

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


def titled(tables: Sequence[Table]) -> list[str]:
    """Each table under its title."""
    return [f"{t.title}\n{t.text()}" for t in tables]


def _grid(title: str, cells: Mapping[tuple[str, str], IQARates], which: str) -> Table:
    rows = sorted({r for r, _ in cells})
    cols = sorted({c for _, c in cells})
    return Table(title, ["AM \\ QM", *cols],
                 [[row, *(format_rates(cells[(row, col)], which) if (row, col) in cells else ""
                          for col in cols)] for row in rows])


def matrix_tables(matrix: Sequence[MatrixRow]) -> list[Table]:
    """Per content and qtype (DQ, CQ, SQ): a κ table then an α table, rows AM, columns QM (as
    the paper's Figure 2)."""
    tables = []
    for content, qtype in sort_kinds((r.content, r.qtype) for r in matrix):
        cells = {(r.am, r.qm): r for r in matrix if (r.content, r.qtype) == (content, qtype)}
        name = f"{QTYPE_NAMES.get(qtype, qtype)} ({qtype}), {content}"
        tables.append(_grid(f"Correctness rate κ — {name}", cells, "kappa"))
        tables.append(_grid(f"Answering rate α — {name}", cells, "alpha"))
    return tables


def matrix_text(matrix: Sequence[MatrixRow]) -> str:
    """The κ and α tables of `matrix_tables`, each under its title; then a note."""
    parts = titled(matrix_tables(matrix))
    unparsed = sum(r.unparsed for r in matrix)
    total = sum(r.n for r in matrix)
    chose_e = sum(r.chose_e for r in matrix)
    parts.append("standard errors in parentheses; κ over answered, α over answered + declined "
                 f"({chose_e} chose E)\n{unparsed} of {total} answers unparsed or failed, "
                 "not counted")
    return "\n\n".join(parts)


def matrix_headline(matrix: Sequence[MatrixRow]) -> str:
    """κ and α of every cell pooled, with the models and answers they rest on, in one line."""
    if not matrix:
        return "no answers in these runs"
    answered = sum(r.answered for r in matrix)
    correct = sum(round(r.kappa * r.answered) for r in matrix if r.kappa is not None)
    asked = answered + sum(r.declined for r in matrix)
    kappa = f"{correct / answered:.2f}" if answered else "—"
    alpha = f"{answered / asked:.2f}" if asked else "—"
    return (f"{plural(len({r.am for r in matrix}), 'answer model')} on the questions of "
            f"{plural(len({r.qm for r in matrix}), 'question model')}, all cells pooled: "
            f"correctness κ {kappa} of {answered} answered, answering rate α {alpha} of {asked}")


def _num(x: float | int | None) -> str:
    return "" if x is None else repr(x)


def write_matrix_csv(matrix: Sequence[MatrixRow], path: Path) -> None:
    """One row per (content, qtype, qm, am) with counts, rates and SEs; empty fields for
    None."""
    write_csv(Path(path), CSV_COLUMNS, ([r.content, r.qtype, r.qm, r.am,
                                         *(_num(getattr(r, c)) for c in CSV_COLUMNS[4:])]
                                        for r in matrix),
              advice="give a writable path", spreadsheet=False)


def write_matrix(matrix: Sequence[MatrixRow], folder: Path) -> tuple[Path | None, Path | None]:
    """matrix.csv and matrix.png of the grid into `folder`: their paths (None, None when the
    grid is empty and nothing is written)."""
    if not matrix:
        return None, None
    folder.mkdir(parents=True, exist_ok=True)
    write_matrix_csv(matrix, folder / "matrix.csv")
    plot_matrix(matrix, folder / "matrix.png")
    return folder / "matrix.csv", folder / "matrix.png"


def length_rank_table(dist: Sequence[LengthRanks]) -> Table:
    """Paper Fig. 5 as a table: QM, content, qtype, fraction of answers of each length rank."""
    return Table("Length rank of the designated answer (paper Figure 5)",
                 ["QM", "content", "qtype", *RANKS],
                 [[r.qm, r.content, r.qtype, *(f"{x:.2f}" for x in r.fractions)] for r in dist])


def length_rank_text(dist: Sequence[LengthRanks]) -> str:
    """`length_rank_table` (without its title), then what it counts."""
    return (length_rank_table(dist).text()
            + "\nfraction of questions whose designated answer has that length rank among the "
            "four choices (characters; a tie takes the lower rank)")


RATES = (("kappa", "Correctness rate κ"), ("alpha", "Answering rate α"))


def _by_index(title: str, groups: Mapping[str, Sequence[IQARates]], which: str,
              names: list[str]) -> Table:
    rows = [[am, *(format_rates(groups[am][i], which) for i in range(len(names)))]
            for am in sorted(groups)]
    return Table(title, ["AM", *names], rows)


def decile_tables(deciles: Sequence[DecileRates]) -> list[Table]:
    """Paper Fig. 10 as tables: per content and qtype, κ then α by AM (rows) and length decile
    (columns)."""
    tables = []
    for content, qtype in sort_kinds((d.content, d.qtype) for d in deciles):
        groups = {d.am: d.rates for d in deciles if (d.content, d.qtype) == (content, qtype)}
        k = max(len(rs) for rs in groups.values())
        names = [f"d{i + 1}" for i in range(k)]  # d1 shortest
        tables += [_by_index(f"{title} by question length, {k} equal groups (d1 shortest) — "
                             f"{qtype}, {content}", groups, which, names)
                   for which, title in RATES]
    return tables


def decile_text(deciles: Sequence[DecileRates]) -> str:
    """The tables of `decile_tables`, each under its title."""
    return "\n\n".join(titled(decile_tables(deciles))) or "no answers"


def position_tables(positions: Sequence[PositionRates]) -> list[Table]:
    """Paper Fig. 9 as tables: κ then α of sequential questions by AM (rows) and position."""
    if not positions:
        return []
    names = [str(p) for p in POSITIONS]
    groups = {p.am: p.rates for p in positions}
    return [_by_index(f"{title} by position in the sequence (SQ)", groups, which, names)
            for which, title in RATES]


def position_text(positions: Sequence[PositionRates]) -> str:
    """The tables of `position_tables`, each under its title."""
    return "\n\n".join(titled(position_tables(positions))) or "no sequential answers"


def position_rank_table(ranks: Sequence[PositionRanks]) -> Table:
    """Paper Fig. 9 (right) as a table: per position, n and the fraction of each length rank."""
    return Table("Length rank by position in the sequence (paper Figure 9)",
                 ["position", "n", *RANKS],
                 [[str(r.position), str(r.n), *(f"{x:.2f}" for x in r.fractions)]
                  for r in ranks])


def position_rank_text(ranks: Sequence[PositionRanks]) -> str:
    """`position_rank_table` (without its title), then what it counts."""
    return (position_rank_table(ranks).text()
            + "\nlength rank of the designated answer of sequential questions by position, all "
            "question models together")


def pooling_text(pooling: Pooling) -> str:
    """What was counted once or could not be matched when runs were pooled ("" when nothing)."""
    lines = []
    if pooling.repeated_questions and pooling.questions is not None:  # both set, or neither
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


def fiction_table(rates: Sequence[FictionRate]) -> Table:
    """Paper Fig. 8 (right) as a table: QM, AM, detection rate (SE) n, unparsed."""
    rows = [[r.qm, r.am, "—" if r.rate is None or r.se is None else f"{r.rate:.2f} ({r.se:.2f})",
             str(r.judged), str(r.unparsed)] for r in rates]
    return Table("Fictionality detection (paper Figure 8)",
                 ["QM", "AM", "detection rate", "n judged", "unparsed"], rows)


def fiction_text(rates: Sequence[FictionRate]) -> str:
    """`fiction_table` (without its title), then what the rate is."""
    return (fiction_table(rates).text()
            + "\ndetection rate: share of context paragraphs judged not real (fictional)")


def _similarity(pairs: Sequence[QmPairSimilarity], title: str) -> Table:
    cosine = {(p.qm_a, p.qm_b): p.cosine for p in pairs}
    models = sorted({m for pair in cosine for m in pair})
    rows = [[m1, *(f"{cosine[(m1, m2)]:.2f}" if (m1, m2) in cosine else "—" for m2 in models)]
            for m1 in models]
    return Table(title, ["QM", *models], rows)


def similarity_table(sim: SimilarityTable) -> Table:
    """Paper Fig. 3 (bottom left) as a table of mean intra-topic cosine between QMs."""
    return _similarity(sim.pairs, f"{sim.content} {sim.texts}:")


def similarity_text(pairs: Sequence[QmPairSimilarity], method: str) -> str:
    """Paper Fig. 3 (bottom left) as a table of mean intra-topic cosine between QMs."""
    if not pairs:
        return ("no two questions share a topic (needs two questions on one topic from a "
                "model, or one each from two models)")
    return (_similarity(pairs, "").text()
            + f"\nmean intra-topic cosine similarity of questions ({method}); the diagonal "
            "leaves out a question paired with itself")

