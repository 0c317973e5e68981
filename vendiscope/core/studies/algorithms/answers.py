"""The answer a solution ends with, and whether two answers agree (pure, no dependencies).

A math solution states its result as "The final answer is X" (optionally ``\\boxed{X}``, or
GSM8K's ``#### X`` line), or just ends with it; :func:`final_answer` finds that X, else the
last number in the text. Numbers are normalised (``"1,000"`` -> ``"1000"``, ``"3.50"`` ->
``"3.5"``, ``"-0"`` -> ``"0"``) so that :func:`same_answer` compares what they mean, not how
they are written. Labels (an NLI class, a multiple-choice letter) compare as trimmed,
case-folded text.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_FINAL = re.compile(r"the\s+final\s+answer\s+is\s*:?|^\s*####", re.IGNORECASE | re.MULTILINE)
_BOXED = re.compile(r"\\boxed\s*\{")
_NUMBER = re.compile(r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?")
_WRAPPERS = "$*`\"' "


def final_answer(text: str) -> str | None:
    """The answer ``text`` ends with: after "The final answer is", else its last number.

    The stated answer is the rest of that (last) sentence, unwrapped from ``\\boxed{...}``,
    ``$...$`` and quotes, its trailing period stripped, and normalised when it is a number.
    ``None`` when the text states no answer and holds no number.
    """
    if not isinstance(text, str):
        return None
    statements = list(_FINAL.finditer(text))
    if statements:  # the last statement counts
        answer = normalise(_stated(text[statements[-1].end() :]))
        inside = _numbers(answer)
        if _decimal(answer) is None and len(inside) == 1:  # "x = 5", "18 dollars"
            return normalise(inside[0])
        if answer:
            return answer
    numbers = _numbers(text)
    return normalise(numbers[-1]) if numbers else None


def states_answer(text: str) -> bool:
    """Whether ``text`` states its answer ("The final answer is", ``\\boxed{}``, ``####``),
    rather than merely holding a number somewhere."""
    return isinstance(text, str) and bool(_FINAL.search(text) or _BOXED.search(text))


def same_answer(a: str | float | int | None, b: str | float | int | None) -> bool:
    """Whether two answers agree: numerically when both are numbers, else as normalised text."""
    if a is None or b is None:
        return False
    left, right = normalise(str(a)), normalise(str(b))
    x, y = _decimal(left), _decimal(right)
    if x is not None and y is not None:
        return x == y
    return left.casefold() == right.casefold()


def normalise(answer: str) -> str:
    """A number written canonically (no thousands separators, trailing zeros or ``-0``);
    any other answer trimmed, with a trailing period removed."""
    text = answer.strip().strip(_WRAPPERS).rstrip(".").strip()
    number = _decimal(text)
    if number is None:
        return text
    if number == 0:
        return "0"
    if number == number.to_integral_value():
        return str(int(number))
    return format(number.normalize(), "f")


def _stated(rest: str) -> str:
    """The answer in what follows "The final answer is"."""
    rest = rest.strip()
    boxed = _BOXED.search(rest)
    if boxed is not None:
        inner = _braced(rest, boxed.end())
        if inner is not None:
            return inner.strip()
    line = rest.splitlines()[0] if rest else ""
    # the sentence ends at a period followed by a space or the end (not a decimal point)
    end = re.search(r"\.(\s|$)", line)
    return (line[: end.start()] if end else line).strip()


def _braced(text: str, start: int) -> str | None:
    """The text from ``start`` up to the brace that closes the one before it."""
    depth = 1
    for index in range(start, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return text[start:index]
    return None


def _numbers(text: str) -> list[str]:
    return [m.group(0) for m in _NUMBER.finditer(text) if any(c.isdigit() for c in m.group(0))]


def _decimal(text: str) -> Decimal | None:
    cleaned = (
        text.replace(",", "") if re.fullmatch(r"[-+]?\d{1,3}(,\d{3})+(\.\d+)?", text) else text
    )
    if not re.fullmatch(r"[-+]?(\d+(\.\d*)?|\.\d+)", cleaned):
        return None
    try:
        return Decimal(cleaned)
    except InvalidOperation:  # pragma: no cover - the pattern admits only valid numbers
        return None


__all__ = ["final_answer", "normalise", "same_answer"]
