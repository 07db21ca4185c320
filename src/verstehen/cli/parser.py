"""The command line's parser: argparse with one-line errors, options between positionals, and
a flag that holds one value refused when given twice. A module of its own, importing no
command, so the commands' modules can name its types without importing each other."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn, TypeAlias

from verstehen.cli.given_once import forget_given, register_once
from verstehen.text.terminal import terminal_line

EXIT_USER_ERROR = 2
if TYPE_CHECKING:
    # argparse's type of a subcommand list, which it does not publish; only the command line's
    # own modules (not the methods: they get a parser) name it
    Subcommands: TypeAlias = argparse._SubParsersAction["Parser"]
else:
    Subcommands = argparse._SubParsersAction
# adds commands of the command line's own to the tree: (its subcommands, the engine flags)
AddParsers: TypeAlias = "Callable[[Subcommands, Parser], None]"


class Parser(argparse.ArgumentParser):
    """argparse with one-line errors (exit 2) instead of usage dumps; a command's options may
    come between its positional arguments (`batch MODEL --base-url URL PROMPTS`), and what it
    cannot read is said with the command's own --help; a flag that holds one value is refused
    when given twice (`cli/given_once.py`) rather than the last one silently winning."""

    _intermixing = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        register_once(self)

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        """Options and positionals in any order for a command without subcommands."""
        if self._intermixing:
            return super().parse_known_args(args, namespace)
        found, extras = self._parse_known(args, namespace)
        forget_given(found)
        return found, extras

    def _parse_known(self, args: Any, namespace: Any) -> Any:
        if self._subparsers is not None:
            return super().parse_known_args(args, namespace)
        self._intermixing = True  # parse_known_intermixed_args calls back into this method
        try:
            found, extras = self.parse_known_intermixed_args(args, namespace)
        except TypeError:  # a parser argparse cannot read intermixed (REMAINDER, ...)
            self._intermixing = False
            return super().parse_known_args(args, namespace)
        finally:
            self._intermixing = False
        if extras and " " in self.prog:  # a subcommand: name its own help
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return found, extras

    def error(self, message: str) -> NoReturn:
        """Print one line naming the problem and where to look."""
        self.exit(EXIT_USER_ERROR,
                  f"verstehen: error: {terminal_line(message)} (see {self.prog} --help)\n")
