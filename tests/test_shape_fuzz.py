"""Property test: valid plans mutated at random (fields deleted, retyped, renamed,
nodes replaced) never make shape + structure raise, and what they report is
deterministic and located inside the document."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.config import Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.passes import structure
from taskplan.passes.shape import shape
from taskplan.source.read import read_document

BASE = {
    "version": 1,
    "name": "fuzz",
    "inputs": [
        {"name": "flag", "type": {"kind": "boolean"}},
        {"name": "xs", "type": {"kind": "array", "items": {"kind": "string", "enum": ["a", "b"]}}, "required": False,
         "default": {"kind": "array", "items": [{"kind": "string", "text": "a"}]}},
    ],
    "root": {
        "tasks": [
            {"id": "op", "operation": "x.y", "objective": "O.", "dependsOn": [],
             "inputs": [{"name": "a", "value": {"kind": "input", "source": "flag"}}]},
            {"id": "c", "kind": "conditional", "objective": "C.",
             "condition": {"kind": "predicate", "predicate": "not", "items": [{"kind": "input", "source": "flag"}]},
             "body": {"tasks": [{"id": "v", "kind": "value", "objective": "V.",
                                 "outputs": [{"name": "o", "value": {"kind": "object", "members": [
                                     {"name": "m", "value": {"kind": "number", "number": 1.5}}]}}]}],
                      "outputs": [{"name": "r", "value": {"kind": "output", "source": "v", "port": "o"}}]},
             "otherwise": {"outputs": [{"name": "r", "value": {"kind": "null"}}]}},
            {"id": "f", "kind": "foreach", "objective": "F.", "items": {"kind": "input", "source": "xs"},
             "parallel": True, "maxItems": 10, "maxConcurrency": 2,
             "body": {"tasks": [{"id": "t", "kind": "transform", "objective": "T.",
                                 "inputs": [{"name": "i", "value": {"kind": "item"}}],
                                 "resultType": {"kind": "object", "fields": [{"name": "s", "type": {"kind": "string"}}]}}],
                      "outputs": [{"name": "s", "value": {"kind": "field", "port": "s", "items": [{"kind": "output", "source": "t"}]}}]}},
            {"id": "p", "kind": "parallel", "objective": "P.",
             "branches": [{"tasks": [{"id": "k", "kind": "call", "group": "g", "objective": "K.", "inputs": []}]}, {}]},
        ],
        "always": [{"id": "s", "kind": "sequence", "objective": "S.", "body": {}}],
    },
    "groups": [{"id": "g", "objective": "G.", "inputs": [{"name": "z", "type": {"kind": "integer"}}],
                "body": {"outputs": [{"name": "j", "value": {"kind": "json", "items": [{"kind": "input", "source": "z"}]}}]}}],
    "choices": [{"id": "ch", "question": "Q.", "type": {"kind": "string"},
                 "alternatives": [{"id": "a", "value": {"kind": "string", "text": "a"}},
                                  {"id": "b", "value": {"kind": "string", "text": "b"}}],
                 "recommended": "a", "selected": None}],
}

NAMES = ["id", "kind", "name", "value", "type", "tasks", "body", "items", "inputs", "outputs", "objective", "source",
         "port", "fields", "required", "default", "branches", "condition", "otherwise", "nullable", "enum", "members"]
REPLACEMENTS = [None, 0, -1, 1.5, True, False, "", "x", "operation", "string", "null", [], [None], {}, {"kind": "bogus"},
                {"kind": "null"}, {"kind": "value"}, [{}], 2**60, float("inf")]


def paths(node, prefix=()):
    """Every (path to a container, key) in the tree."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield prefix, key
            yield from paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield prefix, i
            yield from paths(value, prefix + (i,))


def get(tree, path):
    for token in path:
        tree = tree[token]
    return tree


@st.composite
def mutated(draw):
    tree = copy.deepcopy(BASE)
    for _ in range(draw(st.integers(1, 6))):
        spots = list(paths(tree))
        if not spots:
            break
        prefix, key = draw(st.sampled_from(spots))
        container = get(tree, prefix)
        action = draw(st.sampled_from(["delete", "retype", "rename", "wrap"]))
        if action == "delete":
            del container[key]
        elif action == "retype":
            container[key] = copy.deepcopy(draw(st.sampled_from(REPLACEMENTS)))
        elif action == "rename" and isinstance(container, dict):
            new = draw(st.sampled_from(NAMES + [key + "s", key.upper(), key[:-1] or "k"]))
            value = container.pop(key)
            container[new] = value
        elif action == "wrap":
            container[key] = [container[key]] if draw(st.booleans()) else {"kind": "array", "items": container[key]}
    return tree


def run(text: str, path: str):
    sink = Diagnostics()
    document = read_document(text.encode("utf-8"), path, sink)
    if not document.ok:
        return document, [d.to_json() for d in sink.sorted()]
    reporter = Reporter(document, sink)
    plan = shape(document, reporter, Limits(max_tasks=100))
    if plan is not None:
        structure.run(plan, reporter, Limits(max_tasks=100))
    return document, [d.to_json() for d in sink.sorted()]


def test_the_base_plan_is_clean():
    _, diagnostics = run(json.dumps(BASE), "base.taskplan.json")
    assert diagnostics == []


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated())
def test_mutated_plans_never_raise(tree):
    text = json.dumps(tree, allow_nan=True)
    document, diagnostics = run(text, "fuzz.taskplan.json")
    again = run(text, "fuzz.taskplan.json")[1]
    assert diagnostics == again, "deterministic"
    seen = set()
    for d in diagnostics:
        key = (d["code"], d["location"]["pointer"], d["message"])
        assert key not in seen, f"reported twice: {key}"
        seen.add(key)
        if document.ok:
            assert document.map.has(d["location"]["pointer"]), d
