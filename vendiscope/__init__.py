"""Vendiscope: dataset curation and diversity auditing for language-model training data.

From Python (see ``docs/python.md``)::

    import vendiscope as vs

    with vs.open("audit.vscope", create=True) as p:
        p.import_file("train.jsonl")
        p.embed("train")
        print(p.score("train", metric="vendi").value)

``import vendiscope`` stays cheap: :func:`open`, :func:`create`, :class:`Project` and the
other names below are loaded from :mod:`vendiscope.scripting` (and the core) on first use.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"

# name -> (module, attribute): imported when first asked for (PEP 562). No import of them
# here, not even under TYPE_CHECKING: the core imports this package (``__version__``), and
# tests/test_import_cycles.py counts type-only imports too.
_LAZY = {
    "open": ("vendiscope.scripting", "open"),
    "create": ("vendiscope.scripting", "create"),
    "Project": ("vendiscope.scripting", "Project"),
    "TqdmProgress": ("vendiscope.scripting", "TqdmProgress"),
    "CancelToken": ("vendiscope.core.base.jobs", "CancelToken"),
    "Cancelled": ("vendiscope.core.base.jobs", "Cancelled"),
    "VendiscopeError": ("vendiscope.core.base.errors", "VendiscopeError"),
}

__all__ = [
    "CancelToken",
    "Cancelled",
    "Project",
    "TqdmProgress",
    "VendiscopeError",
    "__version__",
    "create",
    "open",
]


def __getattr__(name: str) -> Any:
    from vendiscope._lazy import lazy_attribute

    return lazy_attribute(globals(), _LAZY, name)


def __dir__() -> list[str]:
    return sorted({*__all__, *(n for n in globals() if n.startswith("__"))})
