"""Every method's result in a notebook (issue 44, item 6): a notebook built with nbformat and run
by nbclient on a real IPython kernel (ipykernel) calls each method's Python API on scripted
models and shows the result; each cell's output has text/html whose first element is the
headline, holding the figure the result is about (before: the consistency result's HTML left
out CC, `vs.bounds` and `vs.plan` had none). The README's engine example runs in the kernel's
running event loop through `run_sync` and as top-level `await`, where `asyncio.run` refuses.

The kernel is this interpreter (a kernel spec of its own in a private JUPYTER_PATH, so no
installed "python3" spec is used), with private runtime, IPython and cache folders; it starts
the same from CI, a terminal, or a background job whose SIGINT is ignored.
"""

from __future__ import annotations

import html
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

KERNEL = "verstehen-test"
HEADLINE = re.compile(r'<p class="headline"><strong>(.*?)</strong></p>', re.DOTALL)

SETUP = """
import json, re
from pathlib import Path
import verstehen as vs
from verstehen.testing.scripted import ScriptedModel
from verstehen.domains.catalog import BY_KEY
from verstehen.domains.registry import concept_tasks
from verstehen.methods.potemkin.run import plan_run

here = Path.cwd()
where = {"runs_dir": here / "runs", "cache": here / "calls.sqlite"}

def needle(text):
    print(json.dumps({"needle": text}))
"""

# (what is shown, the code whose last line is the result; it prints the figure the headline
# must hold, taken from the result's fields, not from its headline)
CELLS: list[tuple[str, str]] = [
    ("certify", """
r = vs.certify(ScriptedModel("scripted/calc", reply=lambda p: "ANSWER: 4"), "arithmetic/small",
               questions=8, rephrase=0, **where)
needle(r.verdict.decision.words)
r"""),
    ("certify_scores", """
s = vs.certify_scores([1.0] * 16, pg=0.8, rid=0.2)
needle(f"{s.verdict.decision.words} (mean score {s.verdict.mean_score:.3f}")
s"""),
    ("bounds", """
b = vs.bounds(0.9, 1000)
needle(f"[{b.chernoff_lower:.6f}, {b.chernoff_upper:.6f}]")
b"""),
    ("plan", """
p = vs.plan(0.9, 0.05)
needle(f"{p.expected_verdict} within {p.fixed_questions} questions")
p"""),
    ("audit", """
a = vs.audit(ScriptedModel("scripted/yes", reply=lambda p: "ANSWER: Yes"),
             subjects="arithmetic/small", max_questions=32, first_look=8, **where)
needle(f"1 {a.targets[0].decision.words}")
a"""),
    ("potemkin_run", """
CONCEPT = "game-theory/strict-dominance"
tasks = concept_tasks(BY_KEY[CONCEPT].scope)
replies = {i.prompt: tasks.reference(i.item) if i.task != "edit" else "%%%"
           for i in plan_run(concepts=CONCEPT, items_per_concept=1).items if i.item is not None}
pr = vs.potemkin_run(ScriptedModel("scripted/answerer", reply=lambda q: replies.get(q, "A.")),
                     concepts=CONCEPT, items_per_concept=1,
                     judge=ScriptedModel("scripted/judge", reply=lambda q: "ANSWER: Yes"), **where)
needle(f"edit {pr.scores.table1['overall']['edit'].rate:.2f}")
pr"""),
    ("potemkin_score", """
ps = vs.potemkin_score(pr)
needle(f"edit {ps.table1['overall']['edit'].rate:.2f}")
ps"""),
    ("potemkin_incoherence", """
inc = vs.potemkin_incoherence(ScriptedModel("scripted/inc", reply=lambda q: "ANSWER: Yes"),
                              concepts="game-theory/zero-sum", per_concept=1, **where)
needle(f"incoherence {inc.overall.incoherence:.2f}")
inc"""),
    ("potemkin_selfjudge", """
mcq = here / "dev.jsonl"
mcq.write_text(json.dumps({"id": "q1", "question": {"stem": "Stem?", "choices": [
    {"label": x, "text": f"choice {x}"} for x in "ABCDE"]}, "answerKey": "A"}) + "\\n")

def judged(q):
    if q.startswith("A concept is"):
        return "ANSWER: Yes\\nCONCEPT: stems"
    return "1. Related?" if "other questions" in q else "A"

sj = vs.potemkin_selfjudge(ScriptedModel("scripted/sj", reply=judged), f"mcq:{mcq}",
                           questions=1, subquestions=1, **where)
needle(f"{sj.model}: potemkin rate (lower bound)")
sj"""),
    ("imagine_generate", """
counter = iter(range(10**6))

def invented(q):
    topic = re.search(r"On the topic of (.+?),", q)
    return (f"Question: In {topic[1] if topic else 'science'}, what does Zorvian flux "
            f"{next(counter)} obey?\\nA. Dusk\\nB. Mirrors\\nC. The quiet law of rooms\\n"
            "D. Salt\\nAnswer: C")

g = vs.imagine_generate(ScriptedModel("scripted/qm", reply=invented), topics="physics,law",
                        per_topic=2, kinds="direct", **where)
needle(f"{g.kept} questions kept")
g"""),
    ("imagine_answer", """
ans = vs.imagine_answer(g, models=[ScriptedModel("scripted/c", reply=lambda q: "C")], **where)
needle("answering rate α 1.00 of 4")
ans"""),
    ("imagine_matrix", """
m = vs.imagine_matrix(ans.run_dir, out=here / "matrix")
needle("answering rate α 1.00 of 4")
m"""),
    ("imagine_analyze", """
an = vs.imagine_analyze(ans.run_dir, out=here / "analysis")
needle("length ranks" if an.length_ranks else "no analysis")
an"""),
    ("consistency", """
questions = here / "q.jsonl"
questions.write_text("".join(json.dumps({"id": i, "answerKey": k, "question": {
    "stem": stem, "choices": [{"label": "ABC"[j], "text": t} for j, t in enumerate(choices)]}})
    + "\\n" for i, stem, choices, k in [
        ("q1", "Where would you read a book?", ["library", "ocean", "sky"], "A"),
        ("q2", "Where is a book kept in a library?", ["shelf", "library", "cloud"], "B"),
        ("q3", "What animal lives in a kennel?", ["dog", "fish", "bird"], "A")]))
kb = here / "kb.tsv"
kb.write_text("relation\\tstart\\tend\\nUsedFor\\tbook\\tread\\nAtLocation\\tbook\\tlibrary\\n"
              "AtLocation\\tdog\\tkennel\\nIsA\\tdog\\tanimal\\n")
c = vs.consistency(ScriptedModel("scripted/lp"), questions=questions, kb=kb, resamples=50,
                   **where)
needle(f"CC {c.consistency.cc:.2f} [{c.consistency.cc_low:.2f}, {c.consistency.cc_high:.2f}]")
c"""),
]

