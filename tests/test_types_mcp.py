"""Issue 3's acceptance over real MCP servers: a realistic plan over the filesystem and
memory servers (fixtures/valid/knowledge-graph.taskplan.yaml, catalogs imported from
their `tools/list` dumps) checks clean, and mutating the type of any one binding gives
exactly one TASK_INPUT_TYPE, at that binding's value."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Iterator

import pytest
from ruamel.yaml import YAML

from taskplan.api import check_plan, load_catalog_set

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "fixtures" / "valid" / "knowledge-graph.taskplan.yaml"
CATALOGS = [ROOT / "fixtures" / "catalogs" / "mcp" / f"{name}.catalog.yaml" for name in ("filesystem", "memory")]


@pytest.fixture(scope="module")
def catalog_set():
    loaded = load_catalog_set(CATALOGS)
    assert not loaded.diagnostics, [d.message for d in loaded.diagnostics]
    return loaded


@pytest.fixture(scope="module")
def plan() -> dict[str, Any]:
    return YAML(typ="safe").load(PLAN.read_text(encoding="utf-8"))


def _scopes(scope: dict[str, Any], pointer: str) -> Iterator[tuple[dict[str, Any], str]]:
    """Every task of `scope` and of the scopes nested in it, with its pointer."""
    for key in ("tasks", "always"):
        for i, task in enumerate(scope.get(key) or []):
            tptr = f"{pointer}/{key}/{i}"
            yield task, tptr
            for child in ("body", "otherwise"):
                if isinstance(task.get(child), dict):
                    yield from _scopes(task[child], f"{tptr}/{child}")
            for b, branch in enumerate(task.get("branches") or []):
                yield from _scopes(branch, f"{tptr}/branches/{b}")


def _bindings(plan: dict[str, Any]) -> list[tuple[str, str, int, str]]:
    """(task pointer, operation, binding index, port) for every operation binding."""
    out = []
    for task, ptr in _scopes(plan["root"], "/root"):
        if task.get("kind", "operation") == "operation":
            for i, binding in enumerate(task.get("inputs") or []):
                out.append((ptr, task["operation"], i, binding["name"]))
    return out


def _wrong_literal(kind: str) -> dict[str, Any]:
    """A literal whose kind does not fit a port of kind `kind`."""
    if kind == "string":
        return {"kind": "number", "number": 7}
    return {"kind": "string", "text": "seven"}


def _at(document: dict[str, Any], pointer: str) -> Any:
    node: Any = document
    for part in pointer.strip("/").split("/"):
        node = node[int(part)] if isinstance(node, list) else node[part]
    return node


def _check(document: dict[str, Any], catalog_set):
    text = json.dumps(document).encode("utf-8")
    return check_plan("knowledge-graph.taskplan.json", text=text, catalogs=catalog_set)


def test_the_plan_checks_clean(catalog_set):
    result = check_plan(PLAN, catalogs=catalog_set)
    assert result.diagnostics == [], [(d.code, d.location.pointer, d.message) for d in result.diagnostics]
    assert result.typed is not None
    operations = {tt.operation.id for tt in result.typed.tasks.values() if tt.operation is not None}
    assert any(op.startswith("filesystem.") for op in operations)
    assert any(op.startswith("memory.") for op in operations)


def test_the_json_form_of_the_plan_checks_clean_too(plan, catalog_set):
    assert _check(plan, catalog_set).diagnostics == []


def test_the_plan_binds_enough_ports_to_mean_something(plan):
    bindings = _bindings(plan)
    assert len(bindings) >= 10
    assert len({op for _, op, _, _ in bindings}) >= 8


def _cases() -> list[tuple[str, str, int, str]]:
    return _bindings(YAML(typ="safe").load(PLAN.read_text(encoding="utf-8")))


@pytest.mark.parametrize("task_ptr,operation,index,port", _cases(), ids=lambda v: str(v))
def test_mutating_one_binding_gives_one_input_type_error_at_it(task_ptr, operation, index, port, plan, catalog_set):
    op = catalog_set.catalog.get(operation)
    assert op is not None, operation
    declared = op.input_port(port)
    assert declared is not None, (operation, port)
    mutated = copy.deepcopy(plan)
    value_ptr = f"{task_ptr}/inputs/{index}/value"
    _at(mutated, f"{task_ptr}/inputs/{index}")["value"] = _wrong_literal(declared.type.kind)
    diagnostics = _check(mutated, catalog_set).diagnostics
    assert [(d.code, d.location.pointer) for d in diagnostics] == [("TASK_INPUT_TYPE", value_ptr)], [
        (d.code, d.location.pointer, d.message) for d in diagnostics
    ]
    (d,) = diagnostics
    assert dict(d.subject) == {"task": _at(plan, task_ptr)["id"], "port": port}
    # The message names the required type; the port's declaration in the catalog is related.
    assert declared.type.kind in d.message
    assert any(r.location.file.endswith(("filesystem.catalog.yaml", "memory.catalog.yaml")) for r in d.related)


def test_a_wrongly_typed_reference_is_one_error_too(plan, catalog_set):
    """Not only literals: binding another task's port of the wrong type (the whole
    graph, an object, for the `query` string) is one TASK_INPUT_TYPE at that value."""
    mutated = copy.deepcopy(plan)
    task_ptr = next(ptr for task, ptr in _scopes(mutated["root"], "/root") if task["id"] == "related")
    _at(mutated, f"{task_ptr}/inputs/0")["value"] = {"kind": "output", "source": "graph", "port": None}
    diagnostics = _check(mutated, catalog_set).diagnostics
    assert [(d.code, d.location.pointer) for d in diagnostics] == [("TASK_INPUT_TYPE", f"{task_ptr}/inputs/0/value")]
    assert "expects string" in diagnostics[0].message and "object" in diagnostics[0].message
