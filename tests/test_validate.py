"""The validate pass: the fixture corpus (fixtures/errors/workflow/manifest.yaml), the
acceptance case, each reference and graph rule, limits, finding context, and the
`taskplan validate` command."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML

from taskplan.cli import main
from taskplan.config import Limits
from taskplan.diagnostics.registry import REGISTRY
from taskplan.passes.validate import validate_text
from taskplan.workflow.emit import emit_yaml

ROOT = Path(__file__).resolve().parents[1]
CASES_DIR = ROOT / "fixtures" / "errors" / "workflow"
VALID = sorted((ROOT / "fixtures" / "workflows" / "valid").glob("*.yaml"))
MANIFEST = YAML(typ="safe", pure=False).load((CASES_DIR / "manifest.yaml").read_text(encoding="utf-8"))
CASES = MANIFEST["cases"]
POSITION = ("line", "column", "endLine", "endColumn")


def _validate(path: Path, limits: Limits = Limits()):
    return validate_text(path.read_bytes(), str(path), limits=limits)


def _text(doc: dict, limits: Limits = Limits()):
    return validate_text(emit_yaml(doc).encode("utf-8"), "w.yaml", limits=limits)


def _show(result) -> list[str]:
    return [f"{d.code} {d.location.pointer} {d.location.line}:{d.location.column}: {d.message}" for d in result.diagnostics]


@pytest.mark.parametrize("case", CASES, ids=[c["workflow"] for c in CASES])
def test_manifest_case(case):
    result = _validate(CASES_DIR / case["workflow"])
    actual = [
        {"code": d.code, "pointer": d.location.pointer, "line": d.location.line, "column": d.location.column,
         "endLine": d.location.end_line, "endColumn": d.location.end_column}
        for d in result.diagnostics
    ]
    expected = [{k: e[k] for k in ("code", "pointer") + POSITION if k in e} for e in case["expect"]]
    assert sorted(map(json.dumps, actual)) == sorted(map(json.dumps, expected)), _show(result)


def test_every_workflow_code_has_a_case():
    covered = Counter(e["code"] for c in CASES for e in c["expect"])
    for code, info in REGISTRY.items():
        if info.family == "workflow":
            assert covered[code], f"no fixture case for {code}"


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_fixtures_validate(path):
    result = _validate(path)
    assert result.ok, _show(result)


def test_acceptance_three_diagnostics_at_the_right_lines():
    """One broken reference, one bad expression, one schema error: exactly three diagnostics."""
    result = _validate(CASES_DIR / "acceptance.workflow.yaml")
    got = [(d.code, d.location.line, d.location.column) for d in result.diagnostics]
    assert got == [
        ("WORKFLOW_REFERENCE", 18, 31),   # data.steps.list_isues: at the misspelt ID
        ("WORKFLOW_EXPRESSION", 25, 66),  # `== }`: at the closing brace, where an operand was expected
        ("WORKFLOW_SCHEMA", 26, 9),       # `efect:` at the key
    ]
    lines = (CASES_DIR / "acceptance.workflow.yaml").read_text().splitlines()
    assert lines[17][30:40] == "list_isues"
    assert lines[24][65] == "}"
    assert lines[25][8:13] == "efect"
    assert "did you mean `list_issues`" in result.diagnostics[0].message
    assert "did you mean `effect`" in result.diagnostics[2].message
    assert "`data`" in result.diagnostics[1].message


def test_findings_carry_workflow_step_and_source():
    result = _validate(CASES_DIR / "acceptance.workflow.yaml")
    assert [(f.workflow, f.step, f.step_pointer) for f in result.findings] == [
        ("main", "summarize", "/workflows/main/steps/1"),
        ("main", "label", "/workflows/main/steps/2"),
        ("main", "label", "/workflows/main/steps/2"),
    ]
    doc = _wf([{"id": "a", "type": "set", "source": "/root/tasks/3", "value": "${data.steps.zz.value}"}])
    (finding,) = _text(doc).findings
    assert finding.source == "/root/tasks/3" and finding.pointer == "/workflows/main/steps/0/value"


# --- rules, one by one, on small documents ----------------------------------------------------------

def _wf(steps, finally_=None, inputs=None, outputs=None, extra=None):
    main = {}
    if inputs is not None:
        main["inputs"] = inputs
    main["steps"] = steps
    if finally_ is not None:
        main["finally"] = finally_
    if outputs is not None:
        main["outputs"] = outputs
    return {"version": 1, "name": "t", "entrypoint": "main", "workflows": {"main": main, **(extra or {})}}


def _codes(result):
    return [(d.code, d.location.pointer) for d in result.diagnostics]


def set_(id_, value, **more):
    return {"id": id_, "type": "set", "value": value, **more}


def test_finally_reads_any_top_level_step_but_steps_cannot_read_finally():
    doc = _wf(
        [set_("a", 1), {"id": "sw", "type": "switch", "cases": [{"when": "${true}", "steps": [set_("inner", 1)]}]},
         set_("b", "${data.steps.c1.value}")],
        finally_=[set_("c1", "${data.steps.b.value}", when="${present(data.steps.b)}"),
                  set_("c2", ["${data.steps.c1.value}", "${data.steps.a.value}", "${data.steps.inner.value}", "${data.steps.c3.value}"],
                       when="${present(data.steps.a.value) and present(data.steps.inner)}"),
                  set_("c3", 1),
                  set_("c4", "${data.steps.a.value}", when="${data.steps.a.value == 1}"),
                  {"id": "c5", "type": "switch", "when": "${present(data.steps.a)}",
                   "cases": [{"when": "${data.steps.a.value == 1}", "steps": [set_("c6", "${data.steps.a.value}")]}]}],
    )
    result = _text(doc)
    assert _codes(result) == [
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/2/value"),      # steps -> finally
        ("WORKFLOW_REFERENCE", "/workflows/main/finally/1/value/2"),  # a case's step from finally (present() may)
        ("WORKFLOW_REFERENCE", "/workflows/main/finally/1/value/3"),  # a later finally step
        ("WORKFLOW_REFERENCE", "/workflows/main/finally/3/value"),    # no presence guard
        ("WORKFLOW_REFERENCE", "/workflows/main/finally/3/when"),     # the guard itself reads unguarded
    ]
    assert result.diagnostics[3].hint == "guard the cleanup step with `when: ${present(data.steps.a)}`"


def test_inline_case_steps_see_earlier_steps_and_their_own_predecessors():
    doc = _wf([
        set_("a", 1),
        {"id": "sw", "type": "switch", "cases": [{"when": "${data.steps.a.value == 1}", "steps": [
            set_("x", "${data.steps.a.value}"),
            set_("y", ["${data.steps.x.value}", "${data.steps.sw.case}", "${data.steps.z.value}"]),
        ]}, {"when": "${true}", "steps": [set_("z", "${data.steps.x.value}")]}],
         "default": {"steps": [set_("d", "${data.steps.a.value}")]}},
    ])
    result = _text(doc)
    assert _codes(result) == [
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1/cases/0/steps/1/value/1"),  # its own switch
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1/cases/0/steps/1/value/2"),  # another case
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1/cases/1/steps/0/value"),    # another case
    ]
    assert result.findings[0].step == "y"


def test_item_only_in_loop_bodies():
    body = {"steps": [set_("use", ["${data.item}", "${data.index}"])]}
    loop = {"id": "each", "type": "loop.parallel", "items": "${data.inputs.xs}", "call": "body"}
    inputs = {"xs": {"type": {"type": "array"}}}
    ok = _wf([loop], inputs=inputs, extra={"body": body})
    assert _text(ok).ok
    mixed = _wf([loop, {"id": "once", "type": "workflow.call", "workflow": "body"}], inputs=inputs, extra={"body": body})
    result = _text(mixed)
    assert _codes(result) == [("WORKFLOW_REFERENCE", "/workflows/body/steps/0/value/0"),
                              ("WORKFLOW_REFERENCE", "/workflows/body/steps/0/value/1")]
    assert result.diagnostics[0].related[0].location.pointer == "/workflows/main/steps/1/workflow"
    uncalled = _wf([set_("a", 1)], extra={"body": body})
    assert len(_text(uncalled).diagnostics) == 2


def test_item_in_a_workflow_nothing_runs_when_a_loop_call_is_unknown():
    """Whether a workflow that nothing runs is the body of a loop whose `call` is unknown
    cannot be known: its `data.item` is not reported (one diagnostic per mistake). A
    workflow that something runs is judged by its callers as ever."""
    body = {"steps": [set_("use", ["${data.item}", "${data.index}"])]}
    inputs = {"xs": {"type": {"type": "array"}}}
    loop = {"id": "each", "type": "loop.parallel", "items": "${data.inputs.xs}"}
    cases = [
        ({**loop, "call": "bodyy"}, [("WORKFLOW_REFERENCE", "/workflows/main/steps/0/call")]),
        ({**loop, "call": 5}, [("WORKFLOW_SCHEMA", "/workflows/main/steps/0/call")]),
        (loop, [("WORKFLOW_SCHEMA", "/workflows/main/steps/0")]),  # no `call`
        ({**loop, "type": "loop.paralel", "call": "body"}, [("WORKFLOW_SCHEMA", "/workflows/main/steps/0/type")]),
    ]
    for step, expected in cases:
        assert _codes(_text(_wf([step], inputs=inputs, extra={"body": body}))) == expected, step
    # an unknown call that is not a loop's: `body`, if it were the target, would not be a loop body
    doc = _wf([{"id": "c", "type": "workflow.call", "workflow": "bodyy"}], extra={"body": body})
    assert [c for c, _ in _codes(_text(doc))] == ["WORKFLOW_REFERENCE"] * 3
    # the entrypoint, and a workflow also run by a non-loop, are reported whatever the typo
    doc = _wf([{**loop, "call": "nope"}, {"id": "c", "type": "workflow.call", "workflow": "body"},
               set_("x", "${data.item}")], inputs=inputs, extra={"body": body})
    assert _codes(_text(doc)) == [
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/0/call"),
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/2/value"),
        ("WORKFLOW_REFERENCE", "/workflows/body/steps/0/value/0"),
        ("WORKFLOW_REFERENCE", "/workflows/body/steps/0/value/1"),
    ]


def test_a_misspelt_workflow_field_is_one_diagnostic():
    """`stepz`, `inputz`, `outputz`: what the field holds is unknown, so a reference to a
    step, an input or an output it would declare is not reported; a field that is simply
    absent still makes such references wrong."""
    outputs = {"o": {"expr": "${data.steps.a1.value}"}}
    doc = _wf([], outputs=outputs)
    doc["workflows"]["main"]["stepz"] = doc["workflows"]["main"].pop("steps")
    assert _codes(_text(doc)) == [("WORKFLOW_SCHEMA", "/workflows/main/stepz")]
    doc = _wf([], outputs=outputs)
    del doc["workflows"]["main"]["steps"]  # missing `steps`: one diagnostic, at the workflow
    assert _codes(_text(doc)) == [("WORKFLOW_SCHEMA", "/workflows/main")]
    doc = _wf([set_("a", "${data.inputs.q}")])
    doc["workflows"]["main"]["inputz"] = {"q": {"type": {"type": "string"}}}
    assert _codes(_text(doc)) == [("WORKFLOW_SCHEMA", "/workflows/main/inputz")]
    assert _codes(_text(_wf([set_("a", "${data.inputs.q}")]))) == [("WORKFLOW_REFERENCE", "/workflows/main/steps/0/value")]
    child = {"steps": [], "outputz": {"out": {"expr": "${true}"}}}
    calls = [{"id": "c", "type": "workflow.call", "workflow": "child"}, set_("r", "${data.steps.c.outputs.out}")]
    assert _codes(_text(_wf(calls, extra={"child": child}))) == [("WORKFLOW_SCHEMA", "/workflows/child/outputz")]
    child = {"steps": []}
    assert _codes(_text(_wf(calls, extra={"child": child}))) == [("WORKFLOW_REFERENCE", "/workflows/main/steps/1/value")]


def test_a_cleanup_guard_that_is_not_an_expression_guards_anything():
    """What a guard that does not parse (or is not an expression) tests is unknown: the
    cleanup's reads are not reported as unguarded, nested steps included."""
    nested = {"id": "sw", "type": "switch", "when": "${present(data.steps.a) or}",
              "cases": [{"when": "${true}", "steps": [set_("in", "${data.steps.a.value}")]}]}
    doc = _wf([set_("a", 1)], finally_=[set_("f", "${data.steps.a.value}", when="${present(data.steps.a) and}"),
                                        set_("g", "${data.steps.a.value}", when=True),
                                        set_("h", "${data.steps.a.value}", when="present(data.steps.a)"),
                                        nested,
                                        set_("u", "${data.steps.a.value}")])
    assert _codes(_text(doc)) == [
        ("WORKFLOW_EXPRESSION", "/workflows/main/finally/0/when"),
        ("WORKFLOW_SCHEMA", "/workflows/main/finally/1/when"),
        ("WORKFLOW_EXPRESSION", "/workflows/main/finally/2/when"),
        ("WORKFLOW_EXPRESSION", "/workflows/main/finally/3/when"),
        ("WORKFLOW_REFERENCE", "/workflows/main/finally/4/value"),  # no guard at all: reported
    ]


