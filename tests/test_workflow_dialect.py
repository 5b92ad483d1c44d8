"""The literal-escaping rule: literal data from a TaskPlan, escaped with
`escape_literal`, is never read as an expression, validates, survives emit and
read, and unescapes to itself; the step-type tables are consistent."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from taskplan.passes.validate import validate_text
from taskplan.workflow import dialect as d
from taskplan.workflow import expr as ex
from taskplan.workflow.emit import emit_yaml

ADVERSARIAL = [
    "${data.inputs.token}", "${data.steps.x.result}", "$${data.inputs.token}", "${", "}", "${}", "$", "{$literal: x}",
    "prefix ${data.item} suffix", "${data.inputs.token", "\n${data.item}\n", "line\n${x}", "yes", "on", "1e-07", "null",
    "~", "*alias", "&anchor", "!tag", "#comment", "a: b", "", " ", "${ data . inputs . token }",
]


def _evaluable_strings(value, inside_literal=False):
    """Every string a runtime would look at for expressions."""
    if isinstance(value, str):
        if not inside_literal:
            yield value
    elif isinstance(value, dict):
        if len(value) == 1 and d.LITERAL in value:
            return
        for k, v in value.items():
            yield from _evaluable_strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _evaluable_strings(v)


def _doc(value):
    return {"version": 1, "name": "t", "entrypoint": "main",
            "workflows": {"main": {"steps": [{"id": "a", "type": "set", "value": value}]}}}


def _check(literal):
    escaped = d.escape_literal(literal)
    assert not any("${" in s for s in _evaluable_strings(escaped)), escaped
    assert d.unescape_literal(escaped) == literal
    result = validate_text(emit_yaml(_doc(escaped)).encode("utf-8"), "w.yaml")
    assert result.ok, [f"{x.code}: {x.message}" for x in result.diagnostics]
    assert d.unescape_literal(result.document.tree["workflows"]["main"]["steps"][0]["value"]) == literal


def test_adversarial_literals():
    for text in ADVERSARIAL:
        _check(text)
        _check({"k": text, text: [text]} if not text.startswith("$") else {"k": text, "list": [text]})
    _check({"$ref": "#/defs/x", "nested": {"${": "${data.item}"}})
    _check([{"$literal": "already looks escaped"}])


def test_escaping_rule():
    assert d.escape_literal("${data.inputs.token}") == {"$literal": "${data.inputs.token}"}
    assert d.escape_literal("a ${b}") == {"$literal": "a ${b}"}
    assert d.escape_literal("plain $ text") == "plain $ text"
    assert d.escape_literal({"$ref": "x"}) == {"$literal": {"$ref": "x"}}
    assert d.escape_literal([1, {"a": "${x}"}]) == [1, {"a": {"$literal": "${x}"}}]


def test_unescaped_literal_is_refused_not_evaluated():
    """Text that looks like an expression but is not whole is an error, never silently text."""
    result = validate_text(emit_yaml(_doc("hello ${data.inputs.token}")).encode(), "w.yaml")
    assert [x.code for x in result.diagnostics] == ["WORKFLOW_EXPRESSION"]


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(2**53), 2**53), st.floats(allow_nan=False, allow_infinity=False),
              st.text(alphabet="${}ab \n:#-'\"", max_size=12)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(alphabet="$ab{", max_size=4), children, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_any_literal_survives(literal):
    _check(literal)


def test_tables_are_consistent():
    for t in d.BUILTIN_TYPES:
        assert d.step_kind(t) == t
        assert t in d.RESULT_FIELDS
    assert d.step_kind("mcp.call") == d.EXECUTOR
    assert d.step_kind("operation.call") == d.EXECUTOR
    assert d.step_kind("value.projct") is None
    assert d.step_kind("loop.forever") is None
    assert d.step_kind("sett") is None
    assert d.STEP_ID_RE.match("__review_each.collect.summary")
    assert d.STEP_ID_RE.match("parse-pr_url")
    assert not d.STEP_ID_RE.match("a.b")  # business IDs have no dots
    assert not d.STEP_ID_RE.match("x" * 65)


def test_generated_ids_round_trip_through_paths():
    for sid in ["__review_each.collect.summary", "__a", "plain", "1st-step", "__x.y-h3f9a2c"]:
        (ref,) = ex.parse(ex.step_path(sid, "value")).refs
        assert ref.name == sid and ref.segments == ("value",)
