#!/usr/bin/env python3
"""Generate the bundled demo dataset, ``vendiscope/resources/demo/demo.jsonl``.

The demo exists so that a diversity audit has something real to find. Its structure is known
and deliberately uneven:

* six task families ("domains") of very different sizes -- a large but redundant ``arithmetic``
  family built from only three templates, varied ``code``, ``nli`` and ``trivia`` families, a
  smaller ``summarization`` family and a thin ``poetry`` family;
* exact duplicates: records that repeat an earlier record's prompt and response verbatim;
* near-duplicates: records that copy an earlier record with one tiny edit to the prompt (an
  added "Please", a dropped punctuation mark, a swapped synonym).

The script uses only the standard library and one seeded ``random.Random``, so every run writes
the same bytes. Every arithmetic answer is computed, every code answer is parsed with ``ast`` and
executed against a small test, and the trivia answers come from one consistent fictional world.

Usage::

    python scripts/make_demo.py                  # (re)write the dataset and print a summary
    python scripts/make_demo.py --check          # exit 1 if the committed file is out of date
    python scripts/make_demo.py --list-planted   # also list which ids are planted duplicates

The generated data is dedicated to the public domain under CC0-1.0 (see the LICENSE file next
to the dataset).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import hashlib
import io
import json
import math
import random
import re
import string
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

SEED = 20261130
ROOT = Path(__file__).resolve().parent.parent
OUTPUT = ROOT / "vendiscope" / "resources" / "demo" / "demo.jsonl"

# Unique ("base") records per family, then the planted copies of base records per family.
SIZES = {
    "arithmetic": 400,
    "code": 250,
    "nli": 200,
    "trivia": 200,
    "summarization": 100,
    "poetry": 30,
}
EXACT_BY_DOMAIN = {
    "arithmetic": 7,
    "code": 5,
    "nli": 4,
    "trivia": 4,
    "summarization": 3,
    "poetry": 2,
}
NEAR_BY_DOMAIN = {
    "arithmetic": 10,
    "code": 8,
    "nli": 7,
    "trivia": 7,
    "summarization": 5,
    "poetry": 3,
}
EXACT_DUPLICATES = sum(EXACT_BY_DOMAIN.values())  # verbatim copies in all
NEAR_DUPLICATES = sum(NEAR_BY_DOMAIN.values())  # copies with one tiny edit in all
MAX_BYTES = 600_000

Pair = tuple[str, str]


class Record:
    """One row of the dataset and where it came from.

    ``kind`` is "base" (an original), "exact" (a verbatim copy of ``source``) or "near" (a copy
    of ``source`` whose prompt got the tiny edit named by ``edit``). A plain class rather than a
    dataclass, so that the script also loads through ``importlib`` without being in sys.modules.
    """

    def __init__(
        self,
        domain: str,
        prompt: str,
        response: str,
        kind: str = "base",
        source: Record | None = None,
        edit: str = "",
    ) -> None:
        self.domain = domain
        self.prompt = prompt
        self.response = response
        self.kind = kind
        self.source = source
        self.edit = edit
        self.id = ""


# --------------------------------------------------------------------------------------------
# Shared slot values
# --------------------------------------------------------------------------------------------

PEOPLE = [
    ("Maya", "she"),
    ("Tomas", "he"),
    ("Priya", "she"),
    ("Jonah", "he"),
    ("Leila", "she"),
    ("Arjun", "he"),
    ("Sofia", "she"),
    ("Mateo", "he"),
    ("Hana", "she"),
    ("Felix", "he"),
    ("Amara", "she"),
    ("Oliver", "he"),
    ("Nadia", "she"),
    ("Kwame", "he"),
    ("Ingrid", "she"),
    ("Diego", "he"),
]
SURNAMES = [
    "Okafor",
    "Lindqvist",
    "Moreau",
    "Haddad",
    "Novak",
    "Castillo",
    "Brennan",
    "Sato",
    "Kowalski",
    "Adeyemi",
    "Fischer",
    "Rahman",
    "Delgado",
    "Whitlock",
    "Petrov",
    "Nakamura",
]
TOWNS = ["Ashby", "Millbrook", "Fenwick", "Carrow", "Hollins Cross", "Marsden", "Easterby"]
CITIES = ["Northfield", "Halden", "Port Ellis", "Westmere", "Carrow"]
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
MONTHS = ["March", "April", "May", "June", "July", "September", "October"]
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
PRONOUNS = {
    "she": {"he": "she", "him": "her", "his": "her", "himself": "herself"},
    "he": {"he": "he", "him": "him", "his": "his", "himself": "himself"},
}


def cap(text: str) -> str:
    """Upper-case the first character only."""
    return text[:1].upper() + text[1:]


def a_or_an(number: int) -> str:
    """The article before a number written in digits: "an 8-year study", "a 45,000-dollar plan"."""
    lead = f"{number:,}".split(",")[0]
    return "an" if lead.startswith("8") or lead in ("11", "18") else "a"


def collect(rng: random.Random, count: int, draw: Callable[[random.Random], Pair]) -> list[Pair]:
    """Draw until ``count`` pairs with distinct prompts have been collected."""
    pairs: list[Pair] = []
    seen: set[str] = set()
    failures = 0
    while len(pairs) < count:
        prompt, response = draw(rng)
        if prompt in seen:
            failures += 1
            if failures > 50 * count:
                raise RuntimeError(f"could not draw {count} distinct prompts")
            continue
        seen.add(prompt)
        pairs.append((prompt, response))
    return pairs


# --------------------------------------------------------------------------------------------
# arithmetic: many records from only three templates and small slot pools (redundant on purpose)
# --------------------------------------------------------------------------------------------

ARITH_PEOPLE = PEOPLE[:8]
ARITH_ITEMS = ["stickers", "marbles", "pencils", "stamps", "seashells", "beads", "postcards"]
ARITH_VEHICLES = {"car": (40, 110), "bus": (30, 80), "train": (60, 160), "truck": (40, 90)}
ARITH_PURCHASES = [
    "a book",
    "lunch",
    "a movie ticket",
    "a scarf",
    "a notebook",
    "a toy",
    "groceries",
    "a plant",
]


def arithmetic_packs(rng: random.Random) -> Pair:
    name, pronoun = rng.choice(ARITH_PEOPLE)
    he = PRONOUNS[pronoun]["he"]
    item = rng.choice(ARITH_ITEMS)
    start, packs, per_pack = rng.randint(5, 60), rng.randint(2, 9), rng.randint(3, 12)
    added = packs * per_pack
    total = start + added
    prompt = (
        f"{name} has {start} {item}. {cap(he)} buys {packs} packs of {item}, and each pack holds "
        f"{per_pack}. How many {item} does {name} have now?"
    )
    response = (
        f"{packs} packs of {per_pack} {item} is {packs} x {per_pack} = {added} {item}. "
        f"Adding the {start} {he} already had gives {start} + {added} = {total}. "
        f"The answer is {total}."
    )
    return prompt, response


def arithmetic_distance(rng: random.Random) -> Pair:
    vehicle = rng.choice(list(ARITH_VEHICLES))
    low, high = ARITH_VEHICLES[vehicle]
    speed1, speed2 = rng.randrange(low, high + 1, 5), rng.randrange(low, high + 1, 5)
    hours1, hours2 = rng.randint(2, 6), rng.randint(1, 4)
    leg1, leg2 = speed1 * hours1, speed2 * hours2
    total = leg1 + leg2
    prompt = (
        f"A {vehicle} travels at {speed1} kilometres per hour for {hours1} hours, then at "
        f"{speed2} kilometres per hour for {hours2} hours. How many kilometres does it travel "
        "in total?"
    )
    response = (
        f"First part: {speed1} x {hours1} = {leg1} km. Second part: {speed2} x {hours2} = "
        f"{leg2} km. Total: {leg1} + {leg2} = {total} km. The answer is {total}."
    )
    return prompt, response


def arithmetic_spending(rng: random.Random) -> Pair:
    name, pronoun = rng.choice(ARITH_PEOPLE)
    first, second = rng.sample(ARITH_PURCHASES, 2)
    money = rng.randint(20, 200)
    cost1 = rng.randint(2, money // 2)
    cost2 = rng.randint(1, money - cost1 - 1)
    spent = cost1 + cost2
    left = money - spent
    prompt = (
        f"{name} had {money} dollars. {cap(PRONOUNS[pronoun]['he'])} spent {cost1} dollars on "
        f"{first} and {cost2} dollars on {second}. How much money does {name} have left?"
    )
    response = (
        f"{name} spent {cost1} + {cost2} = {spent} dollars. {money} - {spent} = {left}. "
        f"The answer is {left}."
    )
    return prompt, response


ARITHMETIC_TEMPLATES = [arithmetic_packs, arithmetic_distance, arithmetic_spending]


def make_arithmetic(rng: random.Random, count: int) -> list[Pair]:
    return collect(rng, count, lambda r: r.choice(ARITHMETIC_TEMPLATES)(r))


# --------------------------------------------------------------------------------------------
# code: small Python tasks; every answer is parsed and run against a test
# --------------------------------------------------------------------------------------------


class CodeTask(NamedTuple):
    prompt: str
    code: str
    test: str  # run after ``setup`` and ``code``; ``_stdout`` holds what they printed
    setup: str = ""
    note: str = ""


def sub(template: str, **values: object) -> str:
    return string.Template(template).substitute(values)


OPENERS = [
    "Write a Python function",
    "Implement a Python function",
    "Create a Python function",
    "In Python, write a function",
    "Write a function",
]


def opener(rng: random.Random) -> str:
    return rng.choice(OPENERS)


def code_sum_powers(rng: random.Random) -> CodeTask:
    power, word = rng.choice([(2, "squares"), (3, "cubes")])
    fn = rng.choice([f"sum_of_{word}", f"total_{word}", f"{word}_sum"])
    return CodeTask(
        f"{opener(rng)} `{fn}(numbers)` that returns the sum of the {word} of a list of numbers.",
        sub("def $fn(numbers):\n    return sum(x ** $p for x in numbers)", fn=fn, p=power),
        f"assert {fn}([1, 2, 3]) == {1 + 2**power + 3**power}\nassert {fn}([]) == 0",
    )


def code_count_initial(rng: random.Random) -> CodeTask:
    letter = rng.choice("abcdfghlmnprstw")
    fn = rng.choice(["count_starting_with", "words_starting_with", "count_initial"])
    return CodeTask(
        f"{opener(rng)} `{fn}(text)` that counts how many words in a string start with the "
        f"letter '{letter}', ignoring case.",
        sub(
            "def $fn(text):\n"
            '    return sum(1 for word in text.split() if word.lower().startswith("$ch"))',
            fn=fn,
            ch=letter,
        ),
        f'assert {fn}("{letter.upper()}ix {letter}ox zz") == 2',
    )


def code_divisible(rng: random.Random) -> CodeTask:
    n = rng.randint(3, 9)
    fn = rng.choice([f"multiples_of_{n}", "keep_divisible", f"divisible_by_{n}"])
    expected = [v for v in range(1, 30) if v % n == 0]
    return CodeTask(
        f"{opener(rng)} `{fn}(values)` that takes a list of integers and returns a new list with "
        f"only the values divisible by {n}, in their original order.",
        sub("def $fn(values):\n    return [v for v in values if v % $n == 0]", fn=fn, n=n),
        f"assert {fn}(list(range(1, 30))) == {expected}",
    )


def code_fizzbuzz(rng: random.Random) -> CodeTask:
    a, b = rng.choice([(3, 5), (2, 7), (4, 6), (3, 4)])
    word_a, word_b = rng.choice([("Fizz", "Buzz"), ("Ping", "Pong"), ("Tick", "Tock")])
    both = math.lcm(a, b)
    limit = rng.choice([v for v in (15, 20, 30, 50, 100) if v >= both])
    code = sub(
        "for i in range(1, $end):\n"
        "    if i % $a == 0 and i % $b == 0:\n"
        '        print("$wa$wb")\n'
        "    elif i % $a == 0:\n"
        '        print("$wa")\n'
        "    elif i % $b == 0:\n"
        '        print("$wb")\n'
        "    else:\n"
        "        print(i)",
        end=limit + 1,
        a=a,
        b=b,
        wa=word_a,
        wb=word_b,
    )
    return CodeTask(
        f"Write a Python program that prints the numbers from 1 to {limit}, one per line, but "
        f'prints "{word_a}" for multiples of {a}, "{word_b}" for multiples of {b}, and '
        f'"{word_a}{word_b}" for multiples of both.',
        code,
        f"lines = _stdout.getvalue().split()\nassert len(lines) == {limit}\n"
        f'assert lines[{both - 1}] == "{word_a}{word_b}"\nassert lines[0] == "1"',
    )


def code_reverse_words(rng: random.Random) -> CodeTask:
    fn = rng.choice(["reverse_words", "flip_words", "words_reversed"])
    return CodeTask(
        f"{opener(rng)} `{fn}(sentence)` that returns the sentence with the order of its words "
        "reversed, separated by single spaces.",
        sub('def $fn(sentence):\n    return " ".join(reversed(sentence.split()))', fn=fn),
        f'assert {fn}("the quick  brown fox") == "fox brown quick the"',
        note="`split()` with no argument also collapses repeated spaces.",
    )


def code_palindrome(rng: random.Random) -> CodeTask:
    fn = rng.choice(["is_palindrome", "reads_same_backwards", "check_palindrome"])
    if rng.random() < 0.5:
        return CodeTask(
            f"{opener(rng)} `{fn}(text)` that returns True if a string reads the same forwards "
            "and backwards, ignoring case.",
            sub(
                "def $fn(text):\n    lowered = text.lower()\n    return lowered == lowered[::-1]",
                fn=fn,
            ),
            f'assert {fn}("Level")\nassert not {fn}("Levels")',
        )
    return CodeTask(
        f"{opener(rng)} `{fn}(text)` that returns True if a string is a palindrome when case, "
        "spaces and punctuation are ignored.",
        sub(
            "def $fn(text):\n"
            "    letters = [c.lower() for c in text if c.isalnum()]\n"
            "    return letters == letters[::-1]",
            fn=fn,
        ),
        f'assert {fn}("A man, a plan, a canal: Panama")\nassert not {fn}("Hello, world")',
    )


def code_temperature(rng: random.Random) -> CodeTask:
    digits = rng.choice([0, 1, 2])
    rounding = {
        0: "rounds the result to the nearest whole degree",
        1: "rounds the result to one decimal place",
        2: "rounds the result to two decimal places",
    }[digits]
    call = "round(VALUE)" if digits == 0 else f"round(VALUE, {digits})"
    if rng.random() < 0.5:
        fn = rng.choice(["celsius_to_fahrenheit", "to_fahrenheit", "c_to_f"])
        formula = "celsius * 9 / 5 + 32"
        arg, source, target, test = "celsius", "Celsius", "Fahrenheit", "assert FN(100) == 212"
        if digits:
            test += "\nassert FN(37) == 98.6"
    else:
        fn = rng.choice(["fahrenheit_to_celsius", "to_celsius", "f_to_c"])
        formula = "(fahrenheit - 32) * 5 / 9"
        arg, source, target, test = "fahrenheit", "Fahrenheit", "Celsius", "assert FN(212) == 100"
        test += "\nassert FN(50) == 10"
    return CodeTask(
        f"{opener(rng)} `{fn}({arg})` that converts a temperature from {source} to {target} and "
        f"{rounding}.",
        f"def {fn}({arg}):\n    return {call.replace('VALUE', formula)}",
        test.replace("FN", fn),
    )


def code_factorial(rng: random.Random) -> CodeTask:
    fn = rng.choice(["factorial", "fact", "compute_factorial"])
    strict = rng.random() < 0.5
    guard = '    if n < 0:\n        raise ValueError("n must be non-negative")\n' if strict else ""
    extra = " Raise ValueError for negative input." if strict else ""
    test = f"assert {fn}(0) == 1\nassert {fn}(5) == 120"
    if rng.random() < 0.5:
        return CodeTask(
            f"{opener(rng)} `{fn}(n)` that computes n! for a non-negative integer n with a loop, "
            f"without recursion or the math module.{extra}",
            f"def {fn}(n):\n{guard}    result = 1\n    for k in range(2, n + 1):\n"
            "        result *= k\n    return result",
            test,
        )
    return CodeTask(
        f"{opener(rng)} `{fn}(n)` that computes n! recursively.{extra}",
        f"def {fn}(n):\n{guard}    if n <= 1:\n        return 1\n    return n * {fn}(n - 1)",
        test,
    )


def code_fibonacci(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["fib", "fibonacci", "nth_fibonacci"])
        return CodeTask(
            f"{opener(rng)} `{fn}(n)` that returns the n-th Fibonacci number, where "
            f"{fn}(0) = 0 and {fn}(1) = 1. Use iteration, not recursion.",
            f"def {fn}(n):\n    a, b = 0, 1\n    for _ in range(n):\n        a, b = b, a + b\n"
            "    return a",
            f"assert [{fn}(i) for i in range(8)] == [0, 1, 1, 2, 3, 5, 8, 13]",
        )
    fn = rng.choice(["first_fibonacci", "fibonacci_list", "fib_sequence"])
    return CodeTask(
        f"{opener(rng)} `{fn}(n)` that returns a list of the first n Fibonacci numbers, "
        "starting from 0 and 1.",
        f"def {fn}(n):\n    numbers = []\n    a, b = 0, 1\n    for _ in range(n):\n"
        "        numbers.append(a)\n        a, b = b, a + b\n    return numbers",
        f"assert {fn}(6) == [0, 1, 1, 2, 3, 5]\nassert {fn}(0) == []",
    )


def code_dedupe(rng: random.Random) -> CodeTask:
    fn = rng.choice(["dedupe", "unique_in_order", "remove_duplicates"])
    if rng.random() < 0.5:
        code = (
            f"def {fn}(items):\n    seen = set()\n    result = []\n    for item in items:\n"
            "        if item not in seen:\n            seen.add(item)\n"
            "            result.append(item)\n    return result"
        )
        note = ""
    else:
        code = f"def {fn}(items):\n    return list(dict.fromkeys(items))"
        note = "Dictionaries keep insertion order, so the first occurrence of each item wins."
    return CodeTask(
        f"{opener(rng)} `{fn}(items)` that removes duplicates from a list while keeping the "
        "first occurrence of each item in its original position.",
        code,
        f"assert {fn}([3, 1, 3, 2, 1]) == [3, 1, 2]",
        note=note,
    )


def code_chunks(rng: random.Random) -> CodeTask:
    size = rng.randint(2, 6)
    fn = rng.choice(["chunk", "chunks", "split_into_chunks", "batch_list"])
    return CodeTask(
        f"{opener(rng)} `{fn}(items, size={size})` that splits a list into consecutive chunks of "
        "`size` items; the last chunk may be shorter.",
        f"def {fn}(items, size={size}):\n"
        "    return [items[i : i + size] for i in range(0, len(items), size)]",
        f"assert {fn}(list(range(7)), 3) == [[0, 1, 2], [3, 4, 5], [6]]\n"
        f"assert len({fn}(list(range(10)))) == {math.ceil(10 / size)}",
    )


def code_clamp(rng: random.Random) -> CodeTask:
    low, high = rng.choice([(0, 1), (0, 100), (-1, 1), (0, 255), (1, 10), (-40, 40)])
    fn = rng.choice(["clamp", "limit", "bound"])
    return CodeTask(
        f"{opener(rng)} `{fn}(x)` that limits a number to the range {low} to {high}: values "
        f"below {low} become {low} and values above {high} become {high}.",
        f"def {fn}(x):\n    return max({low}, min({high}, x))",
        f"assert {fn}({low - 5}) == {low}\nassert {fn}({high + 5}) == {high}\n"
        f"assert {fn}({low}) == {low}",
    )


def code_primes(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["is_prime", "check_prime", "prime"])
        return CodeTask(
            f"{opener(rng)} `{fn}(n)` that returns True if the integer n is prime, using trial "
            "division.",
            f"def {fn}(n):\n    if n < 2:\n        return False\n    i = 2\n"
            "    while i * i <= n:\n        if n % i == 0:\n            return False\n"
            "        i += 1\n    return True",
            f"assert [n for n in range(20) if {fn}(n)] == [2, 3, 5, 7, 11, 13, 17, 19]",
        )
    fn = rng.choice(["primes_below", "sieve", "list_primes"])
    return CodeTask(
        f"{opener(rng)} `{fn}(limit)` that returns all primes smaller than `limit` using the "
        "Sieve of Eratosthenes.",
        f"def {fn}(limit):\n    if limit < 2:\n        return []\n"
        "    is_prime = [True] * limit\n    is_prime[0] = is_prime[1] = False\n"
        "    for i in range(2, int(limit ** 0.5) + 1):\n        if is_prime[i]:\n"
        "            for j in range(i * i, limit, i):\n                is_prime[j] = False\n"
        "    return [i for i, flag in enumerate(is_prime) if flag]",
        f"assert {fn}(20) == [2, 3, 5, 7, 11, 13, 17, 19]\nassert {fn}(2) == []",
    )


def code_gcd(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["gcd", "greatest_common_divisor"])
        return CodeTask(
            f"{opener(rng)} `{fn}(a, b)` that returns the greatest common divisor of two "
            "integers using Euclid's algorithm, without importing math.",
            f"def {fn}(a, b):\n    while b:\n        a, b = b, a % b\n    return abs(a)",
            f"assert {fn}(48, 18) == 6\nassert {fn}(7, 0) == 7",
        )
    fn = rng.choice(["lcm", "least_common_multiple"])
    return CodeTask(
        f"{opener(rng)} `{fn}(a, b)` that returns the least common multiple of two integers, "
        "without importing math.",
        f"def {fn}(a, b):\n    x, y = a, b\n    while y:\n        x, y = y, x % y\n"
        "    return abs(a * b) // x if x else 0",
        f"assert {fn}(4, 6) == 12\nassert {fn}(0, 5) == 0",
    )


def code_digits(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["digit_sum", "sum_digits", "add_digits"])
        return CodeTask(
            f"{opener(rng)} `{fn}(n)` that returns the sum of the decimal digits of an integer "
            "(ignore the sign).",
            f"def {fn}(n):\n    return sum(int(d) for d in str(abs(n)))",
            f"assert {fn}(1234) == 10\nassert {fn}(-907) == 16",
        )
    fn = rng.choice(["digital_root", "repeated_digit_sum"])
    return CodeTask(
        f"{opener(rng)} `{fn}(n)` that repeatedly sums the digits of a non-negative integer "
        "until a single digit remains, and returns that digit.",
        f"def {fn}(n):\n    while n >= 10:\n        n = sum(int(d) for d in str(n))\n    return n",
        f"assert {fn}(9875) == 2\nassert {fn}(7) == 7",
    )


def code_rotate(rng: random.Random) -> CodeTask:
    fn = rng.choice(["rotate", "rotate_list", "shift_items"])
    left = rng.random() < 0.5
    body = "items[k:] + items[:k]" if left else "items[-k:] + items[:-k]"
    expected = "[3, 4, 5, 1, 2]" if left else "[4, 5, 1, 2, 3]"
    return CodeTask(
        f"{opener(rng)} `{fn}(items, k)` that rotates a list k positions to the "
        f"{'left' if left else 'right'} and returns the result as a new list. k may be larger "
        "than the list.",
        f"def {fn}(items, k):\n    if not items:\n        return []\n    k %= len(items)\n"
        f"    return {body}",
        f"assert {fn}([1, 2, 3, 4, 5], 2) == {expected}\nassert {fn}([], 3) == []\n"
        f"assert {fn}([1, 2], 4) == [1, 2]",
    )


def code_second_largest(rng: random.Random) -> CodeTask:
    fn = rng.choice(["second_largest", "runner_up", "second_highest"])
    return CodeTask(
        f"{opener(rng)} `{fn}(numbers)` that returns the second largest distinct value in a list, "
        "or None if there are fewer than two distinct values.",
        f"def {fn}(numbers):\n    distinct = sorted(set(numbers), reverse=True)\n"
        "    return distinct[1] if len(distinct) > 1 else None",
        f"assert {fn}([4, 1, 4, 3]) == 3\nassert {fn}([2, 2]) is None",
    )


def code_transpose(rng: random.Random) -> CodeTask:
    fn = rng.choice(["transpose", "transpose_matrix"])
    if rng.random() < 0.5:
        code = f"def {fn}(matrix):\n    return [list(row) for row in zip(*matrix)]"
    else:
        code = (
            f"def {fn}(matrix):\n    if not matrix:\n        return []\n"
            "    return [[row[j] for row in matrix] for j in range(len(matrix[0]))]"
        )
    return CodeTask(
        f"{opener(rng)} `{fn}(matrix)` that transposes a rectangular matrix given as a list of "
        "lists.",
        code,
        f"assert {fn}([[1, 2, 3], [4, 5, 6]]) == [[1, 4], [2, 5], [3, 6]]",
    )


def code_running_total(rng: random.Random) -> CodeTask:
    fn = rng.choice(["running_total", "cumulative_sum", "prefix_sums"])
    if rng.random() < 0.5:
        code = (
            f"def {fn}(numbers):\n    totals = []\n    current = 0\n    for x in numbers:\n"
            "        current += x\n        totals.append(current)\n    return totals"
        )
    else:
        code = f"from itertools import accumulate\n\n\ndef {fn}(numbers):\n"
        code += "    return list(accumulate(numbers))"
    return CodeTask(
        f"{opener(rng)} `{fn}(numbers)` that returns the running totals of a list of numbers.",
        code,
        f"assert {fn}([3, 1, 4, 1]) == [3, 4, 8, 9]\nassert {fn}([]) == []",
    )


def code_invert(rng: random.Random) -> CodeTask:
    fn = rng.choice(["invert", "invert_dict", "swap_keys_values"])
    if rng.random() < 0.5:
        return CodeTask(
            f"{opener(rng)} `{fn}(mapping)` that swaps the keys and values of a dictionary whose "
            "values are unique.",
            f"def {fn}(mapping):\n    return {{value: key for key, value in mapping.items()}}",
            f'assert {fn}({{"a": 1, "b": 2}}) == {{1: "a", 2: "b"}}',
        )
    return CodeTask(
        f"{opener(rng)} `{fn}(mapping)` that inverts a dictionary: each value maps to the list of "
        "keys that had it.",
        f"def {fn}(mapping):\n    inverted = {{}}\n    for key, value in mapping.items():\n"
        "        inverted.setdefault(value, []).append(key)\n    return inverted",
        f'assert {fn}({{"a": 1, "b": 2, "c": 1}}) == {{1: ["a", "c"], 2: ["b"]}}',
    )


def code_group_words(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["group_by_initial", "group_by_first_letter"])
        return CodeTask(
            f"{opener(rng)} `{fn}(words)` that groups non-empty words into a dictionary keyed by "
            "their lower-cased first letter.",
            f"def {fn}(words):\n    groups = {{}}\n    for word in words:\n"
            "        groups.setdefault(word[0].lower(), []).append(word)\n    return groups",
            f'assert {fn}(["Apple", "avocado", "bean"]) == '
            '{"a": ["Apple", "avocado"], "b": ["bean"]}',
        )
    fn = rng.choice(["group_by_length", "words_by_length"])
    return CodeTask(
        f"{opener(rng)} `{fn}(words)` that groups words into a dictionary keyed by word length.",
        f"def {fn}(words):\n    groups = {{}}\n    for word in words:\n"
        "        groups.setdefault(len(word), []).append(word)\n    return groups",
        f'assert {fn}(["to", "be", "or", "not"]) == {{2: ["to", "be", "or"], 3: ["not"]}}',
    )


def code_run_length(rng: random.Random) -> CodeTask:
    fn = rng.choice(["run_length_encode", "rle", "compress"])
    count_first = rng.random() < 0.5
    piece = "{count}{current}" if count_first else "{current}{count}"
    example = "3a1b2c" if count_first else "a3b1c2"
    code = sub(
        "def $fn(text):\n"
        "    if not text:\n"
        '        return ""\n'
        "    parts = []\n"
        "    current, count = text[0], 1\n"
        "    for ch in text[1:]:\n"
        "        if ch == current:\n"
        "            count += 1\n"
        "        else:\n"
        '            parts.append(f"$piece")\n'
        "            current, count = ch, 1\n"
        '    parts.append(f"$piece")\n'
        '    return "".join(parts)',
        fn=fn,
        piece=piece,
    )
    return CodeTask(
        f'{opener(rng)} `{fn}(text)` that run-length encodes a string, so "aaabcc" becomes '
        f'"{example}".',
        code,
        f'assert {fn}("aaabcc") == "{example}"\nassert {fn}("") == ""',
    )


def code_parse_pairs(rng: random.Random) -> CodeTask:
    sep = rng.choice([";", ",", "&"])
    kv = rng.choice(["=", ":"])
    fn = rng.choice(["parse_pairs", "parse_settings", "parse_options"])
    example = f"a{kv}1{sep}b{kv}2"
    code = sub(
        "def $fn(text):\n"
        "    result = {}\n"
        '    for part in text.split("$sep"):\n'
        "        item = part.strip()\n"
        "        if not item:\n"
        "            continue\n"
        '        key, _, value = item.partition("$kv")\n'
        "        result[key.strip()] = value.strip()\n"
        "    return result",
        fn=fn,
        sep=sep,
        kv=kv,
    )
    return CodeTask(
        f'{opener(rng)} `{fn}(text)` that parses a string like "{example}" into a dictionary of '
        "strings, ignoring empty segments and surrounding whitespace.",
        code,
        f'assert {fn}(" a {kv} 1 {sep} b{kv}2{sep}{sep}") == {{"a": "1", "b": "2"}}',
    )


def code_sort_records(rng: random.Random) -> CodeTask:
    label, field = rng.choice(
        [
            ("(name, age)", "age"),
            ("(product, price)", "price"),
            ("(city, population)", "population"),
            ("(title, year)", "year"),
        ]
    )
    descending = rng.random() < 0.5
    fn = rng.choice([f"sort_by_{field}", "sort_records"])
    rev = ", reverse=True" if descending else ""
    expected = '[("a", 3), ("c", 2), ("b", 1)]' if descending else '[("b", 1), ("c", 2), ("a", 3)]'
    return CodeTask(
        f"{opener(rng)} `{fn}(records)` that takes a list of {label} tuples and returns a new list "
        f"sorted by {field}, {'largest' if descending else 'smallest'} first.",
        f"def {fn}(records):\n    return sorted(records, key=lambda record: record[1]{rev})",
        f'assert {fn}([("a", 3), ("b", 1), ("c", 2)]) == {expected}',
    )


def code_count_letters(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["count_vowels", "vowel_count"])
        return CodeTask(
            f"{opener(rng)} `{fn}(text)` that counts the vowels (a, e, i, o, u) in a string, "
            "ignoring case.",
            f'def {fn}(text):\n    return sum(1 for ch in text.lower() if ch in "aeiou")',
            f'assert {fn}("Hello World") == 3',
        )
    fn = rng.choice(["count_consonants", "consonant_count"])
    return CodeTask(
        f"{opener(rng)} `{fn}(text)` that counts the consonants in a string, ignoring case, "
        "digits and punctuation.",
        f"def {fn}(text):\n"
        '    return sum(1 for ch in text.lower() if ch.isalpha() and ch not in "aeiou")',
        f'assert {fn}("Hello, World 42") == 7',
    )


def code_word_frequency(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["word_counts", "word_frequency", "count_words"])
        return CodeTask(
            f"{opener(rng)} `{fn}(text)` that returns a dictionary mapping each lower-cased word "
            "to the number of times it appears, ignoring surrounding punctuation.",
            f"def {fn}(text):\n    counts = {{}}\n    for word in text.lower().split():\n"
            '        cleaned = word.strip(".,!?;:")\n        if cleaned:\n'
            "            counts[cleaned] = counts.get(cleaned, 0) + 1\n    return counts",
            f'assert {fn}("The cat and the hat.") == {{"the": 2, "cat": 1, "and": 1, "hat": 1}}',
        )
    n = rng.choice([1, 3, 5])
    fn = rng.choice(["top_words", "most_common_words"])
    return CodeTask(
        f"{opener(rng)} `{fn}(text, n={n})` that returns the n most common lower-cased words in "
        "a text as (word, count) pairs, most common first.",
        "from collections import Counter\n\n\n"
        f"def {fn}(text, n={n}):\n"
        '    words = [w.strip(".,!?;:") for w in text.lower().split()]\n'
        "    return Counter(w for w in words if w).most_common(n)",
        f'assert {fn}("b a b c b a", 2) == [("b", 3), ("a", 2)]',
    )


def code_stack_class(rng: random.Random) -> CodeTask:
    cls = rng.choice(["Stack", "LifoStack", "ItemStack"])
    return CodeTask(
        f"Write a Python class `{cls}` with methods `push`, `pop`, `peek` and `is_empty`. "
        "`pop` and `peek` should raise IndexError on an empty stack.",
        f"class {cls}:\n    def __init__(self):\n        self._items = []\n\n"
        "    def push(self, item):\n        self._items.append(item)\n\n"
        "    def pop(self):\n        if not self._items:\n"
        '            raise IndexError("pop from empty stack")\n        return self._items.pop()\n\n'
        "    def peek(self):\n        if not self._items:\n"
        '            raise IndexError("peek at empty stack")\n        return self._items[-1]\n\n'
        "    def is_empty(self):\n        return not self._items",
        f"s = {cls}()\ns.push(1)\ns.push(2)\nassert s.peek() == 2\nassert s.pop() == 2\n"
        "assert not s.is_empty()",
    )


def code_account_class(rng: random.Random) -> CodeTask:
    cls = rng.choice(["BankAccount", "Account", "Wallet"])
    return CodeTask(
        f"Write a Python class `{cls}` that starts with an optional balance and has `deposit` "
        "and `withdraw` methods. Both should raise ValueError for a non-positive amount, and "
        "`withdraw` should also raise ValueError if the balance is too low.",
        f"class {cls}:\n    def __init__(self, balance=0):\n        self.balance = balance\n\n"
        "    def deposit(self, amount):\n        if amount <= 0:\n"
        '            raise ValueError("amount must be positive")\n'
        "        self.balance += amount\n\n"
        "    def withdraw(self, amount):\n        if amount <= 0:\n"
        '            raise ValueError("amount must be positive")\n'
        "        if amount > self.balance:\n"
        '            raise ValueError("insufficient funds")\n'
        "        self.balance -= amount",
        f"a = {cls}(10)\na.deposit(5)\na.withdraw(12)\nassert a.balance == 3\n"
        "try:\n    a.withdraw(100)\nexcept ValueError:\n    pass\nelse:\n    raise AssertionError",
    )


def code_rectangle_class(rng: random.Random) -> CodeTask:
    cls = rng.choice(["Rectangle", "Rect"])
    methods = (
        "    def area(self):\n        return self.width * self.height\n\n"
        "    def perimeter(self):\n        return 2 * (self.width + self.height)\n\n"
        "    def is_square(self):\n        return self.width == self.height"
    )
    test = f"r = {cls}(3, 4)\nassert r.area() == 12\nassert r.perimeter() == 14\n"
    test += "assert not r.is_square()"
    if rng.random() < 0.5:
        return CodeTask(
            f"Write a Python class `{cls}` with a width and a height, and methods `area`, "
            "`perimeter` and `is_square`.",
            f"class {cls}:\n    def __init__(self, width, height):\n        self.width = width\n"
            f"        self.height = height\n\n{methods}",
            test,
        )
    return CodeTask(
        f"Write a Python dataclass `{cls}` with `width` and `height` fields and methods `area`, "
        "`perimeter` and `is_square`.",
        f"from dataclasses import dataclass\n\n\n@dataclass\nclass {cls}:\n    width: float\n"
        f"    height: float\n\n{methods}",
        test,
    )


def code_counter_class(rng: random.Random) -> CodeTask:
    cls = rng.choice(["TallyCounter", "ClickCounter", "Tally"])
    return CodeTask(
        f"Write a Python class `{cls}` that stores a count starting at 0, with `increment(step=1)` "
        "and `reset()` methods and a `value` attribute.",
        f"class {cls}:\n    def __init__(self):\n        self.value = 0\n\n"
        "    def increment(self, step=1):\n        self.value += step\n\n"
        "    def reset(self):\n        self.value = 0",
        f"c = {cls}()\nc.increment()\nc.increment(4)\nassert c.value == 5\nc.reset()\n"
        "assert c.value == 0",
    )


COMPREHENSIONS = [
    (
        "result = []\nfor n in numbers:\n    if n % 2 == 0:\n        result.append(n * n)",
        "result = [n * n for n in numbers if n % 2 == 0]",
        "numbers = [1, 2, 3, 4]",
        "assert result == [4, 16]",
        "list",
    ),
    (
        "result = []\nfor word in words:\n    if len(word) > 3:\n        result.append(word.upper())",
        "result = [word.upper() for word in words if len(word) > 3]",
        'words = ["a", "tree", "in", "winter"]',
        'assert result == ["TREE", "WINTER"]',
        "list",
    ),
    (
        "lengths = {}\nfor name in names:\n    lengths[name] = len(name)",
        "lengths = {name: len(name) for name in names}",
        'names = ["Ana", "Bo"]',
        'assert lengths == {"Ana": 3, "Bo": 2}',
        "dictionary",
    ),
    (
        "pairs = []\nfor x in xs:\n    for y in ys:\n        pairs.append((x, y))",
        "pairs = [(x, y) for x in xs for y in ys]",
        "xs = [1, 2]\nys = [3]",
        "assert pairs == [(1, 3), (2, 3)]",
        "list",
    ),
    (
        "squares = {}\nfor n in range(1, 6):\n    squares[n] = n ** 2",
        "squares = {n: n ** 2 for n in range(1, 6)}",
        "",
        "assert squares[5] == 25",
        "dictionary",
    ),
]


def code_comprehension(rng: random.Random) -> CodeTask:
    loop, answer, setup, test, kind = rng.choice(COMPREHENSIONS)
    ask = rng.choice(
        [
            f"Rewrite this loop as a single {kind} comprehension:",
            f"Turn the following Python loop into a {kind} comprehension.",
            f"How can I write this as a {kind} comprehension?",
        ]
    )
    return CodeTask(f"{ask}\n\n```python\n{loop}\n```", answer, test, setup=setup)


BUGGY = [
    (
        "def average(values):\n    total = 0\n    for i in range(1, len(values)):\n"
        "        total += values[i]\n    return total / len(values)",
        "def average(values):\n    return sum(values) / len(values)",
        "The loop starts at index 1, so the first value is never added.",
        "assert average([2, 4, 6]) == 4",
    ),
    (
        "def largest(values):\n    best = 0\n    for v in values:\n        if v > best:\n"
        "            best = v\n    return best",
        "def largest(values):\n    best = values[0]\n    for v in values[1:]:\n"
        "        if v > best:\n            best = v\n    return best",
        "Starting from 0 gives the wrong answer when every value is negative.",
        "assert largest([-5, -2, -9]) == -2",
    ),
    (
        "def add_item(item, items=[]):\n    items.append(item)\n    return items",
        "def add_item(item, items=None):\n    if items is None:\n        items = []\n"
        "    items.append(item)\n    return items",
        "The default list is created once and shared between calls, so items pile up.",
        "assert add_item(1) == [1]\nassert add_item(2) == [2]",
    ),
    (
        'def count_words(text):\n    return len(text.split(" "))',
        "def count_words(text):\n    return len(text.split())",
        'Splitting on " " counts empty strings when there are repeated spaces.',
        'assert count_words("a  b ") == 2',
    ),
    (
        "def is_even(n):\n    return n % 2 == 1",
        "def is_even(n):\n    return n % 2 == 0",
        "The remainder of an even number divided by 2 is 0, not 1.",
        "assert is_even(4)\nassert not is_even(7)",
    ),
]


def code_fix_bug(rng: random.Random) -> CodeTask:
    buggy, fixed, explanation, test = rng.choice(BUGGY)
    ask = rng.choice(
        [
            "This function has a bug. Find it and give a corrected version.",
            "What is wrong with this code? Please fix it.",
            "Fix the bug in the following Python function.",
        ]
    )
    return CodeTask(f"{ask}\n\n```python\n{buggy}\n```", fixed, test, note=explanation)


def code_leap_year(rng: random.Random) -> CodeTask:
    rule = "y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)"
    if rng.random() < 0.5:
        fn = rng.choice(["is_leap_year", "is_leap", "leap_year"])
        return CodeTask(
            f"{opener(rng)} `{fn}(y)` that returns True if the year y is a leap year in the "
            "Gregorian calendar.",
            f"def {fn}(y):\n    return {rule}",
            f"assert {fn}(2000) and {fn}(2024)\nassert not {fn}(1900) and not {fn}(2023)",
        )
    fn = rng.choice(["count_leap_years", "leap_years_between"])
    return CodeTask(
        f"{opener(rng)} `{fn}(start, end)` that counts the leap years from `start` to `end`, "
        "inclusive.",
        f"def {fn}(start, end):\n    return sum(1 for y in range(start, end + 1) if {rule})",
        f"assert {fn}(1896, 1904) == 2\nassert {fn}(2001, 2003) == 0",
    )


def code_base_convert(rng: random.Random) -> CodeTask:
    base = rng.choice([2, 3, 5, 8])
    fn = {2: "to_binary", 3: "to_base3", 5: "to_base5", 8: "to_octal"}[base]
    fn = rng.choice([fn, f"to_base_{base}"])
    return CodeTask(
        f"{opener(rng)} `{fn}(n)` that returns the base-{base} representation of a non-negative "
        "integer as a string, without using built-in conversion functions like bin or format.",
        f'def {fn}(n):\n    if n == 0:\n        return "0"\n    digits = []\n    while n > 0:\n'
        f"        digits.append(str(n % {base}))\n        n //= {base}\n"
        '    return "".join(reversed(digits))',
        f'assert int({fn}(2026), {base}) == 2026\nassert {fn}(0) == "0"',
    )


def code_dates(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["days_between", "day_difference"])
        return CodeTask(
            f"{opener(rng)} `{fn}(first, second)` that takes two dates as 'YYYY-MM-DD' strings "
            "and returns the number of days between them, never negative.",
            "from datetime import date\n\n\n"
            f"def {fn}(first, second):\n"
            "    return abs((date.fromisoformat(second) - date.fromisoformat(first)).days)",
            f'assert {fn}("2024-03-01", "2024-01-01") == 60',
        )
    fn = rng.choice(["weekday_name", "day_of_week"])
    return CodeTask(
        f"{opener(rng)} `{fn}(iso_date)` that returns the English weekday name, such as "
        "'Monday', for a date given as 'YYYY-MM-DD'.",
        "from datetime import date\n\n"
        'WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", '
        '"Sunday"]\n\n\n'
        f"def {fn}(iso_date):\n    return WEEKDAYS[date.fromisoformat(iso_date).weekday()]",
        f'assert {fn}("2024-01-01") == "Monday"',
    )


def code_duration(rng: random.Random) -> CodeTask:
    fn = rng.choice(["format_duration", "to_clock", "seconds_to_hms"])
    padded = rng.random() < 0.5
    hours = "{hours:02d}" if padded else "{hours}"
    shape = "HH:MM:SS" if padded else "H:MM:SS"
    expected = "01:02:05" if padded else "1:02:05"
    code = sub(
        "def $fn(seconds):\n"
        "    hours, rest = divmod(seconds, 3600)\n"
        "    minutes, secs = divmod(rest, 60)\n"
        '    return f"$hours:{minutes:02d}:{secs:02d}"',
        fn=fn,
        hours=hours,
    )
    return CodeTask(
        f"{opener(rng)} `{fn}(seconds)` that formats a whole number of seconds as {shape}.",
        code,
        f'assert {fn}(3725) == "{expected}"',
    )


def code_mask(rng: random.Random) -> CodeTask:
    keep = rng.choice([2, 3, 4])
    char = rng.choice(["*", "#", "x"])
    fn = rng.choice(["mask", "mask_number", "hide_digits"])
    expected = char * (10 - keep) + "1234567890"[-keep:]
    return CodeTask(
        f"{opener(rng)} `{fn}(text)` that replaces every character except the last {keep} with "
        f"'{char}'.",
        f'def {fn}(text):\n    return "{char}" * max(len(text) - {keep}, 0) + text[-{keep}:]',
        f'assert {fn}("1234567890") == "{expected}"\nassert {fn}("1") == "1"',
    )


def code_flatten(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["flatten", "flatten_once"])
        return CodeTask(
            f"{opener(rng)} `{fn}(lists)` that flattens a list of lists by one level.",
            f"def {fn}(lists):\n    return [item for sub in lists for item in sub]",
            f"assert {fn}([[1, 2], [], [3]]) == [1, 2, 3]",
        )
    fn = rng.choice(["deep_flatten", "flatten_all"])
    return CodeTask(
        f"{opener(rng)} `{fn}(items)` that flattens arbitrarily nested lists into one flat list.",
        f"def {fn}(items):\n    flat = []\n    for item in items:\n"
        f"        if isinstance(item, list):\n            flat.extend({fn}(item))\n"
        "        else:\n            flat.append(item)\n    return flat",
        f"assert {fn}([1, [2, [3, [4]]], 5]) == [1, 2, 3, 4, 5]",
    )


def code_merge_dicts(rng: random.Random) -> CodeTask:
    fn = rng.choice(["merge_counts", "combine", "merge_dicts"])
    if rng.random() < 0.5:
        return CodeTask(
            f"{opener(rng)} `{fn}(first, second)` that merges two dictionaries of numbers, adding "
            "the values of keys that appear in both.",
            f"def {fn}(first, second):\n    merged = dict(first)\n"
            "    for key, value in second.items():\n"
            "        merged[key] = merged.get(key, 0) + value\n    return merged",
            f'assert {fn}({{"a": 1, "b": 2}}, {{"b": 3, "c": 4}}) == {{"a": 1, "b": 5, "c": 4}}',
        )
    return CodeTask(
        f"{opener(rng)} `{fn}(first, second)` that merges two dictionaries of numbers, keeping "
        "the larger value for keys that appear in both.",
        f"def {fn}(first, second):\n    merged = dict(first)\n"
        "    for key, value in second.items():\n"
        "        merged[key] = max(merged[key], value) if key in merged else value\n"
        "    return merged",
        f'assert {fn}({{"a": 1, "b": 7}}, {{"b": 3, "c": 4}}) == {{"a": 1, "b": 7, "c": 4}}',
    )


def code_statistics(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["mean_ignoring_none", "average_present"])
        return CodeTask(
            f"{opener(rng)} `{fn}(values)` that returns the mean of a list, skipping None "
            "entries, or None if nothing is left.",
            f"def {fn}(values):\n    present = [v for v in values if v is not None]\n"
            "    return sum(present) / len(present) if present else None",
            f"assert {fn}([1, None, 3]) == 2\nassert {fn}([None]) is None",
        )
    fn = rng.choice(["median", "middle_value"])
    return CodeTask(
        f"{opener(rng)} `{fn}(values)` that returns the median of a non-empty list of numbers "
        "without using the statistics module.",
        f"def {fn}(values):\n    ordered = sorted(values)\n    mid = len(ordered) // 2\n"
        "    if len(ordered) % 2:\n        return ordered[mid]\n"
        "    return (ordered[mid - 1] + ordered[mid]) / 2",
        f"assert {fn}([3, 1, 2]) == 2\nassert {fn}([4, 1, 3, 2]) == 2.5",
    )


def code_title_case(rng: random.Random) -> CodeTask:
    fn = rng.choice(["title_case", "headline", "smart_title"])
    return CodeTask(
        f"{opener(rng)} `{fn}(title)` that capitalises every word of a title except short words "
        "such as 'a', 'an', 'the', 'of', 'and', 'in' and 'on', which stay lower case unless "
        "they come first.",
        f"def {fn}(title):\n"
        '    small = {"a", "an", "the", "of", "and", "in", "on"}\n'
        "    words = title.lower().split()\n"
        '    return " ".join(\n'
        "        w if i > 0 and w in small else w.capitalize() for i, w in enumerate(words)\n"
        "    )",
        f'assert {fn}("the lord OF the rings") == "The Lord of the Rings"',
    )


FILE_TEST = """import os
import tempfile

