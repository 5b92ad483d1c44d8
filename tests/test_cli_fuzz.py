"""Property tests of `check`: arbitrary bytes, arbitrary YAML/JSON documents and mutated
valid plans never make the compiler fail (exit code 0 or 1 only: 2 is for files that
cannot be read, 3 for compiler bugs), and the same input gives byte-identical JSON."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan.api import check_plan
from taskplan.diagnostics.render_json import render as render_json
from taskplan.diagnostics.render_text import render as render_text

ROOT = Path(__file__).resolve().parents[1]
SEEDS = [ROOT / "examples" / "pr-review.taskplan.yaml"] + sorted((ROOT / "fixtures" / "valid").glob("*.taskplan.*"))

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _check_never_fails(name: str, data: bytes) -> None:
    result = check_plan(name, text=data)
    codes = [d.code for d in result.diagnostics]
    assert "COMPILER_INTERNAL" not in codes, [d.message for d in result.diagnostics if d.code == "COMPILER_INTERNAL"]
    assert result.exit_code in (0, 1)
    # Both renderings work on whatever was found, and JSON is the same bytes twice.
    render_text(result.diagnostics, documents=result.documents, files=1, color=True)
    first = render_json(result.diagnostics, files=1)
    again = check_plan(name, text=data)
    assert render_json(again.diagnostics, files=1) == first
    json.loads(first)


@FUZZ
@given(st.binary(max_size=400), st.sampled_from(["plan.taskplan.yaml", "plan.taskplan.json", "plan"]))
def test_arbitrary_bytes(data, name):
    _check_never_fails(name, data)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("version: 1\nroot{}[]-,'\"#&*!|>?%@`\t tasks id kind ")), max_size=200))
def test_yaml_like_text(text):
    _check_never_fails("plan.taskplan.yaml", text.encode("utf-8"))


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from(["operation", "value", "foreach", "string", "output", "input", "__x", "a b", "1"]),
)
keys = st.one_of(
    st.text(max_size=8),
    st.sampled_from(["version", "root", "tasks", "id", "kind", "objective", "inputs", "outputs", "value", "body"]),
)
trees = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(keys, children, max_size=4)),
    max_leaves=30,
)


def _dump(tree: Any, fmt: str) -> bytes:
    if fmt == "json":
        return json.dumps(tree, ensure_ascii=False).encode("utf-8")
    out = io.StringIO()
    YAML(typ="safe", pure=True).dump(tree, out)
    return out.getvalue().encode("utf-8")


@FUZZ
@given(trees, st.sampled_from(["json", "yaml"]))
def test_arbitrary_documents(tree, fmt):
    _check_never_fails(f"plan.taskplan.{fmt}", _dump(tree, fmt))


@FUZZ
@given(trees.map(lambda t: {"version": 1, "root": t}), st.sampled_from(["json", "yaml"]))
def test_arbitrary_roots(tree, fmt):
    _check_never_fails(f"plan.taskplan.{fmt}", _dump(tree, fmt))


def _load(path: Path) -> Any:
    return YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))


SEED_TREES = [_load(p) for p in SEEDS if p.is_file()]


@st.composite
def mutated_plans(draw) -> Any:
    tree = copy.deepcopy(draw(st.sampled_from(SEED_TREES)))
    for _ in range(draw(st.integers(1, 4))):
        # Walk down to a random node, then change it.
        parent, key = None, None
        node = tree
        while isinstance(node, (dict, list)) and node and draw(st.integers(0, 4)):
            parent = node
            key = draw(st.sampled_from(sorted(node))) if isinstance(node, dict) else draw(st.integers(0, len(node) - 1))
            node = node[key]
        if parent is None:
            continue
        action = draw(st.sampled_from(["delete", "replace", "duplicate", "rename"]))
        if action == "delete":
            del parent[key]
        elif action == "replace":
            parent[key] = draw(trees)
        elif action == "duplicate" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(node))
        elif action == "rename" and isinstance(parent, dict):
            parent[draw(keys)] = parent.pop(key)
    return tree


@FUZZ
@given(mutated_plans(), st.sampled_from(["json", "yaml"]))
def test_mutated_valid_plans(tree, fmt):
    _check_never_fails(f"plan.taskplan.{fmt}", _dump(tree, fmt))


def test_the_seeds_are_valid_plans():
    assert SEED_TREES, "no valid plan to mutate"
    for path in SEEDS:
        result = check_plan(path)
        assert result.ok, [f"{d.code} {d.location.pointer}: {d.message}" for d in result.diagnostics]
