"""Loading catalogs: the format, located diagnostics, schemas, duplicates, versions,
resolution, determinism."""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import pytest

from taskplan.catalog import Catalog, load_catalog_text, load_catalogs
from taskplan.diagnostics import Diagnostics
from taskplan.model.btype import Slot, describe

ROOT = Path(__file__).resolve().parents[1]


def load(*texts: str, names: list[str] | None = None) -> tuple[Catalog, list]:
    names = names or [f"c{i}.catalog.yaml" for i in range(len(texts))]
    sink = Diagnostics()
    data = {n: textwrap.dedent(t).encode("utf-8") for n, t in zip(names, texts)}
    catalog = load_catalogs(list(data), sink, texts=data)
    return catalog, sink.sorted()


def brief(diagnostics) -> list[tuple]:
    return [(d.code, d.location.pointer, d.location.line, d.location.column) for d in diagnostics]


OP = """\
version: 1
sources:
  - id: gh
    operations:
      - id: gh.get_issue
        effect: read
        input:
          type: object
          properties:
            number: {type: integer}
          required: [number]
"""


def test_the_example_catalog_loads_clean():
    sink = Diagnostics()
    catalog = load_catalogs([ROOT / "examples" / "catalog.yaml"], sink)
    assert not sink.sorted()
    assert [o.ref for o in catalog] == [
        "github.create_review",
        "github.get_pull_request",
        "workspace.create",
        "workspace.delete",
    ]
    op = catalog.get("github.get_pull_request")
    assert op.executor == "mcp.call" and op.executor_config == {"server": "github", "tool": "pull_request_read"}
    assert op.fixed == {"api_version": "2022-11-28"} and op.is_fixed("api_version")
    assert [f.name for f in op.required_ports] == ["owner", "repo", "pull_number"]
    assert op.effect == "read" and op.source == "github"
    assert describe(op.output_port("state").type) == "string enum [open, closed, merged]"
    assert catalog.get("workspace.delete").opaque
    assert catalog.get("workspace.delete").consumes == {"handle": "workspace"}
    assert catalog.get("workspace.create").produces == {"handle": "workspace"}
    assert catalog.get("workspace.create").executor == "operation.call"


def test_a_minimal_operation_and_defaults():
    catalog, diags = load(OP)
    assert not diags
    op = catalog.get("gh.get_issue")
    assert op.version is None and op.executor == "operation.call" and op.output_type is None
    assert op.input_port("number").slot == Slot("c0.catalog.yaml", "/sources/0/operations/0/input/properties/number")
    assert catalog.locate(op.input_port("number").slot).line == 10


def test_effect_defaults_to_write():
    catalog, diags = load(OP.replace("        effect: read\n", ""))
    assert not diags and catalog.get("gh.get_issue").effect == "write"


def test_unknown_field_points_at_the_key_with_a_hint():
    catalog, diags = load(OP.replace("effect: read", "efect: read"))
    assert brief(diags) == [("CATALOG_SYNTAX", "/sources/0/operations/0/efect", 6, 9)]
    assert diags[0].hint == "did you mean `effect`?"
    assert len(catalog) == 0 and catalog.resolve("gh.get_issue").reason == "broken"


def test_missing_input_points_at_the_operation():
    catalog, diags = load(OP.split("        input:")[0])
    assert brief(diags) == [("CATALOG_SYNTAX", "/sources/0/operations/0", 5, 9)]
    assert "missing required field `input`" in diags[0].message


