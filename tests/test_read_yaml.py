"""The YAML reader: trees, exact spans, the core schema, and what it refuses."""

from __future__ import annotations

import math
import time

import _ruamel_yaml
import pytest

from taskplan.config import Limits
from taskplan.diagnostics import Diagnostic, Diagnostics
from taskplan.source import yaml_reader
from taskplan.source.document import SourceDocument
from taskplan.source.read import WORKFLOW_CODES, read_document
from taskplan.source.sourcemap import MapPos, SeqPos
from taskplan.source.span import Span


def read(text: str | bytes, path: str = "plan.taskplan.yaml", **kw) -> tuple[SourceDocument, list[Diagnostic]]:
    sink = Diagnostics()
    data = text.encode("utf-8") if isinstance(text, str) else text
    doc = read_document(data, path, sink, **kw)
    return doc, sink.sorted()


def ok(text: str, **kw) -> SourceDocument:
    doc, diags = read(text, **kw)
    assert doc.ok and not diags, [(d.code, d.message) for d in diags]
    assert doc.format == "yaml"
    return doc


def where(d: Diagnostic) -> tuple[str, str, int, int, int, int]:
    loc = d.location
    return (d.code, loc.pointer, loc.line, loc.column, loc.end_line, loc.end_column)


# ---- the parser -------------------------------------------------------------------


def test_the_c_parser_reads_every_yaml_document(monkeypatch):
    assert yaml_reader.PARSER is _ruamel_yaml.CParser
    made = []

    class Spy(_ruamel_yaml.CParser):
        def __init__(self, text):
            made.append(text)
            super().__init__(text)

    monkeypatch.setattr(yaml_reader, "PARSER", Spy)
    doc = ok("a: [1, {b: c}]\n")
    assert made == ["a: [1, {b: c}]\n"]
    assert doc.tree == {"a": [1, {"b": "c"}]}


def test_no_composer_and_no_constructor_is_involved(monkeypatch):
    """The tree comes from events only: break ruamel's composer and constructors and read."""
    import ruamel.yaml.composer
    import ruamel.yaml.constructor

    def boom(*args, **kwargs):
        raise AssertionError("the composer or a constructor was used")

    monkeypatch.setattr(ruamel.yaml.composer.Composer, "compose_node", boom)
    monkeypatch.setattr(ruamel.yaml.constructor.SafeConstructor, "construct_object", boom)
    assert ok("a: [1, 2]\nb: {c: d}\n").tree == {"a": [1, 2], "b": {"c": "d"}}


# ---- trees and spans ---------------------------------------------------------------


BLOCK = """\
version: 1
root:
  tasks:
    - id: fetch
      objective: "Get it"
      outputs:
        - name: x
          value: {kind: string, text: hi}
"""


def test_block_and_flow_spans_of_keys_and_values():
    doc = ok(BLOCK)
    m = doc.map
    assert doc.tree["root"]["tasks"][0]["outputs"][0]["value"] == {"kind": "string", "text": "hi"}
    assert m.value_span("/version") == Span(1, 10, 1, 11)
    assert m.key_span("/version") == Span(1, 1, 1, 8)
    assert m.value_span("/root/tasks/0/id") == Span(4, 11, 4, 16)
    assert m.key_span("/root/tasks/0/id") == Span(4, 7, 4, 9)
    assert m.value_span("/root/tasks/0/objective") == Span(5, 18, 5, 26)  # the quotes included
    assert m.value_span("/root/tasks/0/outputs/0/value") == Span(8, 18, 8, 42)  # the braces included
    assert m.value_span("/root/tasks/0/outputs/0/value/text") == Span(8, 39, 8, 41)
    assert m.key_span("/root/tasks/0/outputs/0/value/text") == Span(8, 33, 8, 37)
    # A block collection spans from its first entry to the end of its last one.
    assert m.value_span("/root/tasks/0") == Span(4, 7, 8, 42)
    assert m.value_span("/root/tasks") == Span(4, 5, 8, 42)
    assert m.value_span("") == Span(1, 1, 8, 42)


