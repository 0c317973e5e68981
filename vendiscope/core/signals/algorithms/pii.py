"""Personally identifiable information and secrets in text, with their character spans.

:func:`find_pii` returns, for each text, the ``(kind, start, end)`` spans it found (Python
string offsets, ``text[start:end]`` is the match), sorted and non-overlapping; :func:`redact`
replaces each span by ``[KIND]``. Kinds, from the most to the least specific (when two matches
overlap, the earlier kind in this order wins, then the longer, then the first):

``SECRET``
    AWS access key ids (``AKIA``/``ASIA`` + 16), GitHub tokens (``ghp_``, ``gho_``, ``ghu_``,
    ``ghs_``, ``ghr_`` + 36; ``github_pat_`` + 82), OpenAI keys (``sk-`` and ``sk-proj-`` ...),
    Slack tokens (``xoxa-``, ``xoxb-``, ``xoxp-``, ``xoxr-``), Google API keys (``AIza`` + 35),
    Stripe secret keys (``sk_live_``, ``rk_live_``), PEM private-key headers
    (``-----BEGIN ... PRIVATE KEY-----``) and JSON web tokens (three base64url parts, the first
    two starting ``eyJ``).
``EMAIL``
    ``local@domain.tld`` (letters may be any script's).
``CARD``
    13 to 19 digits, optionally grouped by single spaces or dashes, that pass the Luhn check.
``IP``
    IPv4 (each octet 0-255, not part of a longer dotted number) and IPv6 (full, ``::``
    compressed and IPv4-suffixed forms).
``PHONE``
    International numbers (``+`` country code and 6 to 14 more digits in groups), and the
    national formats ``(212) 555-0100``, ``212-555-0100`` / ``212.555.0100`` / ``212 555 0100``
    (North America), ``020 7946 0958`` / ``07700 900123`` (UK), ``01 23 45 67 89`` /
    ``01.23.45.67.89`` (France), ``030 12345678`` / ``030-1234567`` (Germany). A national
    number needs separators, so a plain run of digits, an ISO date (``2024-01-15``) or a
    version number is not a phone number.

Matching is by regular expressions (Python's ``re``, one compiled pattern per kind), so it has
false positives and misses: it is a signal for review, not a guarantee.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

KINDS = ("SECRET", "EMAIL", "CARD", "IP", "PHONE")
"""The kinds of span, most specific first (the order that settles overlaps)."""

Span = tuple[str, int, int]
"""``(kind, start, end)``: ``text[start:end]`` is the match."""

_B = r"(?<![\w-])"  # starts a token
_E = r"(?![\w-])"  # ends one

_SECRET = re.compile(
    "|".join(
        [
            rf"{_B}(?:AKIA|ASIA)[0-9A-Z]{{16}}{_E}",
            rf"{_B}gh[pousr]_[A-Za-z0-9]{{36}}{_E}",
            rf"{_B}github_pat_[A-Za-z0-9_]{{82}}{_E}",
            rf"{_B}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{{20,}}{_E}",
            rf"{_B}xox[abpr]-[A-Za-z0-9\-]{{10,}}{_E}",
            rf"{_B}AIza[0-9A-Za-z_\-]{{35}}{_E}",
            rf"{_B}[sr]k_live_[0-9A-Za-z]{{16,}}{_E}",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----",
            rf"{_B}eyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+{_E}",
        ]
    )
)
_EMAIL = re.compile(  # Unicode letters allowed (internationalised addresses)
    r"(?<![\w.%+\-])\w(?:[\w.%+\-]*[\w%+\-])?"
    r"@(?:[^\W_](?:[\w\-]{0,61}[^\W_])?\.)+[^\W\d_]{2,24}(?![\w\-@])"
)
_CARD = re.compile(r"(?<!\d)(?<!\d[.,/\-])\d(?:[ \-]?\d){12,18}(?!\d|[.,/\-]\d)")
_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_IPV4 = rf"{_OCTET}(?:\.{_OCTET}){{3}}"
_H = r"[0-9A-Fa-f]{1,4}"
_IPV6 = (
    r"(?:"
    rf"(?:{_H}:){{7}}{_H}"
    rf"|(?:{_H}:){{1,7}}:"
    rf"|(?:{_H}:){{1,6}}:{_H}"
    rf"|(?:{_H}:){{1,5}}(?::{_H}){{1,2}}"
    rf"|(?:{_H}:){{1,4}}(?::{_H}){{1,3}}"
    rf"|(?:{_H}:){{1,3}}(?::{_H}){{1,4}}"
    rf"|(?:{_H}:){{1,2}}(?::{_H}){{1,5}}"
    rf"|{_H}:(?::{_H}){{1,6}}"
    rf"|:(?::{_H}){{1,7}}"
    rf"|(?:{_H}:){{6}}{_IPV4}"
    rf"|::(?:ffff:)?{_IPV4}"
    r")"
)
_IP = re.compile(
    rf"(?<![\w.:]){_IPV4}(?![\w]|\.\d)|(?<![\w:.]){_IPV6}(?![\w:]|\.\d)",
)
_SEP = r"[ .\-]"
_PHONE = re.compile(
    r"(?<![\w+\-./])(?:"
    # international: +CC then 6-14 digits in groups of 1-5 (optionally an area code in brackets)
    r"\+\d{1,3}(?:[ .\-]?\(\d{1,4}\))?(?:[ .\-]?\d{1,5}){2,6}"
    # North America
    r"|\(\d{3}\)[ \-]?\d{3}[ .\-]\d{4}"
    rf"|\d{{3}}(?P<na>{_SEP})\d{{3}}(?P=na)\d{{4}}"
    # UK: 0 + area/mobile code, then groups
    r"|0\d{2,4} \d{3,4} ?\d{3,4}"
    # France: 0X XX XX XX XX
    r"|0[1-9](?P<fr>[ .])\d{2}(?:(?P=fr)\d{2}){3}"
    # Germany: 0 + area code, a space or dash, subscriber number
    r"|0[1-9]\d{1,4}[ \-/]\d{5,8}"
    r")(?![\w\-]|\.\d)"
)
_PATTERNS = {"SECRET": _SECRET, "EMAIL": _EMAIL, "CARD": _CARD, "IP": _IP, "PHONE": _PHONE}


def luhn_valid(digits: str) -> bool:
    """Whether a string of digits passes the Luhn checksum (payment-card numbers do)."""
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0 and len(digits) > 0


def _accept(kind: str, match: re.Match[str]) -> bool:
    text = match.group()
    if kind == "CARD":
        digits = re.sub(r"[ \-]", "", text)
        separators = set(re.findall(r"[ \-]", text))
        return 13 <= len(digits) <= 19 and len(separators) <= 1 and luhn_valid(digits)
    if kind == "PHONE" and text.startswith("+"):
        return 7 <= sum(ch.isdigit() for ch in text) <= 15
    return True


def find_spans(text: str) -> list[Span]:
    """The PII spans of one text (see the module docstring), sorted by start."""
    found: list[tuple[int, int, int, str]] = []  # (priority, start, end, kind)
    for priority, kind in enumerate(KINDS):
        for match in _PATTERNS[kind].finditer(text):
            if _accept(kind, match):
                found.append((priority, match.start(), match.end(), kind))
    if len(found) <= 1:
        return [(kind, start, end) for _, start, end, kind in found]
    found.sort(key=lambda f: (f[0], f[1] - f[2], f[1]))
    taken: list[tuple[int, int]] = []
    kept: list[Span] = []
    for _, start, end, kind in found:
        if all(end <= a or start >= b for a, b in taken):
            taken.append((start, end))
            kept.append((kind, start, end))
    return sorted(kept, key=lambda s: s[1])


def find_pii(texts: Iterable[str | None]) -> list[list[Span]]:
    """The PII spans of each text: a list per text of ``(kind, start, end)``, sorted by start and
    non-overlapping (``None`` or ``""`` gives ``[]``). One Python call per text; the matching
    itself is the ``re`` engine's."""
    return [find_spans(text) if text else [] for text in texts]


def redact(text: str, spans: Iterable[Span]) -> str:
    """``text`` with each span replaced by ``[KIND]`` (``[EMAIL]``, ``[PHONE]``, ``[CARD]``,
    ``[IP]``, ``[SECRET]``). Spans must not overlap (those of :func:`find_spans` do not)."""
    pieces: list[str] = []
    position = 0
    for kind, start, end in sorted(spans, key=lambda s: s[1]):
        if start < position:
            raise ValueError(f"overlapping spans at {start}")
        pieces.append(text[position:start])
        pieces.append(f"[{kind}]")
        position = end
    pieces.append(text[position:])
    return "".join(pieces)