with tempfile.NamedTemporaryFile("w", delete=False, suffix=".txt", encoding="utf-8") as f:
    f.write(CONTENT)
try:
    assert CALL == EXPECTED
finally:
    os.unlink(f.name)"""


def code_files(rng: random.Random) -> CodeTask:
    if rng.random() < 0.5:
        fn = rng.choice(["count_matching_lines", "lines_containing"])
        word = rng.choice(["error", "warning", "TODO"])
        content = repr(f"{word} one\nok\n{word} two\n")
        return CodeTask(
            f"{opener(rng)} `{fn}(path)` that opens a UTF-8 text file and returns how many lines "
            f"contain the string '{word}'.",
            f"def {fn}(path):\n"
            '    with open(path, encoding="utf-8") as handle:\n'
            f'        return sum(1 for line in handle if "{word}" in line)',
            FILE_TEST.replace("CONTENT", content)
            .replace("CALL", f"{fn}(f.name)")
            .replace("EXPECTED", "2"),
        )
    column = rng.choice(["price", "amount", "score"])
    fn = rng.choice([f"total_{column}", "sum_column"])
    content = repr(f"name,{column}\nx,1.5\ny,2\n")
    return CodeTask(
        f"{opener(rng)} `{fn}(path)` that reads a CSV file with a header row and returns the sum "
        f"of its '{column}' column as a float.",
        "import csv\n\n\n"
        f"def {fn}(path):\n"
        '    with open(path, newline="", encoding="utf-8") as handle:\n'
        f'        return sum(float(row["{column}"]) for row in csv.DictReader(handle))',
        FILE_TEST.replace("CONTENT", content)
        .replace("CALL", f"{fn}(f.name)")
        .replace("EXPECTED", "3.5"),
    )


def code_anagram(rng: random.Random) -> CodeTask:
    fn = rng.choice(["is_anagram", "are_anagrams"])
    return CodeTask(
        f"{opener(rng)} `{fn}(a, b)` that returns True if two strings are anagrams of each "
        "other, ignoring spaces and case.",
        f"def {fn}(a, b):\n"
        '    return sorted(a.replace(" ", "").lower()) == sorted(b.replace(" ", "").lower())',
        f'assert {fn}("Listen", "Silent")\nassert not {fn}("abc", "abd")',
    )


CODE_TEMPLATES = [
    code_sum_powers,
    code_count_initial,
    code_divisible,
    code_fizzbuzz,
    code_reverse_words,
    code_palindrome,
    code_temperature,
    code_factorial,
    code_fibonacci,
    code_dedupe,
    code_chunks,
    code_clamp,
    code_primes,
    code_gcd,
    code_digits,
    code_rotate,
    code_second_largest,
    code_transpose,
    code_running_total,
    code_invert,
    code_group_words,
    code_run_length,
    code_parse_pairs,
    code_sort_records,
    code_count_letters,
    code_word_frequency,
    code_stack_class,
    code_account_class,
    code_rectangle_class,
    code_counter_class,
    code_comprehension,
    code_fix_bug,
    code_leap_year,
    code_base_convert,
    code_dates,
    code_duration,
    code_mask,
    code_flatten,
    code_merge_dicts,
    code_statistics,
    code_title_case,
    code_files,
    code_anagram,
]

_VERIFIED: set[tuple[str, str, str]] = set()


def verify_code(task: CodeTask) -> None:
    """The answer must parse, and must pass its test when run."""
    key = (task.setup, task.code, task.test)
    if key in _VERIFIED:
        return
    ast.parse(task.code)
    stdout = io.StringIO()
    module = types.ModuleType("vendiscope_demo_check")
    module._stdout = stdout  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module  # dataclasses look their module up here
    try:
        with contextlib.redirect_stdout(stdout):
            for source in (task.setup, task.code, task.test):
                exec(source, module.__dict__)
    finally:
        del sys.modules[module.__name__]
    _VERIFIED.add(key)


def make_code(rng: random.Random, count: int) -> list[Pair]:
    turn = 0

    def draw(r: random.Random) -> Pair:
        nonlocal turn
        task = CODE_TEMPLATES[turn % len(CODE_TEMPLATES)](r)
        turn += 1
        verify_code(task)
        if task.note and task.prompt.startswith(("This", "What", "Fix")):
            response = f"{task.note}\n\n```python\n{task.code}\n```"
        elif task.note and r.random() < 0.5:
            response = f"```python\n{task.code}\n```\n\n{task.note}"
        else:
            response = f"```python\n{task.code}\n```"
        return task.prompt, response

    return collect(rng, count, draw)


# --------------------------------------------------------------------------------------------
# nli: premise / hypothesis -> label with a one-sentence explanation
# --------------------------------------------------------------------------------------------

Scene = tuple[str, dict[str, list[tuple[str, str]]]]


def person(rng: random.Random) -> tuple[str, dict[str, str]]:
    name, pronoun = rng.choice(PEOPLE)
    return name, PRONOUNS[pronoun]


def scene_market(rng: random.Random) -> Scene:
    name, p = person(rng)
    fruit = rng.choice(["apples", "pears", "plums", "peaches", "oranges", "apricots"])
    time = rng.choice(["early morning", "morning", "afternoon"])
    return f"{name} is selling {fruit} from a crowded market stall in the {time}.", {
        "entailment": [
            (
                "Someone is selling fruit.",
                f"{cap(fruit)} are fruit and {name} is selling them, so someone is selling fruit.",
            ),
            (
                "There are people at the market.",
                "The stall is crowded, so there are people at the market.",
            ),
        ],
        "contradiction": [
            (
                f"{name} is selling {fruit} at midnight.",
                f"The premise places the sale in the {time}, not at midnight.",
            ),
            (
                "The market is completely empty.",
                "The stall is described as crowded, so the market cannot be empty.",
            ),
        ],
        "neutral": [
            (
                f"{name} grew the {fruit} {p['himself']}.",
                f"The premise does not say where the {fruit} came from.",
            ),
            (
                f"{name} is selling the {fruit} at a discount.",
                "Nothing in the premise mentions prices.",
            ),
        ],
    }


def scene_beach(rng: random.Random) -> Scene:
    count = rng.choice(["Two", "Three", "Four"])
    adult = rng.choice(["father", "mother", "grandmother", "uncle", "aunt"])
    action = rng.choice(["reads a newspaper", "dozes under an umbrella", "reads a novel"])
    return (
        f"{count} children are building a sandcastle on the beach while their {adult} "
        f"{action} nearby.",
        {
            "entailment": [
                (
                    "Children are at the beach.",
                    "The children are building a sandcastle on the beach, so they are there.",
                ),
                (
                    "An adult is close to the children.",
                    f"The children's {adult} is nearby.",
                ),
            ],
            "contradiction": [
                (
                    "The children are sitting in a classroom.",
                    "They cannot be in a classroom while building a sandcastle on the beach.",
                ),
                (
                    "The children are alone on the beach.",
                    f"Their {adult} is nearby, so they are not alone.",
                ),
            ],
            "neutral": [
                (
                    "The sandcastle will be entered in a contest.",
                    "The premise says nothing about a contest.",
                ),
                (
                    "The family drove to the beach.",
                    "The premise does not say how they got to the beach.",
                ),
            ],
        },
    )


def scene_musician(rng: random.Random) -> Scene:
    player = rng.choice(["guitarist", "violinist", "accordionist", "saxophonist", "trumpeter"])
    place = rng.choice(["a street corner", "the steps of the town hall", "a busy square"])
    return f"A {player} plays on {place} as a small crowd gathers to listen.", {
        "entailment": [
            (
                "Music is being played in public.",
                f"A {player} performing on {place} is playing music in public.",
            ),
            (
                "Some people are listening to the musician.",
                "A crowd gathers to listen, so some people are listening.",
            ),
        ],
        "contradiction": [
            ("Nobody is listening to the musician.", "The premise says a crowd gathers to listen."),
            (
                f"The {player} is performing in an empty concert hall.",
                f"The musician is playing on {place} in front of a crowd, not in an empty hall.",
            ),
        ],
        "neutral": [
            (
                "The musician is playing for money.",
                "The premise does not say whether the musician is paid or collecting money.",
            ),
            (
                "The musician is a professional.",
                "Nothing in the premise shows whether the musician plays professionally.",
            ),
        ],
    }


def scene_kitchen(rng: random.Random) -> Scene:
    name, _ = person(rng)
    veg = rng.choice(["onions", "carrots", "leeks", "peppers", "mushrooms"])
    dish = rng.choice(["soup", "stew", "curry"])
    return (
        f"{name} is chopping {veg} in a small kitchen while a pot of {dish} simmers on the stove.",
        {
            "entailment": [
                (f"{name} is preparing food.", f"Chopping {veg} while {dish} cooks is cooking."),
                (
                    "The stove is on.",
                    f"A pot of {dish} is simmering on it, which needs the stove to be on.",
                ),
            ],
            "contradiction": [
                (
                    "The stove is switched off.",
                    f"The {dish} is simmering on the stove, so the stove cannot be off.",
                ),
                (
                    f"{name} is eating dinner at a restaurant table.",
                    f"{name} is busy chopping {veg} in a kitchen, not eating at a table.",
                ),
            ],
            "neutral": [
                (
                    f"The {dish} is for {name}'s family.",
                    f"The premise does not say who the {dish} is for.",
                ),
                (
                    f"{name} is a professional chef.",
                    f"Nothing says whether {name} cooks for a living.",
                ),
            ],
        },
    )


def scene_rain(rng: random.Random) -> Scene:
    place = rng.choice(["the city", "the old town", "the harbour district", "the market square"])
    how = rng.choice(["heavily", "steadily"])
    return f"Rain is falling {how} on {place}, and most people on the street carry umbrellas.", {
        "entailment": [
            ("It is raining.", "The premise states that rain is falling."),
            ("Some people have umbrellas.", "Most people on the street carry umbrellas."),
        ],
        "contradiction": [
            ("The streets are dry and sunny.", "It cannot be dry and sunny while rain is falling."),
            ("Nobody on the street has an umbrella.", "Most people on the street carry umbrellas."),
        ],
        "neutral": [
            (
                "The rain will stop within the hour.",
                "The premise says nothing about how long the rain will last.",
            ),
            (
                "The umbrellas were bought this morning.",
                "The premise gives no information about when the umbrellas were bought.",
            ),
        ],
    }


def scene_race(rng: random.Random) -> Scene:
    name, p = person(rng)
    place = rng.choice(["second", "third", "fifth", "eighth"])
    runners = rng.choice([12, 40, 85, 230])
    race = rng.choice(["5-kilometre", "10-kilometre", "cross-country"])
    return f"{name} finished the {race} race in {place} place out of {runners} runners.", {
        "entailment": [
            (f"{name} did not win the race.", f"Finishing {place} means someone else was first."),
            (
                f"{name} completed the race.",
                f"The premise says {name} finished in {place} place.",
            ),
        ],
        "contradiction": [
            (f"{name} won the race.", f"{name} finished {place}, not first."),
            (
                f"{name} dropped out before the finish.",
                f"{name} finished the race in {place} place.",
            ),
        ],
        "neutral": [
            (
                f"{name} set a personal best.",
                f"The premise does not mention {name}'s time or earlier results.",
            ),
            (
                f"{name} trained for months before the race.",
                f"The premise says nothing about {p['his']} training.",
            ),
        ],
    }


def scene_library(rng: random.Random) -> Scene:
    subject = rng.choice(["chemistry", "history", "French", "algebra"])
    return (
        f"A librarian is shelving returned books while a student studies {subject} at a nearby "
        "table.",
        {
            "entailment": [
                ("Someone is studying.", "A student is studying at a nearby table."),
                ("Books are being put on shelves.", "The librarian is shelving returned books."),
            ],
            "contradiction": [
                (
                    "The library is closed and empty.",
                    "A librarian and a student are inside, so it is not empty.",
                ),
                (
                    "The student is fast asleep at the table.",
                    f"The student is studying {subject}, not sleeping.",
                ),
            ],
            "neutral": [
                (
                    f"The student has a {subject} exam tomorrow.",
                    "The premise gives no reason for the studying.",
                ),
                (
                    "The librarian has worked there for many years.",
                    "Nothing is said about how long the librarian has worked there.",
                ),
            ],
        },
    )


def scene_dog(rng: random.Random) -> Scene:
    colour = rng.choice(["brown", "black", "spotted", "white", "golden"])
    park = rng.choice(["the park", "a wide green park", "the village green"])
    return f"A {colour} dog is chasing a ball across {park} as its owner watches from a bench.", {
        "entailment": [
            (
                "An animal is running outdoors.",
                f"A dog chasing a ball across {park} is an animal running outdoors.",
            ),
            ("The dog's owner is sitting down.", "The owner watches from a bench."),
        ],
        "contradiction": [
            (
                "The dog is asleep indoors.",
                f"The dog is chasing a ball across {park}, so it is neither asleep nor indoors.",
            ),
            (
                "The owner is chasing the ball across the grass.",
                "The owner is watching from a bench, not chasing the ball.",
            ),
        ],
        "neutral": [
            (
                "The ball was a birthday present.",
                "The premise does not say where the ball came from.",
            ),
            ("The dog is a puppy.", "The dog's age is not mentioned."),
        ],
    }


def scene_train(rng: random.Random) -> Scene:
    time = rng.choice(["7:15", "8:40", "17:05", "18:30"])
    city = rng.choice(TOWNS)
    minutes = rng.choice([15, 25, 40, 55])
    cause = rng.choice(["snow on the tracks", "a signal failure", "a fallen tree on the line"])
    return f"The {time} train to {city} was delayed by {minutes} minutes because of {cause}.", {
        "entailment": [
            (
                f"The train to {city} did not leave on time.",
                f"A {minutes}-minute delay means it was not on time.",
            ),
            (
                "Something caused a problem for the train.",
                f"The premise says the delay was caused by {cause}.",
            ),
        ],
        "contradiction": [
            (
                f"The {time} train to {city} ran exactly on schedule.",
                f"The train was delayed by {minutes} minutes.",
            ),
            (
                "The delay lasted more than two hours.",
                f"The delay was {minutes} minutes, far less than two hours.",
            ),
        ],
        "neutral": [
            (
                "Passengers complained about the delay.",
                "The premise does not say how passengers reacted.",
            ),
            ("The train was crowded.", "Nothing is said about how many people were on board."),
        ],
    }


def scene_painter(rng: random.Random) -> Scene:
    name, p = person(rng)
    medium = rng.choice(["oils", "watercolour", "acrylics"])
    return f"{name} is painting a portrait of {p['his']} grandmother in {medium}.", {
        "entailment": [
            (f"{name} is making a picture of a person.", "A portrait is a picture of a person."),
            (f"{name} is using paint.", f"Painting in {medium} means using paint."),
        ],
        "contradiction": [
            (
                f"{name} is painting a mountain landscape.",
                f"{name} is painting a portrait of {p['his']} grandmother, not a landscape.",
            ),
            (f"{name} is carving a statue.", f"{name} is painting, not carving."),
        ],
        "neutral": [
            (
                f"The portrait is a birthday gift for {p['his']} grandmother.",
                "The premise does not say why the portrait is being painted.",
            ),
            (
                f"{name}'s grandmother is sitting for the portrait.",
                "The premise does not say whether she is present or painted from a photograph.",
            ),
        ],
    }


def scene_committee(rng: random.Random) -> Scene:
    yes, no = rng.choice([(5, 2), (7, 4), (6, 1), (9, 3), (4, 3)])
    item = rng.choice(
        ["park budget", "library expansion", "new bus route", "school lunch programme"]
    )
    return f"The committee voted {yes} to {no} to approve the {item}.", {
        "entailment": [
            (f"The {item} was approved.", "The committee voted to approve it."),
            (
                "Most committee members who voted supported the proposal.",
                f"{yes} votes in favour outnumber {no} against.",
            ),
        ],
        "contradiction": [
            (
                f"The committee rejected the {item}.",
                f"The committee voted {yes} to {no} to approve it.",
            ),
            ("The vote was unanimous.", f"{no} members voted against, so it was not unanimous."),
        ],
        "neutral": [
            (
                f"The {item} will take effect next month.",
                "The premise does not say when the decision takes effect.",
            ),
            (
                "The meeting lasted several hours.",
                "Nothing is said about the length of the meeting.",
            ),
        ],
    }


def scene_bakery(rng: random.Random) -> Scene:
    street = rng.choice(["Elm", "Market", "Harbour", "Church", "Station"])
    cause = rng.choice(["its oven broke", "a water pipe burst", "the power went out"])
    return f"The bakery on {street} Street closed early today because {cause}.", {
        "entailment": [
            (
                f"The bakery on {street} Street was not open all day.",
                "The bakery closed early today.",
            ),
            (
                "The bakery had a problem today.",
                f"The premise says {cause}, which forced it to close early.",
            ),
        ],
        "contradiction": [
            (
                f"The bakery on {street} Street stayed open late today.",
                "The bakery closed early today, not late.",
            ),
            (
                "The bakery kept its normal hours today.",
                "It closed early, so its hours were not normal.",
            ),
        ],
        "neutral": [
            ("The bakery will reopen tomorrow.", "The premise says nothing about when it reopens."),
            (
                "Customers were disappointed by the closure.",
                "The premise does not describe how customers reacted.",
            ),
        ],
    }


def scene_cyclist(rng: random.Random) -> Scene:
    colour = rng.choice(["red", "yellow", "green", "blue", "orange"])
    return f"A cyclist in a {colour} jacket is riding uphill against a strong wind.", {
        "entailment": [
            ("A person is riding a bicycle.", "A cyclist who is riding is a person on a bicycle."),
            ("It is windy.", "The cyclist is riding against a strong wind."),
        ],
        "contradiction": [
            ("The cyclist is coasting downhill.", "The cyclist is riding uphill, not downhill."),
            ("The air is completely still.", "There is a strong wind, so the air is not still."),
        ],
        "neutral": [
            ("The cyclist is training for a race.", "The premise gives no reason for the ride."),
            ("The cyclist is on the way to work.", "The premise does not mention a destination."),
        ],
    }


def scene_pier(rng: random.Random) -> Scene:
    count = rng.choice(["two", "three", "four", "five", "six"])
    return (
        f"An old man sits on the pier with a fishing rod, and the bucket beside him holds "
        f"{count} fish.",
        {
            "entailment": [
                ("There are fish in the bucket.", f"The bucket holds {count} fish."),
                ("A man is on the pier.", "An old man sits on the pier."),
            ],
            "contradiction": [
                (
                    "The bucket beside the man is empty.",
                    f"The bucket holds {count} fish, so it is not empty.",
                ),
                (
                    "The man is standing on the beach.",
                    "He is sitting on the pier, not standing on the beach.",
                ),
            ],
            "neutral": [
                (
                    "The man sells the fish he catches.",
                    "The premise does not say what happens to the fish.",
                ),
                ("The man fishes there every day.", "Nothing is said about how often he fishes."),
            ],
        },
    )


def scene_concert(rng: random.Random) -> Scene:
    venue = rng.choice(["Grand Hall", "Riverside Arena", "Old Corn Exchange", "Opera House"])
    minutes = rng.choice([10, 20, 45])
    day = rng.choice(["Saturday", "Friday"])
    return f"Every ticket for {day}'s concert at the {venue} sold out within {minutes} minutes.", {
        "entailment": [
            (f"No tickets remain for {day}'s concert.", "Every ticket has sold out."),
            (
                "Tickets for the concert sold quickly.",
                f"All of them sold within {minutes} minutes.",
            ),
        ],
        "contradiction": [
            (f"Tickets for {day}'s concert are still available.", "Every ticket has sold out."),
            (
                f"It took a week to sell the tickets for {day}'s concert.",
                f"They sold out within {minutes} minutes.",
            ),
        ],
        "neutral": [
            (
                "The concert will be broadcast on the radio.",
                "The premise says nothing about a broadcast.",
            ),
            ("The performers are famous.", "The premise does not say who is performing."),
        ],
    }


NLI_SCENES = [
    scene_market,
    scene_beach,
    scene_musician,
    scene_kitchen,
    scene_rain,
    scene_race,
    scene_library,
    scene_dog,
    scene_train,
    scene_painter,
    scene_committee,
    scene_bakery,
    scene_cyclist,
    scene_pier,
    scene_concert,
]
NLI_LABELS = ["entailment", "neutral", "contradiction"]


def nli_prompt(rng: random.Random, premise: str, hypothesis: str) -> str:
    form = rng.randrange(4)
    if form == 0:
        return (
            f"Premise: {premise}\nHypothesis: {hypothesis}\nDoes the premise entail the "
            "hypothesis? Answer with entailment, neutral, or contradiction, and explain briefly."
        )
    if form == 1:
        return (
            f'Given the premise "{premise}", is the hypothesis "{hypothesis}" an entailment, a '
            "contradiction, or neutral? Explain in one sentence."
        )
    if form == 2:
        return (
            "Classify the relationship between the two sentences as entailment, neutral, or "
            f"contradiction.\nSentence A: {premise}\nSentence B: {hypothesis}"
        )
    return (
        "Read the premise and decide whether the hypothesis follows from it (entailment), "
        "conflicts with it (contradiction), or neither (neutral).\n\n"
        f"Premise: {premise}\nHypothesis: {hypothesis}"
    )


def make_nli(rng: random.Random, count: int) -> list[Pair]:
    turn = 0

    def draw(r: random.Random) -> Pair:
        nonlocal turn
        label = NLI_LABELS[turn % 3]
        turn += 1
        premise, options = r.choice(NLI_SCENES)(r)
        hypothesis, explanation = r.choice(options[label])
        return nli_prompt(r, premise, hypothesis), f"{cap(label)}. {explanation}"

    return collect(rng, count, draw)


# --------------------------------------------------------------------------------------------
# trivia: questions about one consistent fictional world
# --------------------------------------------------------------------------------------------

COUNTRIES = [  # name, capital, language, currency, best-known export
    ("Veloria", "Dunmarch", "Velorian", "the crown", "saffron"),
    ("Kastrenne", "Ostrel", "Kastric", "the kestrel", "copper wire"),
    ("Ombralia", "Caldervey", "Ombrali", "the ombral mark", "blue slate"),
    ("Duneholt", "Sarrowgate", "Holtish", "the sand shilling", "glassware"),
    ("Marovia", "Port Amarin", "Marovian", "the marovin", "salted cod"),
    ("Selkirra", "Tirlow", "Selkish", "the pearl", "silk rope"),
    ("Thessmark", "Hessaby", "Thessic", "the florin", "timber"),
    ("Ardun", "Kellick", "Ardunese", "the ardunel", "cast-iron bells"),
    ("Quillane", "Varrow", "Quillish", "the quill", "fine paper"),
    ("Brevossa", "Belmaris", "Brevossan", "the brev", "olive oil"),
    ("Halvenmoor", "Orlan", "Halven", "the moor penny", "wool"),
    ("Estrival", "Quessa", "Estrivan", "the estra", "clockwork toys"),
    ("Corvanne", "Lisbrook", "Corvannic", "the raven crown", "black tea"),
    ("Pellamar", "Seahallow", "Pellan", "the pell", "sea salt"),
    ("Vintresse", "Aubergate", "Vintrine", "the vine sovereign", "sparkling wine"),
]
RIVERS = [
    "Silvermere",
    "Orrin",
    "Taleth",
    "Brask",
    "Ammerlin",
    "Vell",
    "Cordwain",
    "Ysk",
    "Halloway",
    "Dremm",
    "Lisk",
    "Pellow",
    "Saffrin",
    "Morrow",
    "Quen",
    "Eldwater",
]
SEAS = ["the Glass Sea", "the Amber Gulf", "the Sea of Tallis", "the Northern Reach", "Hollin Bay"]
MOUNTAINS = [
    "Mount Ceyl",
    "Mount Oraven",
    "Harrow Peak",
    "Mount Tessing",
    "Widow's Crag",
    "Mount Vossen",
    "Starfall Peak",
    "Mount Ilde",
    "Anvil Peak",
    "Mount Peregrine",
    "Kettle Crag",
    "Mount Sorrel",
]
INVENTORS = [
    ("Oswin Harrick", "the tide clock"),
    ("Mirela Dastov", "the folding loom"),
    ("Caspar Ileth", "the lantern telegraph"),
    ("Junia Brevard", "the wind sled"),
    ("Teodor Vasque", "the pressure kettle"),
    ("Alba Kestrin", "the spiral press"),
    ("Rufus Ambergast", "the mirror compass"),
    ("Nadira Sollen", "the salt battery"),
    ("Piet Orlanne", "the steam dredge"),
    ("Henrike Valde", "the cog abacus"),
    ("Emeric Thorn", "the paper lens"),
    ("Saoirse Quill", "the rope lift"),
    ("Bastian Lerche", "the cloudglass barometer"),
    ("Ottilie Fenn", "the reed typewriter"),
    ("Ivo Castellane", "the copper diving bell"),
    ("Maren Holt", "the seed spinner"),
    ("Lucan Drey", "the ice-cellar pump"),
    ("Agathe Sorel", "the night kite"),
    ("Tamsin Arlo", "the harmonic bridge"),
    ("Yusuf Benedek", "the sun ledger"),
]
TRIVIA_PREFIXES = ["", "", "", "", "Quick question: ", "Trivia: ", "Answer in one sentence: "]


def make_trivia(rng: random.Random, count: int) -> list[Pair]:
    def spread(keys: list[str], values: range) -> dict[str, int]:
        return dict(zip(keys, rng.sample(values, len(keys)), strict=True))

    founded = spread([c[0] for c in COUNTRIES], range(900, 1850))
    capital_of = {c[0]: c[1] for c in COUNTRIES}
    lengths = spread(RIVERS, range(180, 2600, 10))
    river_source = {r: rng.choice(COUNTRIES)[0] for r in RIVERS}
    river_sea = {r: rng.choice(SEAS) for r in RIVERS}
    heights = spread(MOUNTAINS, range(1200, 6900))
    mountain_country = {m: rng.choice(COUNTRIES)[0] for m in MOUNTAINS}
    invented = spread([i[1] for i in INVENTORS], range(1600, 1921))
    birthplace = {i[0]: rng.choice(COUNTRIES)[0] for i in INVENTORS}

    candidates: list[Pair] = []

    def ask(questions: list[str], answer: str) -> None:
        candidates.append((rng.choice(questions), answer))

    for country, capital, language, currency, export in COUNTRIES:
        ask(
            [
                f"What is the capital of {country}?",
                f"Which city is the capital of {country}?",
                f"Name the capital city of {country}.",
            ],
            f"The capital of {country} is {capital}.",
        )
        ask(
            [
                f"{capital} is the capital of which country?",
                f"Which country has {capital} as its capital?",
            ],
            f"{capital} is the capital of {country}.",
        )
        ask(
            [
                f"What language is mainly spoken in {country}?",
                f"Which language do most people in {country} speak?",
            ],
            f"Most people in {country} speak {language}.",
        )
        ask(
            [f"What is the currency of {country}?", f"Which currency is used in {country}?"],
            f"{country} uses {currency} as its currency.",
        )
        ask(
            [
                f"What is {country}'s best-known export?",
                f"Which product is {country} most famous for exporting?",
            ],
            f"{country} is best known for exporting {export}.",
        )
        ask(
            [f"In what year was {country} founded?", f"When was {country} founded?"],
            f"{country} was founded in {founded[country]}.",
        )
    for river in RIVERS:
        ask(
            [f"How long is the {river}?", f"What is the length of the {river} river?"],
            f"The {river} is {lengths[river]:,} kilometres long.",
        )
        ask(
            [
                f"In which country does the {river} rise?",
                f"Where does the {river} have its source?",
            ],
            f"The {river} rises in {river_source[river]}.",
        )
        ask(
            [f"Into which sea does the {river} flow?", f"Where does the {river} reach the sea?"],
            f"The {river} flows into {river_sea[river]}.",
        )
    for mountain in MOUNTAINS:
        ask(
            [f"How tall is {mountain}?", f"What is the height of {mountain}?"],
            f"{mountain} is {heights[mountain]:,} metres tall.",
        )
        ask(
            [f"In which country is {mountain}?", f"{mountain} is located in which country?"],
            f"{mountain} is in {mountain_country[mountain]}.",
        )
    for name, invention in INVENTORS:
        country = birthplace[name]
        ask(
            [f"Who invented {invention}?", f"Who is credited with inventing {invention}?"],
            f"{cap(invention)} was invented by {name} in {invented[invention]}.",
        )
        ask(
            [f"In what year did {name} invent {invention}?", f"When was {invention} invented?"],
            f"{name} invented {invention} in {invented[invention]}.",
        )
        if rng.random() < 0.5:
            candidates.append(
                (
                    f"In which country was the inventor of {invention} born?",
                    f"{cap(invention)} was invented by {name}, who was born in "
                    f"{capital_of[country]}, the capital of {country}.",
                )
            )
        else:
            candidates.append(
                (
                    f"Where was {name} born?",
                    f"{name} was born in {capital_of[country]}, the capital of {country}.",
                )
            )

    def pairs_of(items: list[str], how_many: int) -> list[tuple[str, str]]:
        all_pairs = [(a, b) for i, a in enumerate(items) for b in items[i + 1 :]]
        chosen = rng.sample(all_pairs, how_many)
        return [(a, b) if rng.random() < 0.5 else (b, a) for a, b in chosen]

    for a, b in pairs_of(RIVERS, 16):
        long_, short = (a, b) if lengths[a] > lengths[b] else (b, a)
        candidates.append(
            (
                f"Which is longer, the {a} or the {b}?",
                f"The {long_} is longer: it runs {lengths[long_]:,} kilometres, compared with "
                f"{lengths[short]:,} kilometres for the {short}.",
            )
        )
    for a, b in pairs_of(MOUNTAINS, 12):
        tall, low = (a, b) if heights[a] > heights[b] else (b, a)
        candidates.append(
            (
                f"Which is taller, {a} or {b}?",
                f"{tall} is taller, at {heights[tall]:,} metres against {heights[low]:,} metres "
                f"for {low}.",
            )
        )
    for a, b in pairs_of([c[0] for c in COUNTRIES], 12):
        old, young = (a, b) if founded[a] < founded[b] else (b, a)
        candidates.append(
            (
                f"Which country was founded first, {a} or {b}?",
                f"{old} was founded first, in {founded[old]}; {young} followed in "
                f"{founded[young]}.",
            )
        )
    for a, b in pairs_of([i[1] for i in INVENTORS], 12):
        early, late = (a, b) if invented[a] < invented[b] else (b, a)
        gap = invented[late] - invented[early]
        candidates.append(
            (
                f"How many years passed between the invention of {a} and the invention of {b}?",
                f"{cap(early)} was invented in {invented[early]} and {late} in {invented[late]}, "
                f"so {gap} years passed between them.",
            )
        )

    chosen = rng.sample(candidates, count)
    return [(rng.choice(TRIVIA_PREFIXES) + prompt, response) for prompt, response in chosen]


# --------------------------------------------------------------------------------------------
# summarization: a short news-style paragraph -> a one-sentence summary
# --------------------------------------------------------------------------------------------


def full_name(rng: random.Random) -> tuple[str, str, dict[str, str]]:
    first, pronoun = rng.choice(PEOPLE)
    return first, rng.choice(SURNAMES), PRONOUNS[pronoun]


def story_council(rng: random.Random) -> Pair:
    town = rng.choice(TOWNS)
    action, problem = rng.choice(
        [
            ("repair the footbridge over the river", "rotting planks on the old bridge"),
            ("install streetlights along Mill Road", "dark and unsafe walks home at night"),
            ("build a new playground behind the primary school", "unsafe old play equipment"),
            ("keep the library open until eight in the evening", "the library closing too early"),
            ("replace the water pipes under the high street", "frequent leaks and low pressure"),
            ("paint a protected cycle lane on the high street", "near-misses with cars"),
        ]
    )
    cost = rng.choice([45, 80, 120, 250, 600]) * 1000
    first, surname, _ = full_name(rng)
    quote = rng.choice(
        [
            f"Councillor {first} {surname} said the change was long overdue and thanked the "
            "volunteers who had collected signatures.",
            f"Councillor {first} {surname}, who backed the plan, said it showed the council was "
            "listening to residents.",
        ]
    )
    month = rng.choice(MONTHS)
    paragraph = (
        f"The {town} town council voted on {rng.choice(WEEKDAYS)} to {action}. The plan, which "
        f"will cost about {cost:,} dollars, was proposed after residents complained about "
        f"{problem}. {quote} Work is expected to begin in {month}."
    )
    summary = (
        f"{town}'s council approved {a_or_an(cost)} {cost:,}-dollar plan to {action} after complaints about "
        f"{problem}, with work due to start in {month}."
    )
    return paragraph, summary


def story_research(rng: random.Random) -> Pair:
    subjects, finding, caveat = rng.choice(
        [
            (
                "honeybee hives",
                "bees visit blue flowers more often than yellow ones on cloudy days",
                "the effect was small and may not hold in warmer climates",
            ),
            (
                "adult volunteers",
                "a twenty-minute walk after dinner was linked to better sleep",
                "the study shows a link rather than proof of cause",
            ),
            (
                "primary school pupils",
                "children who read aloud at home each week improved their spelling faster",
                "families who read together may differ in other ways",
            ),
            (
                "city parks",
                "parks with more tree cover were up to four degrees cooler on summer afternoons",
                "the measurements came from a single, unusually hot summer",
            ),
            (
                "dairy herds",
                "cows that heard slow music in the milking shed produced slightly more milk",
                "the increase was too small to matter for most farms",
            ),
            (
                "office workers",
                "people who sat near windows took fewer sick days",
                "all the offices studied belonged to one company",
            ),
        ]
    )
    university = rng.choice(
        [
            "the University of Northfield",
            "Halden University",
            "the Carrow Institute",
            "Westmere College",
        ]
    )
    journal = rng.choice(
        [
            "the Northern Journal of Science",
            "Field Studies Quarterly",
            "the Review of Everyday Health",
        ]
    )
    n, years = rng.choice([120, 340, 800, 1200, 2500, 4100]), rng.randint(2, 9)
    _, surname, _ = full_name(rng)
    paragraph = (
        f"Researchers at {university} have found that {finding}. The team followed {n:,} "
        f"{subjects} over {years} years. Lead author Dr {surname} cautioned that {caveat}. The "
        f"results were published this week in {journal}."
    )
    summary = (
        f"{cap(a_or_an(years))} {years}-year study of {n:,} {subjects} by researchers at {university} found that "
        f"{finding}, although the authors caution that {caveat}."
    )
    return paragraph, summary


def story_product(rng: random.Random) -> Pair:
    company = rng.choice(["Lumen Devices", "Northpeak", "Orbitel", "Kestrel Labs", "Brightwater"])
    product, kind, pro, con = rng.choice(
        [
            ("the Aria 2", "pair of wireless earbuds", "long battery life", "bulky charging case"),
            ("the Trek S", "rugged smartwatch for hikers", "accurate GPS", "small screen"),
            ("the Folio X", "foldable e-reader", "sharp display", "fragile hinge"),
            ("the Nimbus", "home weather station", "easy setup", "unreliable app"),
            ("the Pace One", "folding electric scooter", "smooth ride", "short range"),
            ("the Snapbox", "instant camera", "retro design", "expensive film"),
        ]
    )
    price = rng.choice([49, 129, 199, 349, 499])
    countries = rng.choice([5, 12, 20, 31])
    ending = rng.choice(
        [
            "The company hopes to sell a million units by the end of the year.",
            "Analysts expect strong sales during the holiday season.",
            "A cheaper version is planned for next spring.",
        ]
    )
    paragraph = (
        f"{company} has released {product}, a {kind}. It costs {price} dollars and goes on sale "
        f"in {countries} countries next month. Early reviewers praised its {pro} but criticised "
        f"its {con}. {ending}"
    )
    summary = (
        f"{company} has launched {product}, {a_or_an(price)} {price}-dollar {kind} that reviewers praised for "
        f"its {pro} but criticised for its {con}."
    )
    return paragraph, summary


def story_match(rng: random.Random) -> Pair:
    home, away = rng.sample(
        ["Harbour City", "Northfield Rovers", "Ashby Athletic", "Carrow United", "Fenwick Town"], 2
    )
    scored = rng.randint(2, 5)
    conceded = rng.randint(0, scored - 1)
    goals = rng.randint(2, scored)
    first, surname, _ = full_name(rng)
    position = rng.choice(["second", "third", "fourth", "fifth"])
    paragraph = (
        f"{home} beat {away} {scored}-{conceded} on {rng.choice(WEEKDAYS)} evening. "
        f"{first} {surname} scored {NUMBER_WORDS[goals]} of the goals, including one in the "
        f"final minutes. The result lifts {home} to {position} place in the league. {away}'s "
        "coach said the team would learn from the defeat."
    )
    summary = (
        f"{home} beat {away} {scored}-{conceded}, with {first} {surname} scoring "
        f"{NUMBER_WORDS[goals]} goals, to move up to {position} place in the league."
    )
    return paragraph, summary


def story_storm(rng: random.Random) -> Pair:
    region = rng.choice(
        ["the northern valleys", "the coastal towns", "the eastern hills", "the lake district"]
    )
    if rng.random() < 0.5:
        amount, unit, kind = rng.randint(15, 60), "centimetres", "snow"
        outlook = rng.choice(["milder weather", "clear skies", "a thaw"])
    else:
        amount, unit, kind = rng.randint(40, 120), "millimetres", "rain"
        outlook = rng.choice(["milder weather", "clear skies", "lighter showers"])
    schools = rng.randint(12, 80)
    day = rng.choice(WEEKDAYS)
    paragraph = (
        f"A storm brought {amount} {unit} of {kind} to {region} overnight. Several roads were "
        f"closed, and {schools} schools cancelled classes for the day. Forecasters expect "
        f"{outlook} by {day}. Officials urged residents to avoid unnecessary travel until then."
    )
    summary = (
        f"An overnight storm brought {amount} {unit} of {kind} to {region}, closing roads and "
        f"{schools} schools, with {outlook} expected by {day}."
    )
    return paragraph, summary


def story_museum(rng: random.Random) -> Pair:
    museum = rng.choice(
        ["City Museum", "Harbour Maritime Museum", "Carrow Gallery", "Museum of Everyday Life"]
    )
    things = rng.choice(
        ["hand-drawn maps", "ship models", "protest posters", "early photographs", "folk costumes"]
    )
    n, years = rng.randint(120, 900), rng.randint(2, 10)
    date = rng.choice(["1 March", "14 June", "12 September", "the first weekend of October"])
    first, surname, _ = full_name(rng)
    paragraph = (
        f"The {museum} will open an exhibition of {things} on {date}. The collection includes "
        f"more than {n} items, many of which have never been shown in public. Curator {first} "
        f"{surname} spent {years} years tracking down the pieces from private owners. Entry will "
        "be free for children under twelve."
    )
    summary = (
        f"The {museum} will open an exhibition of more than {n} {things}, many never shown in "
        f"public before, on {date}."
    )
    return paragraph, summary


def story_wildlife(rng: random.Random) -> Pair:
    birds = rng.choice(
        ["avocets", "great crested grebes", "bitterns", "kingfishers", "marsh harriers"]
    )
    lake = rng.choice(["Lake Tarrow", "Fen Water", "Millmere", "the Hollins reservoir"])
    before = rng.randint(10, 60)
    after = before + rng.randint(8, 70)
    reason = rng.choice(
        [
            "a ban on boats during the nesting season",
            "the restoration of the reed beds",
            "cleaner water since a new treatment plant opened",
            "fewer dogs running loose along the shore",
        ]
    )
    paragraph = (
        f"Volunteers counted {after} {birds} at {lake} this spring, up from {before} last year. "
        f"Local experts credit the increase to {reason}. Most of the birds nest in the reeds "
        "along the eastern shore. A guided walk to see them is planned for next weekend."
    )
    summary = (
        f"The number of {birds} at {lake} rose from {before} to {after} this spring, which "
        f"experts credit to {reason}."
    )
    return paragraph, summary


def story_business(rng: random.Random) -> Pair:
    first, surname, p = full_name(rng)
    shop = rng.choice(
        ["bicycle repair shop", "bakery", "second-hand bookshop", "coffee cart", "plant nursery"]
    )
    street = rng.choice(["Elm", "Market", "Harbour", "Church", "Station", "Quarry"])
    years, start = rng.randint(3, 12), rng.randint(5, 20)
    now, staff = rng.randint(80, 400), rng.randint(3, 15)
    reason = rng.choice(
        [
            "word of mouth",
            "reliable opening hours",
            "a loyal group of regular customers",
            "listening closely to what customers ask for",
        ]
    )
    town = rng.choice(TOWNS)
    paragraph = (
        f"{first} {surname} opened a {shop} on {street} Street {years} years ago with just "
        f"{start} customers a day. Today it serves more than {now} people daily and employs "
        f"{staff} staff. {first} credits {reason} for the growth. Next year {p['he']} plans to "
        f"open a second location in {town}."
    )
    summary = (
        f"{first} {surname}'s {shop} has grown from {start} to more than {now} customers a day "
        f"in {years} years, and a second location will open in {town} next year."
    )
    return paragraph, summary


def story_metro(rng: random.Random) -> Pair:
    city = rng.choice(CITIES)
    line = rng.choice(["red", "blue", "green", "yellow", "orange"])
    stations, year = rng.randint(3, 9), rng.randint(2027, 2034)
    district = rng.choice(["Riverside", "Old Docks", "Hillcrest", "Southgate", "Meadowbank"])
    months, percent = rng.randint(4, 18), rng.randint(10, 35)
    paragraph = (
        f"{city} will add {stations} new stations to its {line} metro line by {year}. The "
        f"extension is meant to serve the fast-growing {district} district, which has no rail "
        f"link today. Construction will close some streets for up to {months} months. City "
        f"officials say the project should cut commute times by about {percent} percent."
    )
    summary = (
        f"{city} will extend its {line} metro line with {stations} new stations by {year} to "
        f"serve the {district} district, aiming to cut commutes by about {percent} percent."
    )
    return paragraph, summary


def story_science_fair(rng: random.Random) -> Pair:
    school = rng.choice(
        ["Ashby High School", "Millbrook Academy", "St Clement's School", "Fenwick Grammar"]
    )
    project = rng.choice(
        [
            "a solar-powered water purifier",
            "a robot that sorts recycling",
            "a low-cost earthquake alarm",
            "a phone app that identifies bird songs",
            "a wind turbine made from bicycle parts",
        ]
    )
    months, students = rng.randint(3, 9), rng.randint(3, 6)
    city = rng.choice(CITIES)
    _, surname, p = full_name(rng)
    title = "Ms" if p["he"] == "she" else "Mr"
    paragraph = (
        f"Students at {school} won first prize at the regional science fair for {project}. The "
        f"project took {months} months to build and used mostly recycled parts. The team of "
        f"{students} students will now compete at the national final in {city}. Their teacher, "
        f"{title} {surname}, said {p['he']} had never seen a group work so hard."
    )
    summary = (
        f"A team of {students} students from {school} won the regional science fair with "
        f"{project} and will compete at the national final in {city}."
    )
    return paragraph, summary


STORIES = [
    story_council,
    story_research,
    story_product,
    story_match,
    story_storm,
    story_museum,
    story_wildlife,
    story_business,
    story_metro,
    story_science_fair,
]


def make_summarization(rng: random.Random, count: int) -> list[Pair]:
    turn = 0

    def draw(r: random.Random) -> Pair:
        nonlocal turn
        paragraph, summary = STORIES[turn % len(STORIES)](r)
        turn += 1
        form = r.randrange(4)
        if form == 0:
            prompt = f"Summarize the following paragraph in one sentence.\n\n{paragraph}"
        elif form == 1:
            prompt = f"Write a one-sentence summary of this text:\n\n{paragraph}"
        elif form == 2:
            prompt = f"{paragraph}\n\nSummarize the text above in a single sentence."
        else:
            prompt = f"TL;DR in one sentence:\n\n{paragraph}"
        return prompt, summary

    return collect(rng, count, draw)


# --------------------------------------------------------------------------------------------
# poetry: the thin family -- one 5-7-5 haiku per topic
# --------------------------------------------------------------------------------------------

HAIKU = [
    ("autumn leaves", "Red maple letters\ndrift down to the quiet lane\nno one reads them twice"),
    (
        "the sea at night",
        "Dark water breathing\nthe moon lays a silver road\nthat no boat can walk",
    ),
    (
        "a city morning",
        "Shutters clatter up\nthe smell of bread finds the street\nbuses yawn and go",
    ),
    (
        "first snow",
        "First snow on the fence\nthe dog stops to taste the world\nthen runs in circles",
    ),
    ("an old library", "Dust in the lamplight\na thousand voices waiting\nfor one hand to turn"),
    (
        "a thunderstorm",
        "The sky clears its throat\nrain drums on the tin rooftops\nthe cat hides and waits",
    ),
    (
        "a cup of tea",
        "Steam curls from the cup\nthe afternoon slows its pace\nleaves settle like thoughts",
    ),
    (
        "a mountain trail",
        "Stones underfoot shift\nthe summit hides in the clouds\none more bend, one more",
    ),
    (
        "a garden spider",
        "Silk between two stems\nmorning dew strung like glass beads\nthe weaver sits still",
    ),
    (
        "a train station",
        "Footsteps and farewells\nthe clock above the platform\ncounts each last embrace",
    ),
    ("the desert", "Sand in endless folds\na lizard writes its short name\nthe wind erases"),
    (
        "a lighthouse",
        "One eye sweeps the dark\nships it will never meet sail\nsafely past the rocks",
    ),
    (
        "spring rain",
        "Soft rain on new leaves\nthe garden drinks without sound\nworms rise to listen",
    ),
    ("a sleeping cat", "Curled in a sunbeam\nthe cat dreams of distant birds\none ear still awake"),
    (
        "a river at dawn",
        "Mist lifts from the bend\na heron holds its stillness\nthe current moves on",
    ),
    (
        "an empty classroom",
        "Chalk dust in the light\ntwenty chairs pushed in their rows\nthe clock keeps teaching",
    ),
    (
        "the harvest moon",
        "Orange moon rising\nover fields of cut barley\nthe owls start their rounds",
    ),
    ("a bicycle ride", "Wheels hum on the road\nthe hill behind me, the wind\npushing at my back"),
    (
        "a winter night",
        "Frost on the window\nthe stove ticks as it cools down\nstars sharp as needles",
    ),
    ("a fishing boat", "Nets heavy with dawn\ngulls argue above the deck\nthe engine coughs home"),
    (
        "a forgotten letter",
        "Found inside a coat\nthe ink has faded to brown\nyet the words still warm",
    ),
    (
        "the first day of summer",
        "Long light at the door\nchildren chase the ice cream van\nnight forgets to fall",
    ),
    ("a candle", "A small flame leaning\ninto the draft from the door\nshadows learn to dance"),
    (
        "an old bridge",
        "Stone arch over stream\na hundred years of footsteps\nmoss keeps the record",
    ),
    ("a crow", "Black coat in the snow\nthe crow reads the empty field\nand laughs at the wind"),
    ("a kite", "Paper bird on string\nthe child runs and the sky pulls\nboth of them flying"),
    (
        "a market at dusk",
        "Lanterns flicker on\nvendors shout their last prices\nplums sold by the hand",
    ),
    ("a clock", "Tick after tick falls\nlike water into a well\nno one hears the splash"),
    (
        "the ocean tide",
        "The tide goes out far\nleaving shells like small letters\nthen comes back to read",
    ),
    ("a beehive", "The hive hums all day\na thousand wings stitch the air\ninto sweet gold thread"),
]
POETRY_PROMPTS = [
    "Write a haiku about {topic}.",
    "Compose a haiku about {topic}.",
    "Could you write me a haiku about {topic}?",
    "Write a short haiku (5-7-5 syllables) about {topic}.",
]


def make_poetry(rng: random.Random, count: int) -> list[Pair]:
    if count > len(HAIKU):
        raise ValueError(f"only {len(HAIKU)} haiku are written out")
    chosen = rng.sample(HAIKU, count)
    return [(rng.choice(POETRY_PROMPTS).format(topic=t), poem) for t, poem in chosen]


FAMILIES: dict[str, Callable[[random.Random, int], list[Pair]]] = {
    "arithmetic": make_arithmetic,
    "code": make_code,
    "nli": make_nli,
    "trivia": make_trivia,
    "summarization": make_summarization,
    "poetry": make_poetry,
}


# --------------------------------------------------------------------------------------------
# planted duplicates
# --------------------------------------------------------------------------------------------

IMPERATIVES = (
    "Write",
    "Compose",
    "Create",
    "Implement",
    "Summarize",
    "Classify",
    "Read",
    "Rewrite",
    "Turn",
    "Fix",
    "Name",
    "Answer",
)
SYNONYMS = {
    "arithmetic": [
        ("buys", "purchases"),
        ("spent", "paid"),
        ("travels", "goes"),
        ("have left", "have remaining"),
        ("kilometres per hour", "km/h"),
    ],
    "code": [
        ("Write", "Create"),
        ("Implement", "Write"),
        ("Create", "Write"),
        ("returns", "gives back"),
        ("a list of", "a Python list of"),
    ],
    "nli": [
        ("explain briefly", "explain concisely"),
        ("Explain in one sentence", "Justify in one sentence"),
        ("Classify", "Label"),
        ("decide", "determine"),
        ("relationship", "relation"),
    ],
    "trivia": [
        ("Which", "What"),
        ("What is", "What's"),
        ("invented", "came up with"),
        ("inventing", "coming up with"),
        ("country", "nation"),
    ],
    "summarization": [
        ("Summarize", "Sum up"),
        ("paragraph", "passage"),
        ("one-sentence", "single-sentence"),
        ("text", "article"),
    ],
    "poetry": [
        ("Write", "Compose"),
        ("Compose", "Write"),
        ("about", "on"),
        ("Could you", "Can you"),
    ],
}


def edit_please(rng: random.Random, domain: str, prompt: str) -> str | None:
    if prompt.startswith(IMPERATIVES):
        return "Please " + prompt[0].lower() + prompt[1:]
    if domain == "arithmetic":
        return prompt + " Please show your work."
    if domain == "trivia" and prompt.endswith("?") and ": " not in prompt:
        return "Please answer: " + prompt
    return None


def edit_punctuation(rng: random.Random, domain: str, prompt: str) -> str | None:
    first, newline, rest = prompt.partition("\n")
    options = []
    if first.endswith((".", "?", ":")):
        options.append(first[:-1])
    if ", " in first:
        options.append(first.replace(", ", " ", 1))
    if first.endswith("?"):
        options.append(first + "?")
    if not options:
        return None
    return rng.choice(options) + newline + rest


def edit_synonym(rng: random.Random, domain: str, prompt: str) -> str | None:
    options = [
        (word, other)
        for word, other in SYNONYMS[domain]
        if re.search(rf"\b{re.escape(word)}\b", prompt)
    ]
    if not options:
        return None
    word, other = rng.choice(options)
    return re.sub(rf"\b{re.escape(word)}\b", other, prompt, count=1)


EDITS = {"please": edit_please, "punctuation": edit_punctuation, "synonym": edit_synonym}


def plant_duplicates(rng: random.Random, base: dict[str, list[Record]]) -> list[Record]:
    planted: list[Record] = []
    prompts = {record.prompt for records in base.values() for record in records}
    for domain, records in base.items():
        n_exact, n_near = EXACT_BY_DOMAIN[domain], NEAR_BY_DOMAIN[domain]
        sources = rng.sample(records, n_exact + n_near)
        for source in sources[:n_exact]:
            planted.append(Record(domain, source.prompt, source.response, "exact", source))
        for source in sources[n_exact:]:
            order = list(EDITS)
            rng.shuffle(order)
            for name in order:
                edited = EDITS[name](rng, domain, source.prompt)
                if edited is not None and edited != source.prompt and edited not in prompts:
                    prompts.add(edited)
                    planted.append(Record(domain, edited, source.response, "near", source, name))
                    break
            else:
                raise RuntimeError(f"no tiny edit applies to: {source.prompt!r}")
    return planted


# --------------------------------------------------------------------------------------------
# assembly
# --------------------------------------------------------------------------------------------


def build_records() -> list[Record]:
    """Every record, shuffled and numbered, with its provenance (kind, source, edit)."""
    rng = random.Random(SEED)
    base: dict[str, list[Record]] = {}
    for domain, make in FAMILIES.items():
        base[domain] = [Record(domain, p, r) for p, r in make(rng, SIZES[domain])]
    records = [record for family in base.values() for record in family]
    pairs = [(r.prompt, r.response) for r in records]
    if len(set(pairs)) != len(pairs):
        raise RuntimeError("base records must be unique")
    records += plant_duplicates(rng, base)
    rng.shuffle(records)
    for number, record in enumerate(records, start=1):
        record.id = f"demo-{number:05d}"
    return records


def as_row(record: Record) -> dict[str, str]:
    return {
        "id": record.id,
        "domain": record.domain,
        "prompt": record.prompt,
        "response": record.response,
    }


def build() -> list[dict[str, str]]:
    """The dataset's rows, in file order, as the JSON objects written to each line."""
    return [as_row(record) for record in build_records()]


