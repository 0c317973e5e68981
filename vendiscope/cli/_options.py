"""A command's options built from the operation's options class: no default or help of its own.

``flag(MapOptions, "n_neighbors")`` is the ``typer.Option`` of ``--n-neighbors``: its help
(with the unit and the choices), its range (inclusive bounds; a strict bound is left to the
options class, whose error names the parameter) — all read from the one declaration in
:class:`~vendiscope.core.maps.options.MapOptions`. The default goes on the parameter itself,
from the class attribute::

    n_neighbors: Annotated[int, flag(MapOptions, "n_neighbors")] = MapOptions.n_neighbors
"""

from __future__ import annotations

import re
from typing import Any

import typer

from vendiscope.core.plugin_host.options import OperationOptions
from vendiscope.core.plugin_host.param_specs import ParamSpec


def option_help(spec: ParamSpec) -> str:
    """A spec's help for a command line: plain text, then the choices and the unit."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", lambda m: m.group(1).rsplit(".", 1)[-1], spec.help)
    text = " ".join(text.replace("``", "`").split())
    if spec.choices and not all(f"{c}:" in text for c in spec.choices):
        text += f" One of: {', '.join(str(c) for c in spec.choices)}."
    if spec.unit is not None:
        text += f" [{spec.unit}]"
    return text


def flag(options: type[OperationOptions], name: str, *declarations: str) -> Any:
    """The ``typer.Option`` of option ``name`` of ``options`` (``declarations``: the flags,
    default ``--name-with-dashes``)."""
    spec = options.spec(name)
    low = high = None
    if spec.range is not None and spec.type in (int, float):
        low = None if spec.range.ge is None else spec.type(spec.range.ge)
        high = None if spec.range.le is None else spec.type(spec.range.le)
    return typer.Option(*declarations, help=option_help(spec), min=low, max=high)
