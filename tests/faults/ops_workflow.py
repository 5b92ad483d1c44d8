"""Operators for compiled workflows (the validate pass): each mutates a valid compiled
workflow (the tracked workflow fixtures and the compile snapshots)."""

from __future__ import annotations

from .core import MARK, Injection, operator, splice
from .plan import join
from .serialize import Pairs, Raw


def _steps(tree):
    """(pointer, step) of every step, in document order (switch cases included)."""
    out = []

    def walk(steps, pointer):
        for i, step in enumerate(steps or []):
            if not isinstance(step, dict):
                continue
            p = join(pointer, i)
            out.append((p, step))
            for ci, case in enumerate(step.get("cases") or []):
                if isinstance(case, dict):
                    walk(case.get("steps"), join(p, "cases", ci, "steps"))

    for name, wf in (tree.get("workflows") or {}).items():
        walk(wf.get("steps"), join("/workflows", name, "steps"))
        walk(wf.get("finally"), join("/workflows", name, "finally"))
    return out


def _expressions(tree):
    """(pointer, text) of every whole-string expression in step fields, in document order."""
    out = []
    for pointer, step in _steps(tree):
        stack = [(pointer, step)]
        while stack:
            p, node = stack.pop(0)
            if isinstance(node, dict):
                for k, v in node.items():
                    if k not in ("steps", "cases", "schema", "$literal"):
                        stack.append((join(p, k), v))
            elif isinstance(node, list):
                stack.extend((join(p, i), v) for i, v in enumerate(node))
            elif isinstance(node, str) and node.startswith("${") and node.endswith("}"):
                out.append((p, node))
    return out


def _set(tree, pointer, value):
    tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer[1:].split("/")]
    node = tree
    for t in tokens[:-1]:
        node = node[int(t)] if isinstance(node, list) else node[t]
    last = tokens[-1]
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value


@operator("WORKFLOW_SYNTAX", "workflow")
def workflow_key_twice(ctx):
    """A step's `type` written twice."""
    pointer, step = _steps(ctx.tree)[0]
    items = list(step.items())
    at = [k for k, _ in items].index("type")
    items.insert(at + 1, ("type", step["type"]))
    _set(ctx.tree, pointer, Pairs(items))
    return ctx.tree, join(pointer, "type")


@operator("WORKFLOW_SYNTAX", "workflow")
def workflow_anchor(ctx):
    """An anchor on a step's ID."""
    pointer, step = _steps(ctx.tree)[0]
    step["id"] = Raw('&first "' + step["id"] + '"')
    return ctx.tree, join(pointer, "id")


@operator("WORKFLOW_SYNTAX", "workflow")
def workflow_invalid_utf8(ctx):
    """A byte that is not UTF-8 in the workflow's name: at that byte."""
    ctx.tree["name"] = Raw('"' + str(ctx.tree.get("name", "w"))[:3] + MARK + '"')
    data, line, column = splice(ctx.dump(), b"\xc3\x28")
    return Injection(data, "", line, column)


@operator("WORKFLOW_SCHEMA", "workflow")
def step_field_unknown(ctx):
    """A field no step type has (`retries`) on a step: at the key."""
    pointer, step = _steps(ctx.tree)[0]
    step["retries"] = 3
    return ctx.tree, join(pointer, "retries")


@operator("WORKFLOW_SCHEMA", "workflow")
def workflow_version_two(ctx):
    """`version: 2`: one diagnostic, nothing else checked."""
    ctx.tree["version"] = 2
    return ctx.tree, "/version"


@operator("WORKFLOW_SCHEMA", "workflow")
def step_id_twice(ctx):
    """A step's ID changed to the ID of the step before it in the same list."""
    steps = _steps(ctx.tree)
    for (p1, s1), (p2, s2) in zip(steps, steps[1:]):
        if p1.rsplit("/", 1)[0] == p2.rsplit("/", 1)[0] and not _read_anywhere(ctx.tree, s2["id"]):
            s2["id"] = s1["id"]
            return ctx.tree, join(p2, "id")
    return None