def render(records: list[Record]) -> bytes:
    lines = [json.dumps(as_row(record), ensure_ascii=False) + "\n" for record in records]
    return "".join(lines).encode("utf-8")


def summarize(records: list[Record], data: bytes, path: Path) -> str:
    lines = [f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}"]
    lines.append(f"  {'domain':<14}{'records':>8}{'base':>8}{'exact':>7}{'near':>6}")
    for domain in FAMILIES:
        rows = [r for r in records if r.domain == domain]
        kinds = [r.kind for r in rows]
        lines.append(
            f"  {domain:<14}{len(rows):>8}{kinds.count('base'):>8}"
            f"{kinds.count('exact'):>7}{kinds.count('near'):>6}"
        )
    kinds = [r.kind for r in records]
    lines.append(
        f"  {'total':<14}{len(records):>8}{kinds.count('base'):>8}"
        f"{kinds.count('exact'):>7}{kinds.count('near'):>6}"
    )
    edits = [r.edit for r in records if r.kind == "near"]
    lines.append(f"exact duplicates: {kinds.count('exact')}")
    lines.append(
        f"near duplicates: {kinds.count('near')} ("
        + ", ".join(f"{name} {edits.count(name)}" for name in EDITS)
        + ")"
    )
    lines.append(f"total bytes: {len(data):,}")
    lines.append(f"sha256: {hashlib.sha256(data).hexdigest()}")
    return "\n".join(lines)


def planted_listing(records: list[Record]) -> str:
    lines = []
    for r in sorted((r for r in records if r.kind != "base"), key=lambda r: r.id):
        assert r.source is not None
        detail = "exact copy" if r.kind == "exact" else f"near copy ({r.edit})"
        lines.append(f"{r.id}  {detail:<24} of {r.source.id}  [{r.domain}]")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=OUTPUT, help="where to write the JSONL")
    parser.add_argument(
        "--check", action="store_true", help="do not write; exit 1 if the file differs"
    )
    parser.add_argument(
        "--list-planted", action="store_true", help="list the planted duplicates by id"
    )
    args = parser.parse_args(argv)

    records = build_records()
    data = render(records)
    if len(data) > MAX_BYTES:
        raise RuntimeError(f"demo dataset is {len(data):,} bytes, over {MAX_BYTES:,}")
    output: Path = args.output.resolve()
    if args.check:
        if not output.exists() or output.read_bytes() != data:
            print(f"{output} is out of date; run scripts/make_demo.py", file=sys.stderr)
            return 1
        print(f"{output} is up to date")
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(data)
    print(summarize(records, data, output))
    if args.list_planted:
        print(planted_listing(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