@pytest.mark.parametrize(
    "old, new, pointer, line, column, text",
    [
        ("id: gh.get_issue", "id: 'gh get issue'", "/sources/0/operations/0/id", 5, 13, "not a valid operation ID"),
        ("effect: read", "effect: delete", "/sources/0/operations/0/effect", 6, 17, "must be 'read', 'write' or 'destroy'"),
        ("effect: read", "effect: read\n        version: [1]", "/sources/0/operations/0/version", 7, 18, "`version`"),
        ("effect: read", "effect: read\n        version: '1 0'", "/sources/0/operations/0/version", 7, 18, "not a valid version"),
        ("effect: read", "effect: read\n        executor: 3", "/sources/0/operations/0/executor", 7, 19, "`executor`"),
        ("effect: read", "effect: read\n        executor: {type: x, confg: {}}", "/sources/0/operations/0/executor/confg", 7, 29, "unknown field"),
        ("effect: read", "effect: read\n        output: yes", "/sources/0/operations/0/output", 7, 17, "JSON Schema"),
        ("effect: read", "effect: read\n        fixed: []", "/sources/0/operations/0/fixed", 7, 16, "must be a mapping"),
        ("  - id: gh\n", "  - id: gh\n    name: x\n", "/sources/0/name", 4, 5, "unknown field `name`"),
        ("version: 1", "version: 2", "/version", 1, 10, "must be 1"),
    ],
)
def test_shape_errors_are_located(old, new, pointer, line, column, text):
    _, diags = load(OP.replace(old, new, 1))
    assert brief(diags)[:1] == [("CATALOG_SYNTAX", pointer, line, column)], [d.message for d in diags]
    assert text in diags[0].message


def test_version_as_integer_is_its_text():
    catalog, diags = load(OP.replace("effect: read", "effect: read\n        version: 3"))
    assert not diags and catalog.get("gh.get_issue", "3").ref == "gh.get_issue@3"


def test_executor_forms():
    catalog, diags = load(OP.replace("effect: read", "effect: read\n        executor: http.call"))
    assert not diags and catalog.get("gh.get_issue").executor == "http.call"


def test_reader_errors_are_catalog_syntax_and_make_the_catalog_incomplete():
    catalog, diags = load("version: 1\nsources: [\n")
    assert [d.code for d in diags] == ["CATALOG_SYNTAX"]
    assert not catalog.complete
    assert catalog.resolve("anything").reason == "unavailable"


def test_duplicate_key_is_catalog_syntax():
    _, diags = load(OP.replace("effect: read", "effect: read\n        effect: write"))
    assert [d.code for d in diags] == ["CATALOG_SYNTAX"]
    assert diags[0].location.line == 7


def test_not_a_mapping():
    catalog, diags = load("- 1\n")
    assert brief(diags) == [("CATALOG_SYNTAX", "", 1, 1)]


# ------------------------------------------------------------------- schemas


@pytest.mark.parametrize(
    "schema, pointer, message",
    [
        ("{type: object, properties: {number: {type: int}}}", "/input/properties/number/type", "not a JSON Schema type"),
        ("{type: object, properties: {number: {$ref: '#/$defs/N'}}}", "/input/properties/number/$ref", "does not resolve"),
        ("{type: object, properties: {n: {$ref: 'https://x.org/s.json'}}}", "/input/properties/n/$ref", "not a local reference"),
        ("{type: string}", "/input/type", "must be an object schema"),
        ("{properties: {n: {type: string}}}", "/input", "must be an object schema"),
        ("{type: [object, 'null']}", "/input/type", "must be an object schema"),
        ("{$schema: 'https://example.com/dialect', type: object}", "/input/$schema", "unknown JSON Schema dialect"),
        ("{type: object, required: true}", "/input/required", "`required`"),
        ("{type: object, properties: {a: {minimum: '3'}}}", "/input/properties/a/minimum", "`minimum`"),
        (
            "{$schema: 'http://json-schema.org/draft-07/schema#', type: object, properties: {a: {type: string, required: true}}}",
            "/input/properties/a/required",
            "`required`",
        ),
    ],
)
def test_invalid_schemas_are_located(schema, pointer, message):
    text = OP.split("        input:")[0] + f"        input: {schema}\n"
    catalog, diags = load(text)
    assert [(d.code, d.location.pointer) for d in diags] == [
        ("CATALOG_SCHEMA_INVALID", "/sources/0/operations/0" + pointer)
    ], [d.message for d in diags]
    assert message in diags[0].message
    assert catalog.resolve("gh.get_issue").reason == "broken"


