"""Exceptions whose message cannot be printed, raised when an entry point's object is looked up
(`unprintable:STR_RAISES`, `:STR_NOT_STR`, `:SURROGATES`)."""

from __future__ import annotations


class StrRaises(Exception):
    """Its message cannot be read: `str()` raises."""

    def __str__(self) -> str:
        raise ValueError("no message for you")


class StrNotStr(Exception):
    """Its `__str__` returns no str."""

    def __str__(self) -> str:
        return 3  # type: ignore[return-value]


def __getattr__(name: str) -> object:
    if name == "STR_RAISES":
        raise StrRaises()
    if name == "STR_NOT_STR":
        raise StrNotStr()
    if name == "SURROGATES":
        raise RuntimeError("lone \ud800 surrogate")
    raise AttributeError(name)
