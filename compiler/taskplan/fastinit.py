"""Constructors of dataclasses that skip the class call.

Calling a dataclass runs its generated `__init__` through the type's call machinery: for
the small IR objects the passes make by the hundred thousand (fields of types, task
interfaces, dependencies, workflow inputs) several times the work of the stores
themselves. `maker(cls, params)` returns a plain function of `params` (positional, in
order) that sets every field of a new `cls` on `object.__new__(cls)`: each of `params` from
its argument, every other field to its default. It is generated source, like the
dataclass's own `__init__`, so it costs what a hand-written one costs, and it is checked
when it is made (at import): a field it would leave unset, or a name that is not a field,
is an error there rather than an object missing an attribute later.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def maker(cls: type[T], params: Sequence[str], doc: str | None = None) -> Callable[..., T]:
    """A function `(*params) -> cls` equal to the class call with those arguments, for a
    dataclass whose `__init__` only stores its fields (no `__post_init__`, no `InitVar`).
    A parameter takes its field's default when it and every later parameter have one.
    Fields outside `params` get their defaults; one with only a `default_factory` must be
    a parameter (a shared default object would not be the factory's fresh one)."""
    fields = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__} has a __post_init__, which maker() would skip")
    unknown = [p for p in params if p not in fields]
    if unknown or len(set(params)) != len(params):
        raise TypeError(f"{cls.__name__}: not its fields, or repeated: {list(params)}")
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    body = ["    o = _new(_cls)"]
    for name, f in fields.items():
        if name in params:
            body.append(f"    o.{name} = {name}")
        elif f.default is not dataclasses.MISSING:
            body.append(f"    o.{name} = {_constant(f.default, name, namespace)}")
        else:
            raise TypeError(f"{cls.__name__}.{name} has no plain default: make it a parameter")
    signature = []
    defaulted = True  # from the last parameter backwards, while each has a plain default
    for name in reversed(params):
        default = fields[name].default
        defaulted = defaulted and default is not dataclasses.MISSING
        if defaulted:
            signature.append(f"{name}={_constant(default, name, namespace)}")
        else:
            signature.append(name)
    func_name = f"new_{cls.__name__}"
    source = f"def {func_name}({', '.join(reversed(signature))}):\n" + "\n".join(body) + "\n    return o\n"
    exec(source, namespace)  # noqa: S102 - source built above from field names only
    made = namespace[func_name]
    made.__qualname__ = func_name
    made.__module__ = cls.__module__
    made.__doc__ = doc or f"`{cls.__name__}({', '.join(params)})` without the class call (taskplan.fastinit)."
    return made


def _constant(value: Any, name: str, namespace: dict[str, Any]) -> str:
    """How the generated source names a default: None, True and False as themselves (a
    constant load), anything else as a name bound to the very object (a default object is
    shared by every instance, as the class call shares it)."""
    if value is None or value is True or value is False:
        return repr(value)
    namespace[f"_default_{name}"] = value
    return f"_default_{name}"
