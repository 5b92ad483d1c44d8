"""The JSON Schema of the workflow dialect, built here and published as
schemas/workflow.schema.json (tests/test_workflow_schema.py fails when the file
drifts from `build_schema()`; `python -m taskplan.workflow.schema` rewrites it).

The schema is the single definition of the dialect's structure: the validate
pass checks documents against it through `taskplan.workflow.fastschema`, a
compiled subset of JSON Schema, and the tests check that jsonschema agrees.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from taskplan.workflow import dialect as d

SCHEMA_ID = "https://taskplan.dev/schemas/workflow-1.schema.json"
DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _ref(name: str) -> dict[str, Any]:
    return {"$ref": f"#/$defs/{name}"}


def _described(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, **schema}


def _object(
    title: str,
    description: str,
    properties: dict[str, dict[str, Any]],
    required: tuple[str, ...] = (),
    **extra: Any,
) -> dict[str, Any]:
    out: dict[str, Any] = {"title": title, "description": description, "type": "object"}
    if required:
        out["required"] = list(required)
    out["properties"] = properties
    out["additionalProperties"] = False
    out.update(extra)
    return out


def _map(description: str, keys: dict[str, Any], values: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"description": description, "type": "object", "propertyNames": keys, "additionalProperties": values, **extra}


def _common() -> dict[str, dict[str, Any]]:
    return {
        "id": _described(_ref("step_id"), "The step's ID, unique in its workflow: a business ID, or a generated ID (`__` prefix)."),
        "type": {},  # filled per step type
        "title": {"description": "A display name; never a key.", "type": "string"},
        "source": _described(_ref("pointer"), "JSON Pointer into the TaskPlan this step was compiled from (absent in hand-written workflows)."),
        "when": _described(_ref("expression"), "A guard: the step runs only when it evaluates to true; otherwise it is skipped and its result is absent (cleanup presence guards)."),
    }


def _step(type_: str, title: str, description: str, own: dict[str, dict[str, Any]], required: tuple[str, ...] = (), **extra: Any) -> dict[str, Any]:
    properties = _common()
    if type_ == d.EXECUTOR:
        properties["type"] = _described(_ref("executor_type"), "The catalog executor that runs the step.")
    else:
        properties["type"] = {"description": "The step type.", "const": type_}
    properties.update(own)
    return _object(title, description, properties, ("id", "type") + required, **extra)


def _call_input(description: str) -> dict[str, Any]:
    return _described(_ref("call_input"), description)


def _branch(title: str, description: str, with_when: bool) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    if with_when:
        properties["when"] = _described(_ref("expression"), "The case's condition; the first case whose condition is true runs.")
    properties["call"] = _described(_ref("workflow_name"), "The workflow this case runs (its outputs become the switch step's `outputs`).")
    properties["input"] = _call_input("The called workflow's inputs.")
    properties["steps"] = _described(_ref("steps"), "Steps that run inline, in the enclosing workflow; only later steps of the same list read them.")
    return _object(
        title,
        description,
        properties,
        ("when",) if with_when else (),
        oneOf=[{"required": ["call"]}, {"required": ["steps"]}],
        dependentRequired={"input": ["call"]},
    )


def _step_defs() -> dict[str, dict[str, Any]]:
    expr = lambda text: _described(_ref("expression"), text)  # noqa: E731
    concurrency = {"description": "At most this many run at once (absent: no ceiling of the workflow's own).", "type": "integer", "minimum": 1}
    path = {"description": "Field names, followed in order.", "type": "array", "items": {"type": "string"}}
    return {
        "step.set": _step("set", "a `set` step", "Produces `value` (result field `value`).", {
            "value": _described(_ref("value"), "A data tree; its expressions are evaluated."),
        }, ("value",)),
        "step.switch": _step("switch", "a `switch` step", "Runs the first case whose `when` is true, else `default` (result fields `case`, `outputs`).", {
            "cases": {"description": "The cases, tried in order.", "type": "array", "minItems": 1, "items": _ref("switch_case")},
            "default": _described(_ref("switch_default"), "What runs when no case applies (absent: nothing)."),
        }, ("cases",)),
        "step.parallel": _step("parallel", "a `parallel` step", "Runs every branch concurrently (result field `branches`: each branch's outputs, in order).", {
            "branches": {"description": "The workflows to run.", "type": "array", "minItems": 1, "items": _ref("parallel_branch")},
            "max_concurrency": concurrency,
        }, ("branches",)),
        "step.loop.parallel": _step("loop.parallel", "a `loop.parallel` step", "Runs `call` once per item, concurrently; the body reads `data.item` and `data.index` (result field `results`, in item order).", {
            "items": expr("The array to iterate over."),
            "call": _described(_ref("workflow_name"), "The body workflow."),
            "input": _call_input("The body's inputs (the same for every iteration)."),
            "max_concurrency": concurrency,
        }, ("items", "call")),
        "step.loop.sequential": _step("loop.sequential", "a `loop.sequential` step", "Runs `call` once per item, one at a time, in order (result field `results`).", {
            "items": expr("The array to iterate over."),
            "call": _described(_ref("workflow_name"), "The body workflow."),
            "input": _call_input("The body's inputs (the same for every iteration)."),
        }, ("items", "call")),
        "step.workflow.call": _step("workflow.call", "a `workflow.call` step", "Runs another workflow of the document (result field `outputs`).", {
            "workflow": _described(_ref("workflow_name"), "The called workflow."),
            "input": _call_input("Its inputs."),
        }, ("workflow",)),
        "step.template.render": _step("template.render", "a `template.render` step", "Renders `template`, replacing each `{{ name }}` with `values.name` (result field `text`).", {
            "template": {"description": "Literal text with `{{ name }}` placeholders; never evaluated as an expression.", "type": "string"},
            "values": _map("The placeholder values.", _ref("template_value_name"), _ref("value")),
        }, ("template",)),
        "step.llm.call": _step("llm.call", "an `llm.call` step", "Asks a model for structured output (result fields `text` and `json`, which validates against `schema`).", {
            "prompt": expr("The prompt text."),
            "schema": _described(_ref("json_schema"), "The result's strict JSON Schema: every object closed, every property required."),
        }, ("prompt", "schema")),
        "step.value.project": _step("value.project", "a `value.project` step", "A checked projection: follows `path` from `from` (result field `value`).", {
            "from": expr("The value to project."),
            "path": path,
            "schema": _described(_ref("json_schema"), "The projected value must validate against it."),
            "required": {"description": "true (default): a missing field fails the step; false: a missing field gives null. A present null stays null.", "type": "boolean"},
        }, ("from", "path")),
        "step.array.project": _step("array.project", "an `array.project` step", "Projects every element of an array (loop results) along `path`, in order, duplicates kept (result field `value`).", {
            "from": expr("The array to project (usually a loop's `results`)."),
            "path": path,
        }, ("from", "path")),
        "step.value.validate": _step("value.validate", "a `value.validate` step", "Fails unless `value` validates against `schema` (and, with `max_items`, is an array of at most that many items); result field `value`.", {
            "value": expr("The value to check."),
            "schema": _described(_ref("json_schema"), "The schema the value must satisfy."),
            "max_items": {"description": "The value must be an array of at most this many items.", "type": "integer", "minimum": 0},
        }, ("value", "schema")),
        "step.executor": _step(d.EXECUTOR, "a catalog executor step", "Runs a catalog operation through its executor (`mcp.call`, `operation.call`, ...); result field `result`.", {
            "input": {
                "title": "a catalog executor's `input`",
                "description": "The executor's configuration fields (host-owned, from the catalog, as they are) and `request`, the operation's request envelope.",
                "type": "object",
                "required": [d.REQUEST],
                "properties": {d.REQUEST: _described(_ref("request"), "The operation's request envelope.")},
                "propertyNames": {"pattern": d.NOT_DOLLAR_PATTERN},
                "additionalProperties": _ref("value"),
            },
            "effect": {"description": "The operation's effect, as the catalog declares it.", "enum": list(d.EFFECTS)},
        }, ("input",)),
    }


def build_schema() -> dict[str, Any]:
    """The dialect's JSON Schema (draft 2020-12), as plain data in a stable order."""
    steps = _step_defs()
    builtins = list(d.BUILTIN_TYPES)
    dispatch = [
        {"if": {"properties": {"type": {"const": t}}, "required": ["type"]}, "then": _ref(f"step.{t}")}
        for t in builtins
    ]
    dispatch.append(
        {"if": {"properties": {"type": {"not": {"enum": builtins}}}, "required": ["type"]}, "then": _ref("step.executor")}
    )
    defs: dict[str, Any] = {
        "name": {"description": "A workflow, input or output name: dot-separated segments of letters, digits, `_` and `-`.", "type": "string", "maxLength": d.MAX_NAME_LENGTH, "pattern": d.NAME_PATTERN},
        "workflow_name": _described(_ref("name"), "The name of a workflow of this document."),
        "step_id": {"description": "A business ID (1-64 of [A-Za-z0-9_-]) or a generated ID (`__`, then dot-separated segments).", "type": "string", "maxLength": d.MAX_NAME_LENGTH, "pattern": d.STEP_ID_PATTERN},
        "template_value_name": {"description": "A placeholder name of a `template.render` step: the `name` of `{{ name }}`.", "type": "string", "pattern": d.TEMPLATE_VALUE_PATTERN},
        "pointer": {"description": "A JSON Pointer (RFC 6901), e.g. `/root/tasks/0`.", "type": "string", "pattern": d.POINTER_PATTERN},
        "executor_type": {"description": "A catalog executor type: dotted lower-case segments, outside the built-in namespaces.", "type": "string", "pattern": d.EXECUTOR_TYPE_PATTERN, "not": {"pattern": d.RESERVED_TYPE_PATTERN}},
        "expression": {"description": "A whole-string expression `${...}` (the grammar is workflow/expr.lark).", "type": "string", "pattern": d.EXPRESSION_PATTERN},
        "json_schema": {"description": "A JSON Schema (draft 2020-12), taken as written: never evaluated.", "type": ["object", "boolean"]},
        "literal": {
            "description": "Data taken as written, never evaluated: how text containing `${`, or a mapping with `$` keys, is written in a data tree.",
            "type": "object",
            "required": [d.LITERAL],
            "properties": {d.LITERAL: {"description": "Any JSON value."}},
            "additionalProperties": False,
        },
        "value": {
            "description": "A data tree: scalars, lists and mappings whose strings are literal text or a whole `${...}` expression; `{$literal: ...}` holds data that is never evaluated.",
            "anyOf": [
                {"type": ["null", "boolean", "number"]},
                {"type": "string", "pattern": d.VALUE_STRING_PATTERN},
                {"type": "array", "items": _ref("value")},
                _ref("literal"),
                {"type": "object", "propertyNames": {"pattern": d.NOT_DOLLAR_PATTERN}, "additionalProperties": _ref("value")},
            ],
        },
        "request": _map(
            "A request envelope: the operation's input ports by name, each a data tree (never one expression for the whole request).",
            {"pattern": d.PORT_NAME_PATTERN},
            _ref("value"),
        ),
        "call_input": _map("A called workflow's inputs, by name.", _ref("name"), _ref("value")),
        "steps": {"description": "Steps, run one at a time in list order.", "type": "array", "items": _ref("step")},
        "step": {
            "description": "A step; its fields depend on `type`.",
            "type": "object",
            "required": ["id", "type"],
            "properties": {"type": {"description": "The step type: a built-in type (`set`, `switch`, `llm.call`, ...) or a catalog executor type.", "anyOf": [{"enum": builtins}, _ref("executor_type")]}},
            "allOf": dispatch,
        },
        "switch_case": _branch("a switch case", "Runs `call` (a workflow) or `steps` (inline) when `when` is true.", True),
        "switch_default": _branch("a switch default", "Runs `call` or `steps` when no case applies.", False),
        "parallel_branch": _object("a parallel branch", "One concurrently run workflow.", {
            "call": _described(_ref("workflow_name"), "The workflow the branch runs."),
            "input": _call_input("Its inputs."),
        }, ("call",)),
        **steps,
        "input": _object("a workflow input", "A declared input of a workflow.", {
            "type": _described(_ref("json_schema"), "The input's JSON Schema."),
            "required": {"description": "Whether a caller must bind it; default: true without `default`, false with it.", "type": "boolean"},
            "default": {"description": "The literal value used when the input is not bound (never evaluated)."},
            "description": {"description": "What the input is, for people reading the workflow.", "type": "string"},
        }, ("type",), dependentSchemas={"default": {"properties": {"required": {"description": "An input with a `default` is never required.", "const": False}}}}),
        "output": _object("a workflow output", "A declared output of a workflow.", {
            "type": _described(_ref("json_schema"), "The output's JSON Schema."),
            "expr": _described(_ref("expression"), "Its value, over the workflow's inputs and steps."),
            "description": {"description": "What the output is, for people reading the workflow.", "type": "string"},
        }, ("expr",)),
        "workflow": _object("a workflow", "A named workflow: inputs, steps, cleanup and outputs.", {
            "description": {"description": "What the workflow does, for people reading it.", "type": "string"},
            "inputs": _map("Its inputs, by name.", _ref("name"), _ref("input")),
            "steps": _described(_ref("steps"), "The steps, run in order."),
            "finally": _described(_ref("steps"), "Cleanup: runs after `steps` on success, failure or cancellation; each step guarded by the presence of what it reads."),
            "outputs": _map("Its outputs, by name.", _ref("name"), _ref("output")),
        }, ("steps",)),
    }
    return {
        "$schema": DRAFT,
        "$id": SCHEMA_ID,
        "title": "taskplan workflow, version 1",
        "description": "The workflow YAML dialect that taskplan compiles TaskPlans to (docs/workflow-dialect.md).",
        "type": "object",
        "required": ["version", "name", "entrypoint", "workflows"],
        "properties": {
            "version": {"description": "The dialect version: the integer 1.", "type": "integer", "const": d.VERSION},
            "name": {"description": "The document's name (the plan's name).", "type": "string", "pattern": d.DOCUMENT_NAME_PATTERN},
            "description": {"description": "What the document does, for people reading it.", "type": "string"},
            "entrypoint": _described(_ref("workflow_name"), "The workflow that runs first."),
            "source": _object("the document's source", "The TaskPlan this document was compiled from (absent in hand-written workflows).", {
                "plan": {"description": "The plan's path, as given to the compiler.", "type": "string"},
                "digest": {"description": "`sha256:` and the hex SHA-256 of the plan's bytes.", "type": "string", "pattern": d.DIGEST_PATTERN},
            }, ("plan", "digest")),
            "choices": _map(
                "The planning choices resolved for this compile, by choice ID.",
                {"type": "string", "pattern": d.CHOICE_ID_PATTERN},
                _object("a resolved choice", "A resolved planning choice.", {
                    "selected": {"description": "The selected alternative's ID.", "type": "string", "pattern": d.CHOICE_ID_PATTERN},
                    "auto": {"description": "True when auto mode took the recommendation.", "type": "boolean"},
                }, ("selected", "auto")),
            ),
            "workflows": _map("The workflows, by name.", _ref("name"), _ref("workflow"), minProperties=1),
        },
        "additionalProperties": False,
        "$defs": defs,
    }


@lru_cache(maxsize=1)
def schema() -> dict[str, Any]:
    """The schema (cached; do not mutate)."""
    return build_schema()


def schema_text() -> str:
    """The published file's exact text."""
    return json.dumps(build_schema(), indent=2, ensure_ascii=False) + "\n"


def published_path() -> Path:
    """schemas/workflow.schema.json in the source tree."""
    return Path(__file__).resolve().parents[3] / "schemas" / "workflow.schema.json"


if __name__ == "__main__":  # python -m taskplan.workflow.schema: rewrite the published file
    published_path().write_text(schema_text(), encoding="utf-8")
    print(published_path())
