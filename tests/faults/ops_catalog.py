"""Operators for catalogs (loaded on their own: every diagnostic located in the catalog)."""

from __future__ import annotations

import copy

from .core import operator
from .plan import join, seq
from .serialize import Pairs


def _operations(tree):
    for si, source in enumerate(seq(tree, "sources")):
        for oi, op in enumerate(seq(source, "operations")):
            yield join("/sources", si, "operations", oi), op


def _first_op(tree, predicate=lambda op: True):
    return next(((p, op) for p, op in _operations(tree) if predicate(op)), (None, None))


@operator("CATALOG_SYNTAX", "catalog")
def unknown_operation_field(ctx):
    """An operation field the catalog format does not have (`retries`): at the key."""
    pointer, op = _first_op(ctx.tree)
    op["retries"] = 3
    return ctx.tree, join(pointer, "retries")


@operator("CATALOG_SYNTAX", "catalog")
def catalog_version_two(ctx):
    """`version: 2`."""
    ctx.tree["version"] = 2
    return ctx.tree, "/version"


@operator("CATALOG_SYNTAX", "catalog")
def effect_unknown(ctx):
    """An operation's `effect` that is not one of the declared effects."""
    pointer, op = _first_op(ctx.tree)
    op["effect"] = "delete-everything"
    return ctx.tree, join(pointer, "effect")


@operator("CATALOG_SYNTAX", "catalog")
def operation_key_twice(ctx):
    """An operation's `description` written twice."""
    pointer, op = _first_op(ctx.tree, lambda op: "description" in op)
    if op is None:
        return None
    items = list(op.items())
    at = [k for k, _ in items].index("description")
    items.insert(at + 1, ("description", op["description"]))
    si, oi = int(pointer.split("/")[2]), int(pointer.split("/")[4])
    ctx.tree["sources"][si]["operations"][oi] = Pairs(items)
    return ctx.tree, join(pointer, "description")


@operator("CATALOG_SCHEMA_INVALID", "catalog")
def property_type_misspelt(ctx):
    """An input property's JSON Schema `type` misspelt."""
    for pointer, op in _operations(ctx.tree):
        props = (op.get("input") or {}).get("properties") or {}
        for name, schema in props.items():
            if isinstance(schema, dict) and isinstance(schema.get("type"), str):
                schema["type"] = "strng"
                return ctx.tree, join(pointer, "input", "properties", name, "type")
    return None


@operator("CATALOG_SCHEMA_INVALID", "catalog")
def minimum_as_text(ctx):
    """A `minimum` written as text in an input property."""
    for pointer, op in _operations(ctx.tree):
        props = (op.get("input") or {}).get("properties") or {}
        for name, schema in props.items():
            if isinstance(schema, dict) and schema.get("type") in ("integer", "number"):
                schema["minimum"] = "1"
                return ctx.tree, join(pointer, "input", "properties", name, "minimum")
    return None


@operator("CATALOG_SCHEMA_INVALID", "catalog")
def ref_unresolvable(ctx):
    """An input property replaced by a `$ref` to a definition that does not exist."""
    for pointer, op in _operations(ctx.tree):
        props = (op.get("input") or {}).get("properties") or {}
        for name in props:
            props[name] = {"$ref": "#/$defs/zz_missing"}
            return ctx.tree, join(pointer, "input", "properties", name, "$ref")
    return None


@operator("CATALOG_DUPLICATE_OPERATION", "catalog")
def operation_twice(ctx):
    """An operation declared again (a copy appended to its source)."""
    pointer, op = _first_op(ctx.tree)
    operations = ctx.tree["sources"][0]["operations"]
    operations.append(copy.deepcopy(operations[0]))
    return ctx.tree, join("/sources", 0, "operations", len(operations) - 1, "id")


@operator("CATALOG_NAME_RESERVED", "catalog")
def port_named_dollar(ctx):
    """An input property renamed to start with `$` (a name workflow data reserves)."""
    for pointer, op in _operations(ctx.tree):
        inp = op.get("input")
        if not isinstance(inp, dict) or not isinstance(inp.get("properties"), dict) or op.get("fixed"):
            continue
        props = inp["properties"]
        for name in list(props):
            consumed = (op.get("artifacts") or {}).get("consumes") or []
            if any(isinstance(a, dict) and a.get("port") == name for a in consumed):
                continue  # renaming it would also break the artifact declaration
            inp["properties"] = {("$" + k if k == name else k): v for k, v in props.items()}
            if isinstance(inp.get("required"), list):
                inp["required"] = ["$" + r if r == name else r for r in inp["required"]]
            return ctx.tree, join(pointer, "input", "properties", "$" + name)
    return None


@operator("CATALOG_NAME_RESERVED", "catalog")
def config_key_request(ctx):
    """An executor configuration key `request` (where the request envelope goes)."""
    pointer, op = _first_op(ctx.tree, lambda op: isinstance(op.get("executor"), dict))
    if op is None:
        return None
    config = op["executor"].get("config") if isinstance(op["executor"].get("config"), dict) else {}
    config["request"] = "x"
    op["executor"]["config"] = config
    return ctx.tree, join(pointer, "executor", "config", "request")


@operator("CATALOG_OPERATION_INVALID", "catalog")
def fixed_port_undeclared(ctx):
    """A `fixed` input the input schema does not declare."""
    pointer, op = _first_op(ctx.tree, lambda op: isinstance(op.get("input"), dict))
    if op is None:
        return None
    fixed = op.get("fixed") if isinstance(op.get("fixed"), dict) else {}
    fixed["zz_not_a_port"] = "x"
    op["fixed"] = fixed
    return ctx.tree, join(pointer, "fixed", "zz_not_a_port")


@operator("CATALOG_OPERATION_INVALID", "catalog")
def produces_undeclared_port(ctx):
    """An artifact produced on an output port the output schema does not declare."""
    pointer, op = _first_op(ctx.tree, lambda op: isinstance(op.get("output"), dict)
                            and isinstance(op["output"].get("properties"), dict))
    if op is None:
        return None
    arts = op.get("artifacts") if isinstance(op.get("artifacts"), dict) else {}
    produces = arts.get("produces") if isinstance(arts.get("produces"), list) else []
    produces.append({"port": "zz_not_a_port", "kind": "injected"})
    arts["produces"] = produces
    op["artifacts"] = arts
    return ctx.tree, join(pointer, "artifacts", "produces", len(produces) - 1, "port")


def _set_executor_type(ctx, type_):
    """The first operation's executor type set to `type_`, in the form it is written
    (a bare string, or `type` of a mapping; a bare string when there is no executor)."""
    pointer, op = _first_op(ctx.tree)
    if op is None:
        return None
    executor = op.get("executor")
    if isinstance(executor, dict):
        executor["type"] = type_
        return ctx.tree, join(pointer, "executor", "type")
    op["executor"] = type_
    return ctx.tree, join(pointer, "executor")


@operator("CATALOG_NAME_RESERVED", "catalog")
def executor_in_builtin_namespace(ctx):
    """An executor type in a built-in namespace (`value.fetch`): the dialect reads it as
    an unknown built-in step type, never as an executor."""
    return _set_executor_type(ctx, "value.fetch")


@operator("CATALOG_SYNTAX", "catalog")
def executor_type_one_segment(ctx):
    """An executor type of one segment (`http`): not the dotted executor-type syntax."""
    return _set_executor_type(ctx, "http")
