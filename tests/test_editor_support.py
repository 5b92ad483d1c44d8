"""Editor support: the schemas in schemas/ serve the YAML language server, and
docs/editor.md says how to use them, accurately.

- Every schema in schemas/ is valid draft 2020-12 with `$schema`, a unique `$id`,
  a title and a description, and every property at every level (and every
  `$defs` entry) has a non-empty description: hover shows it.
- docs/editor.md's settings (VS Code JSON, Neovim Lua, Helix TOML) parse, name
  schemas that exist, agree with each other, and map each file pattern to the
  schema that the repository's files of that pattern validate against.
- Its modeline sample validates against the schema it names and checks clean; the
  same plan with a misspelled field fails the schema and `taskplan check`, as
  shown; a plan with a wrong reference passes the schema and fails the check, as
  shown; every code the page says the schema cannot check has a fixture that the
  schema accepts.
- Every modeline in the repository names a schema that exists.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import sys
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from ruamel.yaml import YAML

from taskplan.cli import main
from taskplan.diagnostics.registry import REGISTRY

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from docblocks import fenced_block, fenced_blocks  # noqa: E402  (tests/ is on sys.path)

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
SCHEMA_FILES = sorted(SCHEMAS.glob("*.json"))
DOC = ROOT / "docs" / "editor.md"
DRAFT = "https://json-schema.org/draft/2020-12/schema"
MODELINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S+)\s*$", re.M)


def _load_yaml(text: str):
    return YAML(typ="safe", pure=False).load(text)


def _schema(name: str) -> dict:
    return json.loads((SCHEMAS / name).read_text(encoding="utf-8"))


# ------------------------------------------------------------------ the schemas


def undescribed(node, path: str = "#") -> list[str]:
    """Pointers of the properties (at every level) and `$defs` entries that have no
    non-empty description. The properties of an `if` are a condition (the workflow
    schema's dispatch on a step's `type`), not fields: hover shows the field's own
    description, so they are not walked."""
    found: list[str] = []

    def described(sub) -> bool:
        return isinstance(sub, dict) and isinstance(sub.get("description"), str) and bool(sub["description"].strip())

    def walk(node, path: str) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "if":
                    continue
                if key in ("properties", "$defs") and isinstance(value, dict):
                    for name, sub in value.items():
                        where = f"{path}/{key}/{name}"
                        if not described(sub):
                            found.append(where)
                        walk(sub, where)
                else:
                    walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}/{i}")

    walk(node, path)
    return found


def test_the_published_schemas():
    assert {p.name for p in SCHEMA_FILES} >= {
        "taskplan.schema.json",
        "taskplan.wire.schema.json",
        "workflow.schema.json",
        "catalog.schema.json",
    }


def test_the_walker_finds_what_is_missing():
    schema = {
        "properties": {"a": {"description": "A."}, "b": {"type": "object", "properties": {"c": {"description": " "}}}},
        "$defs": {"d": {"type": "string"}},
        "allOf": [{"if": {"properties": {"x": {"const": 1}}}, "then": {"properties": {"y": {}}}}],
    }
    assert undescribed(schema) == ["#/properties/b", "#/properties/b/properties/c", "#/$defs/d", "#/allOf/0/then/properties/y"]


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_every_property_has_a_description(path):
    assert undescribed(json.loads(path.read_text(encoding="utf-8"))) == []


@pytest.mark.parametrize("path", SCHEMA_FILES, ids=lambda p: p.name)
def test_each_schema_is_valid_2020_12_and_identified(path):
    schema = json.loads(path.read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == DRAFT
    assert re.match(r"^[a-z][a-z0-9+.-]*:\S+$", schema["$id"]), schema["$id"]  # an absolute URI
    assert "#" not in schema["$id"]
    assert schema["title"].strip() and schema["description"].strip()


def test_the_ids_are_unique():
    ids = [json.loads(p.read_text(encoding="utf-8"))["$id"] for p in SCHEMA_FILES]
    assert len(set(ids)) == len(ids), ids


# ------------------------------------------------------------------ docs/editor.md


def doc_blocks(language: str) -> list[str]:
    return fenced_blocks(DOC, language)


def doc_block(language: str, containing: str) -> str:
    return fenced_block(DOC, language, containing)


def _vscode() -> dict:
    return json.loads(doc_block("json", '"yaml.schemas"'))


def _mapping(raw: dict) -> dict[str, list[str]]:
    return {schema: [patterns] if isinstance(patterns, str) else list(patterns) for schema, patterns in raw.items()}


def _repo_path(setting: str) -> Path:
    """A schema path of the settings, resolved as the editors do: from the workspace root."""
    assert setting.startswith("./"), setting
    return ROOT / setting


def test_the_vscode_settings_parse_and_name_schemas_that_exist():
    settings = _vscode()
    mapping = _mapping(settings["yaml.schemas"])
    for schema in mapping:
        assert _repo_path(schema).is_file(), schema
    assert {_repo_path(s).name for s in mapping} == {"taskplan.schema.json", "workflow.schema.json", "catalog.schema.json"}
    (json_plans,) = settings["json.schemas"]
    assert _repo_path(json_plans["url"]).name == "taskplan.schema.json" and _repo_path(json_plans["url"]).is_file()
    assert json_plans["fileMatch"] == ["*.taskplan.json"]


def test_the_neovim_and_helix_settings_are_the_same_mapping():
    vscode = _mapping(_vscode()["yaml.schemas"])
    lua = doc_block("lua", "yamlls")
    assert lua.count("{") == lua.count("}") and lua.count("(") == lua.count(")")
    from_lua = {
        schema: re.findall(r'"([^"]+)"', patterns)
        for schema, patterns in re.findall(r'\["([^"]+)"\]\s*=\s*\{([^}]*)\}', lua)
    }
    assert from_lua == vscode
    toml = tomllib.loads(doc_block("toml", "yaml-language-server"))
    assert _mapping(toml["language-server"]["yaml-language-server"]["config"]["yaml"]["schemas"]) == vscode


def _files_of(pattern: str) -> list[Path]:
    """The repository's files of a settings pattern, outside broken-on-purpose corpora."""
    found = []
    for folder in ("examples", "fixtures"):
        for path in sorted((ROOT / folder).rglob("*")):
            parts = path.relative_to(ROOT).parts
            if path.is_file() and fnmatch.fnmatch(path.name, pattern) and "errors" not in parts and "invalid" not in parts:
                found.append(path)
    return found


