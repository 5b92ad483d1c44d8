"""schemas/catalog.schema.json: generated from the models (drift test), printed by
`taskplan schema catalog`, and in agreement with the loader on real catalogs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from taskplan.catalog import load_catalog_text
from taskplan.cli import main
from taskplan.diagnostics import Diagnostics
from taskplan.model.catalog import catalog_json_schema, catalog_json_schema_text

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_FILE = ROOT / "schemas" / "catalog.schema.json"
VALID = sorted((ROOT / "fixtures" / "catalogs").glob("*.catalog.yaml")) + sorted(
    (ROOT / "fixtures" / "catalogs" / "mcp").glob("*.catalog.yaml")
) + [ROOT / "examples" / "catalog.yaml"]


def test_committed_schema_is_generated():
    """To update: taskplan schema catalog -o schemas/catalog.schema.json"""
    assert SCHEMA_FILE.read_text(encoding="utf-8") == catalog_json_schema_text()


def test_schema_command_prints_it():
    result = CliRunner().invoke(main, ["schema", "catalog"], catch_exceptions=False)
    assert result.exit_code == 0
    assert result.stdout == catalog_json_schema_text()


def test_the_schema_is_valid_2020_12():
    jsonschema.Draft202012Validator.check_schema(catalog_json_schema())


@pytest.mark.parametrize("path", VALID, ids=lambda p: p.name)
def test_valid_catalogs_validate(path):
    tree = YAML(typ="safe").load(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(catalog_json_schema()).validate(tree)


@pytest.mark.parametrize(
    "text",
    [
        "version: 2\nsources: []\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x, input: {}, efect: read}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: 's x', input: {}}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x, input: {}, effect: remove}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x, input: {}, executor: {type: a, conf: {}}}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x, input: {}, version: '1 0'}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x, input: {}, executor: Http.Call}]}]\n",
        "version: 1\nsources: [{id: s, operations: [{id: s.x, input: {}, executor: {type: http}}]}]\n",
    ],
)
def test_schema_and_loader_agree_on_shape_errors(text):
    tree = YAML(typ="safe").load(text)
    assert list(jsonschema.Draft202012Validator(catalog_json_schema()).iter_errors(tree))
    sink = Diagnostics()
    load_catalog_text(text, "c.yaml", sink)
    assert "CATALOG_SYNTAX" in {d.code for d in sink.sorted()}


def test_bare_string_executor_is_in_the_schema():
    tree = {"version": 1, "sources": [{"id": "s", "operations": [{"id": "s.x", "input": {"type": "object"}, "executor": "http.call"}]}]}
    jsonschema.Draft202012Validator(catalog_json_schema()).validate(tree)


@pytest.mark.parametrize(
    ("executor", "valid"),
    [("mcp.call", True), ("my_host.run.v2", True), ("set", False), ("llm.call", False),
     ("value.fetch", False), ("http", False), ("Mcp.Call", False)],
)
def test_the_schema_checks_executor_types_as_the_loader_does(executor, valid):
    """The executor type is the call step's type: both forms carry the dialect's rule."""
    validator = jsonschema.Draft202012Validator(catalog_json_schema())
    for form in (executor, {"type": executor}):
        tree = {"version": 1, "sources": [{"id": "s", "operations": [{"id": "s.x", "input": {"type": "object"}, "executor": form}]}]}
        sink = Diagnostics()
        load_catalog_text(json.dumps(tree), "c.json", sink)
        assert validator.is_valid(tree) is valid is (not sink.sorted()), (form, [d.message for d in sink.sorted()])
