"""Knowledge bases and background facts of conceptual consistency (Sahu et al., ICLR 2023, 3.1)."""

from __future__ import annotations

import gzip
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from wordfreq import word_frequency

from verstehen.data.mcq import load_mcq
from verstehen.errors import UserError
from verstehen.methods.consistency.background import (
    Fact,
    anchor_concepts,
    background_facts,
    negative_for,
    negative_pool,
    question_concepts,
    with_negatives,
)
from verstehen.methods.consistency.knowledge import (
    RELATIONS_14,
    Edge,
    KnowledgeBase,
    load_knowledge,
    normalize_concept,
    normalize_relation,
)
from verstehen.methods.consistency.procedure import ConsistencyPlan, build_anchors
from verstehen.methods.consistency.stats import LABEL_PAIRS
from verstehen.methods.consistency.templates import (
    fact_question,
    meta_prompts,
    relation_templates,
    render_meta,
)

from conftest import SHARED_DATA, needs_shared

EDGES_14 = SHARED_DATA / "conceptnet" / "csqa_dev_edges_14rel.tsv"
CSQA_DEV = SHARED_DATA / "csqa" / "dev_rand_split.jsonl"
shared_csqa = needs_shared("conceptnet/csqa_dev_edges_14rel.tsv", "csqa/dev_rand_split.jsonl")


def tsv(tmp_path: Path, rows: list[str], name: str = "kb.tsv",
        header: str = "relation\tstart\tend") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def kb_of(*triples: str) -> KnowledgeBase:
    """A base from "Relation start end" strings."""
    return KnowledgeBase(Edge(*t.split(), None) for t in triples)


# ---------------------------------------------------------------- normalization


@pytest.mark.parametrize(("text", "slug"), [
    ("Revolving Door", "revolving_door"), ("/c/en/revolving_door/n", "revolving_door"),
    ("/c/en/bank/n/wn/artifact", "bank"), ("revolving_door", "revolving_door"),
    ("  New-York ", "new_york"), ("a big dog", "big_dog"), ("to go", "go"), ("the", "the"),
    ("Test?!", "test"), ("can't stop", "can't_stop"),
])
def test_normalize_concept(text: str, slug: str) -> None:
    assert normalize_concept(text) == slug


@pytest.mark.parametrize("text", ["/r/AtLocation", "AtLocation", "at location", "at_location",
                                  "atlocation", "At-Location", "/r/AtLocation/"])
def test_normalize_relation(text: str) -> None:
    assert normalize_relation(text) == "AtLocation"


def test_normalize_relation_others_and_unknown() -> None:
    assert normalize_relation("Cause") == "Causes"  # the paper's Table 2 name
    assert normalize_relation("is a") == "IsA"
    assert normalize_relation("/r/dbpedia/genre") == "dbpedia/genre"
    with pytest.raises(UserError, match="FooBar"):
        normalize_relation("FooBar")


# ---------------------------------------------------------------- loading


def test_load_tsv_with_weight_na_and_duplicates(tmp_path: Path) -> None:
    path = tsv(tmp_path, ["AtLocation\trevolving_door\tbank\tNA\t3", "IsA\tdog\tanimal\t2.5\t1",
                          "IsA\tdog\tanimal\t4\t1", "RelatedTo\tDog\tcat\t\t1"],
               header="relation\tstart\tend\tweight\tn_dev_questions")
    kb = load_knowledge(path)
    assert kb.edges == (Edge("AtLocation", "revolving_door", "bank", None),
                        Edge("IsA", "dog", "animal", 4.0), Edge("RelatedTo", "dog", "cat", None))
    assert kb.has("IsA", "dog", "animal") and not kb.has("IsA", "animal", "dog")
    assert kb.concepts() == {"revolving_door", "bank", "dog", "animal", "cat"}
    assert kb.out_edges("dog") == (Edge("IsA", "dog", "animal", 4.0),
                                   Edge("RelatedTo", "dog", "cat", None))
    assert kb.out_edges("cat") == ()
    assert kb.neighbours("animal") == {"dog"} and kb.neighbours("dog") == {"animal", "cat"}
    assert kb.restricted(["is a"]).edges == (Edge("IsA", "dog", "animal", 4.0),)


