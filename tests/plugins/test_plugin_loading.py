"""Loading provider and domain plugins in this process (entry points replaced by the test's
own), and the test plugin's parity checker on answers worked out by hand."""

from __future__ import annotations

import asyncio
import importlib.metadata
from collections.abc import Callable, Iterator

import numpy as np
import pytest
from verstehen_echo_plugin.parity import EvenNumber
from verstehen_echo_plugin.provider import EchoModel, solve_parity

from verstehen import plugins
from verstehen.domains import plugins as domain_plugins
from verstehen.domains.base import InstanceTests, Item
from verstehen.domains.catalog import DOMAIN_PLUGINS
from verstehen.domains.plugins import ConceptDomain, PluginConcept
from verstehen.domains.registry import with_instance_test
from verstehen.errors import UserError
from verstehen.grading import Graded
from verstehen.models import (
    GenerateParams,
    ProviderInfo,
    ProviderPlugin,
    ProviderSettings,
    get_model,
    known_providers,
    split_name,
    user,
)
from verstehen.models import providers as provider_table
from verstehen.registries import Loaded

Install = Callable[..., None]
ECHO = "verstehen_echo_plugin.provider:PROVIDER"
PARITY = "verstehen_echo_plugin.parity:DOMAIN"


def _points(group: str, named: dict[str, str]) -> list[importlib.metadata.EntryPoint]:
    return [importlib.metadata.EntryPoint(name, value, group) for name, value in named.items()]


@pytest.fixture
def provider_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """`install(name="module:OBJECT", ...)`: the provider entry points this test sees."""
    def install(**named: str) -> None:
        monkeypatch.setattr(provider_table.PLUGINS, "entry_points",
                            lambda: _points(provider_table.GROUP, named))
        plugins.reset()

    yield install
    plugins.reset()


@pytest.fixture
def domain_points(monkeypatch: pytest.MonkeyPatch) -> Iterator[Install]:
    """`install(name="module:OBJECT", ...)`: the domain entry points the domains' registry sees
    (forgotten again after the test, so no later test sees its domains)."""
    def install(**named: str) -> None:
        monkeypatch.setattr(DOMAIN_PLUGINS, "entry_points",
                            lambda: _points(domain_plugins.GROUP, named))
        plugins.reset()

    yield install
    plugins.reset()


# ------------------------------------------------------------------------------ providers

def _failing_factory(model: str, settings: ProviderSettings) -> EchoModel:
    raise ValueError(f"no model {model}\nsecond line")


def _wrong_factory(model: str, settings: ProviderSettings) -> str:
    return "not a model"


FAILING = ProviderPlugin(ProviderInfo("failing", "failing/x", None, "none"),
                         _failing_factory)
WRONG = ProviderPlugin(ProviderInfo("wrong", "wrong/x", None, "none"),
                       _wrong_factory)  # type: ignore[arg-type]
TAKEN = ProviderPlugin(ProviderInfo("openai", "openai/x", None, "none"), _failing_factory)
BAD_NAME = ProviderPlugin(ProviderInfo("Bad Name", "x", None, "none"), _failing_factory)


def test_a_plugin_provider_opens_its_models(provider_points: Install) -> None:
    provider_points(echo=ECHO)
    assert list(known_providers()) == [*provider_table.PROVIDERS, "echo"]  # the built-in ones first
    assert split_name("echo/parity") == ("echo", "parity")
    model = get_model("echo/parity", base_url="http://127.0.0.1:9/v1", timeout=5.0)
    assert isinstance(model, EchoModel)
    assert model.identity() == {"provider": "echo", "model": "parity",
                                "base_url": "http://127.0.0.1:9/v1"}
    # 14 = 2 x 7 is even
    reply = asyncio.run(model.generate(user("Is 14 an even number?"), GenerateParams()))
    assert reply.text == "ANSWER: Yes"
    with pytest.raises(UserError, match=f"use one of {', '.join(provider_table.PROVIDERS)}, echo"):
        split_name("nobody/x")


