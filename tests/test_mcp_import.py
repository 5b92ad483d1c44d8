"""`taskplan catalog import-mcp`: every MCP dump of the corpus imports, every tool's
schemas convert, the committed fixture catalogs equal a fresh import, input forms,
located errors, exit codes, deterministic YAML that our own reader reads back."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan.catalog import load_catalogs
from taskplan.catalog.jsonschema_types import schema_type
from taskplan.catalog.mcp import dump_yaml, effect_of, import_mcp
from taskplan.cli import main
from taskplan.diagnostics import Diagnostics
from taskplan.source.read import CATALOG_CODES, read_document

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "mcp"
FIXTURES = ROOT / "fixtures" / "catalogs" / "mcp"

# fixture catalog -> (source ID, dump path relative to the corpus)
DUMPS = {
    "fetch": "tools_list/mcp-server-fetch.json",
    "git": "tools_list/mcp-server-git.json",
    "everything": "tools_list/server-everything.json",
    "filesystem": "tools_list/server-filesystem.json",
    "memory": "tools_list/server-memory.json",
    "sequential-thinking": "tools_list/server-sequential-thinking.json",
    "github": "github-mcp-server/pkg/github/__toolsnaps__",
}

needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the MCP corpus is not beside this checkout ({CORPUS})")


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def _tool_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.glob("tools_list/*.json")) + sorted(CORPUS.glob("github-mcp-server/**/*.snap"))


# ------------------------------------------------------------------ corpus


@needs_corpus
def test_every_dump_of_the_corpus_is_covered():
    dumps = {p.relative_to(CORPUS).as_posix() for p in CORPUS.glob("tools_list/*.json")}
    dumps |= {p.parent.relative_to(CORPUS).as_posix() for p in CORPUS.glob("**/__toolsnaps__/*.snap")}
    assert dumps == set(DUMPS.values())


@needs_corpus
@pytest.mark.parametrize("source", sorted(DUMPS))
def test_every_dump_imports(source):
    sink = Diagnostics()
    result = import_mcp(CORPUS / DUMPS[source], source, sink)
    assert not sink.sorted(), [d.message for d in sink.sorted()]
    assert result.catalog is not None and result.tools > 0
    ops = result.catalog["sources"][0]["operations"]
    assert [op["id"] for op in ops] == sorted(op["id"] for op in ops)
    assert all(op["id"].startswith(f"{source}.") for op in ops)
    assert all(op["executor"] == {"type": "mcp.call", "config": {"server": source, "tool": op["id"][len(source) + 1 :]}} for op in ops)


@needs_corpus
@pytest.mark.parametrize("path", _tool_files(), ids=lambda p: p.name)
def test_every_tool_schema_converts(path):
    data = json.loads(path.read_text(encoding="utf-8"))
    tools = data["tools"] if "tools" in data else [data]
    for tool in tools:
        t = schema_type(tool["inputSchema"], "f", "/inputSchema")
        assert t.kind == "object" and not t.nullable, tool["name"]
        if "outputSchema" in tool:
            schema_type(tool["outputSchema"], "f", "/outputSchema")


@needs_corpus
@pytest.mark.parametrize("source", sorted(DUMPS))
def test_committed_fixture_equals_a_fresh_import(source):
    """Drift test. To update: taskplan catalog import-mcp <dump> --source <source> -o fixtures/catalogs/mcp/<source>.catalog.yaml"""
    result = run("catalog", "import-mcp", str(CORPUS / DUMPS[source]), "--source", source)
    assert result.exit_code == 0, result.stderr
    committed = (FIXTURES / f"{source}.catalog.yaml").read_text(encoding="utf-8")
    assert result.stdout == committed, f"fixtures/catalogs/mcp/{source}.catalog.yaml is stale"


def test_imported_catalogs_load_clean_together():
    sink = Diagnostics()
    catalog = load_catalogs(sorted(FIXTURES.glob("*.catalog.yaml")), sink)
    assert not sink.sorted(), [d.message for d in sink.sorted()][:5]
    assert len(catalog) == 167
    assert catalog.get("filesystem.read_text_file").effect == "read"
    assert catalog.get("filesystem.write_file").effect == "destroy"
    assert catalog.get("memory.create_entities").effect == "write"
    assert catalog.get("git.git_log").input_port("start_timestamp").type.nullable


# ------------------------------------------------------------------ forms


TOOL = {
    "name": "get_thing",
    "title": "Get a thing",
    "description": "Gets a thing.",
    "inputSchema": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]},
    "outputSchema": {"type": "object", "properties": {"name": {"type": "string"}}},
    "annotations": {"readOnlyHint": True},
}


def _import(tree, source="things", name="tools.json"):
    sink = Diagnostics()
    data = json.dumps(tree, indent=2).encode()
    result = import_mcp(name, source, sink, data=data)
    return result, sink.sorted()


@pytest.mark.parametrize(
    "tree",
    [
        {"tools": [TOOL]},
        {"jsonrpc": "2.0", "id": 1, "result": {"tools": [TOOL]}},
        TOOL,
    ],
    ids=["tools-list", "json-rpc", "one-tool"],
)
def test_input_forms(tree):
    result, diags = _import(tree)
    assert not diags
    (op,) = result.catalog["sources"][0]["operations"]
    assert op == {
        "id": "things.get_thing",
        "title": "Get a thing",
        "description": "Gets a thing.",
        "executor": {"type": "mcp.call", "config": {"server": "things", "tool": "get_thing"}},
        "input": TOOL["inputSchema"],
        "output": TOOL["outputSchema"],
        "effect": "read",
    }


def test_a_directory_of_tool_files(tmp_path):
    for name in ("b", "a"):
        (tmp_path / f"{name}.snap").write_text(json.dumps({**TOOL, "name": name}), encoding="utf-8")
    (tmp_path / "notes.txt").write_text("ignored", encoding="utf-8")
    sink = Diagnostics()
    result = import_mcp(tmp_path, "dir", sink)
    assert not sink.sorted()
    assert [op["id"] for op in result.catalog["sources"][0]["operations"]] == ["dir.a", "dir.b"]


@pytest.mark.parametrize(
    "annotations, effect",
    [
        ({"readOnlyHint": True, "destructiveHint": True}, "read"),
        ({"readOnlyHint": False, "destructiveHint": True}, "destroy"),
        ({"destructiveHint": False}, "write"),
        ({}, "write"),
        (None, "write"),
    ],
)
def test_effects(annotations, effect):
    assert effect_of(annotations) == effect


def test_title_falls_back_to_annotations():
    tool = {k: v for k, v in TOOL.items() if k != "title"}
    tool["annotations"] = {"title": "From annotations"}
    result, _ = _import({"tools": [tool]})
    assert result.catalog["sources"][0]["operations"][0]["title"] == "From annotations"


def test_server_info_describes_the_source():
    result, _ = _import({"serverInfo": {"name": "srv", "version": "1.2"}, "tools": [TOOL]})
    assert result.catalog["sources"][0]["description"] == "MCP server srv 1.2"


# ------------------------------------------------------------------ errors


def _brief(diags):
    return [(d.code, d.location.pointer, d.location.line, d.location.column) for d in diags]


def test_not_a_tools_list():
    result, diags = _import({"resources": []})
    assert result.catalog is None
    assert _brief(diags) == [("CATALOG_SYNTAX", "", 1, 1)]
    assert "not an MCP tools list" in diags[0].message


def test_invalid_schema_is_located_in_the_tools_file():
    bad = {**TOOL, "inputSchema": {"type": "object", "properties": {"id": {"type": "strng"}}}}
    result, diags = _import({"tools": [TOOL, bad]})
    assert result.catalog is None
    assert _brief(diags) == [("CATALOG_SCHEMA_INVALID", "/tools/1/inputSchema/properties/id/type", 38, 21)]


def test_input_schema_must_be_an_object_schema():
    bad = {**TOOL, "inputSchema": {"type": "string"}}
    _, diags = _import({"tools": [bad]})
    assert [(d.code, d.location.pointer) for d in diags] == [("CATALOG_SCHEMA_INVALID", "/tools/0/inputSchema/type")]


def test_tool_named_twice():
    _, diags = _import({"tools": [TOOL, TOOL]})
    assert [(d.code, d.location.pointer) for d in diags] == [("CATALOG_DUPLICATE_OPERATION", "/tools/1/name")]
    assert diags[0].related[0].location.pointer == "/tools/0/name"


def test_malformed_tools():
    _, diags = _import({"tools": [{"name": "x y", "inputSchema": {"type": "object"}}, {"name": 3}, 7]})
    assert [(d.code, d.location.pointer) for d in diags] == [
        ("CATALOG_SYNTAX", "/tools/0/name"),
        ("CATALOG_SYNTAX", "/tools/1"),
        ("CATALOG_SYNTAX", "/tools/1/name"),
        ("CATALOG_SYNTAX", "/tools/2"),
    ]


def test_syntax_error():
    sink = Diagnostics()
    result = import_mcp("tools.json", "s", sink, data=b'{"tools": [')
    assert result.catalog is None and [d.code for d in sink.sorted()] == ["CATALOG_SYNTAX"]


# ------------------------------------------------------------------- YAML


def test_yaml_round_trips_through_our_reader_ambiguous_strings_quoted():
    tricky = ["yes", "on", "No", "null", "~", "", "1.0", "0x1F", "1_000", "12:30", "2024-01-01", "- a", "#x", "a: b", "é", "line\nbreak", " lead", "trail ", "tab\there", "a\n  indented\n", "\u2028"]
    tool = {**TOOL, "description": "\n".join(tricky), "inputSchema": {
        "type": "object",
        "properties": {t or "empty": {"type": "string", "enum": tricky, "description": t} for t in tricky},
    }}
    result, diags = _import({"tools": [tool]})
    assert not diags
    text = dump_yaml(result.catalog, ["header"])
    sink = Diagnostics()
    document = read_document(text.encode(), "x.yaml", sink, codes=CATALOG_CODES)
    assert not sink.sorted(), [d.message for d in sink.sorted()]
    assert document.tree == result.catalog
    assert "yes" not in [line.strip().lstrip("- ") for line in text.splitlines()]


def test_output_is_deterministic():
    result, _ = _import({"tools": [TOOL]})
    assert dump_yaml(result.catalog) == dump_yaml(json.loads(json.dumps(result.catalog)))


# -------------------------------------------------------------------- CLI


def test_cli_stdout_and_exit_0(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [TOOL]}), encoding="utf-8")
    result = run("catalog", "import-mcp", str(path), "--source", "things")
    assert result.exit_code == 0
    assert result.stdout.startswith("# Generated by `taskplan catalog import-mcp --source things tools.json`.\n")
    assert "  - id: things\n" in result.stdout


def test_cli_writes_atomically_and_keeps_permissions(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [TOOL]}), encoding="utf-8")
    out = tmp_path / "things.catalog.yaml"
    out.write_text("old", encoding="utf-8")
    os.chmod(out, 0o640)
    result = run("catalog", "import-mcp", str(path), "--source", "things", "-o", str(out))
    assert result.exit_code == 0 and result.stdout == ""
    assert "wrote" in result.stderr and "1 operation from source `things`" in result.stderr
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert out.read_text(encoding="utf-8").startswith("# Generated")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["things.catalog.yaml", "tools.json"]
    sink = Diagnostics()
    assert len(load_catalogs([out], sink)) == 1 and not sink.sorted()


def test_cli_errors_exit_1_and_write_nothing(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": [{**TOOL, "inputSchema": {"type": "nope"}}]}), encoding="utf-8")
    out = tmp_path / "out.yaml"
    result = run("catalog", "import-mcp", str(path), "--source", "things", "-o", str(out), "--color", "never")
    assert result.exit_code == 1
    assert "error[CATALOG_SCHEMA_INVALID]" in result.stderr and result.stdout == ""
    assert not out.exists()


def test_cli_json_diagnostics(tmp_path):
    path = tmp_path / "tools.json"
    path.write_text('{"tools": 3}', encoding="utf-8")
    result = run("catalog", "import-mcp", str(path), "--source", "s", "--format", "json")
    assert result.exit_code == 1
    doc = json.loads(result.stderr)
    assert doc["diagnostics"][0]["code"] == "CATALOG_SYNTAX"
    assert doc["diagnostics"][0]["location"]["pointer"] == "/tools"


def test_cli_unreadable_and_bad_usage_exit_2(tmp_path):
    result = run("catalog", "import-mcp", str(tmp_path / "missing.json"), "--source", "s")
    assert result.exit_code == 2 and "cannot read" in result.stderr and "no such file" in result.stderr
    result = run("catalog", "import-mcp", str(tmp_path), "--source", "s")
    assert result.exit_code == 2 and "no *.snap or *.json tool files" in result.stderr
    result = run("catalog", "import-mcp", str(tmp_path / "x.json"), "--source", "bad source")
    assert result.exit_code == 2 and "not a valid source ID" in result.stderr
    result = run("catalog", "import-mcp", str(tmp_path / "x.json"))
    assert result.exit_code == 2


def test_a_tool_with_a_dollar_port_is_reported_at_that_property():
    """The request envelope could not carry it (CATALOG_NAME_RESERVED, as the loader says);
    an import with errors writes no catalog."""
    dollar = {**TOOL, "name": "odd", "inputSchema": {"type": "object", "properties": {"$filter": {"type": "string"}}}}
    result, diags = _import({"tools": [TOOL, dollar]})
    assert [(d.code, d.location.pointer) for d in diags] == [
        ("CATALOG_NAME_RESERVED", "/tools/1/inputSchema/properties/$filter")
    ]
    assert result.catalog is None
