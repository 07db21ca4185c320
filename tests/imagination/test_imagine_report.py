"""Imaginary question answering reports: text tables, CSV and PNG plots."""

from __future__ import annotations

import csv
import math
import struct
from pathlib import Path

import pytest

from verstehen.errors import UserError
from verstehen.methods.imagination.plots import (
    plot_length_ranks,
    plot_matrix,
    plot_warmup,
)
from verstehen.methods.imagination.results import Pooling
from verstehen.methods.imagination.similarity import QmPairSimilarity
from verstehen.methods.imagination.stats import (
    DecileRates,
    FictionRate,
    IQARates,
    LengthRanks,
    MatrixRow,
    PositionRanks,
    PositionRates,
    pair_matrix,
)
from verstehen.methods.imagination.text import (
    decile_text,
    fiction_text,
    format_rates,
    length_rank_text,
    matrix_text,
    pooling_text,
    position_rank_text,
    position_text,
    similarity_text,
    write_matrix,
    write_matrix_csv,
)

PNG = b"\x89PNG\r\n\x1a\n"


def ans(outcome: str, qm: str = "api/qm-one", am: str = "local/am [letter]",
        qtype: str = "DQ", content: str = "knowledge") -> dict:
    return {"kind": "answer", "qm": qm, "am": am, "qtype": qtype, "content": content,
            "outcome": outcome, "score": None}


def sample_matrix() -> tuple[MatrixRow, ...]:
    # DQ cell: 3 correct, 1 wrong, 1 unparsed -> κ 3/4 (SE sqrt(3/64) = 0.2165), α 4/4
    # CQ cell: one unparsed answer only -> no rates
    recs = [ans("correct")] * 3 + [ans("wrong"), ans("unparsed"), ans("error", qtype="CQ")]
    return pair_matrix(recs)


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == PNG and data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_format_rates() -> None:
    r = IQARates(n=8, answered=4, declined=2, chose_e=1, unparsed=2, kappa=0.75,
                 kappa_se=0.2165, alpha=2 / 3, alpha_se=0.19245, e_rate=1 / 6)
    assert format_rates(r, "kappa") == "0.75 (0.22) n=4"
    assert format_rates(r, "alpha") == "0.67 (0.19) n=6"
    none = IQARates(0, 0, 0, 0, 0, None, None, None, None, None)
    assert format_rates(none, "kappa") == "— n=0"
    with pytest.raises(ValueError):
        format_rates(r, "beta")


def test_matrix_text_shows_the_hand_computed_cell() -> None:
    text = matrix_text(sample_matrix())
    assert "0.75 (0.22) n=4" in text  # κ 3/4, SE sqrt(3/64) = 0.2165
    assert "1.00 (0.00) n=4" in text  # α 4/4
    assert "— n=0" in text  # the CQ cell
    assert text.index("direct questions (DQ), knowledge") < text.index(
        "context questions (CQ), knowledge")
    assert "2 of 6 answers unparsed or failed" in text


def test_matrix_csv_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "matrix.csv"
    write_matrix_csv(sample_matrix(), path)
    with path.open(newline="") as f:
        rows = {r["qtype"]: r for r in csv.DictReader(f)}
    dq = rows["DQ"]
    assert (dq["content"], dq["qm"], dq["am"]) == ("knowledge", "api/qm-one", "local/am [letter]")
    assert [int(dq[k]) for k in ("n", "answered", "declined", "chose_e", "unparsed")] == \
        [5, 4, 0, 0, 1]
    assert float(dq["kappa"]) == pytest.approx(0.75)
    assert float(dq["kappa_se"]) == pytest.approx(math.sqrt(3 / 64))
    assert float(dq["alpha"]) == 1.0 and float(dq["e_rate"]) == 0.0
    cq = rows["CQ"]
    assert cq["n"] == "1" and cq["kappa"] == "" and cq["alpha_se"] == ""
    with pytest.raises(UserError, match="cannot write"):
        write_matrix_csv(sample_matrix(), tmp_path / "missing" / "m.csv")


def test_plot_matrix_writes_a_png_that_grows_with_the_models(tmp_path: Path) -> None:
    small, big = tmp_path / "small.png", tmp_path / "big.png"
    plot_matrix(sample_matrix(), small)
    models = [f"org/model-{i}" for i in range(6)]
    # the same two qtypes as the small matrix, with six QMs and six AMs instead of one each
    plot_matrix(pair_matrix([ans("correct", qm, am, qtype) for qm in models for am in models
                             for qtype in ("DQ", "CQ")]), big)
    (w1, h1), (w2, h2) = png_size(small), png_size(big)
    assert w2 > w1 and h2 > h1


def test_plot_length_ranks_writes_a_png(tmp_path: Path) -> None:
    path = tmp_path / "ranks.png"
    plot_length_ranks([LengthRanks("m", "knowledge", "DQ", (0.25, 0.25, 0.0, 0.5)),
                       LengthRanks("m", "knowledge", "CQ", (0, 0, 0, 1.0))], path)
    assert png_size(path)[0] > 0



