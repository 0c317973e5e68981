"""User text is shown, never obeyed: escapes for terminals, well-formed XML for SVG."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from vendiscope.core.base.text import has_control_characters, printable, printable_tree
from vendiscope.core.view_data.render import render_chart

HOSTILE = "clear\x1b[2J title\x1b]0;owned\x07 link\x1b]8;;http://x\x1b\\ rtl\u202eevil bell\x07"


def test_printable_escapes_every_control_and_bidi_character() -> None:
    shown = printable(HOSTILE)
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b[2J" in shown and "\\u202e" in shown
    assert printable("plain text, ünïcödé, 漢字\nline two") == "plain text, ünïcödé, 漢字\nline two"
    assert printable("a\nb\tc", newlines=False) == "a\\nb\\tc"
    assert has_control_characters("tab\there") and not has_control_characters("fine")
    assert printable_tree({"x": [HOSTILE, 1.5]})["x"][1] == 1.5


def test_svg_with_control_characters_in_labels_is_well_formed() -> None:
    chart = {
        "kind": "bar",
        "title": f"sources {HOSTILE}",
        "x_label": "source\x0b",
        "series": [{"name": "G-Vendi\x0c", "x": [f"src\x00{HOSTILE}", "plain"], "y": [3.0, 4.0]}],
    }
    svg = render_chart(chart, "svg")
    ElementTree.fromstring(svg)  # raises on a character XML forbids
    assert b"\x1b" not in svg
