"""`verstehen models`, `concepts`, `scopes`, `certify` and `audit` with a provider and a concept
domain from installed plugin packages, through the real CLI in subprocesses.

The test plugin packages are "installed" as pip would: each package folder copied into a site
folder beside its `*.dist-info` (METADATA, entry_points.txt), which a CLI subprocess gets on
PYTHONPATH, so `importlib.metadata` finds the entry points with no network and no pip."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from certification import by_hand

from conftest import run_cli

HERE = Path(__file__).parent
ECHO_POINTS = """\
[verstehen.providers]
echo = verstehen_echo_plugin.provider:PROVIDER

[verstehen.domains]
parity = verstehen_echo_plugin.parity:DOMAIN
"""
BROKEN_POINTS = """\
[verstehen.providers]
openai = verstehen_broken_plugin:TAKEN_PROVIDER
exploding = verstehen_broken_plugin.explodes:PROVIDER

[verstehen.domains]
poetry = verstehen_broken_plugin:TAKEN_DOMAIN
notadomain = verstehen_broken_plugin:NOT_A_DOMAIN
"""


def install(site: Path, package: str, entry_points: str) -> None:
    """Put `package` (a folder beside this file) and its dist-info into `site`."""
    shutil.copytree(HERE / package, site / package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    info = site / f"{package}-0.1.dist-info"
    info.mkdir()
    name = package.replace("_", "-")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)




@pytest.fixture(scope="session")
def echo_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder with the echo plugin installed."""
    site = tmp_path_factory.mktemp("site-echo")
    install(site, "verstehen_echo_plugin", ECHO_POINTS)
    return site


@pytest.fixture(scope="session")
def broken_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder with the echo plugin and a package of plugins that must be left out."""
    site = tmp_path_factory.mktemp("site-broken")
    install(site, "verstehen_echo_plugin", ECHO_POINTS)
    install(site, "verstehen_broken_plugin", BROKEN_POINTS)
    return site


@pytest.fixture
def echo_env(cli_env: dict[str, str], echo_site: Path) -> dict[str, str]:
    """CLI environment where the echo plugin is installed."""
    return {**cli_env, "PYTHONPATH": str(echo_site)}


@pytest.fixture
def broken_env(cli_env: dict[str, str], broken_site: Path) -> dict[str, str]:
    """CLI environment where the echo plugin and the broken ones are installed."""
    return {**cli_env, "PYTHONPATH": str(broken_site)}


def ran(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`verstehen ARGS`, which must exit 0 with no traceback."""
    done = run_cli(args, env)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_models_lists_the_plugin_provider(echo_env: dict[str, str]) -> None:
    done = ran(["models"], echo_env)
    assert done.stderr == ""  # the plugin loaded: nothing left out
    lines = done.stdout.splitlines()
    row = next(i for i, line in enumerate(lines) if line.startswith("echo "))
    # as verstehen_echo_plugin.provider declares it: no key variable, its capability line
    assert lines[row].split()[1] == "(none)"
    assert lines[row].endswith("generate; answers from the prompt, no network")
    assert "an installed plugin; e.g. echo/parity" in lines[row + 1]


def test_concepts_and_scopes_list_the_plugin_concept(echo_env: dict[str, str]) -> None:
    done = ran(["concepts", "--domain", "parity"], echo_env)
    assert "Parity of whole numbers (parity, an installed plugin): 1 concepts, 1 graded " \
           "exactly" in done.stdout
    assert "parity/even  Even Number  [exact, --scope parity/even]" in done.stdout
    listed = json.loads(ran(["concepts", "--json"], echo_env).stdout)
    # the paper's 32 concepts (its Table 3), then the plugin's one
    assert len(listed) == 33
    assert listed[-1] == {"key": "parity/even", "name": "Even Number", "domain": "parity",
                          "grading": "exact", "scope": "parity/even",
                          "definition": "A whole number that 2 divides with no remainder."}
    scopes = ran(["scopes"], echo_env).stdout
    assert ("parity/even[/classify|generate|edit]: Even Number: A whole number that 2 divides "
            "with no remainder.") in scopes


