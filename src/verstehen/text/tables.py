"""Plain aligned text tables for the terminal, and counted nouns ("1 call", "2 calls"), shared
by every method's printouts."""

from __future__ import annotations


def table(header: list[str], rows: list[list[str]]) -> str:
    """A plain aligned text table."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def plural(n: int, word: str, many: str | None = None) -> str:
    """`n` and the noun in the number `n` takes: plural(1, "choice") is "1 choice",
    plural(2, "entry", "entries") "2 entries" (the plural is `word` + "s" unless given)."""
    return f"{n} {word if n == 1 else many or word + 's'}"