def test_absent_pointers_resolve_to_the_nearest_written_ancestor():
    m = ok(BLOCK).map
    resolved = m.resolve("/root/tasks/0/dependsOn/3")
    assert (resolved.pointer, resolved.exact, resolved.span) == ("/root/tasks/0", False, Span(4, 7, 8, 42))
    assert m.resolve("/root/tasks/7").pointer == "/root/tasks"


def test_keys_with_slash_and_tilde_are_escaped_in_pointers():
    doc = ok('a/b: 1\n"c~d": {"e/~f": [x]}\n')
    assert doc.tree == {"a/b": 1, "c~d": {"e/~f": ["x"]}}
    assert doc.map.value_span("/a~1b") == Span(1, 6, 1, 7)
    assert doc.map.key_span("/c~0d") == Span(2, 1, 2, 6)
    assert doc.map.value_span("/c~0d/e~1~0f/0") == Span(2, 18, 2, 19)


def test_multi_line_scalars():
    text = (
        "plain: first\n"
        "  second\n"
        "quoted: \"one\n"
        "  two\"\n"
        "literal: |\n"
        "  line 1\n"
        "  line 2\n"
        "\n"
        "folded: >-\n"
        "  a\n"
        "  b\n"
        "last: x\n"
    )
    doc = ok(text)
    assert doc.tree == {"plain": "first second", "quoted": "one two", "literal": "line 1\nline 2\n",
                        "folded": "a b", "last": "x"}
    m = doc.map
    assert m.value_span("/plain") == Span(1, 8, 2, 9)
    assert m.value_span("/quoted") == Span(3, 9, 4, 7)
    # A block scalar ends at the end of its last written line, not at the next key.
    assert m.value_span("/literal") == Span(5, 10, 7, 9)
    assert m.value_span("/folded") == Span(9, 9, 11, 4)


def test_block_scalar_at_the_end_of_the_file_stays_inside_it():
    doc = ok("a: |\n  x\n\n\n")
    assert doc.tree == {"a": "x\n"}
    assert doc.map.value_span("/a") == Span(1, 4, 2, 4)
    assert doc.map.value_span("") == Span(1, 1, 2, 4)


def test_empty_values_point_just_after_their_key():
    doc = ok("a:\nb: 1\nc:\n")
    assert doc.tree == {"a": None, "b": 1, "c": None}
    assert doc.map.value_span("/a") == Span(1, 3, 1, 3)
    assert doc.map.value_span("/c") == Span(3, 3, 3, 3)


def test_unicode_columns_count_code_points():
    doc = ok("é😀: 😀x\nk: [ü, 中文]\n")
    assert doc.tree == {"é😀": "😀x", "k": ["ü", "中文"]}
    assert doc.map.key_span("/é😀") == Span(1, 1, 1, 3)
    assert doc.map.value_span("/é😀") == Span(1, 5, 1, 7)
    assert doc.map.value_span("/k/1") == Span(2, 8, 2, 10)


def test_crlf_line_breaks():
    doc = ok("a: 1\r\nb:\r\n  - x\r\n  - y\r\n")
    assert doc.tree == {"a": 1, "b": ["x", "y"]}
    assert doc.map.value_span("/b/1") == Span(4, 5, 4, 6)
    assert doc.map.value_span("/b") == Span(3, 3, 4, 6)
    assert doc.line_text(4) == "  - y"


def test_indentless_and_nested_sequences():
    doc = ok("a:\n- [1, 2]\n- - x\n  - y\n")
    assert doc.tree == {"a": [[1, 2], ["x", "y"]]}
    assert isinstance(doc.map.root, MapPos) and isinstance(doc.map.root.keys["a"][1], SeqPos)
    assert doc.map.value_span("/a/1/1") == Span(4, 5, 4, 6)