def test_invalid_output_schema_line_and_column():
    text = OP + "        output:\n          type: object\n          properties:\n            n: {type: [string, strin]}\n"
    _, diags = load(text)
    assert brief(diags) == [("CATALOG_SCHEMA_INVALID", "/sources/0/operations/0/output/properties/n/type", 15, 23)]


def test_several_problems_in_one_schema_are_each_reported():
    text = OP.split("        input:")[0] + "        input: {type: object, properties: {a: {type: x}, b: {enum: 3}}}\n"
    _, diags = load(text)
    assert [d.location.pointer for d in diags] == [
        "/sources/0/operations/0/input/properties/a/type",
        "/sources/0/operations/0/input/properties/b/enum",
    ]


def test_valid_drafts_and_refs():
    text = """\
    version: 1
    sources:
      - id: s
        operations:
          - id: s.seven
            input:
              $schema: "http://json-schema.org/draft-07/schema#"
              type: object
              properties: {a: {$ref: "#/definitions/A"}}
              definitions: {A: {type: string, enum: [x, y]}}
          - id: s.twenty
            input:
              $schema: "https://json-schema.org/draft/2020-12/schema"
              $ref: "#/$defs/In"
              $defs:
                In: {type: object, properties: {n: {type: [integer, "null"]}}, required: [n]}
            output: true
    """
    catalog, diags = load(text)
    assert not diags, [d.message for d in diags]
    assert describe(catalog.get("s.seven").input_type) == "object {a?: string enum [x, y], ...}"
    assert describe(catalog.get("s.twenty").input_type) == "object {n: nullable integer, ...}"
    assert catalog.get("s.twenty").output_type.kind == "any" and not catalog.get("s.twenty").opaque


def test_too_deep_schema_is_invalid_not_a_crash():
    inner = "{type: string}"
    for _ in range(70):
        inner = f"{{type: array, items: {inner}}}"
    text = OP.split("        input:")[0] + f"        input: {{type: object, properties: {{a: {inner}}}}}\n"
    _, diags = load(text)
    assert [d.code for d in diags] == ["CATALOG_SCHEMA_INVALID"]
    assert "levels deep" in diags[0].message


# ------------------------------------------------------------ declarations


FIXED = """\
version: 1
sources:
  - id: gh
    operations:
      - id: gh.get_issue
        fixed: {api: "2022", mode: fast}
        input:
          type: object
          properties:
            number: {type: integer}
            api: {type: string, pattern: "^[0-9]+$"}
            mode: {$ref: "#/$defs/Mode"}
          $defs: {Mode: {enum: [fast, slow]}}
        output:
          type: object
          properties:
            patch: {type: string}
        artifacts:
          produces: [{port: patch, kind: patch}]
          consumes: [{port: number, kind: issue}]
"""


def test_fixed_and_artifacts_that_agree_with_the_schemas():
    catalog, diags = load(FIXED)
    assert not diags, [d.message for d in diags]
    op = catalog.get("gh.get_issue")
    assert [f.name for f in op.bindable_ports] == ["number"]
    assert op.produces == {"patch": "patch"} and op.consumes == {"number": "issue"}