def test_load_tsv_without_weight_and_filter(tmp_path: Path) -> None:
    path = tsv(tmp_path, ["UsedFor\tclothes\twearing", "HasProperty\tfire\thot",
                          "IsA\tdog\tanimal"])
    assert [e.relation for e in load_knowledge(path).edges] == ["UsedFor", "IsA"]
    assert [e.relation for e in load_knowledge(path, None).edges] == [
        "UsedFor", "HasProperty", "IsA"]
    assert load_knowledge(path, ["/r/IsA"]).edges == (Edge("IsA", "dog", "animal", None),)
    assert all(e.weight is None for e in load_knowledge(path).edges)


def test_load_csv_any_column_order(tmp_path: Path) -> None:
    path = tmp_path / "kb.csv"
    path.write_text('start,end,relation,weight,extra\n"Revolving Door",bank,/r/AtLocation,1,x\n'
                    'book,school,used for,2,y\n', encoding="utf-8")
    assert load_knowledge(path).edges == (Edge("AtLocation", "revolving_door", "bank", 1.0),
                                          Edge("UsedFor", "book", "school", 2.0))


ASSERTIONS = [
    "/a/[/r/AtLocation/,/c/en/revolving_door/n/,/c/en/bank/]\t/r/AtLocation\t"
    '/c/en/revolving_door/n\t/c/en/bank\t{"dataset": "/d/conceptnet/4/en", "weight": 2.0}',
    "/a/[/r/IsA/,/c/fr/porte/,/c/fr/objet/]\t/r/IsA\t/c/fr/porte\t/c/fr/objet\t"
    '{"dataset": "/d/wiktionary/fr", "weight": 1.0}',
    "/a/[/r/Synonym/,/c/en/door/,/c/fr/porte/]\t/r/Synonym\t/c/en/door\t/c/fr/porte\t"
    '{"weight": 1.0}',
    "/a/[/r/ExternalURL/,/c/en/door/,http://dbpedia.org/resource/Door/]\t/r/ExternalURL\t"
    '/c/en/door\thttp://dbpedia.org/resource/Door\t{"weight": 1.0}',
    "/a/[/r/HasProperty/,/c/en/fire/,/c/en/hot/]\t/r/HasProperty\t/c/en/fire\t/c/en/hot\t"
    '{"weight": 3.46}',
    "/a/[/r/IsA/,/c/en/door/n/,/c/en/barrier/n/]\t/r/IsA\t/c/en/door/n\t/c/en/barrier/n\t"
    '{"weight": 0.5}',
]


@pytest.mark.parametrize("compressed", [False, True])
def test_load_conceptnet_assertions(tmp_path: Path, compressed: bool) -> None:
    data = ("\n".join(ASSERTIONS) + "\n").encode()
    path = tmp_path / ("conceptnet-assertions-5.7.0.csv" + (".gz" if compressed else ""))
    path.write_bytes(gzip.compress(data) if compressed else data)
    assert load_knowledge(path).edges == (Edge("AtLocation", "revolving_door", "bank", 2.0),
                                          Edge("IsA", "door", "barrier", 0.5))
    assert [e.relation for e in load_knowledge(path, None).edges] == [
        "AtLocation", "HasProperty", "IsA"]