def test_a_misspelt_call_input_is_one_diagnostic():
    """A key that is not a declared input, and suggests a required one: reported at the
    key, the required one not also as missing; a key that is not a name at all (`$q`):
    the structural finding only."""
    child = {"inputs": {"q": {"type": {"type": "string"}}, "r": {"type": {"type": "string"}}}, "steps": []}
    doc = _wf([{"id": "c", "type": "workflow.call", "workflow": "child", "input": {"qq": "x", "r": "y"}},
               {"id": "d", "type": "workflow.call", "workflow": "child", "input": {"$q": "x", "r": "y"}},
               {"id": "e", "type": "workflow.call", "workflow": "child", "input": {"zzzzzz": "x", "r": "y"}}],
              extra={"child": child})
    result = _text(doc)
    assert _codes(result) == [
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/0/input/qq"),
        ("WORKFLOW_SCHEMA", "/workflows/main/steps/1/input/$q"),
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/2/input"),  # nothing suggests `q`: missing
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/2/input/zzzzzz"),
    ]
    assert "did you mean `q`" in result.diagnostics[0].message


def test_call_inputs_and_outputs():
    child = {"inputs": {"a": {"type": {"type": "string"}}, "b": {"type": {"type": "string"}, "required": False},
                        "c": {"type": {"type": "integer"}, "default": 3}},
             "steps": [set_("s", "${data.inputs.a}")], "outputs": {"out": {"expr": "${data.steps.s.value}"}}}
    doc = _wf([
        {"id": "ok", "type": "workflow.call", "workflow": "child", "input": {"a": "x"}},
        {"id": "missing", "type": "workflow.call", "workflow": "child"},
        {"id": "unknown", "type": "workflow.call", "workflow": "child", "input": {"a": "x", "zzz": 1}},
        set_("read", ["${data.steps.ok.outputs.out}", "${data.steps.ok.outputs.nope}", "${data.steps.ok.result}"]),
    ], extra={"child": child})
    assert _codes(_text(doc)) == [
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1"),              # no `input` at all: at the step
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/2/input/zzz"),
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/3/value/1"),
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/3/value/2"),
    ]