def test_empty_documents_are_read_without_a_tree():
    for text in ("", "   \n", "# only a comment\n", "---\n", "--- \n...\n"):
        doc, diags = read(text)
        assert doc.ok and doc.tree is None and diags == [], text


def test_a_document_may_be_any_value():
    assert ok("[1, 2]").tree == [1, 2]
    assert ok("hello").tree == "hello"
    assert ok("--- {a: 1}\n...\n").tree == {"a": 1}


# ---- the YAML 1.2 core schema -----------------------------------------------------


@pytest.mark.parametrize(
    "written, value",
    [
        ("~", None), ("null", None), ("Null", None), ("NULL", None), ("", None),
        ("true", True), ("True", True), ("TRUE", True), ("false", False), ("False", False), ("FALSE", False),
        ("0", 0), ("-0", 0), ("+12", 12), ("012", 12), ("0o17", 15), ("0x1F", 31), ("0xff", 255),
        ("1.5", 1.5), ("-.5", -0.5), ("1.", 1.0), ("1e3", 1000.0), ("6.02E+23", 6.02e23),
        (".inf", math.inf), ("-.Inf", -math.inf), ("+.INF", math.inf),
        # YAML 1.1 forms are plain strings in 1.2
        ("yes", "yes"), ("no", "no"), ("on", "on"), ("off", "off"), ("y", "y"), ("tRUE", "tRUE"), ("nul", "nul"),
        ("1_000", "1_000"), ("0b101", "0b101"), ("0o8", "0o8"), ("0x", "0x"), ("017:30", "017:30"),
        ("1.2.3", "1.2.3"), ("٣", "٣"), (".", "."), ("-x", "-x"), ("+", "+"),
        ("2024-01-01", "2024-01-01"), ("=", "="), ("inf", "inf"), ("nan", "nan"),
    ],
)
def test_plain_scalars_resolve_by_the_core_schema(written, value):
    tree = ok(f"v: {written}\n").tree
    assert tree["v"] == value and type(tree["v"]) is type(value)


def test_nan_resolves_to_a_float_nan():
    v = ok("v: .NaN\n").tree["v"]
    assert isinstance(v, float) and math.isnan(v)


def test_quoted_and_block_scalars_are_strings_and_keys_are_their_text():
    doc = ok("a: '1'\nb: \"true\"\nc: |\n  null\n1: x\ntrue: y\nnull: z\n~: w\n0x10: v\n")
    assert doc.tree == {"a": "1", "b": "true", "c": "null\n", "1": "x", "true": "y", "null": "z", "~": "w",
                        "0x10": "v"}


# ---- what the reader refuses -----------------------------------------------------------


def test_anchor_and_alias_are_refused_where_they_are_written():
    doc, diags = read("a: &x 1\nb: *x\n")
    assert not doc.ok and doc.tree is None
    assert [where(d) for d in diags] == [
        ("PLAN_SYNTAX", "/a", 1, 4, 1, 6),
        ("PLAN_SYNTAX", "/b", 2, 4, 2, 6),
    ]
    assert "anchor `&x`" in diags[0].message and "alias `*x`" in diags[1].message
    assert all(d.hint for d in diags)


def test_an_anchor_on_a_collection_and_after_a_tag():
    _, diags = read("a: &list [1]\nb: !!seq &s [2]\n")
    assert [where(d)[2:] for d in diags] == [(1, 4, 1, 9), (2, 4, 2, 9), (2, 10, 2, 12)]


def test_the_alias_bomb_is_never_expanded():
    lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi"):
        lines.append(f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]")
    text = "\n".join(lines) + "\n"
    start = time.perf_counter()
    doc, diags = read(text)
    assert time.perf_counter() - start < 2
    assert not doc.ok and doc.tree is None
    assert {d.code for d in diags} == {"PLAN_SYNTAX"}
    # every anchor and every alias, at its own line (9 anchors, 72 aliases), never more
    assert len(diags) == 9 + 8 * 9
    assert all(1 <= d.location.line <= 9 for d in diags)


