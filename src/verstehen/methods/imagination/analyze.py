"""`imagine matrix` and `imagine analyze`: answer runs pooled into one QM x AM grid, and the
paper's analyses of sections 3.1-3.4 over run folders. They read run folders and call no model.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from verstehen.engine.store import default_runs_dir, new_run_id
from verstehen.errors import UserError
from verstehen.methods.imagination.plots import plot_length_ranks, plot_warmup
from verstehen.methods.imagination.pooling import Pooling
from verstehen.methods.imagination.records import AnswerRecord, AnswerRunRecord, UsableQuestion
from verstehen.methods.imagination.results import ImagineAnalyzeResult, ImagineMatrixResult
from verstehen.methods.imagination.runs import (
    ANSWER,
    GENERATE,
    Once,
    answer_records,
    questions_of,
    read_runs,
)
from verstehen.methods.imagination.similarity import METHODS, question_similarity
from verstehen.methods.imagination.stats import (
    DecileRates,
    by_length_decile,
    by_position,
    fiction_rates,
    length_rank_distribution,
    length_ranks_by_position,
    pair_matrix,
    sort_kinds,
)
from verstehen.methods.imagination.text import write_matrix
from verstehen.wording import parameter

SIMILARITY = (*METHODS, "none")


def pooling(answers: Once[AnswerRunRecord], questions: Once[UsableQuestion] | None = None
            ) -> Pooling:
    """The counts of pooled records: read, repeats counted once, unmatched answers."""
    return Pooling(answers=answers.read, repeated_answers=answers.repeats,
                   unmatched_answers=answers.unmatched,
                   questions=None if questions is None else questions.read,
                   repeated_questions=None if questions is None else questions.repeats)


def own_folder(command: str) -> Path:
    """A new folder for a reading command's outputs under the runs folder
    (<runs>/<time>-<command>-<hex>): the run folders it reads are left as they were."""
    folder = default_runs_dir() / new_run_id(command)
    try:
        folder.mkdir(parents=True)
    except OSError as exc:
        raise UserError(f"cannot write {folder} ({exc.strerror or exc}): pass "
                        f"{parameter('out')} with a writable folder") from None
    return folder


def pool_matrix(runs: Sequence[Path], out: Path | None = None) -> ImagineMatrixResult:
    """Answer runs pooled into one grid (each answer once); matrix.csv and matrix.png into
    `out` (default: a new folder of its own, see `own_folder`)."""
    if not runs:
        raise UserError("give at least one run folder of `imagine answer`")
    records = answer_records(read_runs(runs, (ANSWER,)))
    try:
        matrix = pair_matrix([r for r in records.records if r["kind"] == "answer"])
    except ValueError as exc:  # an answer record no `imagine answer` writes
        raise UserError(f"{exc} in {', '.join(map(str, runs))}") from None
    csv, png = write_matrix(matrix, Path(out) if out else own_folder("imagine-matrix"))
    return ImagineMatrixResult(matrix=matrix, matrix_csv=csv, matrix_png=png,
                        pooling=pooling(records))


def length_deciles(answers: list[AnswerRecord]) -> tuple[DecileRates, ...]:
    """κ and α by question length per (content, qtype), in ten parts (one a question when
    fewer)."""
    out: list[DecileRates] = []
    for content, qtype in sort_kinds({(a["content"], a["qtype"]) for a in answers}):
        of_kind = [a for a in answers if (a["content"], a["qtype"]) == (content, qtype)]
        out += by_length_decile(of_kind, min(10, len({a["question_id"] for a in of_kind})))
    return tuple(out)


def analyze_runs(runs: Sequence[Path], *, similarity: str = "tfidf",
                 out: Path | None = None) -> ImagineAnalyzeResult:
    """Every analysis the runs (generate and/or answer) have data for; length-ranks.png and
    warm-up.png into `out` (default: a new folder of its own, see `own_folder`).
    `similarity`: tfidf, embeddings or none."""
    if similarity not in SIMILARITY:
        raise UserError(f"--similarity takes one of {', '.join(SIMILARITY)}, not {similarity!r}")
    if not runs:
        raise UserError("give at least one run folder of `imagine generate` or `imagine answer`")
    opened = read_runs(runs, (GENERATE, ANSWER))
    pooled_questions = questions_of(opened)
    questions = pooled_questions.records
    records = answer_records(opened)
    answers = [r for r in records.records if r["kind"] == "answer"]
    try:
        deciles, positions = length_deciles(answers), by_position(answers)
    except ValueError as exc:  # an answer record no `imagine answer` writes
        raise UserError(f"{exc} in {', '.join(map(str, runs))}") from None
    ranks, position_ranks = length_rank_distribution(questions), length_ranks_by_position(
        questions)
    png = warmup = None
    if ranks or positions or position_ranks:
        folder = Path(out) if out else own_folder("imagine-analyze")
        folder.mkdir(parents=True, exist_ok=True)
        if ranks:
            png = folder / "length-ranks.png"
            plot_length_ranks(ranks, png)
        if positions or position_ranks:
            warmup = folder / "warm-up.png"
            plot_warmup(positions, position_ranks, warmup)
    return ImagineAnalyzeResult(
        length_ranks=ranks, length_ranks_png=png, deciles=deciles, positions=positions,
        position_ranks=position_ranks, warmup_png=warmup,
        fiction=fiction_rates([r for r in records.records if r["kind"] == "fiction"]),
        similarity=question_similarity(questions, similarity)
        if questions and similarity != "none" else (),
        pooling=pooling(records, pooled_questions))