def test_other_tables_show_rates_with_se_and_n() -> None:
    r = IQARates(n=5, answered=4, declined=1, chose_e=0, unparsed=0, kappa=0.75,
                 kappa_se=0.2165, alpha=0.8, alpha_se=0.1789, e_rate=0.0)
    empty = IQARates(0, 0, 0, 0, 0, None, None, None, None, None)
    dec = decile_text([DecileRates("knowledge", "DQ", "am", (r, empty))])
    assert "d1" in dec and "0.75 (0.22) n=4" in dec and "0.80 (0.18) n=5" in dec
    pos = position_text([PositionRates("am", (r, empty, empty, empty, empty))])
    assert "0.75 (0.22) n=4" in pos and "— n=0" in pos
    # 3 fictional of 4 judged: 0.75, SE sqrt(3/64) = 0.22
    fic = fiction_text([FictionRate("qm", "am", 0.75, math.sqrt(3 / 64), 4, 2)])
    assert "0.75 (0.22)" in fic
    ranks = length_rank_text([LengthRanks("qm", "knowledge", "DQ", (0.25, 0.25, 0.0, 0.5))])
    assert "0.50" in ranks and "longest" in ranks
    sim = similarity_text([QmPairSimilarity("A", "B", 0.55), QmPairSimilarity("B", "A", 0.55),
                           QmPairSimilarity("A", "A", 1 / 3)], "tfidf")
    assert "0.55" in sim and "0.33" in sim and "—" in sim and "tfidf" in sim


def test_write_matrix_writes_both_files_or_none(tmp_path: Path) -> None:
    csv_path, png_path = write_matrix(sample_matrix(), tmp_path / "out")
    assert csv_path == tmp_path / "out" / "matrix.csv" and csv_path.is_file()
    assert png_path == tmp_path / "out" / "matrix.png" and png_size(png_path)[0] > 0
    assert write_matrix((), tmp_path / "empty") == (None, None)
    assert not (tmp_path / "empty").exists()


def test_matrix_rows_are_rates_with_their_key() -> None:
    (dq, cq) = sorted(sample_matrix(), key=lambda r: r.qtype != "DQ")
    assert isinstance(dq, IQARates) and (dq.content, dq.qtype, dq.qm, dq.am) == (
        "knowledge", "DQ", "api/qm-one", "local/am [letter]")
    assert list(dq.to_dict())[:5] == ["content", "qtype", "qm", "am", "n"]  # as matrix.csv
    assert cq.to_dict()["kappa"] is None


def test_story_and_knowledge_tables_are_apart() -> None:
    """One QM's story answers (1 of 2 right) and knowledge answers (2 of 2) are two tables."""
    text = matrix_text(pair_matrix([ans("correct"), ans("correct"),
                                    ans("correct", content="story"),
                                    ans("wrong", content="story")]))
    knowledge = text.index("Correctness rate κ — direct questions (DQ), knowledge")
    story = text.index("Correctness rate κ — direct questions (DQ), story")
    assert "1.00 (0.00) n=2" in text[knowledge:story] and "0.50 (0.35) n=2" in text[story:]


def test_position_ranks_and_pooling_in_words() -> None:
    ranks = position_rank_text([PositionRanks(1, 4, (0.25, 0.25, 0.0, 0.5)),
                                PositionRanks(2, 0, (0.0, 0.0, 0.0, 0.0))])
    assert "0.25" in ranks and "by position" in ranks and "longest" in ranks
    assert pooling_text(Pooling(5, 0, 0, 3, 0)) == ""
    said = pooling_text(Pooling(answers=6, repeated_answers=2, unmatched_answers=1,
                                questions=4, repeated_questions=1))
    assert said.splitlines()[0].startswith("1 of 4 questions read repeats one already read")
    assert "2 of 6 answers read repeat" in said and "1 answer of runs made before" in said


def test_plot_warmup_has_three_panels(tmp_path: Path) -> None:
    """Figure 9: κ and α by position (with the mean) and length ranks by position, side by
    side; with no answers the rate panels say so."""
    rates = tuple(IQARates(2, 2, 0, 0, 0, k, 0.1, 1.0, 0.0, 0.0) for k in (0.5, 0.5, 1, 1, 1))
    ranks = [PositionRanks(p, 3, (1 / 3, 1 / 3, 0.0, 1 / 3)) for p in range(1, 6)]
    full, bare = tmp_path / "full.png", tmp_path / "bare.png"
    plot_warmup([PositionRates("a", rates), PositionRates("b", rates)], ranks, full)
    plot_warmup([], ranks, bare)
    width, height = png_size(full)
    assert width > 2.5 * height and png_size(bare) == (width, height)
