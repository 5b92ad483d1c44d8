"""Hostile catalogs: random catalog-shaped documents, random bytes and random tools
lists never raise; every diagnostic is a catalog code located in the file."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.catalog import load_catalog_text
from taskplan.catalog.mcp import import_mcp
from taskplan.diagnostics import Diagnostics

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CODES = {"CATALOG_SYNTAX", "CATALOG_SCHEMA_INVALID", "CATALOG_DUPLICATE_OPERATION", "CATALOG_OPERATION_INVALID", "CATALOG_NAME_RESERVED"}

JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=6)),
    lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.text(max_size=5), c, max_size=3)),
    max_leaves=8,
)
SCHEMA_KEYS = st.sampled_from(["type", "properties", "required", "items", "enum", "const", "$ref", "anyOf", "$defs", "additionalProperties", "minimum"])
SCHEMAISH = st.recursive(
    st.one_of(st.sampled_from([{"type": "object"}, {"type": "string"}, {}, True]), JSONISH),
    lambda c: st.dictionaries(SCHEMA_KEYS, st.one_of(c, st.sampled_from(["object", "#/$defs/a", "#", "x"])), max_size=4),
    max_leaves=10,
)
OP_KEYS = st.sampled_from(["id", "version", "title", "description", "executor", "input", "output", "fixed", "artifacts", "effect", "extra"])
OP_VALUES = {
    "id": st.one_of(st.sampled_from(["s.a", "s.b", "s.a", "bad id", ""]), JSONISH),
    "version": st.one_of(st.sampled_from(["1", "2", 3, "1 0"]), JSONISH),
    "executor": st.one_of(st.sampled_from(["mcp.call", {"type": "x", "config": {}}, {"type": ""}]), JSONISH),
    "input": SCHEMAISH,
    "output": SCHEMAISH,
    "fixed": st.one_of(st.dictionaries(st.sampled_from(["a", "b"]), JSONISH, max_size=2), JSONISH),
    "artifacts": st.one_of(
        st.fixed_dictionaries({}, optional={"produces": st.lists(st.fixed_dictionaries({"port": st.sampled_from(["a", "b", 3]), "kind": st.just("k")}), max_size=2),
                                            "consumes": st.lists(st.fixed_dictionaries({"port": st.sampled_from(["a", "b"]), "kind": st.just("k")}), max_size=2)}),
        JSONISH,
    ),
    "effect": st.sampled_from(["read", "write", "destroy", "nope", 1]),
}
OPERATION = st.one_of(
    st.fixed_dictionaries(
        {"id": OP_VALUES["id"], "input": OP_VALUES["input"]},
        optional={k: v for k, v in OP_VALUES.items() if k not in ("id", "input")},
    ),
    JSONISH,
)
CATALOG = st.fixed_dictionaries(
    {"version": st.sampled_from([1, 1, 1, 2, "1"])},
    optional={
        "sources": st.one_of(
            st.lists(st.one_of(st.fixed_dictionaries({"id": st.sampled_from(["s", "t", "bad id"])}, optional={"operations": st.lists(OPERATION, max_size=4)}), JSONISH), max_size=3),
            JSONISH,
        ),
        "extra": JSONISH,
    },
)


def _check(diagnostics, file: str) -> None:
    for d in diagnostics:
        assert d.code in CODES, d.code
        assert d.location.file == file
        assert d.location.line >= 1 and d.location.column >= 1


@SETTINGS
@given(CATALOG)
def test_random_catalogs_never_raise(tree):
    sink = Diagnostics()
    catalog = load_catalog_text(json.dumps(tree), "c.catalog.json", sink)
    _check(sink.sorted(), "c.catalog.json")
    for op in catalog:  # what loaded is usable
        op.input_type, op.output_type, op.ref
        assert op.input_type.kind == "object"
    for ref in ("s.a", "s.a@1", "s.b@2", "zzz"):
        catalog.resolve(ref)


@SETTINGS
@given(st.binary(max_size=200))
def test_random_bytes_never_raise(data):
    sink = Diagnostics()
    load_catalog_text(data, "c.catalog.yaml", sink)
    _check(sink.sorted(), "c.catalog.yaml")


TOOL = st.one_of(
    st.fixed_dictionaries(
        {"name": st.one_of(st.sampled_from(["a", "b", "a", "x y"]), JSONISH), "inputSchema": SCHEMAISH},
        optional={"outputSchema": SCHEMAISH, "annotations": JSONISH, "description": JSONISH, "title": JSONISH},
    ),
    JSONISH,
)


@SETTINGS
@given(st.one_of(st.fixed_dictionaries({"tools": st.lists(TOOL, max_size=4)}), JSONISH))
def test_random_tools_lists_never_raise(tree):
    sink = Diagnostics()
    result = import_mcp("tools.json", "src", sink, data=json.dumps(tree).encode())
    _check(sink.sorted(), "tools.json")
    if result.catalog is not None:
        sink2 = Diagnostics()
        load_catalog_text(json.dumps(result.catalog), "imported.json", sink2)
        assert not sink2.sorted(), [d.message for d in sink2.sorted()]