@pytest.mark.parametrize(("model", "decision", "mean"), [
    # echo/parity reads the number off each prompt and answers right (provider.solve_parity)
    ("echo/parity", "understands", 1.0),
    # echo/repeat replies with the prompt, which asks for "ANSWER: followed by ..." and so never
    # ends with an answer: every reply is unreadable, score 0
    ("echo/repeat", "does_not_understand", 0.0),
])
def test_certify_a_plugin_model_on_a_plugin_scope(echo_env: dict[str, str], model: str,
                                                  decision: str, mean: float) -> None:
    done = ran(["certify", "--model", model, "--scope", "parity/even", "--questions", "20",
                "--json", "--no-progress"], echo_env)
    out = json.loads(done.stdout)
    assert out["model"] == model
    (scope,) = out["scopes"]
    assert (scope["scope"], scope["asked"]) == ("parity/even", 20)
    verdict = scope["verdict"]
    assert (verdict["decision"], verdict["mean_score"]) == (decision, mean)
    if mean == 1.0:
        # 20 of 20 right: the Chernoff lower bound L solves KL(1 || L) = ln(1/δ)/n, so
        # L = δ^(1/n) = 0.05^(1/20) = 0.861, above PG 0.8
        assert verdict["score_lower"] == pytest.approx(0.05 ** (1 / 20))


def test_audit_of_a_plugin_concept_and_domain(echo_env: dict[str, str]) -> None:
    out = json.loads(ran(["audit", "--model", "echo/repeat", "--subject", "parity/even",
                          "--json", "--no-progress"], echo_env).stdout)
    (target,) = out["targets"]
    assert (target["key"], target["name"], target["subject"], target["scope"]) == (
        "parity/even", "Even Number", "parity", "parity/even")
    # every reply unreadable: "a model that is always wrong is told so after 8 questions"
    # (auditing/plan.py's budget)
    assert (target["verdict"]["decision"], target["verdict"]["n"]) == ("does_not_understand", 8)
    run = Path(out["run"])
    assert "Even Number" in (run / "report.html").read_text(encoding="utf-8")
    assert json.loads((run / "summary.json").read_text())["targets"][0]["key"] == "parity/even"

    whole = json.loads(ran(["audit", "--model", "echo/parity", "--subject", "parity", "--json",
                            "--no-progress"], echo_env).stdout)
    (target,) = whole["targets"]
    assert whole["subjects"] == ["parity"] and target["key"] == "parity/even"
    # every answer right: certified at the betting test's first look, in whole blocks of
    # four, where the bets on all-right answers reach 1/δ (worked out by `by_hand`)
    needs = by_hand.perfect_needs(0.8, 0.2, 0.05)
    first = next(n for n in by_hand.looks(8, 512, 4) if n >= needs)
    assert (target["verdict"]["decision"], target["verdict"]["n"]) == ("understands", first)


def test_broken_plugins_are_one_warning_line_each_and_the_rest_works(
        broken_env: dict[str, str]) -> None:
    """Each command says the lines of the plugins it reads: `models` the providers',
    `concepts` the domains'."""
    expected = {  # entry point name -> why it is left out (see verstehen_broken_plugin)
        "openai": "a provider named 'openai' is known already",
        "exploding": "RuntimeError: this plugin fails on import",
        "poetry": "a domain named 'poetry' is known already",
        "notadomain": "is a str, not a verstehen.domains.plugins.ConceptDomain",
    }
    models = ran(["models"], broken_env)
    assert any(line.startswith("echo ") for line in models.stdout.splitlines())
    concepts = ran(["concepts", "--domain", "parity", "--json"], broken_env)
    assert [c["key"] for c in json.loads(concepts.stdout)] == ["parity/even"]
    for done, names in ((models, ("openai", "exploding")), (concepts, ("poetry", "notadomain"))):
        lines = done.stderr.splitlines()
        assert len(lines) == len(names), done.stderr
        for name in names:
            (line,) = [line for line in lines if f"plugin {name!r} (" in line]
            assert line.startswith("verstehen: warning: ") and "left out: " in line
            assert expected[name] in line