def test_unknown_workflows_and_entrypoint():
    doc = _wf([{"id": "p", "type": "parallel", "branches": [{"call": "nope"}]},
               {"id": "l", "type": "loop.sequential", "items": "${data.steps.p.branches}", "call": "nope2"}])
    doc["entrypoint"] = "mian"
    assert _codes(_text(doc)) == [
        ("WORKFLOW_REFERENCE", "/entrypoint"),
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/0/branches/0/call"),
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1/call"),
    ]


def test_dotted_ids_must_be_quoted():
    doc = _wf([set_("__a.b", 1), set_("r", ["${data.steps.__a.b.value}", '${data.steps["__a.b"].value}'])])
    result = _text(doc)
    assert _codes(result) == [("WORKFLOW_REFERENCE", "/workflows/main/steps/1/value/0")]
    assert result.diagnostics[0].hint == 'a step ID with dots is quoted: `data.steps["__a.b"]`'


def test_literals_are_never_evaluated():
    doc = _wf([set_("a", {"$literal": "${data.steps.nothing.value}"}),
               set_("b", {"$literal": {"$ref": "#/x", "t": "${data.inputs.token}"}}),
               set_("c", "$ {not an expression}")])
    assert _text(doc).ok


def test_cycle_reported_once_and_depth_limit():
    chain = {f"w{i}": {"steps": [{"id": "c", "type": "workflow.call", "workflow": f"w{i + 1}"}]} for i in range(6)}
    chain["w6"] = {"steps": [set_("leaf", 1)]}
    doc = _wf([{"id": "go", "type": "workflow.call", "workflow": "w0"}], extra=chain)
    assert _text(doc, Limits(max_workflow_depth=8)).ok
    result = _text(doc, Limits(max_workflow_depth=5))
    assert _codes(result) == [("WORKFLOW_LIMIT", "/workflows/w4/steps/0")]
    chain["w6"] = {"steps": [{"id": "back", "type": "workflow.call", "workflow": "w2"}]}
    doc = _wf([{"id": "go", "type": "workflow.call", "workflow": "w0"}], extra=chain)
    result = _text(doc, Limits(max_workflow_depth=5))
    assert _codes(result) == [("WORKFLOW_CYCLE", "/workflows/w2/steps/0/workflow")]
    assert "`w2` -> `w3` -> `w4` -> `w5` -> `w6` -> `w2`" in result.diagnostics[0].message


