"""Potemkin scoring: records files, rates (paper Tables 1 and 6), keystone expansion (Figure 4),
agreement and clustered SEs, all against values worked out by hand."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from verstehen.errors import UserError
from verstehen.methods.potemkin.html import grade_words
from verstehen.methods.potemkin.plots import plot_expansion
from verstehen.methods.potemkin.records import read_records, write_records
from verstehen.methods.potemkin.stats import (
    KeystoneExpansion,
    KeystoneShare,
    PotemkinRate,
    PotemkinScores,
    TaskCounts,
    UseRecord,
    check_keystones,
    clustered_rate,
    cohen_kappa,
    keystone_expansion,
    potemkin_rates,
    potemkin_scores,
    table1,
    table6,
)
from verstehen.methods.potemkin.text import (
    expansion_text,
    format_rate,
    table1_text,
    table6_text,
)

# model A, domain lit: concept c1 passed the keystone, c2 did not; model B, domain game: g1 passed
CSV = """model,domain,concept,task,keystone,correct,note
A,lit,c1,classify,1,1,
A,lit,c1,classify,1,1,
A,lit,c1,classify,1,1,
A,lit,c1,classify,1,0,
A,lit,c1,classify,1,,garbled answer
A,lit,c1,generate,1,1,
A,lit,c1,generate,1,0,
A,lit,c2,classify,0,1,
A,lit,c2,generate,0,0,

