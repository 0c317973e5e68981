"""PII and secrets: what is found (with exact spans), what is not, and redaction."""

from __future__ import annotations

import pytest

from vendiscope.core.signals.algorithms.pii import find_pii, find_spans, luhn_valid, redact


def _found(text: str) -> list[tuple[str, str]]:
    return [(kind, text[start:end]) for kind, start, end in find_spans(text)]


def test_emails_and_phones() -> None:
    text = (
        "Mail john.doe+tag@example.co.uk or call +44 20 7946 0958, (212) 555-0100, "
        "212-555-0100, 212.555.0100, +1 (415) 555-2671, 01 23 45 67 89, 030 12345678, 07700 900123."
    )
    assert _found(text) == [
        ("EMAIL", "john.doe+tag@example.co.uk"),
        ("PHONE", "+44 20 7946 0958"),
        ("PHONE", "(212) 555-0100"),
        ("PHONE", "212-555-0100"),
        ("PHONE", "212.555.0100"),
        ("PHONE", "+1 (415) 555-2671"),
        ("PHONE", "01 23 45 67 89"),
        ("PHONE", "030 12345678"),
        ("PHONE", "07700 900123"),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "12345678901",  # a plain number
        "on 2024-01-15 at 10:30",  # an ISO date and a time
        "15/01/2024 and 1.2.3 and v2.10.4",
        "population 1 000 000, ids 123 456",
        "year 1999 2000 2001",
        "user@localhost and @handle and a@b",
        "price 4111 1111 1111 1112",  # fails the Luhn check
        "256.1.1.1 and 1.2.3.4.5",  # no IPv4 address
        "AKIA12345 and sk-short and ghp_tooShort",
    ],
)
def test_things_that_are_not_pii(text: str) -> None:
    assert find_spans(text) == []


def test_cards_are_luhn_checked() -> None:
    assert luhn_valid("4111111111111111") and luhn_valid("4012888888881881")
    assert not luhn_valid("4111111111111112") and not luhn_valid("")
    text = "Cards 4111 1111 1111 1111, 5500-0000-0000-0004 and 4012888888881881."
    assert _found(text) == [
        ("CARD", "4111 1111 1111 1111"),
        ("CARD", "5500-0000-0000-0004"),
        ("CARD", "4012888888881881"),
    ]


def test_ip_addresses() -> None:
    text = "hosts 192.168.1.1, 10.0.0.255; ::1, 2001:db8::ff00:42:8329 and ::ffff:192.0.2.1."
    assert _found(text) == [
        ("IP", "192.168.1.1"),
        ("IP", "10.0.0.255"),
        ("IP", "::1"),
        ("IP", "2001:db8::ff00:42:8329"),
        ("IP", "::ffff:192.0.2.1"),
    ]
    full = "2001:0db8:85a3:0000:0000:8a2e:0370:7334"
    assert _found(f"addr {full}") == [("IP", full)]


def test_secrets() -> None:
    keys = [
        "AKIAIOSFODNN7EXAMPLE",
        "ghp_" + "a1B2" * 9,
        "github_pat_" + "x" * 82,
        "sk-" + "b" * 48,
        "sk-proj-" + "Ab3_" * 10,
        "xoxb-123456789012-abcdefghij",
        "AIza" + "c" * 35,
        "sk_live_" + "d" * 24,
        "-----BEGIN RSA PRIVATE KEY-----",
        "-----BEGIN OPENSSH PRIVATE KEY-----",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ]
    text = " and ".join(keys)
    assert _found(text) == [("SECRET", key) for key in keys]


def test_overlaps_go_to_the_most_specific_kind() -> None:
    # an e-mail whose local part is a phone number is one EMAIL span
    assert _found("write to 212-555-0100@example.com now") == [
        ("EMAIL", "212-555-0100@example.com")
    ]


def test_unicode_offsets_empty_and_long_texts() -> None:
    text = "Grüße, 中文 — écrivez à zoë@example.fr."
    spans = find_spans(text)
    assert spans == [("EMAIL", text.index("zoë"), text.index(".fr") + 3)]
    assert _found("mail 用户@例子.中国 now") == [("EMAIL", "用户@例子.中国")]
    assert find_pii(["", None, "nothing here"]) == [[], [], []]
    long = ("plain words and numbers 12 34 " * 20_000) + "end a@example.org"
    assert [k for k, _, _ in find_spans(long)] == ["EMAIL"]


def test_redact() -> None:
    text = "Call +44 20 7946 0958 or mail a.b@example.com; key AKIAIOSFODNN7EXAMPLE."
    assert redact(text, find_spans(text)) == "Call [PHONE] or mail [EMAIL]; key [SECRET]."
    assert redact("", []) == ""
    with pytest.raises(ValueError, match="overlapping"):
        redact("abcdef", [("EMAIL", 0, 3), ("PHONE", 2, 4)])