def test_load_errors_name_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such file"):
        load_knowledge(tmp_path / "missing.tsv")
    path = tsv(tmp_path, ["IsA\tdog\tanimal"], name="noend.tsv", header="relation\tstart\tfinish")
    with pytest.raises(UserError) as e:
        load_knowledge(path)
    assert str(e.value) == f"{path}:1: no 'end' column (need relation, start, end[, weight])"
    path = tsv(tmp_path, ["IsA\tdog\tanimal", "", "IsA\tcat"], name="short.tsv")
    with pytest.raises(UserError, match=rf"^{path}:4: expected at least 3 fields, got 2"):
        load_knowledge(path)
    path = tsv(tmp_path, ["IsA\tdog\tanimal", "LivesIn\tfish\twater"], name="rel.tsv")
    with pytest.raises(UserError, match=rf"^{path}:3: unknown relation 'LivesIn'"):
        load_knowledge(path)
    path = tsv(tmp_path, ["IsA\tdog\tanimal\tmany"], name="weight.tsv",
               header="relation\tstart\tend\tweight")
    with pytest.raises(UserError, match=rf"^{path}:2: weight 'many'"):
        load_knowledge(path)
    path = tmp_path / "multiline.csv"  # a quoted field spans lines 2-3, the bad row is line 4
    path.write_text('relation,start,end\nIsA,"hot\ndog",food\nIsA,cat\n', encoding="utf-8")
    with pytest.raises(UserError, match=rf"^{path}:4: expected at least 3 fields"):
        load_knowledge(path)
    path = tsv(tmp_path, ["HasProperty\tfire\thot"], name="none14.tsv")
    with pytest.raises(UserError, match=rf"^{path}: no edges of the relations"):
        load_knowledge(path)
    bad = tmp_path / "bad-assertions.csv"
    bad.write_text(ASSERTIONS[0] + "\n/a/[x]\t/r/IsA\n", encoding="utf-8")
    with pytest.raises(UserError, match=rf"^{bad}:2: expected 5 tab-separated fields"):
        load_knowledge(bad)


@shared_csqa
def test_load_shared_14_relations_matches_source_md() -> None:
    kb = load_knowledge(EDGES_14)
    assert len(kb.edges) == 7180 and len(kb.concepts()) == 4048
    counts: dict[str, int] = {}
    for e in kb.edges:
        counts[e.relation] = counts.get(e.relation, 0) + 1
    assert counts == {"AtLocation": 2395, "RelatedTo": 2242, "Causes": 722, "CapableOf": 447,
                      "Antonym": 424, "IsA": 268, "UsedFor": 223, "Desires": 143, "PartOf": 96,
                      "HasA": 84, "Synonym": 81, "FormOf": 37, "MadeOf": 9, "SimilarTo": 9}
    assert all(e.weight is None for e in kb.edges)
    everything = load_knowledge(SHARED_DATA / "conceptnet" / "csqa_dev_edges_all_relations.tsv",
                                None)
    assert len(everything.edges) == 8430
    assert everything.restricted(RELATIONS_14).edges == kb.edges


# ---------------------------------------------------------------- anchor concepts and facts


def test_anchor_concepts_rule(tmp_path: Path) -> None:
    kb = load_knowledge(tsv(tmp_path, [
        "AtLocation\trevolving_door\tbank", "IsA\trevolving_door\tdoor", "RelatedTo\tbank\tmoney",
        "AtLocation\tcat\tnew_york", "RelatedTo\ton_it\tit", "PartOf\tyork_minster\tbig_red_door",
    ]))
    text = "A revolving door at the bank, and it has two cats in New York"
    # "a revolving" covers half of revolving_door (not more); "door" alone is 1/2 of it;
    # "it" is a stopword; "cats" -> cat; "york" is half of york_minster
    assert anchor_concepts(text, kb) == ["revolving_door", "door", "bank", "cat", "new_york"]
    assert anchor_concepts(text, kb, max_words=1) == ["door", "bank", "cat"]
    assert anchor_concepts("the revolving doors", kb) == ["revolving_door", "door"]  # lemmas
    assert anchor_concepts("it is on it", kb) == []


def test_anchor_concepts_phrase_side_majority() -> None:
    kb = kb_of("IsA go_to_work activity", "IsA work activity")
    # "go work": 2 of 3 concept words, 2 of 2 phrase words; "go to work" all of them
    assert anchor_concepts("I go work", kb) == ["go_to_work", "work"]
    assert anchor_concepts("to work", kb) == ["go_to_work", "work"]  # stopwords count as words
    assert anchor_concepts("go home", kb) == []  # 1 of 3 concept words
    assert anchor_concepts("activities", kb) == ["activity"]