@pytest.mark.parametrize(
    "old, new, pointer, line, column, text",
    [
        ('api: "2022"', "api: 2022", "/sources/0/operations/0/fixed/api", 6, 22, "does not fit its port"),
        ('api: "2022"', 'api: "x"', "/sources/0/operations/0/fixed/api", 6, 22, "does not fit its port"),
        ("mode: fast", "mode: quick", "/sources/0/operations/0/fixed/mode", 6, 36, "does not fit its port"),
        ('api: "2022"', 'apii: "2022"', "/sources/0/operations/0/fixed/apii", 6, 17, "not a port of the input schema"),
        ("port: patch, kind", "port: diff, kind", "/sources/0/operations/0/artifacts/produces/0/port", 19, 29, "not a port of the output"),
        ("port: number, kind", "port: num, kind", "/sources/0/operations/0/artifacts/consumes/0/port", 20, 29, "not a port of the input"),
        ("port: number, kind", "port: api, kind", "/sources/0/operations/0/artifacts/consumes/0/port", 20, 29, "fixed by the catalog"),
    ],
)
def test_operation_invalid(old, new, pointer, line, column, text):
    catalog, diags = load(FIXED.replace(old, new, 1))
    assert brief(diags) == [("CATALOG_OPERATION_INVALID", pointer, line, column)], [d.message for d in diags]
    assert text in diags[0].message
    assert catalog.resolve("gh.get_issue").reason == "broken"


def test_fixed_value_mismatch_relates_to_the_port():
    _, diags = load(FIXED.replace('api: "2022"', "api: 2022", 1))
    assert diags[0].related[0].location.pointer == "/sources/0/operations/0/input/properties/api"


def test_produced_artifact_of_an_opaque_operation():
    text = OP + "        artifacts: {produces: [{port: out, kind: report}]}\n"
    _, diags = load(text)
    assert [d.code for d in diags] == ["CATALOG_OPERATION_INVALID"]
    assert "no output schema" in diags[0].message


# ------------------------------------------------------------- duplicates


def _op(op_id: str, version: str | None = None, extra: str = "") -> str:
    v = f"        version: \"{version}\"\n" if version is not None else ""
    return f"      - id: {op_id}\n{v}        input: {{type: object{extra}}}\n"


def _catalog(*ops: str) -> str:
    return "version: 1\nsources:\n  - id: s\n    operations:\n" + "".join(ops)


def test_duplicate_across_files_reports_the_later_file_with_the_first_as_related():
    a = _catalog(_op("s.x"))
    b = _catalog(_op("s.y"), _op("s.x"))
    for names in (["a.catalog.yaml", "b.catalog.yaml"], ["b.catalog.yaml", "a.catalog.yaml"]):
        texts = [a, b] if names[0] == "a.catalog.yaml" else [b, a]
        catalog, diags = load(*texts, names=names)
        assert [(d.code, d.location.file, d.location.pointer, d.location.line) for d in diags] == [
            ("CATALOG_DUPLICATE_OPERATION", "b.catalog.yaml", "/sources/0/operations/1/id", 7)
        ]
        related = diags[0].related[0].location
        assert (related.file, related.pointer, related.line, related.column) == (
            "a.catalog.yaml", "/sources/0/operations/0/id", 5, 13,
        )
        assert [o.ref for o in catalog] == ["s.x", "s.y"]
        assert catalog.get("s.x").file == "a.catalog.yaml"


def test_same_version_twice_is_duplicate_distinct_versions_are_not():
    catalog, diags = load(_catalog(_op("s.x", "1"), _op("s.x", "2"), _op("s.x", "1")))
    assert [(d.code, d.location.pointer) for d in diags] == [
        ("CATALOG_DUPLICATE_OPERATION", "/sources/0/operations/2/id")
    ]
    assert "`s.x@1` is declared twice" in diags[0].message
    assert catalog.versions("s.x") == ("1", "2")


def test_unversioned_beside_versioned_is_a_conflict():
    catalog, diags = load(_catalog(_op("s.x", "1"), _op("s.x")))
    assert [(d.code, d.location.pointer) for d in diags] == [
        ("CATALOG_DUPLICATE_OPERATION", "/sources/0/operations/1/id")
    ]
    assert catalog.resolve("s.x").reason == "broken"
    assert catalog.resolve("s.x@1").ok


def test_same_file_twice_is_read_once():
    sink = Diagnostics()
    path = ROOT / "examples" / "catalog.yaml"
    catalog = load_catalogs([path, str(path), ROOT / "examples" / ".." / "examples" / "catalog.yaml"], sink)
    assert not sink.sorted() and len(catalog) == 4


