"""Plain aligned text tables for the terminal, shared by every method's printouts."""

from __future__ import annotations


def table(header: list[str], rows: list[list[str]]) -> str:
    """A plain aligned text table."""
    widths = [max(len(str(c)) for c in col) for col in zip(header, *rows, strict=True)]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=True)).rstrip()
             for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)
