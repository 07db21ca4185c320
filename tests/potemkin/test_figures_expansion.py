"""Keystone expansion (paper Figure 4) as the paper computes it, on records built by hand, its
text, PNG and JSON form, and the bench script that runs it on the paper's stored records
(issue 21, item 8; issue 28, item 6).

The paper's definition: per (model, concept) that defined the concept right, with K readable
classify answers of which c are right, k keystone answers are drawn without replacement
(P_pass = C(c,k)/C(K,k)); the concept is understood when the next m answers, drawn with
replacement from the K-k others, are all right (((c-k)/(K-k))^m); the share understood pools
the pairs, weighting each by P_pass.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

import pytest

from verstehen.errors import UserError
from verstehen.methods.potemkin import plots
from verstehen.methods.potemkin import text as printout
from verstehen.methods.potemkin.outputs import score_files
from verstehen.methods.potemkin.stats import KeystoneExpansion, UseRecord, keystone_expansion
from verstehen.results import from_jsonable

from conftest import Cli, cli_error, figures_saved_by

BENCH = Path(__file__).resolve().parents[2] / "bench" / "figure4_paper.py"
F = Fraction


@pytest.fixture
def drawn(monkeypatch: pytest.MonkeyPatch) -> list:
    """The figures the plots module saves, each still written to its path."""
    return figures_saved_by(monkeypatch, plots)


def uses(model: str, concept: str, classify: list[int | None], task: str = "classify",
         keystone: bool = True) -> list[UseRecord]:
    """One answer of `task` per grade (None: unreadable) for a (model, concept)."""
    return [UseRecord(model, "d", concept, task, keystone, None if x is None else bool(x))
            for x in classify]


def shares(exp: KeystoneExpansion) -> list[float | None]:
    return [p.share for p in exp.points]


def brute(pairs: list[list[int]], k: int, m: int) -> Fraction:
    """The share from the definition, by enumeration: every k-subset of a pair's classify
    answers, and when all k are right, every ordered m-tuple of the others (with
    replacement); pairs pooled by the chance of passing."""
    hit = weight = F(0)
    for answers in pairs:
        subsets = list(itertools.combinations(range(len(answers)), k))
        for chosen in subsets:
            if not all(answers[i] for i in chosen):
                continue
            rest = [x for i, x in enumerate(answers) if i not in chosen]
            draws = list(itertools.product(rest, repeat=m))
            weight += F(1, len(subsets))
            hit += F(sum(all(d) for d in draws), len(subsets) * len(draws))
    return hit / weight


# ---------------------------------------------------------------- the paper's definition


def test_one_pair_draws_the_next_answers_with_replacement() -> None:
    """Classify 1, 1, 1, 0 (K=4, c=3), next m=2:
    k=0: pass 1, then (3/4)^2 = 9/16;
    k=1: pass C(3,1)/C(4,1) = 3/4, then the 3 others hold 2 right: (2/3)^2 = 4/9;
    k=2: pass C(3,2)/C(4,2) = 1/2, then 1 right of 2: (1/2)^2 = 1/4;
    k=3: pass C(3,3)/C(4,3) = 1/4, then 0 right of 1: 0;
    k=4: no classify answer left to draw from: left out.
    Without replacement, k=2 would give 0 (two draws from 1 right, 1 wrong), not 1/4."""
    pair = [1, 1, 1, 0]
    exp = keystone_expansion(uses("M", "p", pair), next_uses=2)
    assert exp.definition == "paper"
    assert shares(exp)[:4] == pytest.approx([F(9, 16), F(4, 9), F(1, 4), 0])
    assert [p.n_eff for p in exp.points[:4]] == pytest.approx([1, F(3, 4), F(1, 2), F(1, 4)])
    assert exp.points[1].se == pytest.approx((F(4, 9) * F(5, 9) / F(3, 4)) ** 0.5)
    assert [(p.pairs, p.left_out) for p in exp.points] == [(1, 0)] * 4 + [(0, 1)]
    assert (exp.points[4].share, exp.points[4].se, exp.points[4].n_eff) == (None, None, 0.0)
    for k in range(4):
        assert shares(exp)[k] == pytest.approx(brute([pair], k, 2))


def test_pairs_all_right_and_none_right_pool_by_the_chance_of_passing() -> None:
    """M's classify: `all` 1, 1, 1, 1; `none` 0, 0; `most` 1, 1, 1, 0 (7 of 10 right, above
    chance); m = 10, the paper's.
    k=0: all pass: (1 + 0^10 + (3/4)^10) / 3;
    k=1: `none` passes with chance 0 (counted, weight 0); `most` 3/4, then (2/3)^10:
         (1 + 3/4·(2/3)^10) / (1 + 3/4);
    k=2: `none` has no answer left (K=2): left out; `most` 1/2, then (1/2)^10:
         (1 + 1/2·(1/2)^10) / (1 + 1/2);
    k=3: `most` 1/4, then 0 right of 1: (1 + 0) / (1 + 1/4) = 4/5;
    k=4: every pair is left out.
    An unweighted mean over passing pairs would give (1 + (2/3)^10)/2 at k=1 instead."""
    pairs = {"all": [1, 1, 1, 1], "none": [0, 0], "most": [1, 1, 1, 0]}
    records = [r for name, grades in pairs.items() for r in uses("M", name, grades)]
    exp = keystone_expansion(records)
    assert shares(exp)[:4] == pytest.approx([
        (1 + F(3, 4) ** 10) / 3,
        (1 + F(3, 4) * F(2, 3) ** 10) / (1 + F(3, 4)),
        (1 + F(1, 2) * F(1, 2) ** 10) / (1 + F(1, 2)),
        F(4, 5)])
    assert exp.points[4].share is None
    assert [(p.pairs, p.left_out) for p in exp.points] == [(3, 0), (3, 0), (2, 1), (2, 1),
                                                           (0, 3)]
    for k in range(4):
        assert shares(exp)[k] == pytest.approx(brute(list(pairs.values()), k, 10))


def test_generate_and_edit_answers_are_not_use_answers_by_default() -> None:
    """Classify 1, 1, 0 and a wrong generate and a right edit answer, m=2. The paper's
    definition: (2/3)^2 = 4/9 at k=0, whatever the generate and edit answers are. All uses:
    U=5, u=3, two of the five without replacement: C(3,2)/C(5,2) = 3/10."""
    classify = uses("M", "p", [1, 1, 0])
    built = [*uses("M", "p", [0], "generate"), *uses("M", "p", [1], "edit")]
    paper = keystone_expansion(classify + built, ks=[0], next_uses=2)
    assert paper == keystone_expansion(classify, ks=[0], next_uses=2)
    assert paper.points[0].share == pytest.approx(F(4, 9))
    every = keystone_expansion(classify + built, ks=[0], next_uses=2, expansion="all-uses")
    assert every.definition == "all-uses" and every.points[0].share == pytest.approx(F(3, 10))


def test_unreadable_answers_and_failed_keystones_are_left_out() -> None:
    """An unreadable classify answer is not drawn: 1, 1, ?, 0 is 1, 1, 0 ((2/3)^2 = 4/9 at
    k=0). Unreadable generate answers change nothing, wrong or excluded. A concept whose
    definition was wrong is not counted; one whose classify answers are all unreadable has
    none to draw: left out (K=0)."""
    plain = keystone_expansion(uses("M", "p", [1, 1, 0]), ks=[0], next_uses=2)
    assert plain.points[0].share == pytest.approx(F(4, 9))
    noisy = [*uses("M", "p", [1, 1, None, 0]), *uses("M", "p", [None, None], "generate"),
             *uses("M", "failed", [0, 0, 0, 1, 1, 1], keystone=False)]
    for unparsed in ("wrong", "exclude"):
        assert keystone_expansion(noisy, ks=[0], next_uses=2, unparsed=unparsed) == plain
    unread = keystone_expansion(noisy + uses("M", "garbled", [None]), ks=[0], next_uses=2)
    assert unread.points[0] == replace(plain.points[0], left_out=1)
    only_built = keystone_expansion(noisy + uses("M", "built", [1], "edit"), ks=[0],
                                    next_uses=2)
    assert only_built.points[0] == replace(plain.points[0], left_out=1)  # no classify answer


def test_only_models_above_chance_count() -> None:
    """M: 1, 1, 0 (above chance); Coin: 1, 0 (exactly chance: dropped); Quiet: no classify
    answer (dropped). With every model, k=0 and m=2: M (2/3)^2 = 4/9, Coin (1/2)^2 = 1/4,
    Quiet has nothing to draw (left out): (4/9 + 1/4) / 2 = 25/72."""
    records = [*uses("M", "p", [1, 1, 0]), *uses("Coin", "q", [1, 0]),
               *uses("Quiet", "q", [1, 1], "generate")]
    exp = keystone_expansion(records, ks=[0], next_uses=2)
    assert (exp.models, exp.dropped_models) == (("M",), ("Coin", "Quiet"))
    assert exp.points[0].share == pytest.approx(F(4, 9))
    every = keystone_expansion(records, ks=[0], next_uses=2, above_chance_only=False)
    assert every.models == ("Coin", "M", "Quiet")
    assert every.points[0].share == pytest.approx(F(25, 72))
    assert (every.points[0].pairs, every.points[0].left_out) == (2, 1)


def test_bad_choices_are_refused(tmp_path: Path, cli: Cli) -> None:
    with pytest.raises(ValueError, match="paper or all-uses"):
        keystone_expansion(uses("M", "p", [1]), expansion="simulated")
    path = tmp_path / "r.csv"
    path.write_text("model,domain,concept,task,keystone,correct\nM,d,p,classify,1,1\n")
    with pytest.raises(UserError, match="--expansion takes paper or all-uses"):
        score_files([path], expansion="exact")
    cli_error(cli, ["potemkin", "score", str(path), "--expansion", "exact"], "--expansion")


# ---------------------------------------------------------------- JSON, text, figure


def test_the_definition_travels_in_json_and_old_summaries_read_as_all_uses(cli: Cli,
                                                                           tmp_path: Path) -> None:
    """summary.json carries the definition; one written before it existed (no `definition`,
    no `left_out`) was computed with all uses and reads back so."""
    path = tmp_path / "r.csv"
    path.write_text("model,domain,concept,task,keystone,correct\n"
                    + "".join(f"M,d,p,classify,1,{x}\n" for x in (1, 1, 0)))
    done = cli(["potemkin", "score", str(path), "--json", "--next-uses", "2"])
    exp = json.loads(done.stdout)["keystone_expansion"]
    assert exp["definition"] == "paper" and exp["points"][0]["left_out"] == 0
    assert exp["points"][0]["share"] == pytest.approx(F(4, 9))
    done = cli(["potemkin", "score", str(path), "--json", "--expansion", "all-uses"])
    assert json.loads(done.stdout)["keystone_expansion"]["definition"] == "all-uses"
    old = {"points": [{"k": 0, "share": 0.5, "se": 0.1, "n_eff": 3.0, "pairs": 3}],
           "models": ["M"], "dropped_models": [], "next_uses": 10}
    read = from_jsonable(KeystoneExpansion, old)
    assert read.definition == "all-uses" and read.points[0].left_out is None
    assert "--expansion all-uses" in printout.expansion_text(read)
    assert printout.expansion_text(read).splitlines()[2].split()[-1] == "—"  # left out unknown


def test_the_text_says_which_definition(tmp_path: Path) -> None:
    records = uses("M", "p", [1, 1, 0])
    paper = printout.expansion_text(keystone_expansion(records, next_uses=2)).splitlines()
    assert paper[0].split() == ["k", "share", "understood", "n_eff", "pairs", "left", "out"]
    assert paper[2].split() == ["0", "0.44", f"({(F(4, 9) * F(5, 9)) ** 0.5:.2f})", "1.0",
                                "1", "0"]
    assert "drawn with replacement" in paper[7] and "as the paper computes Figure 4" in paper[7]
    every = printout.expansion_text(keystone_expansion(records, next_uses=2,
                                                     expansion="all-uses"))
    assert "drawn without replacement" in every and "--expansion all-uses" in every


def test_no_model_above_chance_is_said(drawn, tmp_path):
    exp = keystone_expansion(uses("local/weak", "c", [1, 0]), ks=range(3), next_uses=2)
    plots.plot_expansion(exp, tmp_path / "k.png")
    (text,) = [t for t in texts(drawn[0]) if t.startswith("nothing to plot:")]
    assert "no model's classify accuracy" in text.replace("\n", " ")
    assert "above chance (1/2)" in text.replace("\n", " ")
    assert "local/weak" in drawn[0].axes[0].get_title()


def test_too_few_answers_is_said_for_each_definition(drawn, tmp_path):
    one_each = uses("local/strong", "c1", [1]) + uses("local/strong", "c2", [1])
    plots.plot_expansion(keystone_expansion(one_each, ks=[1, 2]), tmp_path / "a.png")
    plots.plot_expansion(keystone_expansion(one_each, ks=[0], next_uses=20,
                                             expansion="all-uses"), tmp_path / "b.png")
    paper, every = (next(t for t in texts(fig) if t.startswith("nothing to plot:"))
                    .replace("\n", " ") for fig in drawn)
    assert "has a classify answer left after k of them" in paper
    assert "has 20 more use answers" in every


def test_the_figure_names_its_definition_and_error_bars(drawn, tmp_path):
    strong = uses("local/strong", "c1", [1] * 4) + uses("local/strong", "c2", [1] * 4)
    weak = uses("local/weak", "c1", [1, 0, 0, 0])
    plots.plot_expansion(keystone_expansion(strong + weak, ks=range(3), next_uses=2),
                          tmp_path / "k.png")
    plots.plot_expansion(keystone_expansion(strong, ks=range(3), next_uses=2,
                                             expansion="all-uses"), tmp_path / "all.png")
    fig = drawn[0]
    (legend,) = fig.legends
    (label,) = [t.get_text() for t in legend.get_texts()]
    assert label.startswith("share understood ± 1 SE") and "n_eff = Σ P(keystone passed)" in label
    assert "n_eff 2.0" in texts(fig)  # two concepts, each passing every k
    title = fig.axes[0].get_title().replace("\n", " ")
    assert "definition: the paper's: classify answers, the next 2 drawn with replacement" in title
    assert "models: local/strong" in title
    assert "left out, classify accuracy not above chance (1/2): local/weak" in title
    assert "drawn without replacement" in drawn[1].axes[0].get_title().replace("\n", " ")


def texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for t in ax.texts]


# ---------------------------------------------------------------- the bench script


def _checkout(root: Path) -> Path:
    """A tiny upstream layout. GPT-4o defined Haiku and Strict Dominance right, Sunk Cost
    Fallacy wrong. Haiku: classify 1, 1, 0 and one with no grade (unreadable); a right
    generate answer (labelled, its file present) and an edit whose file is missing (upstream
    skips it). Strict Dominance: classify 1, 1; a generate file graded [false]. Sunk Cost
    Fallacy: classify 1, 1 (keystone failed). Another model's Haiku row is outside the 7."""
    base = root / "BenchmarkDataset"
    files = {
        "define/define_labels.csv": "Task,Domain,Model,Concept,File,Correct\n"
        "Define,x,GPT-4o,Haiku,0.txt,yes\nDefine,x,GPT-4o,Strict Dominance,0.txt,yes\n"
        "Define,x,GPT-4o,Sunk Cost Fallacy,0.txt,no\n",
        "classify/literature_and_game_theory_classify_with_cot.csv":
        "Concept,Model,Example,Attempt,Inference,Model Label,True Label,Correct\n"
        + "".join(f'Haiku,gpt-4o,"a, poem",0,why,yes,yes,{c}\n' for c in ("1.0", "1.0", "0.0"))
        + "Haiku,gpt-4o,poem,0,,,yes,\nHaiku,o1-mini,poem,0,why,yes,yes,1.0\n"
        + "Strict Dominance,gpt-4o,game,0,why,yes,yes,1.0\n" * 2,
        "classify/psych_classify_with_cot.csv":
        "Concept,Model,Example,Attempt,Inference,Model Label,True Label,Correct\n"
        + "Sunk Cost Fallacy,gpt-4o,post,0,why,yes,yes,1.0\n" * 2,
        "generate/author_labels_generate.csv": "Task,Domain,Model,Concept,File,Correct\n"
        "Generate,x,GPT-4o,Haiku,0.txt,yes\n",
        "generate/inferences/Haiku/GPT-4o/0.txt": '{"inferences": "a haiku"}',
        "generate/inferences/Strict Dominance/GPT-4o/0.txt": '{"correct": [false]}',
        "edit/author_labels_edit.csv": "Task,Domain,Model,Concept,File,Correct\n"
        "Edit,x,GPT-4o,Haiku,0_0.txt,yes\n",
    }
    for name, text in files.items():
        (base / name).parent.mkdir(parents=True, exist_ok=True)
        (base / name).write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("source", ["checkout", "git-dir"])