def test_order_of_files_does_not_matter():
    texts = {
        "a.yaml": _catalog(_op("s.b", "2"), _op("s.a")),
        "b.yaml": _catalog(_op("s.b", "10"), _op("s.c", extra=", properties: {q: {type: strin}}")),
        "c.yaml": _catalog(_op("s.b", "2"), _op("s.d")),
    }
    results = set()
    for order in itertools.permutations(texts):
        sink = Diagnostics()
        data = {n: texts[n].encode() for n in order}
        catalog = load_catalogs(list(order), sink, texts=data)
        results.add(
            (
                tuple((o.ref, o.file, o.pointer) for o in catalog),
                tuple(repr(d.to_json()) for d in sink.sorted()),
            )
        )
    assert len(results) == 1
    refs = [r[0] for r in next(iter(results))[0]]
    assert refs == ["s.a", "s.b@2", "s.b@10", "s.d"]


# ------------------------------------------------------------- resolution


def test_resolution_reasons():
    catalog, diags = load(_catalog(_op("s.get_issue", "1"), _op("s.get_issue", "2"), _op("s.plain"), _op("s.list_issues")))
    assert not diags
    assert catalog.resolve("s.get_issue@2").operation.ref == "s.get_issue@2"
    assert catalog.resolve("s.plain").operation.id == "s.plain"

    r = catalog.resolve("s.get_issue")
    assert (r.reason, r.versions, r.code) == ("ambiguous", ("1", "2"), "TASK_OPERATION_UNKNOWN")
    assert r.message() == "operation `s.get_issue` is ambiguous: the catalog declares versions 1 and 2"
    assert r.hint() == "pin one version: `s.get_issue@1` or `s.get_issue@2`"

    r = catalog.resolve("s.get_issue@3")
    assert (r.reason, r.versions) == ("version_unknown", ("1", "2"))
    assert r.message() == "operation `s.get_issue` has no version `3`"
    assert r.hint() == "available versions: 1, 2; pin one, e.g. `s.get_issue@2`"

    r = catalog.resolve("s.plain@1")
    assert r.reason == "unversioned" and r.hint() == "write `s.plain` without a version"

    r = catalog.resolve("s.get_isue")
    assert r.reason == "unknown" and r.suggestions[0] == "s.get_issue"
    assert r.hint().startswith("did you mean `s.get_issue`")

    r = catalog.resolve("s.get_issue@")
    assert r.reason == "version_unknown"


def test_versions_sort_naturally():
    catalog, _ = load(_catalog(_op("s.x", "10"), _op("s.x", "9"), _op("s.x", "1.10"), _op("s.x", "1.9")))
    assert catalog.versions("s.x") == ("1.9", "1.10", "9", "10")


def test_unknown_in_an_empty_catalog_hints_at_configuration():
    r = Catalog().resolve("gh.x")
    assert r.reason == "unknown" and "no catalog was given" in r.hint()


def test_broken_version_among_good_ones():
    catalog, diags = load(_catalog(_op("s.x", "1"), _op("s.x", "2", extra=", properties: {a: {type: nope}}")))
    assert [d.code for d in diags] == ["CATALOG_SCHEMA_INVALID"]
    assert catalog.resolve("s.x@1").ok
    assert catalog.resolve("s.x@2").reason == "broken"
    assert catalog.resolve("s.x").reason == "ambiguous"


def test_unreadable_file_is_an_input_error_not_a_diagnostic(tmp_path):
    sink = Diagnostics()
    catalog = load_catalogs([tmp_path / "missing.yaml", tmp_path], sink)
    assert not sink.sorted()
    assert [reason for _, reason in catalog.input_errors] == ["is a directory, not a file", "no such file"]
    assert not catalog.complete