def test_concepts_never_span_two_texts():
    # issue 18, item 4: "... learn from each other" + "kill animals" read as one text holds
    # the phrase "each other kill", all three words of kill_each_other
    kb = kb_of("CapableOf people kill_each_other", "CapableOf people learn")
    texts = ["What do people aim to do? learn from each other", "kill animals"]
    assert "kill_each_other" in anchor_concepts(" ".join(texts), kb)  # the old reading
    assert question_concepts(texts, kb) == ["people", "learn"]
    assert background_facts(question_concepts(texts, kb), kb) == [
        Fact("CapableOf", "people", "learn", True)]
    # within one text the phrase still matches; the order is that of first appearance
    assert question_concepts(["kill each other", "people"], kb) == ["kill_each_other",
                                                                     "people"]
    assert question_concepts([], kb) == []


GRAPH = ("RelatedTo a b", "IsA b c", "AtLocation c d", "UsedFor x a", "UsedFor x d",
         "Antonym a a", "HasA b e", "CapableOf y c", "CapableOf y z", "CapableOf z a")


def test_background_facts_path_lengths() -> None:
    kb = kb_of(*GRAPH)
    anchors = ["a", "c", "d", "not_in_kb"]
    assert background_facts(anchors, kb) == [Fact("AtLocation", "c", "d", True)]
    two = [Fact("AtLocation", "c", "d", True), Fact("IsA", "b", "c", True),
           Fact("RelatedTo", "a", "b", True), Fact("UsedFor", "x", "a", True),
           Fact("UsedFor", "x", "d", True)]
    assert background_facts(anchors, kb, max_path_length=2) == two
    three = background_facts(anchors, kb, max_path_length=3)
    assert three == sorted([*two, Fact("CapableOf", "y", "c", True),
                            Fact("CapableOf", "y", "z", True), Fact("CapableOf", "z", "a", True)])
    assert background_facts(["a"], kb, max_path_length=3) == []
    assert background_facts(["a", "a"], kb) == []  # a self-loop is not a fact
    with pytest.raises(UserError):
        background_facts(anchors, kb, max_path_length=0)
    assert Fact("IsA", "b", "c", False).key == "IsA|b|c|-"


# ---------------------------------------------------------------- negatives

NEG_KB = kb_of("RelatedTo a b", "RelatedTo a p1", "RelatedTo p2 a", "IsA a p3", "IsA q a",
               "AtLocation q a")


def test_negative_respects_the_three_criteria() -> None:
    pool = ["a", "b", "p1", "p2", "p3", "p4", "p5"]
    fact = Fact("RelatedTo", "a", "b", True)
    picks = {negative_for(fact, NEG_KB, seed=s, pool=pool) for s in range(200)}
    # not a, not b (a real edge), not p1 (real edge), not p2 (reverse of a symmetric relation)
    assert {p.c2 for p in picks if p} == {"p3", "p4", "p5"}
    assert all(p is not None and p.relation == "RelatedTo" and p.c1 == "a" and not p.positive
               for p in picks)
    isa = {negative_for(Fact("IsA", "a", "p3", True), NEG_KB, seed=s, pool=pool)
           for s in range(200)}
    assert {p.c2 for p in isa if p} == {"b", "p1", "p2", "p4", "p5"}  # IsA is not symmetric
    assert negative_for(fact, NEG_KB, seed=0, pool=["a", "b", "p1", "p2"]) is None
    assert negative_for(fact, NEG_KB, seed=0, pool=[]) is None


