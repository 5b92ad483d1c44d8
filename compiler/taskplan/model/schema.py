"""JSON Schemas of the TaskPlan language, generated from the models (taskplan.md).

Two schemas, both JSON Schema draft 2020-12:

- `taskplan_schema()`: the authoring schema (schemas/taskplan.schema.json), for
  editors (the YAML language server: completion, hover, validation) and for
  anyone validating a plan. Optional fields may be left out or written as
  `null` (null means absent); defaults are shown as `default`; tasks and values
  are `oneOf` their kinds, each a closed object with its `kind` as a `const`.
- `taskplan_schema(wire=True)`: the wire schema (schemas/taskplan.wire.schema.json),
  what a planning model writes under strict structured output: every object
  closed with every property present and required, optional ones nullable, no
  `default` keywords, unions as `anyOf` and constants as one-element `enum`s.

Every document valid under the wire schema is valid under the authoring schema.
The schemas describe the shape only; the compiler checks the rest (IDs,
references, types). `render` gives the deterministic text that is committed;
`python -m taskplan.model.schema` rewrites the committed files.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from taskplan.model.plan import TASK_CLASSES, VALUE_CLASSES, TaskPlan

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_ID = "urn:taskplan:schema:taskplan:1"
WIRE_SCHEMA_ID = "urn:taskplan:schema:taskplan-wire:1"
FILES = {False: "taskplan.schema.json", True: "taskplan.wire.schema.json"}
"""wire -> file name under schemas/."""

_DESCRIPTIONS = {
    "PlanTask": "A task: an object tagged by `kind` (default `operation`).",
    "TaskValue": "A value: an object tagged by `kind`.",
}
_ANNOTATIONS = ("description", "title", "default", "$comment", "examples")


def taskplan_schema(*, wire: bool = False) -> dict[str, Any]:
    """The TaskPlan JSON Schema (the wire schema with `wire=True`) as a new dict."""
    schema = TypeAdapter(TaskPlan).json_schema(ref_template="#/$defs/{model}")
    defs: dict[str, Any] = schema.pop("$defs")
    schema.pop("title", None)
    schema.pop("$comment", None)

    task_refs = [{"$ref": f"#/$defs/{cls.__name__}"} for cls in TASK_CLASSES.values()]
    value_refs = [{"$ref": f"#/$defs/{cls.__name__}"} for cls in VALUE_CLASSES.values()]
    unions = {"PlanTask": task_refs, "TaskValue": value_refs}
    schema = _hoist(schema, unions)
    defs = {name: _hoist(body, unions) for name, body in defs.items()}
    for name, refs in unions.items():
        defs[name] = {"description": _DESCRIPTIONS[name], "oneOf": copy.deepcopy(refs)}

    for body in [schema, *defs.values()]:
        _tidy(body)
        _objects(body, wire)

    out: dict[str, Any] = {
        "$schema": DRAFT,
        "$id": WIRE_SCHEMA_ID if wire else SCHEMA_ID,
        "title": "TaskPlan (wire form)" if wire else "TaskPlan",
        "description": (
            "A TaskPlan, version 1, in the strict wire form a planning model writes: every property "
            "present, optional ones null, no free-form maps (taskplan.md, The wire form)."
            if wire
            else "A TaskPlan, version 1: business intent that the taskplan compiler lowers to an "
            "executable workflow (taskplan.md). Optional fields may be left out or written as null."
        ),
        **schema,
        "$defs": dict(sorted(defs.items())),
    }
    if wire:
        out = _wire(out)
    return out


def render(schema: dict[str, Any]) -> str:
    """Deterministic text: sorted keys, 2-space indent, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def schema_text(*, wire: bool = False) -> str:
    return render(taskplan_schema(wire=wire))


def default_dir() -> Path:
    """The checkout's schemas/ folder (compiler/taskplan/model/ -> repo root)."""
    return Path(__file__).resolve().parents[3] / "schemas"


def write(directory: Path | None = None) -> list[Path]:
    """Regenerate the committed schema files; returns the paths written."""
    directory = directory or default_dir()
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for wire, name in FILES.items():
        path = directory / name
        path.write_text(schema_text(wire=wire), encoding="utf-8")
        written.append(path)
    return written


# ---------------------------------------------------------------- transforms


def _hoist(node: Any, unions: dict[str, list]) -> Any:
    """Replace each inline `oneOf` of a union's members by a `$ref` to the union."""
    if isinstance(node, dict):
        one_of = node.get("oneOf")
        for name, refs in unions.items():
            if one_of == refs:
                rest = {k: v for k, v in node.items() if k not in ("oneOf", "discriminator")}
                return {"$ref": f"#/$defs/{name}", **{k: _hoist(v, unions) for k, v in rest.items()}}
        return {k: _hoist(v, unions) for k, v in node.items()}
    if isinstance(node, list):
        return [_hoist(v, unions) for v in node]
    return node


def _tidy(node: Any) -> None:
    """Drop pydantic's generated property titles; a number is a number (integer included)."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict):
            for prop in props.values():
                if isinstance(prop, dict):
                    prop.pop("title", None)
                    if prop.get("anyOf") == [{"type": "integer"}, {"type": "number"}]:
                        del prop["anyOf"]
                        prop["type"] = "number"
        for value in node.values():
            _tidy(value)
    elif isinstance(node, list):
        for value in node:
            _tidy(value)


def _objects(node: Any, wire: bool) -> None:
    """Optional properties nullable (null means absent); in the wire form, required too."""
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict) and node.get("type") == "object":
            required = set(node.get("required", []))
            for name, prop in list(props.items()):
                if name not in required:
                    props[name] = _nullable(prop)
            if wire:
                node["required"] = list(props)
        for value in node.values():
            _objects(value, wire)
    elif isinstance(node, list):
        for value in node:
            _objects(value, wire)


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    branches = prop.get("anyOf")
    if isinstance(branches, list) and {"type": "null"} in branches:
        return prop
    annotations = {k: v for k, v in prop.items() if k in _ANNOTATIONS}
    core = {k: v for k, v in prop.items() if k not in _ANNOTATIONS}
    if isinstance(core.get("type"), str) and not ({"const", "enum", "$ref", "anyOf", "oneOf"} & set(core)):
        return {**annotations, **core, "type": [core["type"], "null"]}
    return {**annotations, "anyOf": [core, {"type": "null"}]}


def _wire(node: Any) -> Any:
    """No defaults, no $comment; anyOf for oneOf; a one-element enum for const."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("properties", "$defs"):  # names, not keywords
                out[key] = {name: _wire(v) for name, v in value.items()}
            elif key in ("default", "$comment"):
                continue
            elif key == "oneOf":
                out["anyOf"] = _wire(value)
            elif key == "const":
                out["enum"] = [value]
            else:
                out[key] = _wire(value)
        return out
    if isinstance(node, list):
        return [_wire(v) for v in node]
    return node


def main(argv: list[str] | None = None) -> int:
    """`python -m taskplan.model.schema [DIR]`: rewrite the committed schema files."""
    args = sys.argv[1:] if argv is None else argv
    for path in write(Path(args[0]) if args else None):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