def test_step_count_limit_stops_early():
    doc = _wf([set_(f"s{i}", "${data.steps.nope.value}") for i in range(10)])
    result = _text(doc, Limits(max_workflow_steps=5))
    assert _codes(result) == [("WORKFLOW_LIMIT", "/workflows/main/steps/5")]


def test_duplicate_step_ids_and_references_resolve_to_the_first():
    doc = _wf([set_("a", 1), set_("a", 2), set_("b", "${data.steps.a.value}")])
    result = _text(doc)
    assert _codes(result) == [("WORKFLOW_SCHEMA", "/workflows/main/steps/1/id")]
    assert result.diagnostics[0].related[0].location.pointer == "/workflows/main/steps/0/id"


def test_unknown_step_type_is_not_looked_into():
    doc = _wf([{"id": "x", "type": "value.projct", "from": "${data.steps.nope.value ==}", "bogus": 1}])
    assert _codes(_text(doc)) == [("WORKFLOW_SCHEMA", "/workflows/main/steps/0/type")]


def test_version_other_than_1_stops():
    doc = _wf([{"id": "x", "type": "nope"}])
    doc["version"] = 2
    assert _codes(_text(doc)) == [("WORKFLOW_SCHEMA", "/version")]
    del doc["version"]
    assert _codes(_text(doc)) == [("WORKFLOW_SCHEMA", "")]


