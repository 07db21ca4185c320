"""The `verstehen` command line: a thin face over the methods' entry points."""

from verstehen.cli.main import main

__all__ = ["main"]
