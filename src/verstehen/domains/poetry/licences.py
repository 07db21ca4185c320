"""The readings verse may give a word beyond the dictionary's: the compressions of everyday
speech, and the licences of Early Modern verse (the readings and their sources are listed in
`meter`'s module doc, which scans lines with them).
"""

from __future__ import annotations

import re
from functools import cache

from verstehen.domains.poetry.pronounce import Pronunciation, from_phones, is_vowel, pronounce

_HIGH = ("IY0", "IH0", "UW0")


@cache
def verse_pronounce(word: str, early_modern: bool = True) -> tuple[Pronunciation, ...]:
    """`pronounce` and the variants the compressions of English speech add and, with
    `early_modern`, the licences of Early Modern verse (module doc)."""
    out = {p.phones: p for p in pronounce(word)}
    if not any(out):  # an estimate without phones: the licences its spelling shows
        (p,) = out.values()
        return (p, *(Pronunciation((), s, True)
                     for s in _spelled_licences(word, p.stresses, early_modern)))
    todo = [p for p in out.values() if p.phones]
    while todo:  # licences combine: "wand'ring" (syncope) and "fix-ed" in one word, say
        p = todo.pop()
        for phones in _licences(word, p.phones, early_modern):
            if phones not in out:
                out[phones] = from_phones(phones, p.estimated)
                todo.append(out[phones])
    return tuple(out.values())


def _spelled_licences(word: str, stresses: tuple[int, ...], early_modern: bool
                      ) -> list[tuple[int, ...]]:
    """The stresses an estimated word may also have: syncope of an e between a consonant and
    r + vowel ("suff'rance") and, in Early Modern verse, a sounded -ed ("impannel-ed")."""
    out = []
    if early_modern and word.endswith("ed") and not word.endswith(("ted", "ded")):
        out.append((*stresses, 0))
    if len(stresses) > 1 and 0 in stresses and re.search(r"[^aeiouy]er[aeiouy]", word):
        drop = len(stresses) - 1 - stresses[::-1].index(0)
        out.append(stresses[:drop] + stresses[drop + 1:])
    return out


_GLIDING = ("AY", "OY", "AW", "EY", "OW", "UW")


def _licences(word: str, ph: tuple[str, ...], early_modern: bool) -> list[tuple[str, ...]]:
    """One compression or licence applied once to one pronunciation, each way it applies."""
    out = _compressions(ph)
    if not early_modern:
        return out
    if (word.endswith("ed") and not word.endswith("'d") and len(ph) > 2 and ph[-1] in "DT"
            and (not is_vowel(ph[-2]) or (ph[-2] == "IY0" and word.endswith("ied"))
                 or (ph[-2] == "ER0" and word.endswith("red")))):
        out.append((*ph[:-1], "IH0", "D"))  # sounded -ed: "ever-fix-ed", "bur-i-ed"
    if word.endswith(("est", "eth")) and len(ph) > 3 and ph[-3] in ("AH0", "IH0"):
        out.append((*ph[:-3], *ph[-2:]))  # -est, -eth unsounded: "lov'st", "stain'th"
    if len(ph) > 2 and ph[-3:-1] in (("SH", "AH0"), ("ZH", "AH0"), ("CH", "AH0")) and (
            ph[-1] in ("N", "S", "L")):
        out.append((*ph[:-2], "IY0", *ph[-2:]))  # -tion, -cious, -tial in two: "na-ti-on"
    if word in ("spirit", "spirits"):
        out.append((*ph[:4], *ph[5:]))  # "spirit" in one syllable, as "sprite"
    if len(ph) > 2 and ph[-2] == "IH0" and ph[-1] == "NG" and is_vowel(ph[-3]):
        out.append((*ph[:-2], "NG"))  # "being", "seeing", "dying" in one syllable
    if len(ph) > 2 and ph[-1] == "ER0" and ph[-2] in ("DH", "V") and ph[-3][-1:] in ("1", "2"):
        out.append((*ph[:-2], "R"))  # th or v between vowels dropped: "whe'r", "e'er", "o'er"
    return out


def _compressions(ph: tuple[str, ...]) -> list[tuple[str, ...]]:
    """One compression of everyday speech (module doc) applied once, each way it applies."""
    out = []
    for i in range(len(ph) - 1):
        nxt = ph[i + 1]
        if ph[i] in _HIGH and is_vowel(nxt) and nxt[-1] in "02":
            glide = "W" if ph[i] == "UW0" else "Y"  # synaeresis: "hap-pyer", "vir-twous"
            out.append((*ph[:i], glide, *ph[i + 1:]))
        if (ph[i][-1:] == "0" and nxt in ("W", "Y") and i + 2 < len(ph)
                and ph[i + 2][-1:] in ("0", "2")):
            out.append((*ph[:i], *ph[i + 1:]))  # synaeresis across a glide: "sen-swal"
        if ph[i][:2] in _GLIDING and nxt[-1:] == "0" and nxt != "ER0":
            out.append((*ph[:i + 1], *ph[i + 2:]))  # after a diphthong: "moi'ty", "qui't"
        if ph[i] == "ER0" and is_vowel(nxt) and nxt[-1] in "02":
            out.append((*ph[:i], "R", *ph[i + 1:]))  # syncope: "murd'rous", "wat'ry"
        if ph[i] in ("AH0", "IH0") and i and ph[i - 1] == "V" and nxt == "N":
            out.append((*ph[:i], *ph[i + 1:]))  # syncope: "heav'nly", "e'en", "giv'n"
        elif (ph[i] in ("AH0", "IH0") and i and not is_vowel(ph[i - 1]) and nxt in ("L", "N", "R")
              and i + 2 < len(ph) and ph[i + 2][-1:] == "0"):
            out.append((*ph[:i], *ph[i + 1:]))  # before a sonorant and a weak vowel: "lum'nous"
        if ph[i][:2] in ("AY", "AW") and nxt == "ER0":
            out.append((*ph[:i + 1], "R", *ph[i + 2:]))  # smoothing: "fire", "pow'rs"
    return out
