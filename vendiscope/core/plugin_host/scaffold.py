"""``vendiscope plugin new``: write a ready-to-install plugin package from templates.

The package has a ``pyproject.toml`` with the entry point, a cheap ``__init__`` holding the
manifest, a module with a small but real example of the chosen kind, a test file that runs the
conformance kit (:mod:`vendiscope.testing`) and a README. The templates live in
``vendiscope/resources/plugin_template`` (``$name`` placeholders, :class:`string.Template`).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from string import Template

from vendiscope import __version__
from vendiscope.core.base.atomic import atomic_path, check_destination
from vendiscope.core.base.errors import PluginError
from vendiscope.core.plugin_host.manifest import API_VERSION

SCAFFOLD_KINDS = (
    "metric",
    "selector",
    "embedder",
    "featurizer",
    "view",
    "importer",
    "exporter",
    "generator",
    "trainer",
    "signal",
)
"""The kinds ``vendiscope plugin new`` can write an example of."""

_NAME = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
_META = {
    "importer": '\n            meta={"extensions": [".qa"]},',
    "exporter": '\n            meta={"suffix": ".md"},',
}
_TITLES = {
    "metric": "Spread around the mean direction",
    "selector": "Farthest-point selection",
    "embedder": "Hashed character n-grams",
    "featurizer": "Text length features",
    "view": "Score histogram",
    "importer": "Question || answer lines",
    "exporter": "Markdown for review",
    "generator": "Word-bigram remix",
    "trainer": "Hashed word unigrams",
    "signal": "Shouting responses",
}
_USAGE = {
    "metric": "vendiscope score PROJECT DATASET --metric $plugin --vectors VECTOR_SET",
    "selector": "vendiscope select PROJECT DATASET -k 100 --method $plugin",
    "embedder": "vendiscope embed PROJECT DATASET --embedder $plugin",
    "featurizer": (
        'python -c "from vendiscope.core.vectors.featurizing import featurize_dataset; ..."  '
        "# featurize_dataset(project, dataset, featurizer='$plugin')"
    ),
    "view": "# the GUI and reports draw views; from Python: registry.create('view', '$plugin')",
    "importer": "vendiscope import PROJECT data.qa      # or --format $plugin",
    "exporter": "vendiscope export PROJECT DATASET out.md --format $plugin",
    "generator": "vendiscope synthesize PROJECT DATASET -n 20 --generator $plugin",
    "trainer": "# studies train with trainers; from Python: registry.create('trainer', '$plugin')",
    "signal": "vendiscope signals PROJECT DATASET --signal $plugin",
}


@dataclass(frozen=True)
class Scaffold:
    """What :func:`scaffold_plugin` wrote."""

    folder: Path
    files: tuple[Path, ...]
    dist: str
    package: str
    contribution: str
    class_name: str
    kind: str

    @property
    def module(self) -> str:
        """The module holding the example class, e.g. ``vendiscope_spread.metric``."""
        return f"{self.package}.{self.kind}"


def plugin_names(name: str, kind: str) -> dict[str, str]:
    """The names a plugin called ``name`` gets: distribution, package, contribution, class."""
    plugin = name.strip().lower().replace("_", "-")
    plugin = plugin.removeprefix("vendiscope-")
    if not _NAME.match(plugin):
        raise PluginError(
            f"plugin name '{name}' must be lower-case letters and digits, words joined by "
            "'-' (e.g. 'spread' or 'acme-metrics')"
        )
    words = plugin.split("-")
    return {
        "plugin": plugin,
        "dist": f"vendiscope-{plugin}",
        "package": "vendiscope_" + "_".join(words),
        "cls": "".join(w.capitalize() for w in words)
        + ("" if words[-1] == kind else kind.capitalize()),
    }


def scaffold_plugin(
    name: str, kind: str, directory: str | Path = ".", *, force: bool = False
) -> Scaffold:
    """Write the package ``vendiscope-NAME/`` under ``directory`` with an example ``kind``.

    Refuses to write into a non-empty folder unless ``force``.
    """
    if kind not in SCAFFOLD_KINDS:
        raise PluginError(f"unknown kind '{kind}'; choose one of {', '.join(SCAFFOLD_KINDS)}")
    names = plugin_names(name, kind)
    folder = Path(directory).expanduser() / names["dist"]
    if folder.exists() and any(folder.iterdir()) and not force:
        raise PluginError(f"{folder} exists and is not empty; choose another --dir or name")
    values = {
        **names,
        "kind": kind,
        "title": _TITLES[kind],
        "meta": _META.get(kind, ""),
        "api_version": API_VERSION,
        "vendiscope_version": ".".join(__version__.split(".")[:2]),
    }
    values["usage"] = "```bash\n" + Template(_USAGE[kind]).substitute(values) + "\n```"
    package = Path("src") / names["package"]
    plan = {
        Path("pyproject.toml"): "pyproject.toml.tmpl",
        Path("README.md"): "README.md.tmpl",
        package / "__init__.py": "init.py.tmpl",
        package / f"{kind}.py": f"{kind}.py.tmpl",
        Path("tests") / f"test_{names['package']}.py": f"test_{kind}.py.tmpl",
    }
    templates = files("vendiscope.resources").joinpath("plugin_template")
    for relative in plan:  # every refusal before the first file is written
        if os.path.lexists(folder / relative):
            check_destination(folder / relative, force=force)
    written = []
    for relative, template in plan.items():
        text = Template(templates.joinpath(template).read_text(encoding="utf-8"))
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(target) as temporary:
            temporary.write_text(text.substitute(values), encoding="utf-8")
        written.append(target)
    return Scaffold(
        folder, tuple(written), names["dist"], names["package"], names["plugin"], names["cls"], kind
    )


__all__ = ["SCAFFOLD_KINDS", "Scaffold", "plugin_names", "scaffold_plugin"]