def test_a_flood_of_refusals_stops_at_the_cap():
    from taskplan.source.read import MAX_READ_DIAGNOSTICS

    text = "".join(f"k{i}: !!str v\n" for i in range(1000))
    doc, diags = read(text)
    assert not doc.ok and len(diags) == MAX_READ_DIAGNOSTICS


@pytest.mark.parametrize(
    "text, span, tag",
    [
        ("a: !!str 3\n", (1, 4, 1, 9), "!!str"),
        ("a: !foo bar\n", (1, 4, 1, 8), "!foo"),
        ("a: ! bar\n", (1, 4, 1, 5), "!"),
        ("a: !<tag:yaml.org,2002:int> 3\n", (1, 4, 1, 28), "!<tag:yaml.org,2002:int>"),
        ("--- !!map\na: 1\n", (1, 5, 1, 10), "!!map"),
        ("a: !!binary |\n  aGk=\n", (1, 4, 1, 12), "!!binary"),
    ],
)
def test_explicit_tags_are_refused_at_the_tag(text, span, tag):
    doc, diags = read(text)
    assert not doc.ok
    assert [where(d)[2:] for d in diags] == [span]
    assert diags[0].code == "PLAN_SYNTAX" and f"`{tag}`" in diags[0].message


def test_non_scalar_keys_are_refused():
    doc, diags = read("? [a, b]\n: 1\n{x: 1}: 2\nok: 3\n")
    assert not doc.ok
    assert [where(d) for d in diags] == [("PLAN_SYNTAX", "", 1, 3, 1, 4), ("PLAN_SYNTAX", "", 3, 1, 3, 2)]
    assert "sequence cannot be a mapping key" in diags[0].message
    assert "mapping cannot be a mapping key" in diags[1].message


def test_more_than_one_document_is_refused_at_the_second():
    doc, diags = read("a: 1\n---\nb: 2\n")
    assert not doc.ok
    assert [where(d) for d in diags] == [("PLAN_SYNTAX", "", 2, 1, 2, 4)]
    doc, diags = read("a: 1\n...\nb: 2\n")
    assert [where(d)[2:4] for d in diags] == [(3, 1)]


def test_duplicate_keys_point_at_the_second_and_keep_the_first():
    text = "a: 1\nb:\n  c: x\n  d: y\n  c: z\na: 2\n"
    doc, diags = read(text)
    assert doc.ok  # the text was read: the first of each key is kept
    assert doc.tree == {"a": 1, "b": {"c": "x", "d": "y"}}
    assert [where(d) for d in diags] == [
        ("PLAN_DUPLICATE_KEY", "/b/c", 5, 3, 5, 4),
        ("PLAN_DUPLICATE_KEY", "/a", 6, 1, 6, 2),
    ]
    first = diags[0].related[0].location
    assert (first.pointer, first.line, first.column, first.end_column) == ("/b/c", 3, 3, 4)
    assert diags[0].hint
    # the map keeps the first key's span too
    assert doc.map.key_span("/b/c") == Span(3, 3, 3, 4)


def test_a_duplicate_key_with_a_collection_value_is_skipped_whole():
    doc, diags = read("a: [1]\na: {b: [2, 3]}\nc: 4\n")
    assert doc.tree == {"a": [1], "c": 4}
    assert [d.code for d in diags] == ["PLAN_DUPLICATE_KEY"]
    assert doc.map.value_span("/c") == Span(3, 4, 3, 5)


def test_quoted_and_plain_keys_are_the_same_key():
    _, diags = read("a: 1\n'a': 2\n\"a\": 3\n")
    assert [where(d)[2:4] for d in diags] == [(2, 1), (3, 1)]
    assert "twice" in diags[0].message and "3rd time" in diags[1].message


