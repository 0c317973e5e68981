"""`vendiscope show --where`: the records a signal filter matches, counted and paged; a bad
filter is refused by name."""

from __future__ import annotations

import json

from tests.cli.test_signals_cli import project, run  # noqa: F401  (the fixture)


def test_show_lists_the_records_a_signal_filter_matches(project) -> None:  # noqa: F811
    run("signals", project, "chat", "-s", "pii", "-s", "text-stats")
    shown = run("show", project, "chat", "--where", "pii").output
    assert "3 of 8 records match 'pii'" in shown
    found = json.loads(run("show", project, "chat", "--where", "pii", "--json").output)
    assert [r["position"] for r in found] == [0, 1, 2]
    paged = json.loads(
        run("show", project, "chat", "--where", "not pii", "--offset", "1", "--limit", "2",
            "--json").output
    )  # fmt: skip
    assert [r["position"] for r in paged] == [4, 5]
    both = json.loads(
        run("show", project, "chat", "--where", "not pii and words < 5", "--json").output
    )
    assert [r["position"] for r in both] == [6]  # "Say nothing" with an empty response


def test_a_bad_filter_is_refused_by_name(project) -> None:  # noqa: F811
    run("signals", project, "chat", "-s", "pii")
    failed = run("show", project, "chat", "--where", "loss > 4", ok=False)
    assert failed.exit_code != 0
    assert "no signal column 'loss'" in failed.output