def test_a_plugin_factory_that_fails_is_one_user_error_line(provider_points: Install) -> None:
    here = __name__
    provider_points(failing=f"{here}:FAILING", wrong=f"{here}:WRONG")
    with pytest.raises(UserError) as failed:
        get_model("failing/x")
    assert str(failed.value) == ("provider plugin 'failing' could not open 'failing/x': "
                                 "ValueError: no model x")
    with pytest.raises(UserError, match="made a str for 'wrong/x', not a verstehen Model"):
        get_model("wrong/x")
    with pytest.raises(UserError, match="several base URLs"):
        get_model("failing/x", base_url=("http://a/v1", "http://b/v1"))


def test_provider_plugins_left_out_say_one_line_each(provider_points: Install,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    here = __name__
    provider_points(echo=ECHO, again=ECHO, mine=f"{here}:TAKEN", wrong=f"{here}:WRONG",
                    gone="verstehen_no_such_module:PROVIDER", bad=f"{here}:BAD_NAME",
                    text=f"{here}:__name__")
    assert list(known_providers()) == [*provider_table.PROVIDERS, "echo", "wrong"]
    problems = provider_table.plugin_problems()
    said = capsys.readouterr().err.splitlines()
    assert said == [f"verstehen: warning: {line}" for line in problems]
    expected = {"again": "a provider named 'echo' is known already",
                "mine": "a provider named 'openai' is known already",
                "gone": "ModuleNotFoundError: No module named 'verstehen_no_such_module'",
                "bad": "provider name 'Bad Name' is not lower-case",
                "text": "is a str, not a verstehen.models.providers.ProviderPlugin"}
    assert len(problems) == len(expected)
    for name, why in expected.items():
        (line,) = [p for p in problems if p.startswith(f"provider plugin {name!r} (")]
        assert why in line
    known_providers()
    assert capsys.readouterr().err == ""  # said once per process


# -------------------------------------------------------------------------------- domains

class BareEvenNumber:
    """EvenNumber's use tasks without its instance test (a ConceptTasks only)."""

    def __init__(self, key: str = "bare/even", phrasings: int = 2) -> None:
        self._even = EvenNumber()
        self.key, self.name, self.phrasings = key, "an even number", phrasings

    def classify_item(self, rng: np.random.Generator, positive: bool) -> Item:
        return self._even.classify_item(rng, positive)

    def generate_item(self, rng: np.random.Generator) -> Item:
        return self._even.generate_item(rng)

    def edit_item(self, rng: np.random.Generator, make_instance: bool) -> Item:
        return self._even.edit_item(rng, make_instance)

    def render(self, item: Item, phrasing: int) -> str:
        return self._even.render(item, phrasing)

    def max_tokens(self, item: Item) -> int:
        return self._even.max_tokens(item)

    def grade(self, item: Item, reply: str) -> Graded:
        return self._even.grade(item, reply)

    def reference(self, item: Item) -> str:
        return self._even.reference(item)


def _domain(name: str, tasks: object, concept: str = "Bare Even") -> ConceptDomain:
    return ConceptDomain(name, f"{name} numbers",
                         (PluginConcept(concept, "Divisible by 2.", tasks),))  # type: ignore[arg-type]


BARE = _domain("bare", BareEvenNumber())
RESERVED = _domain("all", BareEvenNumber("all/even"))
BAD_KEY = _domain("badkey", BareEvenNumber("badkey/Even Number"), "Bad Key")
ONE_PHRASING = _domain("single", BareEvenNumber("single/even", phrasings=1), "Single")
NO_TASKS = _domain("notasks", "not tasks", "No Tasks")
SAME_NAME = _domain("bare", BareEvenNumber(), "Other")
SAME_CONCEPT_NAME = _domain("renamed", BareEvenNumber("renamed/even"), "Even Number")


def _domains(domains: set[str], keys: set[str], names: set[str]) -> Loaded[ConceptDomain]:
    """The installed domains (those `domain_points` installed) a registry loads when these
    domain names, concept keys and concept names are taken."""
    fresh = domain_plugins.domain_registry(domains, keys, names)
    fresh.entry_points = DOMAIN_PLUGINS.entry_points  # type: ignore[method-assign]
    return fresh.installed()


def test_a_plugin_domain_loads_and_its_tasks_get_an_instance_test(domain_points: Install) -> None:
    domain_points(parity=PARITY, bare=f"{__name__}:BARE")
    installed = _domains({"poetry"}, {"poetry/haiku"}, {"haiku"})
    assert installed.problems == ()
    parity, bare = installed.entries
    even = parity.concepts[0].tasks
    assert with_instance_test(even) is even  # EvenNumber has its own instance test
    tasks = with_instance_test(bare.concepts[0].tasks)
    assert isinstance(tasks, InstanceTests) and not tasks.instance_tested
    check = tasks.instance_check("ANSWER: 4")
    assert check.is_instance is None and "no claim-free instance test" in (check.reason or "")
    item = tasks.generate_item(np.random.default_rng(0))
    assert tasks.grade(item, tasks.reference(item)).score == 1.0  # the plugin's own checker


def test_malformed_or_taken_domains_are_left_out_one_line_each(
        domain_points: Install, capsys: pytest.CaptureFixture[str]) -> None:
    here = __name__
    domain_points(parity=PARITY, bare=f"{here}:BARE", reserved=f"{here}:RESERVED",
                  badkey=f"{here}:BAD_KEY", single=f"{here}:ONE_PHRASING",
                  again=f"{here}:SAME_NAME", renamed=f"{here}:SAME_CONCEPT_NAME",
                  missing=f"{here}:NO_SUCH_NAME", notasks=f"{here}:NO_TASKS")
    installed = _domains({"poetry"}, set(), set())
    assert [d.name for d in installed.entries] == ["parity", "bare"]
    expected = {"reserved": "a domain named 'all' is known already",
                "badkey": "concept key 'badkey/Even Number' is not badkey/<slug>",
                "single": "has 1 phrasing: it needs at least 2 phrasings",
                "again": "a domain named 'bare' is known already",
                "renamed": "a concept named 'Even Number' is known already",
                "missing": "AttributeError",
                "notasks": "are a str, not a verstehen.domains.base.ConceptTasks (no key, "}
    assert len(installed.problems) == len(expected)
    for name, why in expected.items():
        (line,) = [p for p in installed.problems if p.startswith(f"domain plugin {name!r} (")]
        assert why in line
    assert capsys.readouterr().err.count("verstehen: warning: ") == len(expected)


# ------------------------------------------------------------------- the parity checker

@pytest.mark.parametrize(("item", "reply", "score"), [
    (Item("classify", True, {"number": 14}), "14 is 2 x 7.\nANSWER: Yes", 1.0),
    (Item("classify", True, {"number": 14}), "ANSWER: No", 0.0),
    (Item("classify", False, {"number": 15}), "no", 0.0),  # no final "ANSWER:": unreadable
    (Item("generate", None, {"low": 7, "high": 12}), "ANSWER: 8", 1.0),
    (Item("generate", None, {"low": 7, "high": 12}), "ANSWER: 14", 0.0),  # above 12
    (Item("generate", None, {"low": 7, "high": 12}), "ANSWER: 9", 0.0),  # odd
    (Item("edit", None, {"number": 37, "make": "even"}), "ANSWER: 36", 1.0),
    (Item("edit", None, {"number": 37, "make": "even"}), "ANSWER: 48", 0.0),  # tens changed
    (Item("edit", None, {"number": 36, "make": "odd"}), "ANSWER: 31", 1.0),
])
def test_parity_checker_by_hand(item: Item, reply: str, score: float) -> None:
    assert EvenNumber().grade(item, reply).score == score


def test_parity_references_and_the_echo_solver_are_right() -> None:
    tasks, rng = EvenNumber(), np.random.default_rng(7)
    for i in range(60):
        item = (tasks.classify_item(rng, i % 2 == 0), tasks.generate_item(rng),
                tasks.edit_item(rng, i % 2 == 0))[i % 3]
        assert tasks.grade(item, tasks.reference(item)).score == 1.0
        for phrasing in range(tasks.phrasings):
            assert solve_parity(tasks.render(item, phrasing)) == tasks.reference(item)