def test_each_pattern_maps_to_the_schema_its_files_follow():
    mapping = _mapping(_vscode()["yaml.schemas"])
    mapping.update({p["url"]: p["fileMatch"] for p in _vscode()["json.schemas"]})
    for schema, patterns in mapping.items():
        validator = Draft202012Validator(json.loads(_repo_path(schema).read_text(encoding="utf-8")))
        for pattern in patterns:
            for path in _files_of(pattern):
                text = path.read_text(encoding="utf-8")
                tree = json.loads(text) if path.suffix == ".json" else _load_yaml(text)
                errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(tree)]
                assert errors == [], (path, schema)
    for pattern in ("*.taskplan.yaml", "*.taskplan.json", "*.workflow.yaml", "*.catalog.yaml"):
        assert _files_of(pattern), pattern  # every kind of file is exercised


# ------------------------------------------------------------------ the modeline sample

SAMPLE_PATH = "plans/weekly.taskplan.yaml"  # where the page puts the sample


def _sample() -> str:
    return doc_block("yaml", "# yaml-language-server: $schema=")


def _sample_schema(text: str) -> dict:
    (target,) = MODELINE.findall(text)
    path = Path(os.path.normpath((ROOT / SAMPLE_PATH).parent / target))  # plans/ need not exist here
    assert path.is_file(), target
    return json.loads(path.read_text(encoding="utf-8"))


def _check(tmp_path, monkeypatch, text: str):
    (tmp_path / "plans").mkdir(exist_ok=True)
    (tmp_path / SAMPLE_PATH).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return CliRunner().invoke(main, ["check", SAMPLE_PATH], env={"NO_COLOR": "1"}, catch_exceptions=False)


def test_the_sample_validates_and_checks_clean(tmp_path, monkeypatch):
    text = _sample()
    assert text.startswith("# yaml-language-server: $schema=")
    assert [e.message for e in Draft202012Validator(_sample_schema(text)).iter_errors(_load_yaml(text))] == []
    result = _check(tmp_path, monkeypatch, text)
    assert result.exit_code == 0, result.output


