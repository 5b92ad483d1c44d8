"""Operators for the reading family: faults in the text (tags, anchors, bytes that are
not UTF-8, syntax, duplicate keys, limits) and in the document's top-level shape
(version, unknown/missing/mistyped fields, the plan name)."""

from __future__ import annotations

from .core import MARK, Injection, operator, splice
from .plan import join, seq, tasks, values
from .serialize import Pairs, Raw


def _first_objective(tree):
    for t in tasks(tree):
        if isinstance(t.node.get("objective"), str):
            return t
    return None


# ------------------------------------------------------------------ PLAN_SYNTAX


@operator("PLAN_SYNTAX")
def tag_on_a_scalar(ctx):
    """An explicit standard tag (`!!str`) on a task's objective (YAML)."""
    if ctx.fmt != "yaml":
        return None
    t = _first_objective(ctx.tree)
    t.node["objective"] = Raw('!!str "' + t.node["objective"].replace('"', "") + '"')
    return ctx.tree, join(t.pointer, "objective")


@operator("PLAN_SYNTAX")
def anchor_on_a_value(ctx):
    """An anchor (`&a`) on a value, with no alias anywhere (YAML)."""
    if ctx.fmt != "yaml":
        return None
    for t in tasks(ctx.tree):
        if isinstance(t.node.get("objective"), str):
            t.node["objective"] = Raw('&anchored "' + t.node["objective"].replace('"', "") + '"')
            return ctx.tree, join(t.pointer, "objective")
    return None


@operator("PLAN_SYNTAX")
def invalid_utf8(ctx):
    """A byte that is not UTF-8 (0xFF) inside a task's objective: at that byte."""
    t = _first_objective(ctx.tree)
    text = t.node["objective"]
    t.node["objective"] = Raw('"' + text[:5].replace('"', "") + MARK + '"')
    data, line, column = splice(ctx.dump(), b"\xff")
    return Injection(data, "", line, column)


@operator("PLAN_SYNTAX")
def unterminated_flow(ctx):
    """A flow sequence that is never closed (`["a",`) as a task's objective: at the
    parser's position (the text, pointer "")."""
    t = _first_objective(ctx.tree)
    t.node["objective"] = Raw(MARK)
    data, line, column = splice(ctx.dump(), b'["never closed",')
    return Injection(data, "")


@operator("PLAN_SYNTAX")
def trailing_comma(ctx):
    """A trailing comma after the last member of the document's mapping (JSON)."""
    if ctx.fmt != "json":
        return None
    data = ctx.dump().rstrip()
    assert data.endswith(b"}")
    body = data[:-1].rstrip()
    line = body.count(b"\n") + 1
    column = len(body.rsplit(b"\n", 1)[-1].decode("utf-8")) + 1
    data = body + b",\n}\n"
    return Injection(data, "", line, column)  # at the comma


@operator("PLAN_SYNTAX")
def second_document(ctx):
    """A second YAML document after the plan (`---`)."""
    if ctx.fmt != "yaml":
        return None
    data = ctx.dump()
    line = data.count(b"\n") + 1
    return Injection(data + b"---\nversion: 1\n", "", line, 1)


@operator("PLAN_SYNTAX")
def utf16_byte_order_mark(ctx):
    """The plan encoded as UTF-16 with its byte order mark: refused at 1:1."""
    data = ctx.dump().decode("utf-8").encode("utf-16")
    return Injection(data, "", 1, 1)


# ------------------------------------------------------------------- PLAN_LIMIT


def _first_number(tree):
    for v in values(tree):
        if v.node.get("kind") == "number":
            return v
    return None


@operator("PLAN_LIMIT")
def huge_integer(ctx):
    """A 5,000-digit integer (the limit is 4,000 digits) as a number literal, or as a
    foreach's maxItems."""
    v = _first_number(ctx.tree)
    if v is not None:
        v.node["number"] = Raw("7" * 5000)
        return ctx.tree, join(v.pointer, "number")
    t = _first_objective(ctx.tree)
    t.node["objective"] = Raw("7" * 5000)
    return ctx.tree, join(t.pointer, "objective")


@operator("PLAN_LIMIT")
def float_overflow(ctx):
    """A finite literal too large for a float (`1e400`)."""
    v = _first_number(ctx.tree)
    if v is None:
        return None
    v.node["number"] = Raw("1e400")
    return ctx.tree, join(v.pointer, "number")


@operator("PLAN_LIMIT")
def long_string(ctx):
    """An objective longer than the 1 MiB string limit."""
    t = _first_objective(ctx.tree)
    t.node["objective"] = "x" * (1024 * 1024 + 1)
    return ctx.tree, join(t.pointer, "objective")


@operator("PLAN_LIMIT")
def too_deep(ctx):
    """A value output nested 300 lists deep (the reader's limit is 256): at the first
    collection past the limit."""
    t = next((t for t in tasks(ctx.tree) if t.kind == "value" and seq(t.node, "outputs")), None)
    if t is None:
        return None
    node = []
    for _ in range(300):
        node = [node]
    t.node["outputs"][0]["value"] = node
    base = join(t.pointer, "outputs", 0, "value")
    depth = base.count("/")  # containers above the value
    pointer = base + "/0" * (256 - depth)
    return ctx.tree, pointer


# ----------------------------------------------------------- PLAN_DUPLICATE_KEY


@operator("PLAN_DUPLICATE_KEY")
def key_twice(ctx):
    """A task's `objective` written twice (same text): at the second key."""
    t = _first_objective(ctx.tree)
    items = list(t.node.items())
    at = [k for k, _ in items].index("objective")
    items.insert(at + 1, ("objective", t.node["objective"]))
    parent = ctx.tree
    for token in t.pointer[1:].split("/")[:-1]:
        parent = parent[int(token)] if isinstance(parent, list) else parent[token]
    parent[int(t.pointer.rsplit("/", 1)[1])] = Pairs(items)
    return ctx.tree, join(t.pointer, "objective")


@operator("PLAN_DUPLICATE_KEY")
def top_level_key_twice(ctx):
    """The document's `version` written twice."""
    items = list(ctx.tree.items())
    items.insert(1, ("version", 1))
    return Pairs(items), "/version"


# ------------------------------------------------------------------ PLAN_VERSION


@operator("PLAN_VERSION")
def version_two(ctx):
    """`version: 2`."""
    ctx.tree["version"] = 2
    return ctx.tree, "/version"


@operator("PLAN_VERSION")
def version_as_text(ctx):
    """`version: "1"` (text, not the integer 1)."""
    ctx.tree["version"] = "1"
    return ctx.tree, "/version"


@operator("PLAN_VERSION")
def version_missing(ctx):
    """No `version` at all: at the document."""
    del ctx.tree["version"]
    return ctx.tree, ""
