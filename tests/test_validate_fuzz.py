"""The validate pass never raises on user input: random mutations of valid workflows
and arbitrary JSON documents give diagnostics, never exceptions, deterministically."""

from __future__ import annotations

import copy
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan.passes.validate import validate_text
from taskplan.workflow.emit import emit_yaml

ROOT = Path(__file__).resolve().parents[1]
VALID = sorted((ROOT / "fixtures" / "workflows" / "valid").glob("*.yaml"))
BASE = YAML(typ="safe", pure=False).load((ROOT / "fixtures" / "workflows" / "valid" / "pr-review.workflow.yaml").read_text(encoding="utf-8"))

REPLACEMENTS = [
    None, True, 0, -1, 2.5, "", "x", "main", "lint", "review_each.body", "${data.item}", "${data.index}",
    "${data.steps.parse_pr_url.result}", "${data.steps.post.outputs.nope}", "${data.inputs.pr_url ==}", "a ${b}",
    "${", [], {}, {"$literal": 1}, {"$x": 1}, "mcp.call", "set", "switch", "loop.parallel", "workflow.call",
    "value.projct", "__a.b", [{"id": "z", "type": "set", "value": 1}], {"call": "main"}, {"type": {"type": "strnig"}},
    {"when": "${true}", "steps": []}, {"call": "tests", "input": {"suites": 1}},
]
KEYS = ["extra", "when", "input", "max_items", "call", "steps", "$literal", "type", "id", "workflow", "default",
        "finally", "outputs", "inputs", "schema", "cases", "branches", "items", "entrypoint", "required"]


if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from datatrees import node_at, tree_paths as _paths  # noqa: E402  (tests/ is on sys.path)


def _mutate(doc, rng: random.Random, times: int):
    doc = copy.deepcopy(doc)
    for _ in range(times):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = node_at(doc, path[:-1])
        last = path[-1]
        action = rng.randrange(4)
        if action == 0 and isinstance(parent, dict):
            del parent[last]
        elif action == 1 and isinstance(parent, dict):
            parent[rng.choice(KEYS)] = copy.deepcopy(rng.choice(REPLACEMENTS))
        elif action == 2 and isinstance(parent, list):
            parent.insert(rng.randrange(len(parent) + 1), copy.deepcopy(rng.choice(REPLACEMENTS)))
        else:
            parent[last] = copy.deepcopy(rng.choice(REPLACEMENTS))
    return doc


@pytest.mark.parametrize("seed", range(6))
def test_mutated_workflows_never_raise(seed):
    rng = random.Random(seed)
    for _ in range(60):
        doc = _mutate(BASE, rng, rng.randint(1, 4))
        text = emit_yaml(doc).encode("utf-8")
        first = validate_text(text, "w.yaml")
        again = validate_text(text, "w.yaml")
        assert [d.to_json() for d in first.diagnostics] == [d.to_json() for d in again.diagnostics]
        keys = [(d.code, d.location.pointer, d.message) for d in first.diagnostics]
        assert len(keys) == len(set(keys)), "a finding reported twice"


json_docs = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=10),
              st.sampled_from(["${data.item}", "${", "set", "main", "mcp.call", "${data.steps.a.value}"])),
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(KEYS + ["version", "name", "workflows", "main", "a", "value"]), children, max_size=5),
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(json_docs)
def test_any_document_gives_diagnostics_not_exceptions(doc):
    if isinstance(doc, dict):
        doc = {"version": 1, **doc}
    validate_text(emit_yaml(doc).encode("utf-8"), "w.yaml")