def test_negatives_stable_per_fact_and_seed(tmp_path: Path) -> None:
    kb = kb_of(*(f"RelatedTo c{i} c{j}" for i in range(12) for j in range(12) if (i * j) % 5 == 1))
    pool = sorted(kb.concepts()) + [f"w{i}" for i in range(40)]
    facts = background_facts(sorted(kb.concepts()), kb)
    first = with_negatives(facts, kb, seed=7, pool=pool)
    assert first == with_negatives(facts, kb, seed=7, pool=pool)
    assert first[0::2] == facts and all(not f.positive for f in first[1::2])
    assert [(p.relation, p.c1) for p in first[0::2]] == [(n.relation, n.c1) for n in first[1::2]]
    other = with_negatives(facts, kb, seed=8, pool=pool)
    assert sum(a != b for a, b in zip(first, other, strict=True)) > len(facts) // 2
    # one positive tuple reached from two different anchors gets one negative
    kb2 = kb_of("AtLocation revolving_door bank", "RelatedTo bank money", "IsA cat animal")
    pool2 = ["cat", "animal", "money", "bank", "fish", "tree", "house", "river"]
    by_anchor = [with_negatives(background_facts(anchor_concepts(text, kb2), kb2), kb2,
                                seed=3, pool=pool2)
                 for text in ("a revolving door in a bank", "bank money and a revolving door")]
    pairs = [dict(zip(run[0::2], run[1::2], strict=True)) for run in by_anchor]
    shared = Fact("AtLocation", "revolving_door", "bank", True)
    assert shared in pairs[0] and pairs[0][shared] == pairs[1][shared]


@settings(max_examples=60, deadline=None)
@given(triples=st.lists(st.tuples(st.sampled_from(["IsA", "RelatedTo", "UsedFor"]),
                                  st.sampled_from("abcdefg"), st.sampled_from("abcdefg")),
                        min_size=1, max_size=30),
       seed=st.integers(0, 2**32))
def test_negative_never_a_real_edge(triples: list[tuple[str, str, str]], seed: int) -> None:
    kb = KnowledgeBase(Edge(r, s, e, None) for r, s, e in triples)
    pool = list("abcdefgh")
    for fact in (Fact(r, s, e, True) for r, s, e in triples):
        neg = negative_for(fact, kb, seed=seed, pool=pool)
        valid = [c for c in pool if c not in (fact.c1, fact.c2)
                 and not kb.has(fact.relation, fact.c1, c)
                 and not (fact.relation == "RelatedTo" and kb.has(fact.relation, c, fact.c1))]
        assert (neg is None) == (not valid)
        if neg is not None:
            assert neg.c2 in valid and neg.c1 == fact.c1 and neg.relation == fact.relation


def test_negative_pool_real_frequent_words() -> None:
    triples = ["IsA dog animal", "AtLocation cat house", "RelatedTo zorbflux new_york",
               "RelatedTo 100 dog", "RelatedTo it house", "RelatedTo dog_zorbflux cat"]
    kb = kb_of(*triples)
    expected = sorted(["dog", "animal", "cat", "house", "new_york"],
                      key=lambda c: (-word_frequency(c.replace("_", " "), "en"), c))
    assert negative_pool(kb, single_words=False) == expected
    assert negative_pool(kb_of(*reversed(triples)), single_words=False) == expected
    assert negative_pool(kb, size=2, single_words=False) == expected[:2]
    assert negative_pool(kb) == [c for c in expected if c != "new_york"]


# ---------------------------------------------------------------- questions and meta-prompts


@pytest.mark.parametrize(("relation", "c1", "c2", "paper", "fixed"), [
    ("UsedFor", "clothes", "wearing", "Are clothes used for wearing",
     "Is clothes used for wearing"),
    ("HasA", "house", "basement", "Does house has a basement", "Does house have a basement"),
    ("Desires", "dog", "affection", "Does a dog desires affection",
     "Does a dog desire affection"),
    ("AtLocation", "door", "library", "Is door at location library",
     "Can door be found at library"),
    ("CapableOf", "child", "form_opinions", "Is a child capable of form opinions",
     "Can a child form opinions"),
    ("IsA", "security", "department", "Is security a department",
     "Is security a kind of department"),
    ("Synonym", "reply", "answer", "Is reply a synonym of answer",
     "Is reply a synonym of answer"),
])
def test_fact_question(relation: str, c1: str, c2: str, paper: str, fixed: str) -> None:
    fact = Fact(relation, c1, c2, True)
    assert fact_question(fact, style="paper") == paper
    assert fact_question(fact) == fixed


def test_templates_cover_the_14_relations() -> None:
    for style in ("paper", "fixed"):
        templates = relation_templates(style)
        assert set(templates) == set(RELATIONS_14)
        assert all("{c1}" in t and "{c2}" in t and not t.endswith("?")
                   for t in templates.values())
    with pytest.raises(UserError, match="style"):
        fact_question(Fact("IsA", "a", "b", True), style="poetic")
    with pytest.raises(UserError, match="HasProperty"):
        fact_question(Fact("HasProperty", "fire", "hot", True))