def test_bench_converts_stored_records_and_prints_both_curves(tmp_path: Path,
                                                              source: str) -> None:
    """The paper's definition, m = 10: Haiku 1, 1, 0 and Strict Dominance 1, 1.
    k=0: ((2/3)^10 + 1) / 2 = 0.509; k=1: Haiku passes 2/3, then (1/2)^10; SD passes, then 1:
    (2/3·(1/2)^10 + 1) / (5/3) = 0.600; k=2: Haiku 1/3, then 0; SD has none left: 0.000 (1
    pair); k=3, 4: none. All uses: Haiku has 4 use answers, SD 3, fewer than 10: none."""
    root = _checkout(tmp_path / "upstream")
    if source == "checkout":
        args = ["--checkout", str(root)]
    else:
        git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
        for step in (["init", "-q"], ["add", "."], ["commit", "-qm", "records"]):
            subprocess.run(git + step, check=True, capture_output=True)
        args = ["--git-dir", str(root / ".git"), "--commit", "HEAD"]
    kept = tmp_path / "records.csv"
    done = subprocess.run([sys.executable, str(BENCH), *args, "--write-records", str(kept)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("10 records (classify 8, generate 2)")
    assert "definition right for 2 of 3 (model, concept); 1 classifications unreadable" in lines[0]
    rows = {line.split()[0]: line.split()[1:] for line in lines if line[:2].strip().isdigit()}
    k0 = (F(2, 3) ** 10 + 1) / 2
    k1 = (F(2, 3) * F(1, 2) ** 10 + 1) / F(5, 3)
    assert rows["0"] == [f"{float(k0):.3f}", "(2)", "—", "0.19"]
    assert rows["1"] == [f"{float(k1):.3f}", "(2)", "—"]
    assert rows["2"] == ["0.000", "(1)", "—"] and rows["4"] == ["—", "—", "0.40"]
    assert "within 0.02 of the caption at k = 0 and 4: NO" in done.stdout
    written = kept.read_text().splitlines()
    assert written[0] == "model,domain,concept,task,keystone,correct"
    assert written.count("GPT-4o,poetry,Haiku,classify,1,") == 1  # the unreadable one
    assert "GPT-4o,psych,Sunk Cost Fallacy,classify,0,1" in written


def test_bench_without_records_exits_2(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, str(BENCH), "--checkout", str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "define_labels.csv is missing" in done.stderr
