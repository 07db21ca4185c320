"""verstehen: does a language model understand a subject, or only pass the benchmark?

    import verstehen as vs
    result = vs.certify("local/smollm2-135m", "arithmetic/small", questions=8)
    print(result.verdict, result.run_dir)
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
# names before the rule "a method's function and result are named by its command's words"
# (`potemkin run` -> `potemkin_run`, `PotemkinRunResult`), kept for one release: each warns
DEPRECATED = {
    "potemkin": "potemkin_run", "potemkin_async": "potemkin_run_async",
    "potemkin_export_labels": "annotate_export", "potemkin_import_labels": "annotate_import",
    "PotemkinResult": "PotemkinRunResult", "IncoherenceResult": "PotemkinIncoherenceResult",
    "SelfJudgeResult": "PotemkinSelfjudgeResult", "GenerateResult": "ImagineGenerateResult",
    "AnswerResult": "ImagineAnswerResult", "MatrixResult": "ImagineMatrixResult",
    "AnalyzeResult": "ImagineAnalyzeResult", "ScoresVerdict": "CertifyScoresResult",
    "MeanBounds": "BoundsResult", "QuestionsNeeded": "PlanResult",
}


def __getattr__(name: str) -> Any:
    """The API's names (`vs.certify`, `from verstehen import certify`, `vs.__all__`), imported
    on first use: importing a module of the package (`verstehen.methods.certification.bounds`)
    then loads only what that module needs, not the whole API with every method."""
    if name.startswith("__") and name != "__all__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import verstehen.api as api

    if name == "__all__":
        return ["__version__", *api.__all__]
    if name in api.__all__:
        return getattr(api, name)
    if name in DEPRECATED:
        import warnings

        warnings.warn(f"verstehen.{name} is now verstehen.{DEPRECATED[name]}; the old name "
                      "goes in the next release", DeprecationWarning, stacklevel=2)
        return getattr(api, DEPRECATED[name])
    if name in globals():  # a submodule the API's import bound here (`vs.api`, `vs.models`)
        return globals()[name]
    if not name.startswith("_"):  # tools probe private names: they load no method or plugin
        from verstehen.methods.registry import declared_api

        if (found := declared_api(name)) is not None:  # a method's, not listed in api.py
            return found
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    """The package's names with the API's, as `dir(vs)` showed them when imported eagerly."""
    return sorted({*globals(), *__getattr__("__all__")})
