"""The n-gram diversity baseline, checked against counts done by hand."""

from __future__ import annotations

import math

import pytest

from vendiscope.core.studies.algorithms.lexical import distinct_n, ngram_diversity, tokens


def test_tokens_are_lower_cased_words_and_punctuation():
    assert tokens("The cat, the HAT!") == ["the", "cat", ",", "the", "hat", "!"]


def test_distinct_n_by_hand():
    # "a b a b": unigrams a b a b -> 2/4; bigrams ab ba ab -> 2/3; trigrams aba bab -> 2/2
    assert distinct_n(["a b a b"], 1) == pytest.approx(2 / 4)
    assert distinct_n(["a b a b"], 2) == pytest.approx(2 / 3)
    assert distinct_n(["a b a b"], 3) == pytest.approx(1.0)


def test_ngram_diversity_sums_distinct_n():
    # "a b a b" + "c": unigrams a b a b c -> 3/5; bigrams ab ba ab -> 2/3; trigrams 2/2
    assert ngram_diversity(["a b a b", "c"], max_n=3) == pytest.approx(3 / 5 + 2 / 3 + 1)


def test_all_distinct_scores_max_n():
    assert ngram_diversity(["one two three four five"]) == pytest.approx(4.0)


def test_no_ngrams_across_texts():
    # joined, "a b" + "b a" would add the bigram "b b" and the trigrams "a b b", "b b a"
    assert distinct_n(["a b", "b a"], 2) == pytest.approx(2 / 2)
    assert math.isnan(distinct_n(["a b", "b a"], 3))


def test_duplicate_texts_lower_the_score():
    texts = ["the quick brown fox jumps", "a lazy dog sleeps all day"]
    assert ngram_diversity(texts + texts[:1]) < ngram_diversity(texts)
    assert ngram_diversity(texts * 2) == pytest.approx(ngram_diversity(texts) / 2)


@pytest.mark.parametrize("texts", [[], [""], ["  ", "\n"]])
def test_nan_without_ngrams(texts):
    assert math.isnan(ngram_diversity(texts))
    assert math.isnan(distinct_n(texts, 1))


def test_nan_when_every_text_is_too_short():
    assert math.isnan(ngram_diversity(["a b c"], max_n=4))
    assert ngram_diversity(["a b c"], max_n=3) == pytest.approx(3.0)


def test_bad_arguments():
    with pytest.raises(ValueError, match="n must be"):
        distinct_n(["a"], 0)
    with pytest.raises(ValueError, match="max_n"):
        ngram_diversity(["a"], max_n=0)
    with pytest.raises(TypeError, match="one string"):
        ngram_diversity("a lone string")
