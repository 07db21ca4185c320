"""How a typed result shows itself outside a terminal command: in `print()`, in IPython and as
HTML in a notebook.

A result class mixes in `Display` and supplies two things: `text()`, the printout its CLI
command writes, and `tables()`, the tables of that printout as rows of text cells; and, where
the printout's first line is not the result itself, `headline()`, the result in one line (a
verdict, CC, a rate). `str()` and IPython's pretty printer show the text; `_repr_html_` shows
the headline first, then the tables as HTML (every cell escaped), then the whole printout under
a fold. The dataclass `repr()` stays the programmer's view of the fields.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from verstehen.report.markup import Html, concat, el
from verstehen.text.tables import table


class Printer(Protocol):
    """The part of IPython's pretty printer a result uses."""

    def text(self, obj: str) -> None:
        """Write text."""


@dataclass(frozen=True)
class Table:
    """One table of a printout: its title, the column names and the rows, as text cells."""

    title: str
    header: Sequence[str]
    rows: Sequence[Sequence[str]]

    def text(self) -> str:
        """The aligned plain-text table (the terminal's), without the title."""
        return table(list(self.header), [list(row) for row in self.rows])

    def html(self) -> str:
        """The title and an HTML table, every cell escaped."""
        return str(self.markup())

    def markup(self) -> Html:
        """`html()` as the report's markup, to put in a larger piece."""
        return concat(el("h4", self.title) if self.title else None,
                      el("table", el("thead", el("tr", (el("th", h) for h in self.header))),
                         el("tbody", (el("tr", (el("td", cell) for cell in row))
                                      for row in self.rows))))


class Display:
    """Mixin of the typed results: `print(result)` and a notebook show the CLI's printout and
    its tables, not the dataclass's fields. Subclasses define `text()` and `tables()`."""

    def text(self) -> str:
        """The printout of the result's CLI command."""
        raise NotImplementedError

    def tables(self) -> list[Table]:
        """The tables of the printout, as rows of text cells."""
        raise NotImplementedError

    def headline(self) -> str:
        """The result in one line, shown first in a notebook: here the printout's first line."""
        return self.text().split("\n", 1)[0]

    def __str__(self) -> str:
        return self.text()

    def _repr_pretty_(self, printer: Printer, cycle: bool) -> None:
        """IPython's text display: the printout."""
        printer.text(self.text())

    def _repr_html_(self) -> str:
        """A notebook's display: the headline, the printout's first line when neither it nor a
        table's title says it already (what was asked), the tables, then the whole printout
        folded away."""
        text, headline, shown = self.text(), self.headline(), self.tables()
        first = text.split("\n", 1)[0]
        asked = first and first not in headline and all(first != t.title for t in shown)
        tables = [piece for t in shown for piece in (t.markup(), "\n")]
        return str(concat(el("p", el("strong", headline), class_="headline"), "\n",
                          (el("p", first), "\n") if asked else None, tables,
                          el("details", el("summary", "as printed"), el("pre", text))))

