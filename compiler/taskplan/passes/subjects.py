"""The subject of a place in a plan: the business address a repair is scoped by
(diagnostics.md), told from the place's pointer and the document's raw tree.

Walking the pointer down the tree, the innermost declaration on the way names it:

- a task of a `tasks` / `always` list: `{task: ID}`; its own `inputs` / `outputs`
  entries, and the `outputs` of its child scopes (its ports), add `port: name`;
- a group: `{group: ID}`; its `inputs` add `input: name`, its body's `outputs` (the
  ports of every call) `port: name`;
- a choice: `{choice: ID}`; a workflow input: `{input: name}`;
- an entry of the root scope's `outputs` (a result of the plan, an output of the
  generated workflow): `{output: name}`.

Anything else (the document, `version`, the root scope itself) has no subject. A name
or ID that is not a string is not an address: the enclosing one is kept. Used where
a pass reports about a place it reached without the task in hand (a value deep in a
task, a name of a list); O(pointer depth), and only when a diagnostic is reported.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from taskplan.diagnostics import Diagnostic
from taskplan.source import pointer as jp

_TASK_LISTS = frozenset(("tasks", "always"))


def subject_at(tree: Any, pointer: str) -> dict[str, str]:
    """The subject of the place `pointer` names in the raw document `tree` ({}: none)."""
    try:
        tokens = jp.split(pointer)
    except ValueError:
        return {}
    subject: dict[str, str] = {}
    node = tree
    for depth, token in enumerate(tokens):
        if type(node) is dict:
            if token not in node:
                break
            node = node[token]
            continue
        if type(node) is not list or not token.isdigit() or int(token) >= len(node):
            break
        node = node[int(token)]
        if type(node) is not dict:
            continue
        key = tokens[depth - 1] if depth else ""
        if depth == 1:  # a top-level list: inputs, groups, choices
            role = {"inputs": ("input", "name"), "groups": ("group", "id"), "choices": ("choice", "id")}.get(key)
            if role is not None and type(node.get(role[1])) is str:
                subject = {role[0]: node[role[1]]}
            continue
        if key in _TASK_LISTS:
            if type(node.get("id")) is str:
                subject = {"task": node["id"]}
        elif key in ("inputs", "outputs") and type(node.get("name")) is str:
            name = node["name"]
            if not subject:
                if key == "outputs" and tokens[0] == "root" and depth == 2:
                    subject = {"output": name}  # /root/outputs/N: a result of the plan
            elif "task" in subject and len(subject) == 1:
                subject = {"task": subject["task"], "port": name}
            elif "group" in subject and len(subject) == 1:
                subject = {"group": subject["group"], ("input" if key == "inputs" else "port"): name}
    return subject


def with_subject(diagnostic: Diagnostic, tree: Any) -> Diagnostic:
    """`diagnostic` with the subject of its place when it has none: for the reader's
    findings (a duplicated key inside a task), reported before the tree was whole."""
    if diagnostic.subject:
        return diagnostic
    subject = subject_at(tree, diagnostic.location.pointer)
    return replace(diagnostic, subject=tuple(subject.items())) if subject else diagnostic


__all__ = ["subject_at", "with_subject"]
