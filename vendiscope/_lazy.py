"""Module attributes imported on first use (``import vendiscope`` stays light)."""

from __future__ import annotations

from typing import Any


def lazy_attribute(namespace: dict[str, Any], lazy: dict[str, tuple[str, str]], name: str) -> Any:
    """``name`` from its module in ``lazy`` (``name -> (module, attribute)``), kept in
    ``namespace`` (the module's globals) so that the next access is a plain attribute."""
    try:
        module_name, attribute = lazy[name]
    except KeyError:
        raise AttributeError(
            f"module '{namespace['__name__']}' has no attribute {name!r}"
        ) from None
    from importlib import import_module

    value = getattr(import_module(module_name), attribute)
    namespace[name] = value
    return value
