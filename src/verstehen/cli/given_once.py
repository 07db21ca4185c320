"""A flag that holds one value is given once: given again, argparse would keep the last value
and drop the first without a word (`certify --model A --model B` certifying only B), so the
parse stops instead, in one line naming the flag (exit 2).

`Parser` (`cli/flags.py`) registers these actions in place of argparse's own for every flag
that stores one value (`store`, `store_const`, `store_true`, `store_false`), so each flag of
every command is checked without naming it. Flags meant to be given several times say so: an
`append` or `extend` action, or an action class with `repeatable = True` (`--base-url`);
`tests/cli/test_flags_given_once.py` walks the parser and tries every other flag twice.
"""

from __future__ import annotations

import argparse
from typing import Any

# where a parse notes the flags given so far (a name no flag's dest can have); the parser
# takes it off the namespace when the parse ends
GIVEN = "verstehen given flags"
# argparse's actions that store one value, by the name `add_argument(action=...)` takes
ONE_VALUE: dict[str | None, type[argparse.Action]] = {
    None: argparse._StoreAction, "store": argparse._StoreAction,
    "store_const": argparse._StoreConstAction, "store_true": argparse._StoreTrueAction,
    "store_false": argparse._StoreFalseAction}


def given_once(base: type[argparse.Action]) -> type[argparse.Action]:
    """`base` (an action storing one value) refusing a second value for its dest."""

    class GivenOnce(base):  # type: ignore[valid-type,misc]  # a class made per base
        def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                     values: Any, option_string: str | None = None) -> None:
            if option_string is not None:  # positionals are filled once by argparse itself
                given: dict[str, str] = vars(namespace).setdefault(GIVEN, {})
                if (before := given.get(self.dest)) is not None:
                    again = ("given twice" if before == option_string
                             else f"given with {before}, which sets the same")
                    raise argparse.ArgumentError(
                        self, f"{again}, and only one would count: give it once")
                given[self.dest] = option_string
            super().__call__(parser, namespace, values, option_string)

    GivenOnce.__name__ = GivenOnce.__qualname__ = f"Once{base.__name__}"
    return GivenOnce


_ONCE_OF = {base: given_once(base) for base in dict.fromkeys(ONE_VALUE.values())}
ONCE = {name: _ONCE_OF[base] for name, base in ONE_VALUE.items()}


def register_once(parser: argparse.ArgumentParser) -> None:
    """Make the parser's one-value actions refuse a second value."""
    for name, action in ONCE.items():
        parser.register("action", name, action)


def forget_given(namespace: Any) -> None:
    """Take the parse's notes off a parsed namespace."""
    if isinstance(namespace, argparse.Namespace):
        vars(namespace).pop(GIVEN, None)
