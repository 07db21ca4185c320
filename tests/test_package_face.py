"""The package's face: `import verstehen as vs` reaches every method, each model-calling
function has an `_async` twin with the same parameters, and every public name is documented."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import verstehen as vs
from verstehen.methods import registry

METHOD_CALLS = ("certify", "audit", "potemkin_run", "potemkin_incoherence", "potemkin_selfjudge",
                "imagine_generate", "imagine_answer", "consistency")
FOLDER_READERS = ("potemkin_score", "annotate_export", "annotate_import",
                  "imagine_matrix", "imagine_analyze", "write_report", "list_runs")
# the twins of the commands that call no model: `certify --scores`, `bounds`, `plan`
NO_MODEL_TWINS = {"certify_scores": "CertifyScoresResult", "bounds": "BoundsResult",
                  "plan": "PlanResult"}
PACKAGE = Path(vs.__file__).parent


def test_every_method_is_reachable_from_the_package() -> None:
    for name in (*METHOD_CALLS, *FOLDER_READERS, *NO_MODEL_TWINS, "EngineSettings"):
        assert name in vs.__all__ and callable(getattr(vs, name))
    for name in vs.__all__:
        assert hasattr(vs, name), name


def test_each_model_call_has_an_async_twin_and_runs_it() -> None:
    for name in METHOD_CALLS:
        sync, twin = getattr(vs, name), getattr(vs, f"{name}_async")
        assert inspect.iscoroutinefunction(twin) and not inspect.iscoroutinefunction(sync)
        assert inspect.unwrap(sync) is twin  # the sync one runs the twin, so they cannot drift
        params = inspect.signature(sync).parameters
        assert params["engine"].default is None and params["resume"].default is None, name
        assert {"runs_dir", "cache", "timeout"} <= set(params), name  # the engine's keywords


def test_every_public_name_has_a_docstring() -> None:
    for name in vs.__all__:
        value = getattr(vs, name)
        if callable(value):
            assert (value.__doc__ or "").strip(), name


def test_results_are_frozen_and_have_a_json_form() -> None:
    """Every kind of run folder a built-in method declares: its result is public, frozen,
    with a JSON form and its run folder."""
    kinds = registry.run_kinds()
    assert len(kinds) == 8  # audit, certify, potemkin run|incoherence|selfjudge, imagine
    # generate|answer, consistency: the run-making commands of `verstehen --help`
    for name in {kind.result.__name__ for kind in kinds}:
        cls = getattr(vs, name)
        assert cls.__dataclass_params__.frozen, name
        assert callable(cls.to_dict)
        assert "run_dir" in cls.__dataclass_fields__, name
    for name in NO_MODEL_TWINS.values():  # results without a run folder, frozen all the same
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