def _read_anywhere(tree, step_id):
    needle = (f"steps.{step_id}", f'steps["{step_id}"]')
    return any(any(n in text for n in needle) for _, text in _all_strings(tree))


def _all_strings(tree):
    stack = [("", tree)]
    while stack:
        p, node = stack.pop()
        if isinstance(node, dict):
            stack.extend((join(p, k), v) for k, v in node.items())
        elif isinstance(node, list):
            stack.extend((join(p, i), v) for i, v in enumerate(node))
        elif isinstance(node, str):
            yield p, node


@operator("WORKFLOW_EXPRESSION", "workflow")
def expression_unbalanced(ctx):
    """An expression with an unclosed parenthesis."""
    exprs = _expressions(ctx.tree)
    if not exprs:
        return None
    pointer, text = exprs[0]
    _set(ctx.tree, pointer, "${(" + text[2:-1] + "}")
    return ctx.tree, pointer


@operator("WORKFLOW_EXPRESSION", "workflow")
def dollar_brace_inside_text(ctx):
    """Text with `${` that is not a whole expression, in place of an expression."""
    exprs = _expressions(ctx.tree)
    if not exprs:
        return None
    pointer, text = exprs[-1]
    _set(ctx.tree, pointer, "value: " + text)
    return ctx.tree, pointer


@operator("WORKFLOW_REFERENCE", "workflow")
def step_unknown(ctx):
    """A read of a step that does not exist."""
    exprs = [(p, t) for p, t in _expressions(ctx.tree) if t.startswith("${data.steps.")]
    if not exprs:
        return None
    pointer, _ = exprs[0]
    _set(ctx.tree, pointer, "${data.steps.zz_no_such_step.value}")
    return ctx.tree, pointer


@operator("WORKFLOW_REFERENCE", "workflow")
def input_unknown(ctx):
    """A read of a workflow input that is not declared."""
    exprs = [(p, t) for p, t in _expressions(ctx.tree) if t.startswith("${data.inputs.")]
    if not exprs:
        return None
    pointer, _ = exprs[0]
    _set(ctx.tree, pointer, "${data.inputs.zz_no_such_input}")
    return ctx.tree, pointer


@operator("WORKFLOW_REFERENCE", "workflow")
def call_unknown_workflow(ctx):
    """A new step calling a workflow that does not exist."""
    main = ctx.tree["workflows"][ctx.tree.get("entrypoint", "main")]
    main["steps"].append({"id": "zz_call", "type": "workflow.call", "workflow": "zz_nowhere"})
    return ctx.tree, join("/workflows", ctx.tree.get("entrypoint", "main"), "steps", len(main["steps"]) - 1, "workflow")


@operator("WORKFLOW_CYCLE", "workflow")
def workflow_calls_itself(ctx):
    """A new workflow (never called) that calls itself."""
    ctx.tree["workflows"]["zz_loop"] = {"steps": [{"id": "again", "type": "workflow.call", "workflow": "zz_loop"}]}
    return ctx.tree, "/workflows/zz_loop/steps/0/workflow"


@operator("WORKFLOW_CYCLE", "workflow")
def two_workflows_call_each_other(ctx):
    """Two new workflows calling each other."""
    ctx.tree["workflows"]["zz_ping"] = {"steps": [{"id": "to_pong", "type": "workflow.call", "workflow": "zz_pong"}]}
    ctx.tree["workflows"]["zz_pong"] = {"steps": [{"id": "to_ping", "type": "workflow.call", "workflow": "zz_ping"}]}
    return ctx.tree, "/workflows/zz_ping/steps/0/workflow"


@operator("WORKFLOW_LIMIT", "workflow")
def expression_too_long(ctx):
    """An expression longer than 8,192 characters (an `||` of 2,000 `true`s)."""
    exprs = _expressions(ctx.tree)
    if not exprs:
        return None
    pointer, _ = exprs[0]
    _set(ctx.tree, pointer, "${" + " || ".join(["true"] * 2000) + "}")
    return ctx.tree, pointer