B,game,g1,classify,yes,0,
B,game,g1,Classify,YES,false,
B,game,g1,edit,yes,TRUE,
"""


def _jsonl(rows: list[dict[str, object]]) -> str:
    return "\n".join(json.dumps(r) for r in rows) + "\n\n"


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _records(tmp_path: Path) -> list[UseRecord]:
    return read_records(_write(tmp_path, "records.csv", CSV))


# ---------------------------------------------------------------- reading and writing


def test_csv_and_jsonl_read_the_same_records(tmp_path: Path) -> None:
    from_csv = _records(tmp_path)
    assert len(from_csv) == 12
    assert from_csv[4] == UseRecord("A", "lit", "c1", "classify", True, None)
    assert from_csv[10] == UseRecord("B", "game", "g1", "classify", True, False)
    spellings = {True: [1, "true", True, "Yes"], False: [0, "FALSE", False, "no"]}
    rows = [{"model": r.model, "domain": r.domain, "concept": r.concept, "task": r.task.upper(),
             "keystone": spellings[r.keystone][i % 4], "correct": r.correct, "extra": i}
            for i, r in enumerate(from_csv)]
    del rows[4]["correct"]  # a missing value is unparsed, like null and ""
    rows[0]["correct"] = "1"
    for name in ("records.jsonl", "records.json"):
        assert read_records(_write(tmp_path, name, _jsonl(rows))) == from_csv


def test_write_then_read_gives_the_records_back(tmp_path: Path) -> None:
    records = _records(tmp_path)
    path = tmp_path / "out.csv"
    write_records(path, records)
    assert path.read_text(encoding="utf-8").splitlines()[:2] == [
        "model,domain,concept,task,keystone,correct", "A,lit,c1,classify,1,1"]
    assert "A,lit,c1,classify,1," in path.read_text(encoding="utf-8").splitlines()
    assert read_records(path) == records


GOOD = "A,lit,c1,classify,1,1"


@pytest.mark.parametrize(("name", "text", "message"), [
    ("r.csv", f"model,domain,concept,task,keystone,correct\n{GOOD}\nA,lit,c1,define,1,1\n",
     "r.csv:3: task 'define' is not classify, generate or edit: fix the row or drop it"),
    ("r.csv", "model,domain,concept,task,keystone,correct\nA,lit,c1,edit,maybe,1\n",
     "r.csv:2: keystone 'maybe' is not 1/0"),
    ("r.csv", "model,domain,concept,task,keystone,correct\n\nA,lit,c1,edit,1,2\n",
     "r.csv:3: correct '2' is not 1/0"),
    ("r.csv", "model,domain,concept,task,keystone,correct\n ,lit,c1,edit,1,1\n",
     "r.csv:2: model ' ' must be a non-empty name"),
    ("r.csv", "model,domain,concept,task,keystone,correct\nA,lit,c1,x,edit,1,1\n",
     "r.csv:2: 7 values but 6 columns: quote values that contain commas"),
    ("r.csv", "model,domain,concept,task,keystone,correct\nA,lit,c1,edit\n",
     "r.csv:2: 4 values but 6 columns (no keystone)"),
    ("r.csv", "model,domain,concept,task,keystone,correct\noverall,lit,c1,edit,1,1\n",
     "r.csv:2: model name 'overall' is reserved"),
    ("r.csv", "model,domain,concept,task,correct\nA,lit,c1,edit,1\n",
     "r.csv: no column 'keystone' (a records file needs model, domain, concept, task, "
     "keystone, correct)"),
    ("r.csv", "model,domain,concept,task,keystone,correct\n\n", "r.csv: no records"),
    ("r.csv", "", "r.csv: no records"),
    ("r.jsonl", "\n  \n", "r.jsonl: no records"),
    ("r.jsonl", '{"model": "A", "domain": "lit", "concept": "c1", "task": "edit", '
     '"keystone": 1, "correct": 1}\n{"model": "A",\n', "r.jsonl:2: invalid JSON"),
    ("r.jsonl", "\n[1, 2]\n", "r.jsonl:2: expected one JSON object a line, got list"),
    ("r.jsonl", '{"model": "A", "domain": "lit", "concept": "c1", "task": "edit", '
     '"correct": 1}\n', "r.jsonl:1: no field 'keystone'"),
    ("r.jsonl", '{"model": "A", "domain": "lit", "task": "edit", "keystone": 1}\n',
     "r.jsonl:1: no field 'concept'"),
    ("r.jsonl", '{"model": "A", "domain": "lit", "concept": "c1", "task": "edit", '
     '"keystone": 2}\n', "r.jsonl:1: keystone 2 is not 1/0"),
    ("r.jsonl", '{"model": "A", "domain": "lit", "concept": "c1", "task": "edit", '
     '"keystone": 1, "correct": "perhaps"}\n', "r.jsonl:1: correct 'perhaps' is not 1/0"),
])
def test_bad_input_is_one_line_naming_file_and_line(tmp_path: Path, name: str, text: str,
                                                    message: str) -> None:
    path = _write(tmp_path, name, text)
    with pytest.raises(UserError) as info:
        read_records(path)
    assert str(info.value).startswith(f"{tmp_path}/{message}")
    assert "\n" not in str(info.value)


def test_missing_file_and_folder_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        read_records(tmp_path / "nope.csv")
    with pytest.raises(UserError, match="is a folder"):
        read_records(tmp_path)


def test_mixed_keystones_for_one_pair_name_the_model_and_concept(tmp_path: Path) -> None:
    records = [*_records(tmp_path), UseRecord("A", "lit", "c1", "edit", False, True)]
    with pytest.raises(ValueError, match="model 'A', concept 'c1'"):
        check_keystones(records)
    assert check_keystones(_records(tmp_path)) == {
        ("A", "lit", "c1"): True, ("A", "lit", "c2"): False, ("B", "game", "g1"): True}


# ---------------------------------------------------------------- potemkin rates


def test_rates_filter_keystones_scale_classify_and_count_what_is_left_out(
        tmp_path: Path) -> None:
    rates = potemkin_rates([r for r in _records(tmp_path) if r.model == "A"])
    # classify: keystone passed and parsed 1, 1, 1, 0 -> accuracy 3/4; one unparsed; c2's
    # classify answer excluded (keystone 0)
    c = rates["classify"]
    assert (c.n, c.unparsed, c.excluded) == (4, 1, 1)
    assert c.rate == pytest.approx(2 * (1 - 3 / 4))
    assert c.se == pytest.approx(2 * math.sqrt(3 / 4 * 1 / 4 / 4))
    # generate: 1, 0 -> accuracy 1/2, unscaled; c2's generate answer excluded
    g = rates["generate"]
    assert (g.n, g.unparsed, g.excluded) == (2, 0, 1)
    assert g.rate == pytest.approx(1 - 1 / 2)
    assert g.se == pytest.approx(math.sqrt(1 / 2 * 1 / 2 / 2))
    assert rates["edit"] == PotemkinRate("edit", None, None, 0, 0, 0, unparsed_wrong=True)


def test_an_unreadable_generate_answer_is_wrong_and_an_unreadable_classify_one_left_out(
        tmp_path: Path) -> None:
    """The paper drops only badly formatted classifications (appendix C). A's c1 plus one
    unreadable generate answer: generate 1, 0, ? -> 1 of 3, rate 2/3, SE sqrt(1/3·2/3/3);
    classify keeps 3 of 4 with its unreadable answer left out; exclude: generate 1 of 2."""
    records = [r for r in _records(tmp_path) if r.model == "A"]
    records.append(UseRecord("A", "lit", "c1", "generate", True, None))
    g = potemkin_rates(records)["generate"]
    assert (g.n, g.unparsed, g.unparsed_wrong) == (3, 1, True)
    assert g.rate == pytest.approx(2 / 3) and g.se == pytest.approx(math.sqrt(2 / 27))
    c = potemkin_rates(records)["classify"]
    assert (c.n, c.unparsed, c.unparsed_wrong) == (4, 1, False)
    left_out = potemkin_rates(records, unparsed="exclude")
    assert (left_out["generate"].n, left_out["generate"].rate) == (2, pytest.approx(0.5))
    assert left_out["generate"].unparsed == 1 and not left_out["generate"].unparsed_wrong
    assert left_out["classify"] == c
    only_unreadable = [UseRecord("A", "lit", "c1", "edit", True, None)] * 3
    assert potemkin_rates(only_unreadable)["edit"].rate == 1.0  # not "n=0"
    with pytest.raises(ValueError, match="wrong or exclude"):
        potemkin_rates(records, unparsed="skip")


def test_table1_per_model_then_overall_pooled(tmp_path: Path) -> None:
    t1 = table1(_records(tmp_path))
    assert list(t1) == ["A", "B", "overall"]
    # B classify: 0, 0 -> accuracy 0 -> 2 * (1 - 0) = 2 (twice chance), SE 0; edit 1 -> rate 0
    assert (t1["B"]["classify"].rate, t1["B"]["classify"].se) == (2.0, 0.0)
    assert (t1["B"]["edit"].rate, t1["B"]["edit"].n) == (0.0, 1)
    # overall classify pools A's 3 of 4 and B's 0 of 2: accuracy 3/6
    o = t1["overall"]["classify"]
    assert (o.n, o.unparsed, o.excluded) == (6, 1, 1)
    assert o.rate == pytest.approx(2 * (1 - 3 / 6))
    assert o.se == pytest.approx(2 * math.sqrt(1 / 2 * 1 / 2 / 6))
    assert t1["overall"]["edit"].rate == 0.0


def test_table6_per_domain_with_a_pooled_row_each(tmp_path: Path) -> None:
    records = [*_records(tmp_path), UseRecord("B", "lit", "c1", "classify", True, True)]
    t6 = table6(records)
    assert list(t6) == ["game", "lit"]
    assert list(t6["lit"]) == ["A", "B", "overall"]
    assert list(t6["game"]) == ["B", "overall"]
    # lit classify pooled: A's 3 of 4 and B's 1 of 1 -> accuracy 4/5
    assert t6["lit"]["overall"]["classify"].rate == pytest.approx(2 * (1 - 4 / 5))
    assert t6["lit"]["B"]["classify"].rate == 0.0
    assert t6["game"]["B"]["classify"].rate == 2.0


def test_scores_count_and_are_json(tmp_path: Path) -> None:
    scores = potemkin_scores(_records(tmp_path), ks=range(2), next_uses=2)
    assert isinstance(scores, PotemkinScores) and scores.plot is None
    counts = scores.counts
    assert (counts.records, counts.models, counts.concepts) == (12, 2, 3)
    assert counts.tasks["classify"] == TaskCounts(total=8, keystone_passed=7, unparsed=1,
                                                  excluded=1)
    assert counts.tasks["edit"] == TaskCounts(total=1, keystone_passed=1, unparsed=0,
                                              excluded=0)
    # A passed 1 of its 2 concepts, B 1 of 1; overall 2 of 3
    rate_a = scores.keystone_rate["A"]
    assert isinstance(rate_a, KeystoneShare) and (rate_a.passed, rate_a.pairs) == (1, 2)
    assert (rate_a.rate, rate_a.se) == pytest.approx((1 / 2, math.sqrt(1 / 4 / 2)))
    assert scores.keystone_rate["overall"].rate == pytest.approx(2 / 3)
    assert scores.table1["A"]["classify"].rate == pytest.approx(0.5)
    assert scores.table6["game"]["overall"]["classify"].n == 2
    assert scores.keystone_expansion.models == ("A",)  # B: classify 0 of 2, dropped
    # the JSON form: the same numbers as plain values, keys in the documented shape
    summary = json.loads(json.dumps(scores.to_dict()))
    assert list(summary) == ["counts", "keystone_rate", "table1", "table6",
                             "keystone_expansion", "plot"]
    assert summary["counts"]["tasks"]["classify"] == {"total": 8, "keystone_passed": 7,
                                                      "unparsed": 1, "excluded": 1}
    assert summary["keystone_rate"]["A"] == {"rate": 0.5, "se": rate_a.se, "passed": 1,
                                             "pairs": 2}
    assert summary["table1"]["A"]["classify"]["rate"] == pytest.approx(0.5)
    assert summary["table6"]["game"]["overall"]["classify"]["n"] == 2
    assert summary["keystone_expansion"]["models"] == ["A"]


# ---------------------------------------------------------------- keystone expansion, all uses
# (`--expansion all-uses`: generate and edit answers count as use, drawn without replacement;
# the paper's definition, the default, is tested in test_figures_expansion.py)


def all_uses(records: list[UseRecord], **options: object) -> KeystoneExpansion:
    """Keystone expansion with the all-uses definition."""
    return keystone_expansion(records, expansion="all-uses", **options)


def _pair(model: str, concept: str, classify: list[int], other: list[int],
          keystone: bool = True) -> list[UseRecord]:
    """Classify answers, then the other use answers as generate, edit, generate, ..."""
    tasks = ["classify"] * len(classify) + [("generate", "edit")[i % 2] for i in range(len(other))]
    return [UseRecord(model, "d", concept, t, keystone, bool(x))
            for t, x in zip(tasks, classify + other, strict=True)]


# M/p1: classify 1, 1, 0 (K=3, c=2); with generate 1 and edit 0: U=5 use answers, u=3 right
P1 = _pair("M", "p1", [1, 1, 0], [1, 0])
# M/p2: classify 1, 1 (K=2, c=2); generate 1: U=3, u=3
P2 = _pair("M", "p2", [1, 1], [1])


def test_expansion_one_pair_by_hand() -> None:
    exp = all_uses(P1, ks=range(5), next_uses=2)
    share = [p.share for p in exp.points]
    # k=0: draw 2 of the 5 uses, both right: C(3,2)/C(5,2) = 3/10
    assert share[0] == pytest.approx(float(Fraction(3, 10)))
    # k=1: pass 2/3; then 2 of the other 4 (2 right): C(2,2)/C(4,2) = 1/6
    assert share[1] == pytest.approx(float(Fraction(1, 6)))
    assert exp.points[1].n_eff == pytest.approx(2 / 3)
    assert exp.points[1].se == pytest.approx(math.sqrt(1 / 6 * 5 / 6 / (2 / 3)))
    # k=2: pass 1/3; then 2 of the other 3, only 1 right: 0
    assert (share[2], exp.points[2].se) == (0.0, 0.0)
    # k=3: C(2,3) = 0, never passes, still counted; k=4 > K: left out
    assert [(p.share, p.n_eff, p.pairs) for p in exp.points[3:]] == [(None, 0.0, 1),
                                                                     (None, 0.0, 0)]
    assert [p.left_out for p in exp.points] == [0, 0, 0, 0, 1]  # k=4 > K=3
    assert exp.definition == "all-uses"


def _brute(pairs: list[tuple[list[int], list[int]]], k: int, next_uses: int) -> Fraction:
    """The share from the definition: every k-subset of classify answers, then every m-subset
    of the use answers left."""
    hit = weight = Fraction(0)
    for classify, other in pairs:
        uses = classify + other
        first = list(itertools.combinations(range(len(classify)), k))
        for chosen in first:
            if not all(classify[i] for i in chosen):
                continue
            rest = [x for i, x in enumerate(uses) if i not in chosen]
            if len(rest) < next_uses:  # too few answers left to judge: the pair is left out
                break
            m = next_uses
            draws = list(itertools.combinations(rest, m))
            weight += Fraction(1, len(first))
            hit += Fraction(sum(all(d) for d in draws), len(first) * len(draws))
    return hit / weight


def test_expansion_two_pairs_against_comb_and_brute_force() -> None:
    exp = all_uses(P1 + P2, ks=range(4), next_uses=2)
    c = math.comb
    # k=0: p1 C(3,2)/C(5,2); p2 C(3,2)/C(3,2) = 1; both pass with weight 1
    assert exp.points[0].share == pytest.approx((c(3, 2) / c(5, 2) + 1) / 2)
    # k=1: p1 weight 2/3, then 1/6; p2 weight C(2,1)/C(2,1) = 1, then C(2,2)/C(2,2) = 1
    assert exp.points[1].share == pytest.approx((2 / 3 * 1 / 6 + 1) / (2 / 3 + 1))
    assert exp.points[1].share == pytest.approx(2 / 3)
    # k=2: p1 weight 1/3, then 0; p2 has one answer left, fewer than 2: left out
    assert (exp.points[2].share, exp.points[2].se) == (0.0, 0.0)
    assert exp.points[2].n_eff == pytest.approx(1 / 3) and exp.points[2].pairs == 1
    # k=3: p1 counted with weight 0, p2 left out (K=2)
    assert (exp.points[3].share, exp.points[3].pairs) == (None, 1)
    pairs = [([1, 1, 0], [1, 0]), ([1, 1], [1])]
    for k in range(3):
        assert exp.points[k].share == pytest.approx(float(_brute(pairs, k, 2)))


def test_expansion_ignores_keystone_failures_and_unparsed_classifications() -> None:
    noise = [*_pair("M", "p9", [0, 0, 0], [0], keystone=False),
             UseRecord("M", "d", "p1", "classify", True, None)]
    assert all_uses(P1 + noise, next_uses=2) == all_uses(P1, next_uses=2)


def test_expansion_counts_an_unreadable_edit_as_the_rates_do() -> None:
    """An unreadable edit of p1 is a wrong use answer (U=6, u=3: k=0 gives C(3,2)/C(6,2) =
    0.2, not 0.3), or is left out with unparsed="exclude"."""
    unread = [UseRecord("M", "d", "p1", "edit", True, None)]
    wrong = [UseRecord("M", "d", "p1", "edit", True, False)]
    exp = all_uses(P1 + unread, next_uses=2)
    assert exp == all_uses(P1 + wrong, next_uses=2)
    assert exp.points[0].share == pytest.approx(0.2)
    assert all_uses(P1 + unread, next_uses=2, unparsed="exclude") == \
        all_uses(P1, next_uses=2)


def test_expansion_keeps_only_models_above_chance() -> None:
    # Coin: classify 1 of 2 right, exactly chance; Quiet: no classify answer at all
    coin = _pair("Coin", "q", [1, 0], [0])
    quiet = [UseRecord("Quiet", "d", "q", "generate", True, True)]
    exp = all_uses(P1 + P2 + coin + quiet, ks=range(1), next_uses=2)
    assert (exp.models, exp.dropped_models) == (("M",), ("Coin", "Quiet"))
    assert exp.points[0].pairs == 2
    every = all_uses(P1 + P2 + coin + quiet, ks=range(1), next_uses=2,
                               above_chance_only=False)
    assert (every.models, every.dropped_models) == (("Coin", "M", "Quiet"), ())
    # k=0, all pass: M's p1 3/10, p2 1; Coin 1 of 3 uses right: C(1,2)/C(3,2) = 0;
    # Quiet has one use answer, fewer than the 2 to draw: left out
    assert every.points[0].share == pytest.approx((3 / 10 + 1 + 0) / 3)
    assert every.to_dict()["points"][0]["pairs"] == 3


# ---------------------------------------------------------------- agreement and clusters


def test_cohen_kappa_textbook_table() -> None:
    # yes/yes 20, yes/no 5, no/yes 10, no/no 15: po = 35/50 = 0.7;
    # rater a says yes 25/50, rater b 30/50: pe = 0.5*0.6 + 0.5*0.4 = 0.5; κ = 0.2/0.5 = 0.4
    a = [True] * 25 + [False] * 25
    b = [True] * 20 + [False] * 5 + [True] * 10 + [False] * 15
    assert cohen_kappa(a, b) == pytest.approx((0.7 - 0.5) / (1 - 0.5))
    assert cohen_kappa(a, b) == pytest.approx(0.4)


def test_cohen_kappa_edge_cases() -> None:
    assert cohen_kappa([], []) is None
    assert cohen_kappa([True, True], [True, True]) == 1.0  # pe = 1: constant, equal raters
    assert cohen_kappa([True, False], [True, False]) == 1.0
    # always opposite: po = 0, pe = 1/2*1/2 + 1/2*1/2 = 1/2 -> -1
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)
    with pytest.raises(ValueError):
        cohen_kappa([True], [True, False])


def test_clustered_rate_by_hand() -> None:
    # p = 3/5; residuals 1 - 1.2 = -0.2, 2 - 1.2 = 0.8, 0 - 0.6 = -0.6; squares sum 1.04
    # G = 3 (the empty cluster does not count): sqrt(3/2 * 1.04) / 5
    p, se, n = clustered_rate([1, 2, 0, 0], [2, 2, 1, 0])
    assert (p, n) == (pytest.approx(3 / 5), 5)
    assert se == pytest.approx(math.sqrt(3 / 2 * 1.04) / 5)
    assert clustered_rate([2, 0], [3, 0]) == (pytest.approx(2 / 3), 0.0, 3)
    with pytest.raises(ValueError):
        clustered_rate([0, 0], [0, 0])
    with pytest.raises(ValueError):
        clustered_rate([3], [2])


# ---------------------------------------------------------------- report


def test_text_tables(tmp_path: Path) -> None:
    records = _records(tmp_path)
    assert format_rate(table1(records)["A"]["classify"]) == \
        "0.50 (0.43) n=4, 1 unreadable (left out)"
    assert format_rate(PotemkinRate("edit", None, None, 0, 0, 0)) == "—  n=0"
    assert format_rate(PotemkinRate("edit", 1.0, 0.0, 2, 2, 0, True)) == \
        "1.00 (0.00) n=2, 2 unreadable (as wrong)"
    text = table1_text(table1(records)).splitlines()
    assert text[0].split() == ["model", "classify", "generate", "edit"]
    assert text[2].split()[0] == "A" and text[4].split()[0] == "overall"
    assert "1 unreadable (left out)" in text[2] and "1 unreadable (left out)" in text[4]
    assert "scaled ×2" in text[-1] and "count as wrong" in text[-1] and "2 answers" in text[-1]
    text6 = table6_text(table6(records)).splitlines()
    assert text6[0].split() == ["domain", "model", "classify", "generate", "edit"]
    assert text6[2].split()[:2] == ["game", "B"] and text6[3].split()[0] == "overall"
    exp = all_uses(P1 + P2, ks=range(4), next_uses=2)
    lines = expansion_text(exp).splitlines()
    assert lines[2].split()[:3] == ["0", "0.65", "(0.34)"]
    assert lines[5].split()[:2] == ["3", "—"]
    assert "models: M" in lines


def test_plot_expansion_writes_a_png(tmp_path: Path) -> None:
    exp = all_uses(P1 + P2, ks=range(4), next_uses=2)
    path = tmp_path / "figure4.png"
    plot_expansion(exp, path)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 1000


def test_an_ungraded_answer_says_why_not_who_graded_it():
    """The answer panel of the report (issue 30: it said "not graded (graded by ungraded)")."""
    assert grade_words(None, "ungraded") == ("not graded yet: no judge was given and no label "
                                             "imported")
    assert "graded by" not in grade_words(None, "judge unparsed")
    assert "graded by" not in grade_words(False, "unparsed")
    assert grade_words(True, "checker") == "right (graded by checker)"
    assert grade_words(False, "human") == "wrong (graded by human)"
