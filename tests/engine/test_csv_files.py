"""The cells of a CSV meant for spreadsheets (issue 43): text a spreadsheet would run as a
formula gets a leading ', numbers stay numbers, and `from_spreadsheet` takes back exactly the
' that was added."""

from __future__ import annotations

import csv
import io

import pytest

from verstehen.engine.store.csv_files import from_spreadsheet, spreadsheet_cell, write_csv

# each starts as OWASP's list of formula starts says a spreadsheet runs it
FORMULAS = ['=HYPERLINK("http://example.com","x")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1",
            "=", "-", "+", "@", "-cmd|' /C calc'!A0", "- a bullet point", "-1-1", "--1"]
NUMBERS = ["-12", "+0.5", "1e-3", "-1E+5", "-.5", "3.", "0", "-0"]
PLAIN = ["", "yes", "a = b", " =1+1", "1+1", "#REF!", "\n=1", "x\t=1", "–12 (an en dash)"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_formula_gets_a_leading_quote(text):
    """Text starting with =, +, -, @, a tab or a CR, not a number, is written behind a '."""
    assert spreadsheet_cell(text) == "'" + text


@pytest.mark.parametrize("value", [*NUMBERS, -12, -0.5, 3, 1e-9, True, None])
def test_numbers_and_other_values_stay_as_they_are(value):
    """An int or float, and text that reads whole as a decimal number, are not touched."""
    assert spreadsheet_cell(value) is value


@pytest.mark.parametrize("text", PLAIN)
def test_plain_text_stays(text):
    """Text not starting with a formula character is written as it is."""
    assert spreadsheet_cell(text) == text


@pytest.mark.parametrize("text", [*FORMULAS, *NUMBERS, *PLAIN, "'", "''", "'=1", "'-12",
                                  "'hello", "''=x"])
def test_reading_back_gives_the_text_written(text):
    """from_spreadsheet(spreadsheet_cell(text)) is text, a leading ' of its own included."""
    assert from_spreadsheet(str(spreadsheet_cell(text))) == text


@pytest.mark.parametrize("cell", ["'hello", "'", "-12", "'x=1", "yes"])
def test_a_cell_the_writer_never_quoted_is_read_as_it_is(cell):
    """A ' not followed by what the writer quotes (a person typed it) is kept."""
    assert from_spreadsheet(cell) == cell


def test_write_csv_quotes_for_spreadsheets_only(tmp_path):
    """The same rows, with and without `spreadsheet`: only the first file has the '."""
    rows = [["=1+1", -3, "-3", None]]
    for spreadsheet, want in ((True, ["'=1+1", "-3", "-3", ""]),
                              (False, ["=1+1", "-3", "-3", ""])):
        path = tmp_path / f"{spreadsheet}.csv"
        write_csv(path, ["a", "b", "c", "d"], rows, advice="x", spreadsheet=spreadsheet)
        read = list(csv.reader(io.StringIO(path.read_bytes().decode(), newline="")))
        assert read == [["a", "b", "c", "d"], want]
