"""Checks every contribution must pass: interface, signatures, parameters."""

from __future__ import annotations

from vendiscope.core.plugin_host.params import REQUIRED, ParamError, describe_params
from vendiscope.core.plugin_host.registry import BASE_CLASSES
from vendiscope.core.plugin_host.signatures import signature_problems
from vendiscope.testing._subject import Subject, same_structure


def check_interface(subject: Subject) -> None:
    """The class subclasses the interface of its kind."""
    base = BASE_CLASSES[subject.kind]
    assert issubclass(subject.cls, base), (
        f"{subject.name} is not a subclass of {base.__module__}.{base.__name__} "
        f"(a {subject.kind} must subclass vendiscope.api.{base.__name__})"
    )


def check_signatures(subject: Subject) -> None:
    """``__init__`` parameters have defaults; methods take what jobs pass them."""
    problems = signature_problems(subject.cls, BASE_CLASSES[subject.kind])
    assert not problems, f"{subject.name}: " + "; ".join(problems)


def check_params_describable(subject: Subject) -> None:
    """describe_params reads every parameter, and each default fits its own declaration."""
    try:
        specs = describe_params(subject.cls)
    except Exception as exc:
        raise AssertionError(
            f"{subject.name}: describe_params failed: {type(exc).__name__}: {exc}"
        ) from exc
    for spec in specs:
        if spec.default is REQUIRED:
            continue  # reported by check_signatures
        try:
            spec.coerce(spec.default)
        except ParamError as exc:
            raise AssertionError(
                f"{subject.name}: the default of '{spec.name}' does not fit its declaration ({exc})"
            ) from None


def check_params_kept_as_attributes(subject: Subject) -> None:
    """Each parameter is kept, unchanged, as an attribute of the same name (scikit-learn)."""
    instance = subject.instance()
    given = subject.params if subject.given is None else {}
    missing = []
    for spec in describe_params(subject.cls):
        if not hasattr(instance, spec.name):
            missing.append(spec.name)
            continue
        if spec.name in given or (subject.given is None and spec.default is not REQUIRED):
            expected = given.get(spec.name, spec.default)
            actual = getattr(instance, spec.name)
            assert same_structure(expected, actual), (
                f"{subject.name}: parameter '{spec.name}' was {expected!r} but the attribute "
                f"holds {actual!r}; keep parameters as given (no logic in __init__)"
            )
    assert not missing, (
        f"{subject.name}: parameters {', '.join(missing)} are not kept as attributes "
        "(write self.NAME = NAME in __init__, as scikit-learn does)"
    )


COMMON = (
    check_interface,
    check_signatures,
    check_params_describable,
    check_params_kept_as_attributes,
)
