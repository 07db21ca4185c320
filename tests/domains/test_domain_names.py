"""One name per domain (issue 21, item 10): the paper's literary techniques are `poetry`
everywhere verstehen shows them (concept keys, scopes, listings, audit targets); `literary` is
taken on input as another name for it, and run folders written with it still summarise."""

from __future__ import annotations

import json
from pathlib import Path

import verstehen as vs
from verstehen.auditing.plan import resolve_subjects, subject_names
from verstehen.auditing.summary import summarize_audit
from verstehen.domains.catalog import BY_KEY, CONCEPTS, DOMAINS, canonical_name
from verstehen.engine.store import RunStore
from verstehen.methods.potemkin.items import generated_items, resolve_concepts
from verstehen.methods.potemkin.outputs import summarize_run
from verstehen.testing.scripted import ScriptedModel

from conftest import Cli

HAIKU = "poetry/haiku"
# the first classify prompt seed 0 drew for haiku when its key was literary/haiku
FIRST_HAIKU_PROMPT = ("Is the following example an instance of the concept Haiku? Please answer "
                      "with either 'ANSWER: Yes' or 'ANSWER: No'.\n\nAlong a jacket\nSoftly "
                      "across that arm flows\nDeep string in her ship")


def test_a_concept_graded_exactly_is_named_as_its_scope() -> None:
    assert set(DOMAINS) == {"poetry", "game-theory", "psych"}
    assert all(c.key == c.scope for c in CONCEPTS if c.scope)
    assert all(c.key.split("/")[0] in DOMAINS for c in CONCEPTS)
    assert DOMAINS["poetry"] == "Literary techniques"  # the paper's title, in the prompts too


def test_the_other_name_is_taken_on_input() -> None:
    assert canonical_name("literary") == "poetry"
    assert canonical_name("literary/haiku/classify") == "poetry/haiku/classify"
    assert canonical_name("game-theory/zero-sum") == "game-theory/zero-sum"
    assert canonical_name("mcq:literary/x.jsonl") == "mcq:literary/x.jsonl"
    haiku = BY_KEY[HAIKU]
    assert resolve_concepts(["literary/haiku"], []) == [haiku]
    assert resolve_concepts(["Haiku"], []) == resolve_concepts([HAIKU], []) == [haiku]
    assert resolve_concepts(["literary"], []) == resolve_concepts(["poetry"], [])
    assert resolve_subjects("literary")[1] == resolve_subjects("poetry")[1]
    assert [t.key for t in resolve_subjects("literary/haiku")[1]] == [HAIKU]
    assert resolve_subjects("poetry")[1][0].subject == "poetry"
    assert "poetry" in subject_names() and "literary" not in subject_names()


def test_listings_show_one_name(cli: Cli) -> None:
    concepts = cli(["concepts"])
    assert concepts.returncode == 0
    assert "literary/" not in concepts.stdout and "(literary)" not in concepts.stdout
    assert "Literary techniques (poetry)" in concepts.stdout
    assert f"  {HAIKU} " in concepts.stdout and f"--scope {HAIKU}]" in concepts.stdout
    by_alias = cli(["concepts", "--domain", "literary", "--json"])
    by_name = cli(["concepts", "--domain", "poetry", "--json"])
    assert by_alias.stdout == by_name.stdout
    rows = json.loads(by_name.stdout)
    assert {r["domain"] for r in rows} == {"poetry"}
    assert all(r["key"] == r["scope"] for r in rows if r["scope"])
    scopes = cli(["scopes"])
    assert scopes.returncode == 0 and "literary" not in scopes.stdout
    helped = cli(["concepts", "--help"])
    assert "poetry" in helped.stdout


def test_a_seed_draws_the_same_items_under_the_new_name() -> None:
    items = generated_items(BY_KEY[HAIKU], "classify", 2, seed=0)
    assert [i.id for i in items] == ["poetry/haiku/classify/g0", "poetry/haiku/classify/g1"]
    assert items[0].prompt == FIRST_HAIKU_PROMPT


def _old_run(tmp_path: Path) -> Path:
    """A potemkin run on haiku, its records rewritten as a run before the rename wrote them."""
    model = ScriptedModel("scripted/poet", reply=lambda p: "ANSWER: Yes")
    judge = ScriptedModel("scripted/judge", reply=lambda p: "ANSWER: Yes")
    result = vs.potemkin_run(model, concepts=HAIKU, tasks="define,classify", judge=judge,
                         items_per_concept=2, runs_dir=tmp_path / "runs",
                         cache=tmp_path / "calls.sqlite")
    path = result.run_dir / "records.jsonl"
    old = path.read_text(encoding="utf-8").replace("poetry/", "literary/").replace(
        '"domain": "poetry"', '"domain": "literary"')
    assert '"literary/haiku' in old
    path.write_text(old, encoding="utf-8")
    return result.run_dir


def test_a_run_written_with_the_old_name_summarises_under_the_new(tmp_path: Path) -> None:
    run = _old_run(tmp_path)
    result = summarize_run(RunStore.existing(run))
    assert [k.concept for k in result.keystones] == [HAIKU]
    assert result.table6 is not None and set(result.table6) == {"poetry"}
    records = (run / "potemkin-records.csv").read_text(encoding="utf-8").splitlines()
    assert records[1].split(",")[1:3] == ["poetry", "Haiku"]
    scored = vs.potemkin_score([run / "potemkin-records.csv"])
    assert set(scored.table6) == {"poetry"}


def test_an_audit_written_with_the_old_name_summarises_under_the_new(tmp_path: Path) -> None:
    model = ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes")
    judge = ScriptedModel("scripted/judge", reply=lambda p: "ANSWER: Yes")
    fresh = vs.audit(model, subjects="literary/haiku", judge=judge, runs_dir=tmp_path / "runs",
                     cache=tmp_path / "calls.sqlite")
    (line,) = fresh.targets
    assert (line.key, line.subject, fresh.subjects) == (HAIKU, "poetry", (HAIKU,))
    assert line.keystone is not None and line.incoherence is not None
    # the keys and domains as an audit before the rename wrote them (scopes were poetry/ then)
    lenses = [fresh.runs[0].potemkin, fresh.runs[0].incoherence]
    for path in [fresh.run_dir / "run.json", *(p for run in lenses for p in run.glob("*.json*"))]:
        text = path.read_text(encoding="utf-8")
        for new, old in (('"poetry/haiku', '"literary/haiku'), ('"poetry"', '"literary"')):
            text = text.replace(new, old)
        path.write_text(text, encoding="utf-8")
    assert '"literary/haiku' in (fresh.run_dir / "run.json").read_text(encoding="utf-8")
    again = summarize_audit(fresh.run_dir, write=False)
    (old,) = again.targets
    assert (old.key, old.subject, old.scope, again.subjects) == (HAIKU, "poetry", HAIKU, (HAIKU,))
    assert (old.keystone, old.incoherence, old.verdict) == (line.keystone, line.incoherence,
                                                            line.verdict)
