"""The typed plan: what the types pass establishes on top of the CheckedPlan,
consumed by the lower pass.

- every task's ports with their business types (`TaskTypes`), and the operation
  it calls;
- every value's type, by pointer (None: unknown, because it depends on a part in
  error; nothing more is reported about it);
- each scope's export types;
- the types of the workflow's and groups' inputs, and of the choices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from taskplan.ir.checked import CheckedPlan, ChoiceNode, InputDecl, ScopeNode, TaskNode
from taskplan.model.btype import BType

if TYPE_CHECKING:
    from taskplan.catalog.load import Catalog, Operation


@dataclass(slots=True, eq=False)
class TaskTypes:
    """The typed interface of one task. Read only: the operation tasks that bind the same
    names of one operation share one (types, `_clean_call`)."""

    ports: dict[str, BType] | None
    """Port name -> type; None when the ports are unknown (the task, or its contract, is in error).
    Read only: the tasks calling one operation share their contract's mapping."""
    whole: BType | None
    """The type of the whole result (`port: null`); None when unknown."""
    operation: "Operation | None" = None
    """For an operation task: the catalog operation it calls."""
    optional_ports: frozenset[str] = frozenset()
    """Ports that may be absent from the result (optional output-schema properties, or
    every port of a result that may be null): reading one lowers to a checked projection
    at the consumer."""


@dataclass(slots=True, eq=False)
class TypedPlan:
    checked: CheckedPlan
    catalog: "Catalog | None"
    tasks: dict[TaskNode, TaskTypes] = field(default_factory=dict)
    values: dict[str, BType | None] = field(default_factory=dict)
    """Value pointer -> its type (None: unknown)."""
    scope_outputs: dict[ScopeNode, dict[str, BType | None]] = field(default_factory=dict)
    inputs: dict[InputDecl, BType | None] = field(default_factory=dict)
    choices: dict[ChoiceNode, BType | None] = field(default_factory=dict)
    artifacts: dict[str, frozenset[str]] = field(default_factory=dict)
    """Value pointer -> the artifact kinds its value carries (only where it carries some)."""

    def types_of(self, task: TaskNode) -> TaskTypes | None:
        return self.tasks.get(task)

    def value_type(self, pointer: str) -> BType | None:
        return self.values.get(pointer)

    def dump(self) -> str:
        """A readable listing, for debugging and tests."""
        lines = ["typed plan"]
        for decl, t in self.inputs.items():
            owner = f"{decl.group.id}." if decl.group else ""
            lines.append(f"  input {owner}{decl.name}: {t if t is not None else '?'}")
        for node in self.checked.tasks:
            tt = self.tasks.get(node)
            if tt is None:
                continue
            if tt.ports is None:
                lines.append(f"  task {node.id}: ports unknown")
                continue
            ports = ", ".join(f"{k}: {v}" for k, v in tt.ports.items())
            op = f" [{tt.operation.ref}]" if tt.operation is not None else ""
            lines.append(f"  task {node.id}{op}: {{{ports}}}")
        return "\n".join(lines) + "\n"


def describe_type(t: Any) -> str:
    return "unknown" if t is None else str(t)
