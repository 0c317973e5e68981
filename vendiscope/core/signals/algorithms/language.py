"""Language identification with a confidence, by lingua (``lingua-language-detector``).

lingua ships its n-gram models inside the wheel (no download) and runs in Rust on all cores.
Two modes: the default ``accurate=False`` is lingua's *low accuracy mode* (trigram models
only: models load in about half a second, about 10,000 short texts/s on 2 cores; reliable from
a sentence or two on), ``accurate=True`` uses all its models (better on a few words; about
10 s to load the models on first use, then about 2,000 texts/s). The detector is built once per
process and setting (imported lazily: importing this module loads nothing).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np


@functools.lru_cache(maxsize=4)
def _detector(accurate: bool, languages: tuple[str, ...] | None) -> Any:
    from lingua import IsoCode639_1, Language, LanguageDetectorBuilder

    if languages:
        wanted = [Language.from_iso_code_639_1(_iso(IsoCode639_1, code)) for code in languages]
        builder = LanguageDetectorBuilder.from_languages(*wanted)
    else:
        builder = LanguageDetectorBuilder.from_all_languages()
    if not accurate:
        builder = builder.with_low_accuracy_mode()
    return builder.build()


def _iso(iso_class: Any, code: str) -> Any:
    try:
        return iso_class.from_str(code.lower())
    except ValueError as error:
        raise ValueError(f"not an ISO 639-1 code lingua knows: {code!r}") from error


def supported_languages() -> list[str]:
    """The ISO 639-1 codes lingua can detect (75 languages), sorted."""
    from lingua import Language

    return sorted(language.iso_code_639_1.name.lower() for language in Language.all())


def detect_languages(
    texts: Sequence[str | None],
    *,
    accurate: bool = False,
    languages: Sequence[str] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The most likely language of each text and lingua's confidence in it.

    Parameters
    ----------
    texts
        N strings (``None`` counts as ``""``).
    accurate
        Use all of lingua's models (slower to load and run, better on very short texts) instead
        of its low accuracy mode.
    languages
        ISO 639-1 codes to choose among (at least two; ``None``: all 75 that lingua knows).
        Fewer languages are faster and more confident.

    Returns
    -------
    codes, confidence
        ``codes``: lower-case ISO 639-1 codes (a ``<U2`` array), ``""`` where no language could
        be told (empty text, only digits, punctuation or symbols). ``confidence``: float64 in
        [0, 1], lingua's confidence value of that language (the values of all candidate
        languages sum to 1); 0 where the code is ``""``.
    """
    if languages is not None and len(languages) < 2:
        raise ValueError("languages: give at least two ISO 639-1 codes, or None for all")
    detector = _detector(accurate, tuple(sorted(languages)) if languages else None)
    items = ["" if text is None else text for text in texts]
    codes = np.full(len(items), "", dtype="<U2")
    confidence = np.zeros(len(items), np.float64)
    if not items:
        return codes, confidence
    values = detector.compute_language_confidence_values_in_parallel(items)
    for i, ranked in enumerate(values):
        if ranked and ranked[0].value > 0:
            codes[i] = ranked[0].language.iso_code_639_1.name.lower()
            confidence[i] = ranked[0].value
    return codes, confidence
