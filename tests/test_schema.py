"""The TaskPlan JSON Schemas: valid draft 2020-12, in step with the committed files,
every field described, plans (valid fixtures, hand-written, wire form) validate, and
the wire schema is strict structured-output style. Also the `schema` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from taskplan.cli import main
from taskplan.model import schema as generator

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
VALID = ROOT / "fixtures" / "valid"

HAND_WRITTEN = """\
version: 1
name: weekly-digest
request: Send the weekly digest of open pull requests
inputs:
  - {name: repo, type: {kind: string, description: owner/name}}
  - {name: limit, type: {kind: integer}, required: false, default: {kind: number, number: 20}}
root:
  tasks:
    - id: list_prs
      operation: github.list_pull_requests@1
      objective: List the open pull requests
      inputs:
        - {name: repo, value: {kind: input, source: repo}}
        - {name: limit, value: {kind: input, source: limit}}
    - id: each_pr
      kind: foreach
      objective: Summarise each pull request
      items: {kind: output, source: list_prs, port: items}
      parallel: true
      maxItems: 200
      body:
        tasks:
          - id: summarise
            kind: transform
            objective: Summarise the pull request in one sentence
            inputs: [{name: pr, value: {kind: item}}]
            resultType:
              kind: object
              fields:
                - {name: summary, type: {kind: string}}
                - {name: risk, type: {kind: string, enum: [low, high], nullable: true}}
        outputs:
          - {name: summary, value: {kind: output, source: summarise, port: summary}}
    - id: decide
      kind: conditional
      objective: Post only when there is something to say
      condition:
        kind: predicate
        predicate: greater
        items: [{kind: index}, {kind: number, number: 0}]
      body:
        tasks:
          - {id: post, kind: call, group: poster, objective: Post it, inputs: [{name: text, value: {kind: json, items: [{kind: output, source: each_pr}]}}]}
      otherwise: null
    - id: both
      kind: parallel
      objective: Two things at once
      branches:
        - tasks: [{id: one, kind: value, objective: One, outputs: [{name: x, value: {kind: "null"}}]}]
        - tasks: [{id: two, kind: value, objective: Two, outputs: [{name: y, value: {kind: object, members: [{name: z, value: {kind: boolean, boolean: false}}]}}]}]
  always:
    - {id: tidy, kind: sequence, objective: Tidy up, body: {}}
groups:
  - id: poster
    objective: Post a text
    inputs: [{name: text, type: {kind: string}}]
    body:
      tasks:
        - {id: send, operation: chat.post, objective: Send, inputs: [{name: text, value: {kind: input, source: text}}]}
choices:
  - id: tone
    question: Which tone?
    type: {kind: string, enum: [formal, friendly]}
    alternatives:
      - {id: formal, value: {kind: string, text: formal}, description: Formal}
      - {id: friendly, value: {kind: string, text: friendly}}
    recommended: friendly
    selected: null
