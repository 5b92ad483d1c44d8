"""read_document as a whole: bytes and encodings, the size limit, the format, the
codes of each document family; and properties over any input: it never raises,
every location lies inside the text, and JSON reads like the same YAML."""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.config import Limits
from taskplan.diagnostics import Diagnostic, Diagnostics
from taskplan.source.document import SourceDocument
from taskplan.source.read import CATALOG_CODES, read_document
from taskplan.source.sourcemap import MapPos, SeqPos, span_of
from taskplan.source.span import Span


def read(data: str | bytes, path: str = "plan.taskplan.yaml", **kw) -> tuple[SourceDocument, list[Diagnostic]]:
    sink = Diagnostics()
    if isinstance(data, str):
        data = data.encode("utf-8")
    doc = read_document(data, path, sink, **kw)
    return doc, sink.sorted()


def where(d: Diagnostic) -> tuple[str, str, int, int, int, int]:
    loc = d.location
    return (d.code, loc.pointer, loc.line, loc.column, loc.end_line, loc.end_column)


def assert_inside(doc: SourceDocument, span: Span, what: object = "") -> None:
    """A span lies inside the text: on an existing line (line 1 of an empty text), its
    columns within the line (the end may be just past its last character)."""
    lines = doc.text.splitlines()
    count = max(1, len(lines))
    line, column, end_line, end_column = span
    assert 1 <= line <= end_line <= count, (what, span, count)
    assert 1 <= column <= len(doc.line_text(line)) + 1, (what, span, doc.line_text(line))
    assert 1 <= end_column <= len(doc.line_text(end_line)) + 1, (what, span, doc.line_text(end_line))
    assert (line, column) <= (end_line, end_column), (what, span)


def assert_all_inside(doc: SourceDocument, diags: list[Diagnostic]) -> None:
    for d in diags:
        loc = d.location
        assert loc.file == doc.path
        assert_inside(doc, Span(loc.line, loc.column, loc.end_line, loc.end_column), d)
        for r in d.related:
            rl = r.location
            assert_inside(doc, Span(rl.line, rl.column, rl.end_line, rl.end_column), r)
    stack = [doc.map.root] if doc.map.root is not None else []
    while stack:
        pos = stack.pop()
        assert_inside(doc, span_of(pos), pos)
        if isinstance(pos, MapPos):
            for key_span, child in pos.keys.values():
                assert_inside(doc, key_span, key_span)
                stack.append(child)
        elif isinstance(pos, SeqPos):
            stack.extend(pos.items)


# ---- bytes, encodings and limits ------------------------------------------------------------


def test_the_digest_is_of_the_raw_bytes():
    data = b"\xef\xbb\xbfa: 1\n"
    doc, _ = read(data)
    assert doc.digest == "sha256:" + hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("path", ["p.taskplan.yaml", "p.taskplan.json"])
def test_a_utf8_byte_order_mark_is_accepted_and_not_counted(path):
    doc, diags = read(b'\xef\xbb\xbf{"a": [1]}', path)
    assert doc.ok and diags == [] and doc.tree == {"a": [1]}
    assert doc.text == '{"a": [1]}'
    assert doc.map.value_span("/a") == Span(1, 7, 1, 10)


@pytest.mark.parametrize(
    "bom, name",
    [
        (b"\xff\xfe", "UTF-16 (little-endian)"),
        (b"\xfe\xff", "UTF-16 (big-endian)"),
        (b"\xff\xfe\x00\x00", "UTF-32 (little-endian)"),
        (b"\x00\x00\xfe\xff", "UTF-32 (big-endian)"),
    ],
)
def test_utf16_and_utf32_are_refused_with_a_clear_message(bom, name):
    codec = {"UTF-16 (little-endian)": "utf-16-le", "UTF-16 (big-endian)": "utf-16-be",
             "UTF-32 (little-endian)": "utf-32-le", "UTF-32 (big-endian)": "utf-32-be"}[name]
    doc, diags = read(bom + "a: 1\n".encode(codec))
    assert not doc.ok and doc.tree is None
    assert [where(d) for d in diags] == [("PLAN_SYNTAX", "", 1, 1, 1, 2)]
    assert name in diags[0].message and "UTF-8" in diags[0].hint
    assert doc.text.startswith("a: 1")  # shown decoded


