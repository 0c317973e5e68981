"""Language identification: ISO 639-1 codes, confidences, empty texts."""

# ruff: noqa: RUF001  (Cyrillic and other scripts are the point here)

from __future__ import annotations

import numpy as np
import pytest

from vendiscope.core.signals.algorithms.language import detect_languages, supported_languages

SENTENCES = {
    "en": "The committee will publish its final report on the new railway line next spring.",
    "de": "Der Ausschuss wird seinen Bericht über die neue Bahnstrecke im Frühjahr vorlegen.",
    "fr": "Le comité publiera son rapport final sur la nouvelle ligne de train au printemps.",
    "es": "El comité publicará su informe final sobre la nueva línea de ferrocarril en primavera.",
    "it": "Il comitato pubblicherà la sua relazione sulla nuova linea ferroviaria in primavera.",
    "ru": "Комитет опубликует свой окончательный доклад о новой железной дороге следующей весной.",
    "zh": "委员会将于明年春天发布关于新铁路线的最终报告。",
    "ja": "委員会は来年の春に新しい鉄道路線に関する最終報告書を公表する予定です。",
    "ar": "ستنشر اللجنة تقريرها النهائي عن خط السكك الحديدية الجديد في الربيع المقبل.",
}


def test_sentences_in_nine_languages() -> None:
    codes, confidence = detect_languages(list(SENTENCES.values()))
    assert codes.tolist() == list(SENTENCES)
    assert codes.dtype == np.dtype("<U2") and confidence.dtype == np.float64
    assert (confidence > 0.5).all() and (confidence <= 1.0).all()


def test_empty_and_undecidable_texts() -> None:
    codes, confidence = detect_languages(["", None, "   ", "123 456 !!", SENTENCES["en"]])
    assert codes.tolist() == ["", "", "", "", "en"]
    assert confidence[:4].tolist() == [0.0, 0.0, 0.0, 0.0]
    codes, confidence = detect_languages([])
    assert codes.shape == (0,) and confidence.shape == (0,)


def test_restricted_languages_and_accurate_mode() -> None:
    codes, confidence = detect_languages([SENTENCES["es"], SENTENCES["en"]], languages=["EN", "es"])
    assert codes.tolist() == ["es", "en"]
    assert (confidence > 0.9).all()  # two candidates: confident
    with pytest.raises(ValueError, match="at least two"):
        detect_languages(["x"], languages=["en"])
    with pytest.raises(ValueError, match="ISO 639-1"):
        detect_languages(["x"], languages=["en", "xx"])
    codes, _ = detect_languages([SENTENCES["fr"]], accurate=True, languages=["fr", "it", "es"])
    assert codes.tolist() == ["fr"]


def test_long_text_and_supported_list() -> None:
    codes, confidence = detect_languages([SENTENCES["de"] * 2000])  # ~ 180,000 characters
    assert codes.tolist() == ["de"] and confidence[0] > 0.9
    supported = supported_languages()
    assert len(supported) == 75 and {"en", "zh", "sw"} <= set(supported)
