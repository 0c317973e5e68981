"""The answer a solution ends with, and when two answers agree."""

from __future__ import annotations

import pytest

from vendiscope.core.studies.algorithms.answers import final_answer, normalise, same_answer


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("She pays 3 + 4 = 7 dollars.\nThe final answer is 7", "7"),
        ("so 12 * 3 = 36.\nThe final answer is 36.", "36"),
        ("THE FINAL ANSWER IS: 1,000.", "1000"),
        ("The final answer is $\\boxed{42}$.", "42"),
        ("The final answer is \\boxed{\\frac{1}{2}}", "\\frac{1}{2}"),
        ("The final answer is 3.50", "3.5"),
        ("The final answer is -0", "0"),
        ("The final answer is 18 dollars.", "18"),
        ("The final answer is x = -5.", "-5"),
        ("The final answer is entailment.", "entailment"),
        ("First 5, then 9. The final answer is 9. Then I wrote 11.", "9"),
        ("The final answer is 2. Wait: the final answer is 3.", "3"),
        ("He had 10 apples and ate 2, leaving 8.", "8"),
        ("Total: 1,250.00 dollars", "1250"),
        ("The loss was -3.", "-3"),
        ("No number here.", None),
        ("", None),
    ],
)
def test_final_answer(text: str, expected: str | None) -> None:
    assert final_answer(text) == expected


def test_final_answer_of_a_non_string_is_none() -> None:
    assert final_answer(None) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("1,000", "1000", True),
        ("3.50", "3.5", True),
        ("-0", "0", True),
        ("7", 7, True),
        (7.0, "7", True),
        ("0.1", "0.10", True),
        ("7", "8", False),
        ("1000", "100", False),
        ("Entailment", "entailment ", True),
        ("entailment", "neutral", False),
        ("7", "seven", False),
        (None, "7", False),
        ("7", None, False),
    ],
)
def test_same_answer(a: object, b: object, same: bool) -> None:
    assert same_answer(a, b) is same  # type: ignore[arg-type]


def test_normalise_keeps_labels_and_writes_numbers_canonically() -> None:
    assert normalise("  42. ") == "42"
    assert normalise("100") == "100"
    assert normalise("2.500") == "2.5"
    assert normalise("neutral.") == "neutral"
