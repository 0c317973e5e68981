"""Gopher heuristics: hand-checked statistics, edge cases, and the same verdicts as datatrove."""

from __future__ import annotations

import numpy as np
import pytest

from tests.core.signals._texts import make_texts
from vendiscope.core.signals.algorithms.heuristics import (
    STAT_NAMES,
    gopher_flags,
    text_stats,
    truncated,
)

TOL = 1e-12  # ratios are exact quotients of small integers


def test_counts_and_ratios_of_a_small_text_by_hand() -> None:
    text = "Hello, world... the cat and the dog.\n\nHello, world..."
    s = text_stats([text])
    assert s["chars"][0] == 53
    assert s["words"][0] == 9  # whitespace-separated
    # Hello , world ... the cat and the dog . Hello , world ...
    assert s["tokens"][0] == 14
    assert s["word_tokens"][0] == 9
    assert s["mean_word_length"][0] == pytest.approx(35 / 9, abs=TOL)
    assert s["ellipsis_ratio"][0] == pytest.approx(2 / 14, abs=TOL)
    assert s["non_alpha_word_ratio"][0] == pytest.approx(5 / 14, abs=TOL)
    assert s["stop_words"][0] == 2  # "the", "and"
    # most frequent 2-gram, first seen: "Hello ," (7 characters) twice
    assert s["top_2gram_char_frac"][0] == pytest.approx(14 / 53, abs=TOL)
    assert s["top_3gram_char_frac"][0] == pytest.approx(26 / 53, abs=TOL)
    assert s["ellipsis_lines_ratio"][0] == pytest.approx(1 / 3, abs=TOL)  # 3 lines, one empty
    assert s["truncated"][0]  # ends with an ellipsis
    assert not s["empty"][0]


def test_repeated_lines_paragraphs_and_ngrams() -> None:
    text = "a b c a b c a b c"
    s = text_stats([text])
    # datatrove's scan: abcab, bcabc, cabca, then abcab again (+5 characters), jump to 8: done
    assert s["dup_5gram_char_frac"][0] == pytest.approx(5 / 17, abs=TOL)
    assert s["dup_6gram_char_frac"][0] == pytest.approx(6 / 17, abs=TOL)
    assert s["dup_7gram_char_frac"][0] == 0
    assert s["top_2gram_char_frac"][0] == pytest.approx(9 / 17, abs=TOL)  # "a b" x 3
    lines = "one line\ntwo line\none line\n\n\none line"
    s = text_stats([lines])
    assert s["dup_line_frac"][0] == pytest.approx(2 / 4, abs=TOL)
    assert s["dup_line_char_frac"][0] == pytest.approx(16 / len(lines), abs=TOL)
    assert s["dup_para_frac"][0] == 0  # "one line…one line" and "one line" differ
    paragraphs = "p one\n\np two\n\n\np one\n"
    s = text_stats([paragraphs])
    assert s["dup_para_frac"][0] == pytest.approx(1 / 3, abs=TOL)
    assert s["dup_para_char_frac"][0] == pytest.approx(5 / len(paragraphs), abs=TOL)


def test_symbols_digits_bullets() -> None:
    s = text_stats(["# x\n- y\n• z\n", "ab 12 cd 3", "Wait.... and …"])
    assert s["hash_ratio"][0] == pytest.approx(1 / 6, abs=TOL)
    assert s["bullet_lines_ratio"][0] == pytest.approx(2 / 3, abs=TOL)  # splitlines: 3 lines
    assert s["digit_ratio"][1] == pytest.approx(3 / 10, abs=TOL)
    # str.count("...") in "...." is 1, plus one "…"
    assert s["ellipsis_ratio"][2] == pytest.approx(2 / 4, abs=TOL)


def test_empty_none_whitespace_and_unicode() -> None:
    s = text_stats(["", None, "  \n ", "Straße über 中文 naïve café."])
    assert s["empty"].tolist() == [True, True, True, False]
    assert s["chars"].tolist() == [0, 0, 4, 26]
    assert s["tokens"].tolist() == [0, 0, 0, 6]
    assert np.isnan(s["mean_word_length"][:3]).all()
    assert s["mean_word_length"][3] == pytest.approx(21 / 5, abs=TOL)
    assert s["non_alpha_word_ratio"][3] == pytest.approx(1 / 6, abs=TOL)
    for name in STAT_NAMES:
        assert len(s[name]) == 4, name
    flags = gopher_flags(s)
    assert flags["empty"].tolist() == [True, True, False, False]
    assert flags["gopher_short_doc"].all()
    assert text_stats([])["chars"].shape == (0,)


def test_truncation_rule() -> None:
    texts = ["Done.", "(Done.)", "He said “stop!”", "Cut mid-wo", "Trailing,", "Wait...",
             "Wait…  ", "", "   ", "Why?\n"]  # fmt: skip
    assert truncated(texts).tolist() == [
        False, False, False, True, True, True, True, False, False, False,
    ]  # fmt: skip


def test_long_text_and_chunking_give_the_same_numbers() -> None:
    texts = make_texts(300, seed=3)
    texts.append(" ".join(texts) * 3)  # ~ a megabyte of text in one row
    whole = text_stats(texts)
    chunked = text_stats(texts, chunk_rows=7)
    for name in STAT_NAMES:
        np.testing.assert_array_equal(whole[name], chunked[name], err_msg=name)
    assert whole["chars"][-1] == len(texts[-1])


def _datatrove_reasons(texts: list[str]) -> tuple[list[str], list[str]]:
    regex = pytest.importorskip("regex")
    pytest.importorskip("datatrove")
    from datatrove.data import Document
    from datatrove.pipeline.filters import GopherQualityFilter, GopherRepetitionFilter
    from datatrove.utils.word_tokenizers import WordTokenizer

    pattern = regex.compile(r"[\pL\pM\pN_]+|[^\pL\pM\pN_\s]+")

    class Tokens(WordTokenizer):  # the module's tokenisation, in place of NLTK's
        def word_tokenize(self, text: str) -> list[str]:
            return pattern.findall(text)

        def sent_tokenize(self, text: str) -> list[str]:
            return [text]

        def span_tokenize(self, text: str) -> list[tuple[int, int]]:
            return [(0, len(text))]

    tok = Tokens()
    quality, repetition = GopherQualityFilter(language=tok), GopherRepetitionFilter(language=tok)

    def reason(result: bool | tuple[bool, str]) -> str:
        return "" if result is True else result[1]  # type: ignore[index]

    docs = [Document(text=t, id=str(i)) for i, t in enumerate(texts)]
    return [reason(quality.filter(d)) for d in docs], [reason(repetition.filter(d)) for d in docs]


def _first_reason(flags: dict[str, np.ndarray], names: list[str], i: int) -> str:
    return next((name for name in names if flags[name][i]), "")


def test_flags_give_datatrove_gopher_verdicts() -> None:
    texts = [t for t in make_texts(800, seed=1) if t.strip()]  # datatrove divides by 0 on blanks
    quality, repetition = _datatrove_reasons(texts)
    flags = gopher_flags(text_stats(texts))
    q_names = [n for n in flags if n.startswith("gopher_")]
    r_names = [n for n in flags if n not in q_names and n not in ("quality", "repetition")]
    ours_q = [_first_reason(flags, q_names, i) for i in range(len(texts))]
    ours_r = [_first_reason(flags, r_names, i) for i in range(len(texts))]
    assert ours_q == quality
    assert ours_r == repetition
    # the sample exercises most rules
    assert len(set(quality)) >= 5 and len(set(repetition)) >= 4
    assert flags["quality"].tolist() == [bool(r) for r in quality]