@pytest.mark.parametrize(
    "data, line, column",
    [
        (b"a: 1\nb: caf\xe9\n", 2, 7),  # Latin-1
        (b"a: 1\r\nb: \xc3\xa9\xff\n", 2, 5),  # after a two-byte character: columns in code points
        (b"k: \xf0\x9f\x98\x80\xc0\x80\n", 1, 5),  # an overlong NUL after an emoji
        (b"k: \xed\xa0\x80\n", 1, 4),  # a UTF-16 surrogate encoded in UTF-8
        (b"k: ok\n\n\xe2\x82", 3, 1),  # cut short at the end of the file
    ],
)
def test_invalid_utf8_is_located_at_the_bad_byte(data, line, column):
    for path in ("p.taskplan.yaml", "p.taskplan.json"):
        doc, diags = read(data, path)
        assert not doc.ok and doc.tree is None
        assert [where(d)[:4] for d in diags] == [("PLAN_SYNTAX", "", line, column)]
        assert "not valid UTF-8" in diags[0].message and diags[0].hint
        assert_all_inside(doc, diags)


def test_nul_bytes_hint_at_utf16():
    _, diags = read("a: 1\n".encode("utf-16-le") + b"\xff")
    assert "UTF-16" in diags[0].hint


def test_the_size_limit_is_checked_on_the_raw_bytes():
    limits = Limits(max_bytes=16)
    doc, diags = read(b"a: 0123456789ab\n", limits=limits)  # exactly 16 bytes
    assert doc.ok and diags == []
    doc, diags = read(b"a: 0123456789abc\n", limits=limits)
    assert not doc.ok and doc.tree is None
    assert [where(d) for d in diags] == [("PLAN_LIMIT", "", 1, 1, 1, 2)]
    assert "16 bytes" in diags[0].message
    # the hint names the setting as it is written in pyproject.toml
    assert diags[0].hint == "split it into smaller documents, or raise max-bytes in [tool.taskplan.limits]"
    assert_all_inside(doc, diags)


def test_the_default_size_limit_is_16_mib():
    data = b"#" * (16 * 1024 * 1024) + b"\n"
    doc, diags = read(data)
    assert [d.code for d in diags] == ["PLAN_LIMIT"] and "16 MiB" in diags[0].message


# ---- the format --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path, data, fmt, tree",
    [
        ("p.json", '{"a": 1}', "json", {"a": 1}),
        ("P.JSON", '{"a": 1}', "json", {"a": 1}),
        ("p.yaml", '{"a": 1}', "yaml", {"a": 1}),
        ("p.yml", "a: 1", "yaml", {"a": 1}),
        ("plan", '  {"a": [1]}', "json", {"a": [1]}),  # sniffed: parses as JSON
        ("plan", '\n["x"]', "json", ["x"]),
        ("plan", "{a: 1}", "yaml", {"a": 1}),  # starts like JSON, is YAML flow style
        ("plan", "[1, 2,]", "yaml", [1, 2]),
        ("plan", "a: 1", "yaml", {"a": 1}),
        ("plan", "", "yaml", None),
    ],
)
def test_the_format_comes_from_the_extension_else_the_text(path, data, fmt, tree):
    doc, diags = read(data, path)
    assert doc.ok and diags == []
    assert (doc.format, doc.tree) == (fmt, tree)


def test_an_explicit_format_wins():
    doc, diags = read("a: 1", "p.json", format="yaml")
    assert doc.ok and doc.tree == {"a": 1} and doc.format == "yaml"
    doc, diags = read("a: 1", "p.yaml", format="json")
    assert not doc.ok and doc.format == "json" and diags[0].code == "PLAN_SYNTAX"


def test_sniffed_json_keeps_its_diagnostics():
    doc, diags = read('{"a": 1, "a": 2}', "plan")
    assert doc.format == "json" and doc.tree == {"a": 1}
    assert [where(d) for d in diags] == [("PLAN_DUPLICATE_KEY", "/a", 1, 10, 1, 13)]


