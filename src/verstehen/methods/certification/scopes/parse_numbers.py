"""Reading a number from a model's answer (`parse_number`): decimals, fractions, scientific
notation, words of scale, the number after an "answer is" cue. Pure, no I/O."""

from __future__ import annotations

import math
import re
from fractions import Fraction

from verstehen.reading import answer_text

_MUL = r"(?:[x×*·⋅]|\\times|\\cdot)"
_EXP = r"\{?\s*(?P<NAME>[-−+]?\d+)\s*\}?"
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
# The sign is a sign only when it does not follow a digit or closing bracket (with at most one
# space between), so "123 - 456" is two numbers, not 123 and -456.
_NUM_RE = re.compile(
    r"""
    (?:\$\s?)?
    (?P<sign>(?<![\d)\].]\s)(?<![\d)\].])[-−+])?
    (?:\$\s?)?
    (?<![\w.])
    (?:
        (?P<pow>10\s*(?:\^|\*\*)\s*""" + _EXP.replace("NAME", "pexp") + r""")
      | (?P<mant>(?:\d{1,3}(?:,\d{3})+(?!\d)|\d{1,3}(?:[ \u00a0\u202f\u2009]\d{3})+(?![\d,])|\d+)
                 (?:\.\d+)?|\.\d+)
        (?:[eE](?P<eexp>[-−+]?\d+)
          |\s*""" + _MUL + r"""\s*10\s*(?:\^|\*\*)\s*""" + _EXP.replace("NAME", "sexp") + r"""
          |\s*""" + _MUL + r"""\s*10(?P<supexp>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)
        )?
        (?:\s+(?P<scale>thousand|million|billion|trillion)\b)?
    )
    """,
    re.X,
)
_SCALES = {"thousand": 3, "million": 6, "billion": 9, "trillion": 12}
_FRACTION_RE = re.compile(r"(?P<num>[-−]?\d+)\s*/\s*(?P<den>\d+)")
_ANSWER_RE = re.compile(r"\banswer\s*(?:is|:|=)|\\boxed\{", re.I)
_SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+|\n")
_WRAPPING = " \t*_`'\"$()[]{}<>\\"


def _value(m: re.Match[str]) -> float | None:
    sign = "-" if m.group("sign") in ("-", "−") else ""
    if m.group("pow"):
        mant, exp = "1", int(m.group("pexp").replace("−", "-"))
    else:
        mant = re.sub(r"[,\s]", "", m.group("mant"))
        raw = m.group("eexp") or m.group("sexp") or ""
        if m.group("supexp"):
            raw = m.group("supexp").translate(_SUPERSCRIPTS)
        exp = int(raw.replace("−", "-")) if raw else 0
        exp += _SCALES.get((m.group("scale") or "").lower(), 0)
    if abs(exp) > 400:
        return None
    x = float(f"{sign}{mant}e{exp}")
    return x if math.isfinite(x) else None


def _numbers(text: str) -> list[float]:
    return [x for m in _NUM_RE.finditer(text) if (x := _value(m)) is not None]


def _whole(text: str) -> float | None:
    """The value when `text` is one number or one fraction and nothing else (markup aside).

    A fraction over zero gives nan, which `parse_number` turns into None.
    """
    s = text.strip(_WRAPPING).rstrip(".!,;").strip(_WRAPPING).lstrip("=≈~").strip(_WRAPPING)
    if m := _FRACTION_RE.fullmatch(s):
        den = int(m.group("den"))
        if den == 0:
            return math.nan  # a whole answer, but not a number: the caller returns None
        return float(Fraction(int(m.group("num").replace("−", "-")), den))
    m = _NUM_RE.fullmatch(s)
    return _value(m) if m else None


def _last_line(text: str) -> re.Match[str] | None:
    """The last non-empty line that is not just a code fence."""
    lines = [m for m in re.finditer(r"^.*\S.*$", text, re.M) if m.group().strip(" \t`")]
    return lines[-1] if lines else None


def _first_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.strip()), "")


def _number_in(region: str) -> float | None:
    """Whole number, else after the last "=" of the region's first sentence with a number."""
    for sentence in _SENTENCE_END_RE.split(region):
        if not re.search(r"\d", sentence):
            continue
        if (x := _whole(sentence)) is not None:
            return x
        after = sentence.rsplit("=", 1)[-1]
        if (x := _whole(after)) is not None:
            return x
        nums = _numbers(after) or _numbers(sentence)
        return nums[0] if nums else None
    return None


def parse_number(text: str) -> float | None:
    """The model's numeric answer, or None when it gives none (no number, or nan/inf).

    Rules, first that yields a number wins:
      0. The last non-empty line (code fences aside) when it is one number and nothing else
         and no "answer is" cue comes after it: the final answer of a reply that reasons
         first ("... about 1800? Let me be careful ...", then "1776" on a line of its own).
      1. After the last "answer is" / "answer:" / "answer =" / "\\boxed{": the first sentence
         there with a digit: the whole of it when it is a number or fraction ("3/4" -> 0.75),
         else the number after its last "=", else its first number.
      2. The first non-empty line when it is one number and nothing else ("579", "**579**",
         "$5", "= 579", "1.2 × 10^6", "3/4"); this beats rule 3 so that "579" followed by a
         check line "579 - 456 = 123" reads 579.
      3. The last "=" (or "≈") in the reply with a number after it on its line: that number
         ("123 + 456 = 579", chains "= 49200 + 6888 = 56088").
      4. The first sentence that has a digit: its LAST number. Models state the operands before
         the result ("The sum of 123 and 456 is 579"), and later sentences are explanation.
    Numbers: optional sign and "$", thousands separated by "," or a space in groups of exactly
    three ("1,234,567.89", "1 234 567"), decimals, exponents ("1.2e6", "1.2*10**6",
    "1.2 × 10^6", "10^6"), and a scale word ("1.5 million"). A comma followed by other than
    three digits is not a separator ("1,5" is 1 and 5). Fractions count only as a whole answer.
    """
    x = _parse_number(text)
    return x if x is not None and math.isfinite(x) else None


def _parse_number(text: str) -> float | None:
    text = answer_text(text)
    if not text:
        return None
    markers = list(_ANSWER_RE.finditer(text))
    last = _last_line(text)
    if (last is not None and (not markers or last.start() >= markers[-1].end())
            and (x := _whole(last.group())) is not None):
        return x
    if markers and (x := _number_in(text[markers[-1].end():])) is not None:
        return x
    if (x := _whole(_first_line(text))) is not None:
        return x
    for line in reversed(text.splitlines()):
        for part in reversed(re.split(r"[=≈]", line)[1:]):
            if (x := _whole(part)) is not None:
                return x
            if nums := _numbers(part):
                return nums[0]
    for sentence in _SENTENCE_END_RE.split(text):
        if nums := _numbers(sentence):
            return nums[-1]
    return None