def test_load_catalog_text_and_related():
    sink = Diagnostics()
    catalog = load_catalog_text(OP, "one.yaml", sink)
    op = catalog.get("gh.get_issue")
    related = catalog.related(op.slot("/id"), "declared here")
    assert (related.location.file, related.location.line, related.location.column) == ("one.yaml", 5, 13)
    assert catalog.related(Slot("plan.yaml", "/x"), "nope") is None
    assert repr(op) == "Operation('gh.get_issue' at one.yaml#/sources/0/operations/0)"


# ------------------------------------------------------- registry examples


@pytest.mark.parametrize(
    "code",
    ["CATALOG_SYNTAX", "CATALOG_SCHEMA_INVALID", "CATALOG_DUPLICATE_OPERATION", "CATALOG_OPERATION_INVALID"],
)
def test_registry_examples(code):
    """The wrong catalog of each catalog code produces exactly that code; the right one loads clean."""
    from taskplan.diagnostics.registry import REGISTRY

    info = REGISTRY[code]
    _, wrong = load(info.wrong)
    assert [d.code for d in wrong] == [code], [d.message for d in wrong]
    catalog, right = load(info.right)
    assert not right and len(catalog) > 0


# ------------------------------------------------------- names a call step cannot carry

RESERVED = """\
version: 1
sources:
  - id: s
    operations:
      - id: s.get
        executor: {type: mcp.call, config: {server: s, tool: get}}
        effect: read
        input: {type: object, properties: {q: {type: string}}, required: [q]}
        output: {type: object, properties: {v: {type: string}}, required: [v]}
      - id: s.put
        executor: {type: mcp.call, config: {server: s, tool: put, request: x, $mode: 1}}
        effect: write
        input: {type: object, properties: {$literal: {type: string}, ok: {type: string}}, required: [$literal]}
"""


def test_reserved_names_are_reported_at_the_name_and_leave_the_operation_out():
    catalog, diags = load(RESERVED)
    assert brief(diags) == [
        ("CATALOG_NAME_RESERVED", "/sources/0/operations/1/executor/config/request", 11, 67),
        ("CATALOG_NAME_RESERVED", "/sources/0/operations/1/executor/config/$mode", 11, 79),
        ("CATALOG_NAME_RESERVED", "/sources/0/operations/1/input/properties/$literal", 13, 44),
    ]
    assert [op.id for op in catalog.operations] == ["s.get"]


def test_a_dollar_port_is_never_compiled_into_a_literal(tmp_path):
    """A port named `$literal` bound to a port read once compiled to
    `request: {$literal: "${...}"}`: valid dialect, read by a runner as text."""
    from taskplan import api

    (tmp_path / "c.catalog.yaml").write_text(RESERVED.replace(", request: x, $mode: 1", ""))
    plan = tmp_path / "p.taskplan.yaml"
    plan.write_text(textwrap.dedent("""\
        version: 1
        root:
          tasks:
            - {id: a, objective: get, operation: s.get, inputs: [{name: q, value: {kind: string, text: x}}]}
            - {id: b, objective: put, operation: s.put, inputs: [{name: $literal, value: {kind: output, source: a, port: v}}]}
    """))
    result = api.compile_plan(plan, catalogs=[tmp_path / "c.catalog.yaml"])
    assert result.yaml is None
    assert {d.code for d in result.diagnostics} == {"CATALOG_NAME_RESERVED"}


# ------------------------------------------------------- executor types

EXECUTOR_OP = """\
version: 1
sources:
  - id: s
    operations:
      - id: s.op
        executor: EXECUTOR
        input: {type: object, properties: {a: {type: string}}, required: [a]}
"""

