"""Which installed Tesseract languages a page is read in, from the script Tesseract
detects on it, and how those languages are named in what reader says."""

from __future__ import annotations

import re
from collections.abc import Sequence

# The language "auto" reads a page in the languages of the script Tesseract detects
# on it, among those installed (``languages_for_script``).
AUTO_LANGUAGE = "auto"
# A Tesseract language code ("eng", "chi_sim").
LANGUAGE_CODE = re.compile(r"[A-Za-z][A-Za-z0-9_]{1,30}")

# The installed languages a script is read in: a Latin page in all of these at once
# (German needs deu for its umlauts; eng+deu read English scans as eng alone did),
# a page of another script in the first of them installed.
SCRIPT_LANGUAGES: dict[str, tuple[str, ...]] = {
    "Latin": ("eng", "deu"),
    "Han": ("chi_sim", "chi_tra"),
    "Cyrillic": ("rus", "ukr"),
    "Greek": ("ell",),
    "Arabic": ("ara",),
    "Hebrew": ("heb",),
    "Devanagari": ("hin",),
    "Japanese": ("jpn",),
    "Hangul": ("kor",),
    "Korean": ("kor",),
    "Thai": ("tha",),
}
LANGUAGE_NAMES = {
    "eng": "English",
    "deu": "German",
    "chi_sim": "Chinese",
    "chi_tra": "Chinese (traditional)",
    "rus": "Russian",
    "ukr": "Ukrainian",
    "ell": "Greek",
    "ara": "Arabic",
    "heb": "Hebrew",
    "hin": "Hindi",
    "jpn": "Japanese",
    "kor": "Korean",
    "tha": "Thai",
}


def languages_for_script(script: str, installed: Sequence[str]) -> tuple[str, ...]:
    """The installed languages a page in ``script`` (as Tesseract names it) is read in;
    empty if there are none."""
    candidates = [code for code in SCRIPT_LANGUAGES.get(script, ()) if code in installed]
    return tuple(candidates) if script == "Latin" else tuple(candidates[:1])


def language_names(languages: Sequence[str]) -> str:
    """``("eng", "deu")`` as "English and German"."""
    names = [LANGUAGE_NAMES.get(code, code) for code in languages]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