def test_meta_prompts_verbatim() -> None:
    q, pair = "Are books used for school", ("Yes", "No")
    assert [render_meta(m, q, pair) for m in meta_prompts()] == [
        "Are books used for school?",
        "Are books used for school. Is this true?",
        "Answer this question as 'Yes' or 'No'. Question: Are books used for school?",
        "Each item is a question and answer. Answer is one of 'Yes' or 'No'. "
        "Question: Are books used for school? Answer:",
        "Pick 'Yes' or 'No'. Question: Are books used for school?Answer:",
    ]
    assert len(LABEL_PAIRS) == 7 and LABEL_PAIRS[3] == ("Correct", "Incorrect")


# ---------------------------------------------------------------- shared CSQA dev data


@shared_csqa
def test_shared_csqa_dev_extraction() -> None:
    kb = load_knowledge(EDGES_14)
    items = load_mcq(CSQA_DEV)[:200]
    assert items[0].stem.startswith("A revolving door is convenient")
    start = time.perf_counter()
    runs = []
    for item in items:
        concepts = question_concepts([item.stem, *item.choices], kb)
        runs.append((concepts, background_facts(concepts, kb)))
    elapsed = time.perf_counter() - start
    with_facts = sum(1 for _, facts in runs if facts)
    mean = sum(len(facts) for _, facts in runs) / len(runs)
    print(f"200 CSQA dev questions: {elapsed:.3f} s, {with_facts} with facts, "
          f"{mean:.2f} positive facts per question")
    first_concepts, first_facts = runs[0]
    assert {"revolving_door", "bank"} <= set(first_concepts)
    assert Fact("AtLocation", "revolving_door", "bank", True) in first_facts
    assert with_facts >= 150
    assert elapsed < 10  # generous; measured about 0.2 s
    pool = negative_pool(kb)
    assert len(pool) == 2000 and pool == negative_pool(kb)
    negatives = with_negatives(first_facts, kb, seed=0, pool=pool)[1::2]
    assert len(negatives) == len(first_facts)
    assert not any(kb.has(n.relation, n.c1, n.c2) for n in negatives)


@shared_csqa
def test_shared_csqa_dev_anchors_match_within_each_text():
    # dev question a7ab0860: "What do people aim to do at work?", choices "complete job",
    # "learn from each other", "kill animals", ... Read as one text, "each other kill" matched
    # kill_each_other and brought the edge (people, CapableOf, kill_each_other); no text of
    # the question says it
    kb = load_knowledge(EDGES_14)
    items = load_mcq(CSQA_DEV)
    item = next(i for i in items if i.id == "a7ab086045575bb497933726e4e6ad28")
    joined = anchor_concepts(" ".join([item.stem, *item.choices]), kb)
    assert "kill_each_other" in joined
    (built,) = build_anchors([item], kb, ConsistencyPlan())
    assert "kill_each_other" not in built.concepts and "people" in built.concepts
    assert {"kill_each_other"}.isdisjoint(c for f in built.facts for c in (f.c1, f.c2))
    assert Fact("CapableOf", "people", "kill_each_other", True) in background_facts(joined, kb)
    # matching within each text finds a subset of what the joined text finds (every phrase of
    # one text is a phrase of the joined text), never more
    for item in items[:300]:
        texts = [item.stem, *item.choices]
        assert set(question_concepts(texts, kb)) <= set(anchor_concepts(" ".join(texts), kb))


def test_negative_pool_is_single_words_by_default():
    kb = KnowledgeBase([Edge("IsA", "dog", "animal"), Edge("AtLocation", "dog", "dog_house"),
                        Edge("UsedFor", "bone", "bone_up_on")])
    assert "dog_house" not in negative_pool(kb)
    assert "dog_house" in negative_pool(kb, single_words=False)
    assert set(negative_pool(kb)) == {"dog", "animal", "bone"}
