"""The JSON reader: strict JSON, exact spans, limits, and the fast path's agreement
with the strict reader (same tree, same spans)."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostic, Diagnostics, Reporter
from taskplan.source import json_reader
from taskplan.source.document import SourceDocument
from taskplan.source.read import PLAN_CODES, ReadContext, read_document
from taskplan.source.sourcemap import MapPos, SeqPos, span_of
from taskplan.source.span import Span


def read(text: str | bytes, path: str = "plan.taskplan.json", **kw) -> tuple[SourceDocument, list[Diagnostic]]:
    sink = Diagnostics()
    data = text.encode("utf-8") if isinstance(text, str) else text
    doc = read_document(data, path, sink, **kw)
    return doc, sink.sorted()


def ok(text: str, **kw) -> SourceDocument:
    doc, diags = read(text, **kw)
    assert doc.ok and not diags, [(d.code, d.message) for d in diags]
    assert doc.format == "json"
    return doc


def where(d: Diagnostic) -> tuple[str, str, int, int, int, int]:
    loc = d.location
    return (d.code, loc.pointer, loc.line, loc.column, loc.end_line, loc.end_column)


def both(text: str, limits: Limits = DEFAULT_LIMITS):
    """(tree, positions, diagnostics) from the fast path and from the strict reader alone."""
    out = []
    for fast in (True, False):
        sink = Diagnostics()
        doc = SourceDocument("p.json", text, "json", "")
        ctx = ReadContext(text, Reporter(doc, sink), PLAN_CODES, limits)
        tree, pos = json_reader.read_json(text, ctx, fast=fast)
        out.append((tree, pos, [where(d) for d in sink.sorted()]))
    return out


def same_positions(a, b, path: str = "") -> None:
    assert isinstance(a, MapPos) == isinstance(b, MapPos), path
    assert isinstance(a, SeqPos) == isinstance(b, SeqPos), path
    assert span_of(a) == span_of(b), (path, span_of(a), span_of(b))
    if isinstance(a, MapPos):
        assert list(a.keys) == list(b.keys), path
        for k in a.keys:
            assert a.keys[k][0] == b.keys[k][0], (path, k)
            same_positions(a.keys[k][1], b.keys[k][1], f"{path}/{k}")
    elif isinstance(a, SeqPos):
        assert len(a.items) == len(b.items), path
        for i, (x, y) in enumerate(zip(a.items, b.items)):
            same_positions(x, y, f"{path}/{i}")


# ---- trees and spans ------------------------------------------------------------------

PRETTY = """\
{
  "version": 1,
  "root": {
    "tasks": [
      {"id": "fetch", "objective": "Get it", "outputs": [
        {"name": "x", "value": {"kind": "string", "text": "hi"}}
      ]}
    ]
  }
}
"""


@pytest.mark.parametrize("fast", [True, False])
def test_spans_of_keys_and_values(monkeypatch, fast):
    if not fast:
        monkeypatch.setattr(json_reader, "_fast", lambda text, ctx: None)
    doc = ok(PRETTY)
    m = doc.map
    assert doc.tree["root"]["tasks"][0]["outputs"][0]["value"]["text"] == "hi"
    assert m.key_span("/version") == Span(2, 3, 2, 12)
    assert m.value_span("/version") == Span(2, 14, 2, 15)
    assert m.value_span("/root/tasks/0/id") == Span(5, 14, 5, 21)
    assert m.key_span("/root/tasks/0/objective") == Span(5, 23, 5, 34)
    assert m.value_span("/root/tasks/0/outputs/0/value") == Span(6, 32, 6, 64)
    assert m.value_span("/root/tasks/0/outputs/0/value/text") == Span(6, 59, 6, 63)
    assert m.value_span("/root/tasks/0/outputs") == Span(5, 57, 7, 8)
    assert m.value_span("/root/tasks") == Span(4, 14, 8, 6)
    assert m.value_span("") == Span(1, 1, 10, 2)
    assert m.resolve("/root/tasks/0/dependsOn").pointer == "/root/tasks/0"


@pytest.mark.parametrize("fast", [True, False])
def test_escapes_unicode_and_pointer_escaping(monkeypatch, fast):
    if not fast:
        monkeypatch.setattr(json_reader, "_fast", lambda text, ctx: None)
    text = '{"a/b": {"c~d": ["é😀", "x\\ny", "\\u00e9"]}, "k\\"q": 1, "中文": [true, false, null, -0.5e1]}'
    doc = ok(text)
    assert doc.tree == {"a/b": {"c~d": ["é😀", "x\ny", "é"]}, 'k"q': 1, "中文": [True, False, None, -5.0]}
    m = doc.map
    assert m.key_span("/a~1b") == Span(1, 2, 1, 7)
    assert m.value_span("/a~1b/c~0d/0") == Span(1, 18, 1, 22)  # code points: é and 😀 count one each
    assert m.value_span("/a~1b/c~0d/1") == Span(1, 24, 1, 30)
    assert m.key_span("/k\"q") == Span(1, 44, 1, 50)
    assert m.value_span("/中文/3") == Span(1, 81, 1, 87)


def test_surrogate_pairs_decode_and_take_the_strict_path():
    doc = ok('{"e": "\\ud83d\\ude00"}')
    assert doc.tree == {"e": "😀"}
    assert doc.map.value_span("/e") == Span(1, 7, 1, 21)


@pytest.mark.parametrize("fast", [True, False])
def test_crlf_and_unicode_line_breaks(monkeypatch, fast):
    if not fast:
        monkeypatch.setattr(json_reader, "_fast", lambda text, ctx: None)
    doc = ok('{\r\n "a": "x\u2028y",\r\n "b": [1,\r2]\r\n}')
    assert doc.tree == {"a": "x\u2028y", "b": [1, 2]}
    # U+2028 inside a string breaks the line for str.splitlines, so it does for spans
    assert doc.map.value_span("/a") == Span(2, 7, 3, 3)
    assert doc.map.value_span("/b/1") == Span(5, 1, 5, 2)
    assert doc.map.value_span("/b") == Span(4, 7, 5, 3)
    assert doc.line_text(5) == "2]"


def test_empty_text_is_read_without_a_tree():
    for text in ("", "  \n\t"):
        doc, diags = read(text)
        assert doc.ok and doc.tree is None and diags == []


def test_scalars_and_empty_containers_at_the_top():
    assert ok("[]").tree == [] and ok("{}").tree == {}
    assert ok(" 12 ").tree == 12 and ok('"s"').tree == "s" and ok("null").tree is None
    assert ok(" [ ] ").map.value_span("") == Span(1, 2, 1, 5)


# ---- strict JSON --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, line, column, needle",
    [
        ('{"a": 1,}', 1, 8, "trailing comma before '}'"),
        ("[1, 2,\n]", 1, 6, "trailing comma before ']'"),
        ('{"a": 1 // note\n}', 1, 9, "comments are not allowed"),
        ("/* c */ {}", 1, 1, "comments are not allowed"),
        ("[NaN]", 1, 2, "NaN is not a JSON number"),
        ("[1, Infinity]", 1, 5, "Infinity is not a JSON number"),
        ("[-Infinity]", 1, 2, "-Infinity is not a JSON number"),
        ("['a']", 1, 2, "double quotes"),
        ("{'a': 1}", 1, 2, "double quotes"),
        ("{a: 1}", 1, 2, "keys must be strings in double quotes"),
        ("[01]", 1, 2, "leading zero"),
        ("[1.]", 1, 3, "expected ',' or ']'"),
        ("[.5]", 1, 2, "expected a value"),
        ("[+1]", 1, 2, "expected a value"),
        ("[1 2]", 1, 4, "expected ',' or ']'"),
        ('{"a" 1}', 1, 6, "expected ':'"),
        ('{"a": 1 "b": 2}', 1, 9, "expected ',' or '}'"),
        ('{"a": [1}', 1, 9, "found '}' where the array opened at line 1, column 7"),
        ('[{"a": 1]', 1, 9, "found ']' where the object opened at line 1, column 2"),
        ("[1, 2", 1, 6, "the file ends before the array opened at line 1, column 1"),
        ('{"a": "x', 1, 7, "this string is not closed"),
        ('["a\tb"]', 1, 4, "control character"),
        ('["a\nb"]', 1, 4, "control character"),
        ('["\\x41"]', 1, 3, "invalid escape"),
        ('["\\u12"]', 1, 3, "invalid \\u escape"),
        ('["\\ud800"]', 1, 3, "half of a surrogate pair"),
        ('["ok", "x\\udc00"]', 1, 10, "half of a surrogate pair"),
        ('["\\ud83dx"]', 1, 3, "half of a surrogate pair"),
        ("{} []", 1, 4, "after the end of the JSON value"),
        ("[true, tru]", 1, 8, "unexpected word `tru`"),
        ("[,1]", 1, 2, "expected a value before ','"),
        ("[1:2]", 1, 3, "':' in an array"),
        ("\x00", 1, 1, "expected a value"),
        ('{"a": }', 1, 7, "expected a value, found '}'"),
        ("[1,\n\n", 2, 1, "the file ends before the array"),  # the last line, not past it
    ],
)
def test_strict_json_errors(text, line, column, needle):
    doc, diags = read(text)
    assert not doc.ok and doc.tree is None
    assert len(diags) == 1, diags
    d = diags[0]
    assert (d.code, d.location.pointer) == ("PLAN_SYNTAX", "")
    assert (d.location.line, d.location.column) == (line, column), d.message
    assert needle in d.message, d.message
    assert d.hint


def test_an_error_at_the_end_of_the_file_stays_on_its_last_line():
    _, diags = read('{"a": [1,\n  2\n')
    assert [where(d) for d in diags] == [("PLAN_SYNTAX", "", 2, 4, 2, 4)]


def test_duplicate_keys_point_at_the_second_and_keep_the_first():
    doc, diags = read('{"a": 1, "b": {"c": [1], "c": {"x": [2]}, "d": 3}, "a": 2, "a": 3}')
    assert doc.ok and doc.tree == {"a": 1, "b": {"c": [1], "d": 3}}
    assert [where(d) for d in diags] == [
        ("PLAN_DUPLICATE_KEY", "/b/c", 1, 26, 1, 29),
        ("PLAN_DUPLICATE_KEY", "/a", 1, 52, 1, 55),
        ("PLAN_DUPLICATE_KEY", "/a", 1, 60, 1, 63),
    ]
    assert "twice" in diags[1].message and "3rd time" in diags[2].message
    first = diags[0].related[0].location
    assert (first.pointer, first.line, first.column, first.end_column) == ("/b/c", 1, 16, 19)
    assert doc.map.value_span("/b/d") == Span(1, 48, 1, 49)


def test_duplicate_keys_with_escapes_are_the_same_key():
    doc, diags = read('{"a": 1, "\\u0061": 2}')
    assert doc.tree == {"a": 1}
    assert [where(d) for d in diags] == [("PLAN_DUPLICATE_KEY", "/a", 1, 10, 1, 18)]


@pytest.mark.parametrize("opener", ["[", '{"a":'])
def test_100k_deep_nesting_is_refused_fast(opener):
    start = time.perf_counter()
    doc, diags = read(opener * 100_000)
    assert time.perf_counter() - start < 5
    assert not doc.ok
    assert [d.code for d in diags] == ["PLAN_LIMIT"]
    assert diags[0].location.pointer.count("/") == 256
    assert diags[0].location.column == 256 * len(opener) + 1


def test_depth_within_the_limit_is_read_without_recursion():
    depth = DEFAULT_LIMITS.max_depth
    doc = ok("[" * depth + "]" * depth)
    node = doc.tree
    for _ in range(depth - 1):
        node = node[0]
    assert node == []
    assert doc.map.value_span("/0" * (depth - 1)) == Span(1, depth, 1, depth + 2)
    _, diags = read("[" * (depth + 1) + "]" * (depth + 1))
    assert [d.code for d in diags] == ["PLAN_LIMIT"]


def test_huge_integers_are_a_limit_error_not_a_crash():
    doc, diags = read('{"n": ' + "9" * 5000 + ', "m": -' + "1" * 4001 + ', "ok": ' + "7" * 4000 + "}")
    assert not doc.ok
    assert [where(d) for d in diags] == [
        ("PLAN_LIMIT", "/n", 1, 7, 1, 5007),
        ("PLAN_LIMIT", "/m", 1, 5014, 1, 9016),
    ]
    assert "5000 digits" in diags[0].message
    assert ok('{"n": ' + "7" * 4000 + "}").tree["n"] == int("7" * 4000)


def test_floats_that_overflow_are_a_limit_error():
    _, diags = read("[1e400, -1e999, 1e308]")
    assert [where(d) for d in diags] == [("PLAN_LIMIT", "/0", 1, 2, 1, 7), ("PLAN_LIMIT", "/1", 1, 9, 1, 15)]


def test_long_strings_and_keys_are_a_limit_error():
    limits = Limits(max_scalar_chars=5)
    doc, diags = read('{"short": "12345", "k": "123456", "long-key": 1, "l": ["ab\\n\\n\\n\\n"]}', limits=limits)
    assert not doc.ok
    assert [where(d) for d in diags] == [
        ("PLAN_LIMIT", "/k", 1, 25, 1, 33),
        ("PLAN_LIMIT", "/long-key", 1, 35, 1, 45),
        ("PLAN_LIMIT", "/l/0", 1, 56, 1, 68),
    ]


# ---- the fast path -------------------------------------------------------------------------


def test_the_fast_path_is_taken_for_plain_documents_and_gives_lazy_positions():
    tree, pos, diags = both(PRETTY)[0]
    assert isinstance(pos, json_reader._LazyMapPos) and diags == []


@pytest.mark.parametrize(
    "text",
    [
        '{"a": 1, "a": 2}',  # a duplicate
        "[1e400]",  # an overflowing float
        "[NaN]",
        '["\\ud83d\\ude00"]',  # surrogate escapes
        '["' + "x" * 20 + '"]',  # longer than the limit below
        "[" * 40 + "]" * 40,  # deeper than the limit below
        "[" + "1" * 30 + "]",  # more digits than the limit below
        '{"a": [1, 2,]}',
        '{"a": "\\"]]]]"}',  # brackets and an escaped quote in a string are no nesting
    ],
)
def test_fast_and_strict_paths_agree(text):
    limits = Limits(max_scalar_chars=10, max_depth=30, max_number_digits=20)
    fast, strict = both(text, limits)
    assert fast[0] == strict[0] and fast[2] == strict[2]
    if strict[1] is not None:
        same_positions(fast[1], strict[1])


def test_the_fast_path_agrees_on_a_realistic_plan():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from generate import plan

    doc = plan(100)
    for text in (json.dumps(doc, indent=1), json.dumps(doc), json.dumps(doc, indent="\t", ensure_ascii=False)):
        fast, strict = both(text)
        assert isinstance(fast[1], json_reader._LazyMapPos) and not isinstance(strict[1], json_reader._LazyMapPos)
        assert fast[0] == strict[0] == doc and fast[2] == strict[2] == []
        same_positions(fast[1], strict[1])


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5),
    max_leaves=25,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    value=json_values,
    indent=st.sampled_from([None, 0, 1, 2, "\t", " \r\n "]),
    ascii_only=st.booleans(),
)
def test_fast_and_strict_paths_agree_on_any_document(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    fast, strict = both(text)
    assert fast[2] == strict[2] == []
    assert fast[0] == strict[0] == value
    same_positions(fast[1], strict[1])


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet='[]{}",:\\ 0123456789.-+eEtrufalsnNI\n\r\tu', max_size=40))
def test_fast_and_strict_paths_agree_on_near_json(text):
    limits = Limits(max_depth=4, max_scalar_chars=6, max_number_digits=5)
    fast, strict = both(text, limits)
    assert fast[0] == strict[0] and fast[2] == strict[2]
    if strict[1] is not None and not strict[2]:
        same_positions(fast[1], strict[1])


def covered(text: str, span: Span) -> str:
    from taskplan.source.read import Lines

    starts = Lines(text).starts
    return text[starts[span.line - 1] + span.column - 1: starts[span.end_line - 1] + span.end_column - 1]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, indent=st.sampled_from([None, 1, "\t", " \r\n"]), ascii_only=st.booleans(),
       fast=st.booleans())
def test_every_span_covers_exactly_its_node(value, indent, ascii_only, fast):
    """The text under any node's span is that node's JSON, nothing around it; under a key's, the key."""
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    (tree, pos, diags), = [both(text)[0 if fast else 1]]
    assert diags == [] and tree == value
    stack = [(tree, pos)]
    while stack:
        node, pos = stack.pop()
        piece = covered(text, span_of(pos))
        assert piece == piece.strip() and json.loads(piece) == node, piece
        if isinstance(pos, MapPos):
            for key, (key_span, child) in pos.keys.items():
                assert json.loads(covered(text, key_span)) == key
                stack.append((node[key], child))
        elif isinstance(pos, SeqPos):
            stack.extend(zip(node, pos.items))