BAD_EXECUTORS = [
    # built-in step types: what the dialect reads as a built-in, never as an executor
    ("set", "CATALOG_NAME_RESERVED", "/executor", 19),
    ("{type: switch}", "CATALOG_NAME_RESERVED", "/executor/type", 26),
    ("llm.call", "CATALOG_NAME_RESERVED", "/executor", 19),
    ("loop.parallel", "CATALOG_NAME_RESERVED", "/executor", 19),
    ("workflow.call", "CATALOG_NAME_RESERVED", "/executor", 19),
    # a built-in namespace: an unknown built-in type to the dialect
    ("value.fetch", "CATALOG_NAME_RESERVED", "/executor", 19),
    ("{type: loop.each, config: {n: 1}}", "CATALOG_NAME_RESERVED", "/executor/type", 26),
    # not the executor-type syntax (dotted lower-case segments)
    ("http", "CATALOG_SYNTAX", "/executor", 19),
    ("Mcp.Call", "CATALOG_SYNTAX", "/executor", 19),
    ("{type: mcp.call.}", "CATALOG_SYNTAX", "/executor/type", 26),
    ("'1x.call'", "CATALOG_SYNTAX", "/executor", 19),
]


@pytest.mark.parametrize(("executor", "code", "suffix", "column"), BAD_EXECUTORS, ids=[b[0] for b in BAD_EXECUTORS])
def test_an_executor_type_the_dialect_cannot_run_is_located_and_left_out(executor, code, suffix, column):
    catalog, diags = load(EXECUTOR_OP.replace("EXECUTOR", executor))
    assert brief(diags) == [(code, "/sources/0/operations/0" + suffix, 6, column)]
    assert diags[0].hint
    assert len(catalog) == 0 and catalog.resolve("s.op").reason == "broken"


@pytest.mark.parametrize("executor", ["mcp.call", "http.call", "operation.call", "a1.b_2.c", "{type: my_host.run}"])
def test_dotted_lower_case_executor_types_load(executor):
    catalog, diags = load(EXECUTOR_OP.replace("EXECUTOR", executor))
    assert not diags and len(catalog) == 1


def test_a_plan_calling_an_operation_with_a_builtin_executor_type_is_no_internal_error(tmp_path):
    """Such an executor type once loaded clean and made `compile` fail with
    COMPILER_INTERNAL blamed on the plan (the emitted step was a `set` step, or an
    unknown built-in): now the catalog diagnostic is the one mistake."""
    from click.testing import CliRunner

    from taskplan import api
    from taskplan.cli import main

    plan = tmp_path / "p.taskplan.yaml"
    plan.write_text(textwrap.dedent("""\
        version: 1
        root:
          tasks:
            - {id: a, objective: o, operation: s.op, inputs: [{name: a, value: {kind: string, text: x}}]}
    """))
    for executor, code, _, _ in BAD_EXECUTORS:
        catalog = tmp_path / "c.catalog.yaml"
        catalog.write_text(EXECUTOR_OP.replace("EXECUTOR", executor))
        result = api.compile_plan(plan, catalogs=[catalog])
        assert result.yaml is None
        assert [(d.code, d.location.file) for d in result.diagnostics] == [(code, str(catalog))], executor
        cli = CliRunner().invoke(main, ["compile", str(plan), "--catalog", str(catalog), "-o", str(tmp_path / "out.yaml")])
        assert cli.exit_code == 1 and "COMPILER_INTERNAL" not in cli.output, (executor, cli.output)


def test_a_fixed_value_is_checked_against_a_port_declared_beside_a_root_ref():
    """In 2020-12 (the default) keywords beside a `$ref` apply with it: a port declared
    there is a port, and its fixed value must fit it (the lookup once followed the
    `$ref` first and found no such property, so nothing was checked)."""
    _, diags = load("""\
        version: 1
        sources:
          - id: s
            operations:
              - id: s.op
                effect: read
                fixed: {api: v2}
                input:
                  $ref: "#/$defs/Base"
                  properties:
                    api: {type: string, enum: [v1]}
                  $defs:
                    Base: {type: object, properties: {x: {type: string}}}
        """)
    assert brief(diags) == [("CATALOG_OPERATION_INVALID", "/sources/0/operations/0/fixed/api", 7, 22)], [
        d.message for d in diags
    ]
