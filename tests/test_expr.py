"""The expression language: grammar, errors with positions and readable expected sets,
references with offsets, the fast path's agreement with the grammar, and builders."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from taskplan.workflow import expr as ex

VALID = [
    "data.inputs.pr_url",
    "data.steps.parse.result.owner",
    'data.steps["__review_each.collect.summary"].value',
    "data.steps.x.result[0].name",
    'data.steps.x.result["field with spaces"]',
    "data.item",
    "data.item.name[2]",
    "data.index",
    "data.index >= 0",
    "data.index > -1",
    "not present(data.steps.x.result)",
    "present(data.steps.x) and data.inputs.flag == true or data.inputs.n != 1.5e3",
    "(data.inputs.a < data.inputs.b) and (data.inputs.c <= 'x')",
    "json(data.steps.x.json)",
    'json(data.inputs.a) == "{\\"a\\": 1}"',
    "data.inputs.a == null",
    "false",
    "'it\\'s'",
    "data.steps.1st-step.result",
    "data.steps.and.result.or",  # keywords are field names after a dot
    "  data.inputs.x  ",
    "data . inputs . x",
    "not not data.inputs.x",
    "data.inputs.x == \"}\"",
]

INVALID = [
    ("", 0, ["`data`", "a string"]),
    ("data.foo", 5, ["`inputs`", "`steps`", "`item`", "`index`"]),
    ("data.inputs.x ==", 16, ["`data`"]),
    ("data.inputs.x == 1 == 2", 19, ["`and`", "`or`", "the end of the expression"]),
    ("(data.item", 10, ["`)`"]),
    ("foo", 0, ["`data`"]),
    ("data.index.x", 10, []),
    ("present(1)", 8, ["`data`"]),
    ("data.inputs.x +", 14, []),
    ("data.inputs.\"x", 12, ["a field name"]),
    ("data.steps[0]", 11, ["a string"]),
    ("data.inputs.x[01]", 15, []),
    ("json()", 5, []),
    ("data.inputs.x and", 17, []),
    ("data.steps.", 11, ["a field name"]),
]


@pytest.mark.parametrize("body", VALID)
def test_valid_expressions_parse(body):
    parsed = ex.parse(body)
    assert parsed.error is None, parsed.error
    assert ex.parse_slow(body) == parsed
    assert ex._descent(body) == parsed


@pytest.mark.parametrize("body,offset,expected", INVALID)
def test_syntax_errors_have_position_and_expected(body, offset, expected):
    parsed = ex.parse(body)
    assert parsed.error is not None
    assert parsed.error.offset == offset, parsed.error
    for item in expected:
        assert item in parsed.error.expected, parsed.error
    assert "__ANON" not in parsed.error.message
    assert parsed.error.message.startswith("unexpected ")


def test_every_terminal_is_named():
    parser = ex._parser()
    assert not [t.name for t in parser.terminals if t.name.startswith("__ANON")]
    shown = set(ex._DISPLAY)
    assert {t.name for t in parser.terminals} - {"WS"} <= shown


def test_refs_and_offsets():
    body = 'data.steps["__a.b"].value[0] == data.inputs.x and present(data.steps.y)'
    refs = ex.parse(body).refs
    assert [(r.root, r.name, r.segments, r.in_present) for r in refs] == [
        ("steps", "__a.b", ("value", 0), False),
        ("inputs", "x", (), False),
        ("steps", "y", (), True),
    ]
    first = refs[0]
    assert body[first.name_start : first.name_end] == '"__a.b"'
    assert body[first.start : first.end] == 'data.steps["__a.b"].value[0]'
    assert [body[a:b] for a, b in first.segment_spans] == ["value", "0"]
    assert body[refs[1].name_start : refs[1].name_end] == "x"


def test_string_literals_decode():
    refs = ex.parse('data.steps["a\\"b"].x').refs
    assert refs[0].name == 'a"b'
    refs = ex.parse("data.steps['a\\'b'].x").refs
    assert refs[0].name == "a'b"


def test_parse_is_cached():
    body = "data.inputs.cached_one == 1"
    assert ex.parse(body) is ex.parse(body)


def test_split():
    assert ex.split("${data.item}") == "data.item"
    assert ex.split("${}") == ""
    assert ex.split("${data.item") is None
    assert ex.split("x ${data.item}") is None
    assert ex.split("${") is None


@pytest.mark.parametrize(
    "built,root,name,segments",
    [
        (ex.step_path("__review_each.collect.summary", "value"), "steps", "__review_each.collect.summary", ("value",)),
        (ex.step_path("plain", "result", 0, "a b"), "steps", "plain", ("result", 0, "a b")),
        (ex.input_path("pr_url"), "inputs", "pr_url", ()),
        (ex.input_path("captured.value", 'quote"d'), "inputs", "captured.value", ('quote"d',)),
        (ex.item_path("x", 3), "item", None, ("x", 3)),
        (ex.index_path(), "index", None, ()),
    ],
)
def test_builders_produce_parseable_canonical_paths(built, root, name, segments):
    parsed = ex.parse(built)
    assert parsed.error is None, (built, parsed.error)
    (ref,) = parsed.refs
    assert (ref.root, ref.name, ref.segments) == (root, name, segments)


def test_builder_quotes_dotted_ids():
    assert ex.step_path("__a.b", "value") == 'data.steps["__a.b"].value'
    assert ex.step_path("a", "value") == "data.steps.a.value"
    assert ex.expression(ex.step_path("a")) == "${data.steps.a}"


# --- the fast path accepts exactly what the grammar accepts, with the same refs ----------------

_TOKENS = [
    "data", ".", "inputs", "steps", "item", "index", "x", "a-b", "1", "01", "[", "]", "[0]", "[12]",
    '"q.r"', '"\\u0041"', "'s'", " ", "\t", "\n", "==", "and", "(", ")", "present", "json", "__g.h",
]


_EXPR_TOKENS = _TOKENS + [
    "not", "or", "true", "null", "false", "-1", "1.5e3", "!=", "<=", "<", ">=", ">", "json(", "present(",
    "data.inputs.x", "data.steps.y.z", "data.item", "data.index", " and ", " or ", "not ", "'a\\'b'", '"}"',
]


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(_TOKENS), min_size=1, max_size=9))
def test_fast_path_agrees_with_the_grammar(tokens):
    body = "".join(tokens)
    fast = ex._fast(body)
    slow = ex.parse_slow(body)
    if fast is not None:
        assert slow.error is None, (body, slow.error)
        assert fast == slow, body


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(_EXPR_TOKENS), min_size=1, max_size=12))
def test_descent_parser_agrees_with_the_grammar(tokens):
    body = "".join(tokens)
    fast = ex._descent(body)
    slow = ex.parse_slow(body)
    if fast is not None:
        assert slow.error is None, (body, slow.error)
        assert fast == slow, body


def test_descent_parser_takes_realistic_expressions():
    for body in [
        'present(data.steps["__a.b"]) and data.inputs.flag == true',
        "json(data.steps.x.result)",
        "not (data.index >= 3 or data.item.kind != 'file')",
    ]:
        assert ex._descent(body) is not None, body


def test_deep_nesting_falls_back_to_the_grammar():
    body = "(" * 200 + "data.item" + ")" * 200
    assert ex._descent(body) is None
    parsed = ex.parse(body)
    assert parsed.error is None and parsed.refs[0].root == "item"


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["data.inputs", "data.steps", "data.item"]),
    st.lists(
        st.one_of(
            st.from_regex(r"\.[A-Za-z0-9_-]{1,5}", fullmatch=True),
            st.from_regex(r"\[(0|[1-9][0-9]{0,2})\]", fullmatch=True),
            st.text(alphabet='ab."\\ ', max_size=4).map(lambda t: "[" + json.dumps(t) + "]"),
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_fast_path_on_paths(root, segments):
    body = root + "".join(segments)
    slow = ex.parse_slow(body)
    fast = ex._fast(body)
    if slow.error is None:
        # every single path without whitespace between tokens takes the fast path
        assert fast == slow, body
    else:
        assert fast is None, body


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("${}\\\"'ab \n\u00e9\u2028")), max_size=12))
def test_a_string_literal_never_holds_an_open_expression_and_reads_back_as_written(text):
    """The compiler writes literal text inside expressions (predicates, outputs, quoted
    names) with `${` as `$\\u007b`: no `${` appears in the workflow outside a `$literal`
    (docs/decisions.md), and the parser reads the same string back."""
    quoted = ex.string_literal(text)
    assert "${" not in quoted
    tokens = [t for t in ex._parser().parse(quoted).scan_values(lambda v: getattr(v, "type", None) == "STRING")]
    assert [ex._string_value(t) for t in tokens] == [text]
    assert "${" not in ex.step_path("s", "result", text) and "${" not in ex.input_path("i", text)
