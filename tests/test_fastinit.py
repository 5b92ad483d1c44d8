"""taskplan.fastinit.maker: the constructors it makes equal the class calls, field for
field, and it refuses at once what it could not make right."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

import pytest

from taskplan.fastinit import maker
from taskplan.ir.checked import Dependency
from taskplan.ir.graph import WorkflowInput, new_input
from taskplan.ir.typed import TaskTypes
from taskplan.model.btype import STRING, Field, new_field
from taskplan.passes.scope import _dependency
from taskplan.passes.types import _task_types


def _state(obj: Any) -> dict[str, Any]:
    """Every field's value (compare=False fields too: `==` on the objects skips them)."""
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _same(made: Any, called: Any) -> None:
    assert type(made) is type(called)
    assert _state(made) == _state(called)


@pytest.mark.parametrize(
    ("made", "called"),
    [
        (lambda: _task_types({"a": STRING}, STRING), lambda: TaskTypes({"a": STRING}, STRING)),
        (lambda: _task_types(None, None), lambda: TaskTypes(None, None)),
        (lambda: new_input({"type": "string"}), lambda: WorkflowInput({"type": "string"})),
        (lambda: new_field("n", STRING), lambda: Field("n", STRING)),
        (lambda: new_field("n", STRING, False, None), lambda: Field("n", STRING, False, None)),
    ],
)
def test_the_package_makers_are_the_class_calls(made: Any, called: Any) -> None:
    _same(made(), called())


def test_the_dependency_maker_is_the_class_call() -> None:
    task = object()
    made = _dependency(task, ["/root/tasks/0"], True, False)
    called = Dependency(task, ["/root/tasks/0"], True, False)  # type: ignore[arg-type]
    assert _state(made) == _state(called)
    assert made.task is task and made.explicit and not made.reads


def test_an_optional_ports_default_is_the_class_default_object() -> None:
    """Every TaskTypes without optional ports shares the class's one empty frozenset."""
    assert _task_types(None, None).optional_ports is TaskTypes(None, None).optional_ports


@dataclass(slots=True)
class _Sample:
    a: int
    b: list[int] = field(default_factory=list)
    c: str = "c"
    d: Any = None


def test_parameters_take_their_defaults_only_from_the_last_one_back() -> None:
    make = maker(_Sample, ("a", "b", "c"))
    assert _state(make(1, [2])) == _state(_Sample(1, [2]))
    assert _state(make(1, [2], "x")) == _state(_Sample(1, [2], "x"))
    with pytest.raises(TypeError):
        make(1)  # b has only a factory: a parameter without a default


def test_fields_outside_the_parameters_get_their_plain_defaults() -> None:
    assert _state(maker(_Sample, ("a", "b"))(5, [])) == {"a": 5, "b": [], "c": "c", "d": None}


@pytest.mark.parametrize(
    "params",
    [
        ("a",),  # b has a factory only: leaving it out would share one list
        ("a", "b", "zz"),  # not a field
        ("a", "b", "a"),  # repeated
        ("b", "c"),  # a has no default at all
    ],
)
def test_what_it_cannot_make_right_is_refused_when_it_is_made(params: tuple[str, ...]) -> None:
    with pytest.raises(TypeError):
        maker(_Sample, params)


def test_a_post_init_is_refused() -> None:
    @dataclass
    class WithPostInit:
        a: int

        def __post_init__(self) -> None:
            self.a += 1

    with pytest.raises(TypeError):
        maker(WithPostInit, ("a",))


def test_the_made_function_reads_as_a_constructor() -> None:
    make = maker(_Sample, ("a", "b"), "the doc")
    assert make.__name__ == "new__Sample" and make.__doc__ == "the doc"
    assert make.__module__ == _Sample.__module__