# the README's engine example, as the README gives it (a scripted model for the embedded one;
# the default cache is the kernel's private VERSTEHEN_CACHE)
ENGINE = """
from verstehen.engine.session import Session
from verstehen.models import GenerateParams, user

async def main():
    session = Session.start()                      # default cache, no progress bar
    model = session.open_model(ScriptedModel("scripted/engine", reply=lambda p: "7"))
    result = await session.runner.generate(model, user("Name a prime number."),
                                           GenerateParams(max_tokens=32))
    print(result.value.text, result.cached)
    await session.close()
"""
ASYNC_FORMS = {
    "asyncio.run": "import asyncio\ntry:\n    asyncio.run(main())\n"
                   "except RuntimeError as e:\n    print('refused:', e)",
    "run_sync": "from verstehen.engine.sync import run_sync\nrun_sync(main())",
    "await": "await main()",
}


def kernel_home(tmp_path: Path) -> dict[str, str]:
    """A kernel spec naming this interpreter, and private Jupyter, IPython and cache folders."""
    spec = tmp_path / "jupyter" / "kernels" / KERNEL
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "verstehen tests", "language": "python"}))
    return {"JUPYTER_PATH": str(tmp_path / "jupyter"),
            "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
            "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
            "JUPYTER_DATA_DIR": str(tmp_path / "data"), "IPYTHONDIR": str(tmp_path / "ipython"),
            "VERSTEHEN_CACHE": str(tmp_path / "default.sqlite"),
            "VERSTEHEN_RUNS_DIR": str(tmp_path / "default-runs"), "MPLBACKEND": "Agg"}


def run_notebook(folder: Path, sources: list[str]) -> list[dict]:
    """Run the cells in a fresh kernel with `folder` as its working folder; the cells run."""
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_code_cell(textwrap.dedent(s).strip()) for s in sources],
        metadata={"kernelspec": {"name": KERNEL, "display_name": "verstehen tests",
                                 "language": "python"}})
    client = nbclient.NotebookClient(notebook, timeout=300, startup_timeout=120,
                                     kernel_name=KERNEL,
                                     resources={"metadata": {"path": str(folder)}})
    client.execute()
    return notebook.cells


def outputs(cell: dict) -> tuple[str, str | None]:
    """A cell's printed text and the text/html of its result (None: no HTML)."""
    printed = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
    shown = [o.data["text/html"] for o in cell.outputs
             if o.output_type == "execute_result" and "text/html" in o.data]
    return printed, (shown[0] if shown else None)


def test_every_methods_result_shows_html_headline_first_in_a_notebook(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in kernel_home(tmp_path).items():
        monkeypatch.setenv(name, value)
    work = tmp_path / "work"
    work.mkdir()
    cells = run_notebook(work, [SETUP] + [code for _, code in CELLS] + [ENGINE]
                         + list(ASYNC_FORMS.values()))
    wrong = {}
    for (name, _), cell in zip(CELLS, cells[1:], strict=False):
        printed, shown = outputs(cell)
        figure = json.loads(printed.strip().splitlines()[-1])["needle"]
        if shown is None:
            wrong[name] = "no text/html"
            continue
        head = HEADLINE.match(shown)
        if head is None:
            wrong[name] = f"HTML does not start with the headline: {shown[:120]!r}"
        elif figure not in html.unescape(head[1]):
            wrong[name] = f"headline {html.unescape(head[1])!r} lacks {figure!r}"
        elif "<table>" not in shown:
            wrong[name] = "no table after the headline"
    assert wrong == {}
    forms = dict(zip(ASYNC_FORMS, cells[-len(ASYNC_FORMS):], strict=True))
    assert "cannot be called from a running event loop" in outputs(forms["asyncio.run"])[0]
    # the same call twice: the second from the cache
    assert (outputs(forms["run_sync"])[0], outputs(forms["await"])[0]) == ("7 False\n", "7 True\n")


def test_the_kernel_starts_from_a_background_job_with_sigint_ignored(tmp_path: Path) -> None:
    """A job started with `&` by a shell without job control ignores SIGINT, and so do its
    children: the kernel starts and runs a cell all the same."""
    env = {**os.environ, **kernel_home(tmp_path)}
    script = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pathlib import Path
        from test_notebook import outputs, run_notebook
        (cell,) = run_notebook(Path({str(tmp_path)!r}),
                               ["import verstehen as vs\\nvs.bounds(0.9, 100)"])
        print(outputs(cell)[1][:80])
    """)
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                          text=True, timeout=300,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith('<p class="headline"><strong>mean 0.9 over n = 100')