def test_a_misspelled_field_fails_the_schema_and_the_check_as_shown(tmp_path, monkeypatch):
    text = _sample()
    assert text.count("      objective: ") == 1
    typo = text.replace("      objective: ", "      objectve: ")
    errors = list(Draft202012Validator(_sample_schema(typo)).iter_errors(_load_yaml(typo)))
    assert errors and all(e.validator in ("additionalProperties", "oneOf") for e in errors)
    assert "objectve" in str([e.message for e in errors] + [c.message for e in errors for c in e.context])
    assert doc_block("", "not allowed") == "Property objectve is not allowed.\n"  # the editor's words
    result = _check(tmp_path, monkeypatch, typo)
    assert result.exit_code == 1
    assert result.output == doc_block("", "error[PLAN_FIELD_UNKNOWN]")


def test_a_wrong_reference_passes_the_schema_and_fails_the_check_as_shown(tmp_path, monkeypatch):
    text = _sample()
    assert text.count("source: title,") == 1
    wrong = text.replace("source: title,", "source: titel,")
    assert [e.message for e in Draft202012Validator(_sample_schema(wrong)).iter_errors(_load_yaml(wrong))] == []
    result = _check(tmp_path, monkeypatch, wrong)
    assert result.exit_code == 1
    assert result.output == doc_block("", "error[TASK_REFERENCE_UNKNOWN]")


def _cannot_check_codes() -> list[str]:
    section = DOC.read_text(encoding="utf-8").split("## What the schema cannot check", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("| ") and "`" in line]
    return sorted({code for line in table for code in re.findall(r"`([A-Z][A-Z_]+)`", line.rsplit("|", 2)[1])})


def _fixture_cases() -> dict[str, list[Path]]:
    """code -> the error fixtures (plans) that expect it."""
    cases: dict[str, list[Path]] = {}
    for manifest in sorted((ROOT / "fixtures" / "errors").glob("*/manifest.yaml")):
        for case in (_load_yaml(manifest.read_text(encoding="utf-8")) or {}).get("cases") or []:
            if case.get("plan"):
                for expected in case.get("expect") or []:
                    cases.setdefault(expected["code"], []).append(manifest.parent / case["plan"])
    return cases


def test_what_the_schema_cannot_check_is_true():
    codes = _cannot_check_codes()
    assert len(codes) >= 20, codes
    validator = Draft202012Validator(_schema("taskplan.schema.json"))
    cases = _fixture_cases()
    for code in codes:
        assert code in REGISTRY, code
        plans = cases.get(code, [])
        assert plans, f"no fixture expects {code}"
        trees = [json.loads(p.read_text(encoding="utf-8")) if p.suffix == ".json" else _load_yaml(p.read_text(encoding="utf-8")) for p in plans]
        assert any(validator.is_valid(tree) for tree in trees), f"every fixture of {code} fails the schema already"


def test_the_schema_commands_write_the_committed_schemas(tmp_path, monkeypatch):
    commands = [line for line in doc_block("sh", "mkdir -p schemas").splitlines() if line.startswith("taskplan schema")]
    assert len(commands) == 3
    (tmp_path / "schemas").mkdir()
    monkeypatch.chdir(tmp_path)
    for command in commands:
        args = command.split()[1:]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        written = args[args.index("-o") + 1]
        assert (tmp_path / written).read_text(encoding="utf-8") == (ROOT / written).read_text(encoding="utf-8")


# ------------------------------------------------------------------ modelines in the repository


def _modelined() -> list[Path]:
    found = []
    for folder in ("examples", "fixtures"):
        for path in sorted((ROOT / folder).rglob("*.y*ml")):
            if MODELINE.search(path.read_bytes()[:2000].decode("utf-8", "replace")):  # some fixtures are not UTF-8 on purpose
                found.append(path)
    return found


@pytest.mark.parametrize("path", _modelined(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_modeline_names_a_schema_that_exists(path):
    (target,) = MODELINE.findall(path.read_bytes()[:2000].decode("utf-8", "replace"))
    schema = (path.parent / target).resolve()
    assert schema.is_file() and schema.parent == SCHEMAS, target
