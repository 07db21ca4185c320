"""The package's face: `import verstehen as vs` reaches every method (each run kind's function
by its command words, whatever method declares it), each model-calling function has an
`_async` twin with the same parameters, and every public name is documented."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from every_method import each_kind

import verstehen as vs
from verstehen.methods.contract import RunKind

FOLDER_READERS = ("potemkin_score", "annotate_export", "annotate_import",
                  "imagine_matrix", "imagine_analyze", "write_report", "list_runs")
# the twins of the commands that call no model: `certify --scores`, `bounds`, `plan`
NO_MODEL_TWINS = {"certify_scores": "CertifyScoresResult", "bounds": "BoundsResult",
                  "plan": "PlanResult"}
PACKAGE = Path(vs.__file__).parent


def api_name(kind: RunKind[Any]) -> str:
    """The API function of a run kind: its command words joined by "_" (`potemkin_run`)."""
    return "_".join(kind.words)


def test_every_public_name_is_reachable_from_the_package() -> None:
    for name in (*FOLDER_READERS, *NO_MODEL_TWINS, "EngineSettings"):
        assert name in vs.__all__ and callable(getattr(vs, name))
    for name in vs.__all__:
        assert hasattr(vs, name), name


@each_kind()
def test_each_run_kind_is_a_function_of_the_package(kind: RunKind[Any]) -> None:
    """`vs.<its words joined by _>` is the API function it declares, and `vs.<its result
    type's name>` its result type."""
    assert kind.api is not None and getattr(vs, api_name(kind)) is kind.api
    assert getattr(vs, kind.result.__name__) is kind.result


@each_kind()
def test_each_model_call_has_an_async_twin_and_runs_it(kind: RunKind[Any]) -> None:
    name = api_name(kind)
    sync, twin = getattr(vs, name), getattr(vs, f"{name}_async")
    assert inspect.iscoroutinefunction(twin) and not inspect.iscoroutinefunction(sync)
    # the sync one runs a twin of the same parameters, so they cannot drift
    assert inspect.iscoroutinefunction(inspect.unwrap(sync))
    assert inspect.signature(inspect.unwrap(sync)) == inspect.signature(twin)
    params = inspect.signature(sync).parameters
    assert params["engine"].default is None and params["resume"].default is None, name
    assert {"runs_dir", "cache", "timeout"} <= set(params), name  # the engine's keywords


def test_every_public_name_has_a_docstring() -> None:
    for name in vs.__all__:
        value = getattr(vs, name)
        if callable(value):
            assert (value.__doc__ or "").strip(), name


@each_kind()
def test_each_kinds_result_is_frozen_and_has_a_json_form(kind: RunKind[Any]) -> None:
    """Its result is public, frozen, with a JSON form and its run folder."""
    cls = getattr(vs, kind.result.__name__)
    assert cls.__dataclass_params__.frozen
    assert callable(cls.to_dict)
    assert "run_dir" in cls.__dataclass_fields__


def test_results_without_a_run_folder_are_frozen_too() -> None:
    for name in NO_MODEL_TWINS.values():
        cls = getattr(vs, name)
        assert cls.__dataclass_params__.frozen and callable(cls.to_dict), name


def test_no_public_name_hides_a_module_of_the_package() -> None:
    """`vs.audit` is a function; were a module named so too, `import verstehen.audit.x` would
    find the function instead."""
    for name in vs.__all__:
        assert not (PACKAGE / name).exists() and not (PACKAGE / f"{name}.py").exists(), name


def test_old_names_warn_and_are_the_new_ones() -> None:
    """A name from before the naming rule still works for one release, with a
    DeprecationWarning naming its new name; the new names follow the command's words."""
    assert {"potemkin_run", "annotate_export", "PotemkinRunResult", "ImagineAnswerResult",
            "CertifyScoresResult", "BoundsResult", "PlanResult"} <= set(vs.__all__)
    for old, new in vs.DEPRECATED.items():
        assert old not in vs.__all__, old
        with pytest.warns(DeprecationWarning, match=f"verstehen.{new}"):
            assert getattr(vs, old) is getattr(vs, new)