def test_nested_mappings_as_keys_are_refused_fast():
    start = time.perf_counter()
    doc, diags = read("{" * 100_000)
    assert time.perf_counter() - start < 5
    assert not doc.ok
    assert [where(d) for d in diags] == [("PLAN_SYNTAX", "", 1, 2, 1, 3)]  # `{{`: a mapping as a key


@pytest.mark.parametrize("nested", ["[" * 100_000, "[\n" * 100_000, "- " * 100_000, "{a: " * 50_000,
                                    "".join("  " * i + "a:\n" for i in range(300))])
def test_deep_nesting_is_refused_fast_and_never_composed(nested):
    start = time.perf_counter()
    doc, diags = read(nested)
    assert time.perf_counter() - start < 5
    assert not doc.ok
    assert [d.code for d in diags] == ["PLAN_LIMIT"]
    assert "256" in diags[0].message
    assert diags[0].location.pointer.count("/") == 256  # the first node past the limit


def test_deep_block_nesting_within_the_limit_is_read():
    text = "".join("  " * i + "a:\n" for i in range(200)) + "  " * 200 + "b\n"
    doc = ok(text)
    node = doc.tree
    for _ in range(200):
        node = node["a"]
    assert node == "b"
    assert doc.map.value_span("/a" * 200) == Span(201, 401, 201, 402)


def test_the_depth_limit_is_a_setting():
    _, diags = read("a: [[1]]\n", limits=Limits(max_depth=2))
    assert [where(d) for d in diags] == [("PLAN_LIMIT", "/a/0", 1, 5, 1, 6)]
    ok("a: [[1]]\n", limits=Limits(max_depth=3))


def test_huge_integers_are_a_limit_error():
    doc, diags = read("n: " + "9" * 5000 + "\nm: 0x" + "f" * 5000 + "\n")
    assert not doc.ok
    assert [where(d) for d in diags] == [
        ("PLAN_LIMIT", "/n", 1, 4, 1, 5004),
        ("PLAN_LIMIT", "/m", 2, 4, 2, 5006),
    ]
    assert ok("n: " + "9" * 4000 + "\n").tree["n"] == int("9" * 4000)


def test_numbers_too_large_for_a_float_are_a_limit_error():
    _, diags = read("n: 1e400\n")
    assert [where(d) for d in diags] == [("PLAN_LIMIT", "/n", 1, 4, 1, 9)]


def test_long_strings_and_keys_are_a_limit_error():
    limits = Limits(max_scalar_chars=10)
    doc, diags = read("short: 0123456789\nlong: 0123456789a\n0123456789ab: x\nq: 'a\n  b'\n", limits=limits)
    assert not doc.ok
    assert [where(d) for d in diags] == [
        ("PLAN_LIMIT", "/long", 2, 7, 2, 18),
        ("PLAN_LIMIT", "", 3, 1, 3, 13),
    ]


@pytest.mark.parametrize(
    "text, line, column, needle",
    [
        ("a: [1, 2\n", 1, 9, "did not find expected ',' or ']'"),
        ("a: b\n c: d\n", 2, 3, "mapping values are not allowed"),
        ("a:\n\tb: 1\n", 2, 1, "cannot start any token"),
        ("a: \"x\n", 1, 6, "unexpected end of stream"),
        ("a: 1\n b: 2\n", 2, 3, "mapping values are not allowed"),
        ("- a\nb: 1\n", 2, 1, "did not find expected '-' indicator"),
        ("a: @x\n", 1, 4, "cannot start any token"),
        ("a: \"\\ud800\"\n", 1, 7, "invalid Unicode character escape"),
    ],
)
def test_syntax_errors_are_located_at_the_parsers_position(text, line, column, needle):
    doc, diags = read(text)
    assert not doc.ok and doc.tree is None
    assert len(diags) == 1
    d = diags[0]
    assert (d.code, d.location.pointer, d.location.line, d.location.column) == ("PLAN_SYNTAX", "", line, column)
    assert needle in d.message and d.hint
    assert d.location.line <= len(doc.text.splitlines())