def test_not_a_mapping():
    result = validate_text(b"- 1\n- 2\n", "w.yaml")
    assert _codes(result) == [("WORKFLOW_SCHEMA", "")]


def test_json_documents_are_located_too():
    text = json.dumps(_wf([set_("a", "${data.steps.b.value}")]), indent=1)
    result = validate_text(text.encode(), "w.json")
    (d,) = result.diagnostics
    line = text.splitlines()[d.location.line - 1]
    assert line[d.location.column - 1 : d.location.end_column - 1] == "b"


def test_expression_positions_with_quotes_and_escapes():
    text = (
        "version: 1\nname: t\nentrypoint: main\nworkflows:\n  main:\n    steps:\n"
        "      - {id: a, type: set, value: '${data.steps.zz.value}'}\n"
        '      - {id: b, type: set, value: "${data.steps.z\\u007a.value}"}\n'
    )
    result = validate_text(text.encode(), "w.yaml")
    first, second = result.diagnostics
    assert text.splitlines()[6][48:50] == "zz"
    assert (first.location.line, first.location.column, first.location.end_column) == (7, 49, 51)
    # an escape in the scalar: offsets cannot be mapped, so the diagnostic is at the whole node
    assert second.message == first.message
    assert (second.location.line, second.location.column) == (8, 35)