"""


def load(text: str):
    return YAML(typ="safe", pure=False).load(text)


@pytest.fixture(scope="module")
def authoring():
    return json.loads((SCHEMAS / "taskplan.schema.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def wire():
    return json.loads((SCHEMAS / "taskplan.wire.schema.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("is_wire", [False, True])
def test_the_committed_schemas_are_generated(is_wire):
    path = SCHEMAS / generator.FILES[is_wire]
    assert path.read_text(encoding="utf-8") == generator.schema_text(wire=is_wire), (
        f"{path.name} is stale: run python -m taskplan.model.schema"
    )


@pytest.mark.parametrize("is_wire", [False, True])
def test_generation_is_deterministic_and_the_text_is_canonical(is_wire):
    text = generator.schema_text(wire=is_wire)
    assert text == generator.schema_text(wire=is_wire)
    assert text.endswith("}\n") and not text.endswith("\n\n")
    assert json.dumps(json.loads(text), indent=2, sort_keys=True, ensure_ascii=False) + "\n" == text


def test_both_are_draft_2020_12_schemas(authoring, wire):
    for schema in (authoring, wire):
        Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["$id"] and schema["title"] and schema["description"]
    assert authoring["$id"] != wire["$id"]


def _objects(node, path="#"):
    if isinstance(node, dict):
        if node.get("type") == "object" or "properties" in node:
            yield path, node
        for key, value in node.items():
            yield from _objects(value, f"{path}/{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _objects(value, f"{path}/{i}")


@pytest.mark.parametrize("which", ["authoring", "wire"])
def test_every_object_is_closed_and_every_field_described(which, authoring, wire):
    schema = authoring if which == "authoring" else wire
    objects = list(_objects(schema))
    assert len(objects) > 25
    for path, node in objects:
        assert node.get("additionalProperties") is False, path
        for name, prop in node.get("properties", {}).items():
            assert prop.get("description", "").strip(), f"{path}/properties/{name} has no description"
    for name, definition in schema["$defs"].items():
        assert definition.get("description", "").strip(), f"$defs/{name} has no description"


def test_the_wire_schema_is_strict_structured_output_style(wire):
    def keywords(node):
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("properties", "$defs"):
                    for sub in value.values():
                        yield from keywords(sub)
                else:
                    yield key
                    yield from keywords(value)
        elif isinstance(node, list):
            for value in node:
                yield from keywords(value)

    used = set(keywords(wire))
    assert not used & {"default", "oneOf", "const", "$comment", "discriminator"}
    assert "default" in wire["$defs"]["TaskInput"]["properties"], "a property named default is not a keyword"
    for path, node in _objects(wire):
        assert sorted(node["required"]) == sorted(node["properties"]), f"{path}: every property required"
    operation = wire["$defs"]["OperationTask"]["properties"]
    assert operation["objective"]["anyOf"][-1] == {"type": "null"}
    assert operation["inputs"]["type"] == ["array", "null"]
    assert operation["id"] == {"description": operation["id"]["description"], "type": "string"}, "required ones are not nullable"


def test_the_authoring_schema_offers_kinds_for_completion(authoring):
    defs = authoring["$defs"]
    assert defs["TaskType"]["properties"]["kind"]["enum"] == ["string", "number", "integer", "boolean", "object", "array", "any"]
    assert [ref["$ref"] for ref in defs["PlanTask"]["oneOf"]][0] == "#/$defs/OperationTask"
    assert defs["ValueTask"]["properties"]["kind"]["const"] == "value"
    assert defs["ForeachTask"]["properties"]["maxItems"]["default"] == 100
    assert "tasks" in defs["TaskScope"]["properties"]


def test_a_hand_written_plan_validates(authoring):
    plan = load(HAND_WRITTEN)
    errors = [e.message for e in Draft202012Validator(authoring).iter_errors(plan)]
    assert errors == []


def test_the_schema_is_not_a_rubber_stamp(authoring):
    validator = Draft202012Validator(authoring)
    plan = load(HAND_WRITTEN)
    plan["root"]["tasks"][0]["dependson"] = ["x"]
    assert not validator.is_valid(plan)
    plan = load(HAND_WRITTEN)
    plan["root"]["tasks"][1]["kind"] = "loop"
    assert not validator.is_valid(plan)
    plan = load(HAND_WRITTEN)
    plan["inputs"][0]["type"]["kind"] = "text"
    assert not validator.is_valid(plan)
    plan = load(HAND_WRITTEN)
    plan["root"]["tasks"][0]["inputs"][0]["value"] = "hello"
    assert not validator.is_valid(plan)


def _wire_form(node, definition, schema):
    """Fill `node` (valid under the authoring schema) out to the wire form: every property
    present, null where absent. Follows `definition` through the schema."""
    defs = schema["$defs"]
    while "$ref" in definition:
        definition = defs[definition["$ref"].rsplit("/", 1)[-1]]
    if isinstance(node, dict):
        if "oneOf" in definition:
            kind = node.get("kind") or "operation"
            for ref in definition["oneOf"]:
                target = defs[ref["$ref"].rsplit("/", 1)[-1]]
                kinds = [target["properties"]["kind"]] + target["properties"]["kind"].get("anyOf", [])
                if any(k.get("const") == kind for k in kinds):
                    return _wire_form(node, target, schema)
        out = {}
        for name, prop in definition.get("properties", {}).items():
            inner = prop
            if "anyOf" in prop:
                inner = next(b for b in prop["anyOf"] if b != {"type": "null"})
            out[name] = _wire_form(node[name], inner, schema) if name in node else None
        return out
    if isinstance(node, list):
        return [_wire_form(item, definition.get("items", {}), schema) for item in node]
    return node


def test_a_wire_form_plan_validates_against_both(authoring, wire):
    plan = load(HAND_WRITTEN)
    filled = _wire_form(plan, authoring, authoring)
    assert filled["root"]["tasks"][0]["dependsOn"] is None and filled["groups"][0]["inputs"][0]["required"] is None
    assert [e.message for e in Draft202012Validator(wire).iter_errors(filled)] == []
    assert [e.message for e in Draft202012Validator(authoring).iter_errors(filled)] == []
    assert not Draft202012Validator(wire).is_valid(plan), "the wire form requires every property"


def _valid_fixtures():
    manifest = VALID / "manifest.yaml"
    if not manifest.is_file():
        return []
    cases = (load(manifest.read_text(encoding="utf-8")) or {}).get("cases") or []
    return [VALID / case["plan"] for case in cases if isinstance(case, dict) and case.get("plan")]


@pytest.mark.parametrize("path", _valid_fixtures(), ids=lambda p: p.name)
def test_every_valid_fixture_validates(path, authoring):
    text = path.read_text(encoding="utf-8")
    plan = json.loads(text) if path.suffix == ".json" else load(text)
    errors = [f"{list(e.absolute_path)}: {e.message}" for e in Draft202012Validator(authoring).iter_errors(plan)]
    assert errors == []


# --------------------------------------------------------------------- the command


def test_schema_command_prints_the_committed_schemas(tmp_path):
    runner = CliRunner()
    result = runner.invoke(main, ["schema", "taskplan"])
    assert result.exit_code == 0
    assert result.output == (SCHEMAS / "taskplan.schema.json").read_text(encoding="utf-8")
    result = runner.invoke(main, ["schema", "taskplan", "--wire"])
    assert result.exit_code == 0
    assert result.output == (SCHEMAS / "taskplan.wire.schema.json").read_text(encoding="utf-8")
    out = tmp_path / "s.json"
    result = runner.invoke(main, ["schema", "taskplan", "--wire", "-o", str(out)])
    assert result.exit_code == 0 and result.output == ""
    assert out.read_text(encoding="utf-8") == (SCHEMAS / "taskplan.wire.schema.json").read_text(encoding="utf-8")


def test_schema_command_usage_errors(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["schema", "nope"]).exit_code == 2
    assert runner.invoke(main, ["schema"]).exit_code == 2
    result = runner.invoke(main, ["schema", "taskplan", "-o", str(tmp_path / "missing" / "s.json")])
    assert result.exit_code == 2


def test_schema_command_names_are_extensible(monkeypatch):
    from taskplan.cli import schema as command

    assert command.SCHEMAS["taskplan"] == ("taskplan.model.schema:schema_text", True)
    for name, (target, _) in command.SCHEMAS.items():
        module, attr = target.split(":")
        assert callable(getattr(__import__(module, fromlist=[attr]), attr)), name