def test_tabs_get_a_hint_about_indentation():
    _, diags = read("a:\n\tb: 1\n")
    assert "tabs" in diags[0].hint


@pytest.mark.parametrize("char, offset", [("\x00", 3), ("\x07", 3), ("\x0c", 3), ("\x7f", 3), ("\ufffe", 3)])
def test_control_characters_are_refused_where_they_are(char, offset):
    doc, diags = read(f"a: {char}b\nc: 1\n")
    assert not doc.ok
    assert [where(d)[:4] for d in diags] == [("PLAN_SYNTAX", "", 1, offset + 1)]
    assert f"U+{ord(char):04X}" in diags[0].message


def test_a_control_character_after_multibyte_text_is_located_in_code_points():
    _, diags = read("é😀: 中\x01\n")
    assert [where(d)[2:4] for d in diags] == [(1, 6)]


def test_workflow_documents_report_with_their_own_codes():
    _, diags = read("a: &x 1\nb: 1\nb: 2\nc: [[1]]\n", path="w.workflow.yaml", codes=WORKFLOW_CODES,
                    limits=Limits(max_depth=2))
    assert [d.code for d in diags] == ["WORKFLOW_SYNTAX", "WORKFLOW_SYNTAX", "WORKFLOW_LIMIT"]


# ---- property: a span covers exactly its node ------------------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from taskplan.source.read import Lines  # noqa: E402

yaml_words = st.text(st.characters(max_codepoint=0x2FFFF, blacklist_categories=("Cs", "Cc", "Zl", "Zp")), max_size=10)
yaml_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | yaml_words,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(yaml_words, children, max_size=4),
    max_leaves=20,
)


def covered(doc: SourceDocument, span: Span) -> str:
    starts = Lines(doc.text).starts
    return doc.text[starts[span.line - 1] + span.column - 1: starts[span.end_line - 1] + span.end_column - 1]


def walk(value, pos, pointer=""):
    yield pointer, value, pos
    if isinstance(pos, MapPos):
        for key, (key_span, child) in pos.keys.items():
            yield from walk(value[key], child, f"{pointer}/{key}")
    elif isinstance(pos, SeqPos):
        for i, child in enumerate(pos.items):
            yield from walk(value[i], child, f"{pointer}/{i}")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=yaml_values, flow=st.sampled_from([False, None, True]), newline=st.sampled_from(["\n", "\r\n"]))
def test_every_span_covers_exactly_its_node(value, flow, newline):
    """The text under any node's span, read on its own (indented as in the file), is that node."""
    import io

    from ruamel.yaml import YAML

    dumper = YAML(typ="safe", pure=False)
    dumper.default_flow_style = flow
    buf = io.StringIO()
    dumper.dump(value, buf)
    text = buf.getvalue().replace("\n", newline)
    doc = ok(text)
    assert doc.tree == value
    for pointer, node, pos in walk(doc.tree, doc.map.root):
        span = span_of_pos(pos)
        assert covered(doc, span) == covered(doc, span).strip(" \t\r\n"), (pointer, span)  # tight: no YAML blanks around (U+00A0 is content)
        piece = " " * (span.column - 1) + covered(doc, span)
        again, diags = read(piece)
        assert diags == [] and again.tree == node, (pointer, piece)
        if isinstance(pos, MapPos):
            for key, (key_span, _) in pos.keys.items():
                again, diags = read(covered(doc, key_span) + ": x")  # keys read as their text
                assert diags == [] and again.tree == {key: "x"}, (pointer, key)


def span_of_pos(pos):
    return pos if isinstance(pos, Span) else pos.span