def test_validation_is_deterministic():
    path = CASES_DIR / "reference.workflow.yaml"
    first = [d.to_json() for d in _validate(path).diagnostics]
    for _ in range(3):
        assert [d.to_json() for d in _validate(path).diagnostics] == first


# --- the command -----------------------------------------------------------------------------

def test_cli_exit_codes_and_json(tmp_path):
    runner = CliRunner()
    ok = runner.invoke(main, ["validate", str(VALID[0])])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(main, ["validate", str(CASES_DIR / "acceptance.workflow.yaml"), "--format", "json"])
    assert bad.exit_code == 1
    payload = json.loads(bad.output)
    assert [d["code"] for d in payload["diagnostics"]] == ["WORKFLOW_REFERENCE", "WORKFLOW_EXPRESSION", "WORKFLOW_SCHEMA"]
    missing = runner.invoke(main, ["validate", str(tmp_path / "nope.yaml")])
    assert missing.exit_code == 2
    both = runner.invoke(main, ["validate", str(VALID[0]), str(CASES_DIR / "cycle.workflow.yaml")])
    assert both.exit_code == 1
    assert "WORKFLOW_CYCLE" in both.output
    syntax = runner.invoke(main, ["validate", str(CASES_DIR / "syntax.workflow.yaml")])
    assert syntax.exit_code == 1 and "WORKFLOW_SYNTAX" in syntax.output


def test_many_wrong_names_stay_linear(monkeypatch):
    """Did-you-mean suggestions have a budget: thousands of unknown names in a
    document with thousands of steps must not compare every pair."""
    from taskplan.passes import validate as v

    n = 4000
    doc = _wf([set_(f"step_{i}", f"${{data.steps.missing_{i}.value}}") for i in range(n)])
    import time

    start = time.process_time()
    result = _text(doc)
    elapsed = time.process_time() - start
    assert len(result.diagnostics) == n
    assert elapsed < 20, f"{elapsed:.1f} s for {n} unknown references"
    monkeypatch.setattr(v._Validator, "SUGGESTION_BUDGET", 10)
    small = _wf([set_("alpha", 1), set_("b", "${data.steps.alpah.value}")])
    assert "did you mean" in _text(small).diagnostics[0].message
    big = _wf([set_(f"s{i}", 1) for i in range(20)] + [set_("b", "${data.steps.s1x.value}")])
    assert "did you mean" not in _text(big).diagnostics[0].message


def test_present_may_test_a_case_step_once_its_switch_ran():
    doc = _wf([
        {"id": "sw", "type": "switch", "cases": [{"when": "${true}", "steps": [set_("maybe", 1)]}]},
        set_("after", ["${present(data.steps.maybe)}", "${present(data.steps.later)}", "${data.steps.maybe.value}"]),
        set_("later", 1),
    ])
    assert _codes(_text(doc)) == [
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1/value/1"),  # a later step: never present yet
        ("WORKFLOW_REFERENCE", "/workflows/main/steps/1/value/2"),  # reading the value needs the case
    ]
