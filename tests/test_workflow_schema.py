"""The dialect's JSON Schema: the published file is generated (drift test), is a valid
draft 2020-12 schema with closed objects, and the fast structural check agrees with
jsonschema on valid, broken and randomly mutated documents."""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from taskplan.workflow import dialect as d
from taskplan.workflow.fastschema import Compiler, ecma_pattern
from taskplan.workflow.schema import SCHEMA_ID, build_schema, schema_text
from taskplan.workflow.structure import check_structure

ROOT = Path(__file__).resolve().parents[1]
VALID = sorted((ROOT / "fixtures" / "workflows" / "valid").glob("*.yaml"))
PR_REVIEW = ROOT / "fixtures" / "workflows" / "valid" / "pr-review.workflow.yaml"
BROKEN = sorted((ROOT / "fixtures" / "errors" / "workflow").glob("*.workflow.yaml"))


def _load(path: Path):
    return YAML(typ="safe", pure=False).load(path.read_text(encoding="utf-8"))


def _jsonschema_valid(doc) -> bool:
    return Draft202012Validator(build_schema()).is_valid(doc)


def test_published_schema_is_generated():
    # The checkout's file (the package may be installed elsewhere, as in CI).
    assert (ROOT / "schemas" / "workflow.schema.json").read_text(encoding="utf-8") == schema_text(), (
        "schemas/workflow.schema.json is stale: run python -m taskplan.workflow.schema"
    )


def test_schema_is_valid_draft_2020_12_and_versioned():
    schema = build_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_ID and "workflow-1" in SCHEMA_ID
    assert schema["properties"]["version"]["const"] == 1


def _objects(node, path=()):
    if isinstance(node, dict):
        if "properties" in node and node.get("type") == "object":
            yield path, node
        for k, v in node.items():
            yield from _objects(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _objects(v, path + (i,))


def test_every_object_with_fields_is_closed_and_described():
    schema = build_schema()
    for path, node in _objects(schema):
        if "if" in path or path == ("$defs", "step"):
            continue  # the dispatcher on `type`: each type's own schema is closed
        if path == ("$defs", "step.executor", "properties", "input"):
            # the catalog's configuration fields, open by design (data trees), and `request`
            assert node["additionalProperties"] == {"$ref": "#/$defs/value"}
            assert node["required"] == [d.REQUEST] and list(node["properties"]) == [d.REQUEST]
            continue
        assert node.get("additionalProperties") is False, path
    for name, node in schema["$defs"].items():
        if name.startswith("step."):
            assert node["additionalProperties"] is False
            for field, sub in node["properties"].items():
                assert "description" in sub or "$ref" in sub, (name, field)


def test_every_step_type_has_a_schema_and_result_fields():
    defs = build_schema()["$defs"]
    for t in d.BUILTIN_TYPES:
        assert f"step.{t}" in defs
        assert t in d.RESULT_FIELDS
    assert "step.executor" in defs


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_fixtures_pass_both(path):
    doc = _load(path)
    assert check_structure(doc) == []
    assert _jsonschema_valid(doc)


@pytest.mark.parametrize("path", BROKEN, ids=[p.name for p in BROKEN])
def test_broken_fixtures_agree(path):
    try:
        doc = _load(path)
    except Exception:  # the syntax cases
        pytest.skip("not loadable YAML")
    structural = [e for e in check_structure(doc)]
    assert (not structural) == _jsonschema_valid(doc), [e.message for e in structural]


# --- random mutations of a valid document: both validators agree on validity ----------------

_REPLACEMENTS = [None, True, 0, -1, 1.5, "", "x", "${data.inputs.pr_url}", "a ${b}", "${", [], {}, {"$literal": 1},
                 {"$x": 1}, "mcp.call", "set", "value.projct", "__a.b", "a b", "Zz"]


if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from datatrees import node_at, tree_paths as _paths  # noqa: E402  (tests/ is on sys.path)


def _mutate(doc, rng: random.Random):
    doc = copy.deepcopy(doc)
    paths = [p for p in _paths(doc) if p]
    path = rng.choice(paths)
    parent = node_at(doc, path[:-1])
    last = path[-1]
    action = rng.randrange(3)
    if action == 0 and isinstance(parent, dict):
        del parent[last]
    elif action == 1 and isinstance(parent, dict):
        parent[rng.choice(["extra", "when", "input", "max_items", "call", "steps", "$literal", "type"])] = rng.choice(_REPLACEMENTS)
    else:
        parent[last] = rng.choice(_REPLACEMENTS)
    return doc


@pytest.mark.parametrize("seed", range(8))
def test_mutations_agree_with_jsonschema(seed):
    rng = random.Random(seed)
    base = _load(PR_REVIEW)
    validator = Draft202012Validator(build_schema())
    for _ in range(150):
        doc = _mutate(base, rng)
        ours = check_structure(doc)
        theirs = validator.is_valid(doc)
        assert (not ours) == theirs, (json.dumps(doc)[:300], [e.message for e in ours])


def test_errors_are_at_the_exact_field_not_one_of():
    doc = _load(PR_REVIEW)
    doc["workflows"]["main"]["steps"][0]["effect"] = "delete"
    doc["workflows"]["main"]["steps"][1]["input"]["$bad"] = 1
    errors = check_structure(doc)
    assert [(e.path, e.key) for e in errors] == [
        (("workflows", "main", "steps", 0, "effect"), False),
        (("workflows", "main", "steps", 1, "input", "$bad"), True),
    ]
    assert "one of `read`, `write`, `destroy`" in errors[0].message


def test_ecma_end_anchor():
    assert ecma_pattern("^[a-z]+$") == r"^[a-z]+\Z"
    assert ecma_pattern(r"^a\$") == r"^a\$"
    doc = _load(PR_REVIEW)
    doc["workflows"]["main"]["steps"][0]["id"] = "abc\n"
    assert [e.path for e in check_structure(doc)] == [("workflows", "main", "steps", 0, "id")]


def test_compiler_refuses_unsupported_keywords():
    with pytest.raises(ValueError):
        Compiler({"type": "object", "patternProperties": {}}).compile({"patternProperties": {"a": {}}})


def test_deeply_nested_values_do_not_recurse():
    value: object = "${data.inputs.pr_url}"
    for _ in range(5000):
        value = [value]
    doc = _load(PR_REVIEW)
    doc["workflows"]["main"]["steps"][0]["input"]["request"] = {"deep": value}
    assert check_structure(doc) == []