def test_sniffed_text_that_is_neither_reports_the_yaml_error():
    doc, diags = read('{"a": [1, }', "plan")
    assert doc.format == "yaml" and not doc.ok
    assert [d.code for d in diags] == ["PLAN_SYNTAX"] and "YAML" in diags[0].message


def test_catalogs_report_catalog_codes():
    for data, path in [("a: &x 1", "c.yaml"), ("a: 1\na: 2\n", "c.yaml"), ('{"a": [1,]}', "c.json"),
                       ("[[[1]]]", "c.json")]:
        _, diags = read(data, path, codes=CATALOG_CODES, limits=Limits(max_depth=2))
        assert [d.code for d in diags] == ["CATALOG_SYNTAX"], (data, diags)


# ---- properties ---------------------------------------------------------------------------

SMALL = Limits(max_bytes=400, max_depth=6, max_scalar_chars=40, max_number_digits=12)

documentish = st.text(
    alphabet=st.sampled_from(list("{}[]:,-?!&*|>#'\"\\ \t\n\rabnulltrue0123456789.eE+~%@`") + ["\u2028", "\x85",
                                                                                                "é", "😀", "\x00"]),
    max_size=120,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=200), path=st.sampled_from(["p.yaml", "p.json", "plan"]), small=st.booleans())
def test_arbitrary_bytes_never_raise_and_stay_inside_the_text(data, path, small):
    doc, diags = read(data, path, limits=SMALL if small else Limits())
    if doc.ok:
        assert all(d.code == "PLAN_DUPLICATE_KEY" for d in diags)
    else:
        assert diags and doc.tree is None
    assert_all_inside(doc, diags)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(st.text(max_size=120), documentish), path=st.sampled_from(["p.yaml", "p.json", "plan"]),
       small=st.booleans())
def test_arbitrary_text_never_raises_and_stays_inside_the_text(text, path, small):
    doc, diags = read(text.encode("utf-8"), path, limits=SMALL if small else Limits())
    if not doc.ok:
        assert diags and doc.tree is None
        assert any(d.code in ("PLAN_SYNTAX", "PLAN_LIMIT") for d in diags)
    else:
        assert all(d.code == "PLAN_DUPLICATE_KEY" for d in diags)
    assert_all_inside(doc, diags)


bmp_text = st.text(st.characters(max_codepoint=0xFFFF, blacklist_categories=("Cs",), blacklist_characters="\x7f"),
                   max_size=12)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | bmp_text,
    lambda children: st.lists(children, max_size=4) | st.dictionaries(bmp_text, children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=json_values, indent=st.sampled_from([None, 1, 2]))
def test_json_and_the_same_text_read_as_yaml_give_the_same_tree(value, indent):
    text = json.dumps(value, indent=indent)  # JSON is YAML 1.2 (ASCII escapes: no surrogate pairs, see above)
    as_json, json_diags = read(text, "p.json")
    as_yaml, yaml_diags = read(text, "p.yaml")
    assert json_diags == [] and yaml_diags == [], (json_diags, yaml_diags)
    assert as_json.tree == as_yaml.tree == value
    assert_all_inside(as_json, [])
    assert_all_inside(as_yaml, [])


def test_a_realistic_plan_reads_the_same_as_json_and_as_yaml():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import io

    from generate import plan
    from ruamel.yaml import YAML

    doc = plan(60)
    buf = io.StringIO()
    dumper = YAML(typ="safe", pure=False)
    dumper.default_flow_style = False
    dumper.dump(doc, buf)
    as_yaml, yaml_diags = read(buf.getvalue(), "p.yaml")
    as_json, json_diags = read(json.dumps(doc, indent=2), "p.json")
    assert yaml_diags == json_diags == []
    assert as_yaml.tree == as_json.tree == doc
    # the same node, found by the same pointer, in both
    pointer = "/root/tasks/2/body/tasks/0/inputs/1/value/source"
    assert as_yaml.map.has(pointer) and as_json.map.has(pointer)
    assert as_yaml.text.splitlines()[as_yaml.map.value_span(pointer).line - 1].strip().endswith("b0_label")
