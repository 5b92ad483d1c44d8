"""The line reader for plain block YAML (source/yaml_fast.py) against the C-event reader
(yaml_reader.read_yaml_events): on every YAML file of the repository, on hand-picked
edge cases, on documents written by the compiler's emitter and by ruamel's block
dumper from generated data with odd strings, and on near-YAML noise, the line reader
gives the same tree (types and key order included) and the same position tree (every
span), or declines. It must never take a text the C-event reader reports anything on."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.source import yaml_fast, yaml_reader
from taskplan.source.document import SourceDocument
from taskplan.source.read import PLAN_CODES, ReadContext, read_document
from taskplan.source.sourcemap import MapPos, SeqPos
from taskplan.source.span import Span
from taskplan.workflow.emit import emit_yaml, emit_yaml_events

ROOT = Path(__file__).resolve().parents[1]


def events(text: str, limits: Limits = DEFAULT_LIMITS):
    """The C-event reader alone: (tree, positions, diagnostics reported)."""
    sink = Diagnostics()
    doc = SourceDocument("p.yaml", text, "yaml", "")
    ctx = ReadContext(text, Reporter(doc, sink), PLAN_CODES, limits)
    tree, pos = yaml_reader.read_yaml_events(text, ctx)
    return tree, pos, sink.sorted()


def plain(value):
    """The tree with its types and key order made explicit (True is not 1, NaN is NaN)."""
    if type(value) is dict:
        return ("map", [(k, plain(v)) for k, v in value.items()])
    if type(value) is list:
        return ("seq", [plain(v) for v in value])
    if type(value) is float and math.isnan(value):
        return ("nan",)
    return (type(value).__name__, value)


def positions(pos):
    """The position tree as plain data (classes, spans as tuples, key order)."""
    if isinstance(pos, MapPos):
        assert type(pos.span) is Span
        return ("map", tuple(pos.span), [(k, tuple(ks), positions(v)) for k, (ks, v) in pos.keys.items()])
    if isinstance(pos, SeqPos):
        assert type(pos.span) is Span
        return ("seq", tuple(pos.span), [positions(v) for v in pos.items])
    assert type(pos) is Span, pos
    return tuple(pos)


def agree(text: str, limits: Limits = DEFAULT_LIMITS) -> bool:
    """True when the line reader took `text`, with the C-event reader's tree and positions
    (read lazily and at once); False when it declined."""
    now = yaml_fast.read_block_now(text, limits)
    lazy = yaml_fast.read_block(text, limits)
    assert (now is None) == (lazy is None), text
    if now is None:
        return False
    tree, pos, diagnostics = events(text, limits)
    assert diagnostics == [], ("taken, but the C-event reader reports", text, diagnostics)
    assert plain(now[0]) == plain(tree), text
    assert plain(lazy[0]) == plain(tree), text
    expected = positions(pos)
    assert positions(now[1]) == expected, text
    assert positions(lazy[1]) == expected, text
    return True


# ---- the repository's YAML files ------------------------------------------------------


def _yaml_files() -> list[Path]:
    files = []
    for folder in ("fixtures", "examples", "tests", "docs", "schemas"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix in (".yaml", ".yml") and path.is_file():
                files.append(path)
    return files


YAML_FILES = _yaml_files()
COMPILED = [p for p in YAML_FILES if p.name.endswith(".yaml") and "__snapshots__" in p.parts]


def test_there_are_files_to_compare():
    assert len(YAML_FILES) >= 100 and len(COMPILED) >= 5


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_file_of_the_repository(path):
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        pytest.skip("not UTF-8: refused before any YAML reader")
    agree(text)


@pytest.mark.parametrize("path", COMPILED, ids=lambda p: p.name)
def test_compiled_workflows_take_the_fast_path(path):
    assert agree(path.read_text(encoding="utf-8"))


def test_read_document_does_not_start_the_c_parser_for_a_compiled_workflow(monkeypatch):
    made = []

    class Spy(yaml_reader.PARSER):  # type: ignore[misc, valid-type]
        def __init__(self, text):
            made.append(text)
            super().__init__(text)

    monkeypatch.setattr(yaml_reader, "PARSER", Spy)
    data = COMPILED[0].read_bytes()
    doc = read_document(data, "w.workflow.yaml", Diagnostics())
    assert doc.ok and made == []
    doc = read_document(b"a: {b: 1}\n", "w.workflow.yaml", Diagnostics())
    assert doc.ok and doc.tree == {"a": {"b": 1}} and len(made) == 1


def test_positions_are_read_once_and_only_when_asked_for(monkeypatch):
    calls = []
    original = yaml_fast.read_block_now

    def counting(text, limits):
        calls.append(text)
        return original(text, limits)

    monkeypatch.setattr(yaml_fast, "read_block_now", counting)
    text = "a:\n  b: 1\n  c:\n  - x\n"
    doc = read_document(text.encode(), "p.taskplan.yaml", Diagnostics())
    assert doc.ok and doc.tree == {"a": {"b": 1, "c": ["x"]}} and calls == []
    assert isinstance(doc.map.root, MapPos)
    assert doc.map.value_span("/a/c/0") == Span(4, 5, 4, 6)
    assert doc.map.key_span("/a/b") == Span(2, 3, 2, 4)
    assert doc.map.value_span("") == Span(1, 1, 4, 6)
    assert calls == [text]
    seq = read_document(b"- 1\n- x: y\n", "p.taskplan.yaml", Diagnostics())
    assert isinstance(seq.map.root, SeqPos) and seq.map.value_span("/1/x") == Span(2, 6, 2, 7)


# ---- edge cases -------------------------------------------------------------------------

TAKEN = [
    # mappings, sequences, indentless sequences, `- key:` mappings, any indentation
    "a: 1\nb: x\n",
    "a:\n  b:\n    c: d\n  e: f\ng: h\n",
    "a:\n- 1\n- 2\nb: 3\n",
    "a:\n  - 1\n  - 2\n",
    "a:\n- b: 1\n  c: 2\n- d\ne: f\n",
    "a:\n  b:\n  - x\n  c: y\n",
    "-   a: 1\n    b: 2\n-  x\n",
    "- a: 1\n  b:\n    c: 2\n- x\n",
    "- a:\n  - x\n  b: y\n",
    "-\n  - a\n  - b\n- c\n",
    "-\n  a: 1\n",
    "  a: 1\n  b: 2\n",
    "a:\n      deep: 1\nb: 2\n",
    # empty values
    "a:\nb: 1\nc:\n",
    "a:\n",
    "- \n- x\n-\n",
    "a:\n  -\n  - x\n",
    "a: # c\nb: 1\n",
    "- a:\n- b\n",
    "a:\n- \n",
    "a:  \n  b: 1\n",
    # comments and blank lines
    "# c\na: 1 # x\nb: 'q' # y\n  # indented\nc: d\n",
    "a: b#c\nc#d: e\n",
    "a: 1\n   \n\n\nb: 2\n\n",
    "a:    # c\n  b: 1\n",
    "a:\n# c at column 1\n  b: 1\n",
    "a:   b   \n",
    "- x # c\n-   # c\n",
    # quoted scalars
    "'a b': 'it''s'\n",
    '"k\\tq": "x\\u00e9\\n\\\\ \\"y\\" \\U0001F600 \\x41 \\/ \\0 \\e \\N \\_ \\L \\P \\ "\n',
    "- 'x'\n- \"y\"\n- ''\n- \"\"\n",
    "'a': b\n\"c\":   d\n",
    "a: 'b: c # d'\ne: \"- f\"\n",
    "'1': x\n'': y\n",
    # literal block scalars
    "a: |\n  x\n  y\nb: 1\n",
    "a: |-\n  x\n\n  y\n\n\nb: 1\n",
    "a: |+\n  x\n\n\nb: 1\n",
    "a: |+\n  x\n\n",
    "a: |\n  x\n  \n   y\n    \nb: 1\n",
    "- |\n  x\n- y\n",
    "a:\n  b: |\n    x\n  c: d\n",
    "a: | # c\n  # not a comment\n  x\n",
    "a: |\n  \u3000\n  x\n  \u3000\nb: 1\n",
    "a: |\n   x\n  \nb: 1\n",
    "- a: |-\n    x\n  b: |+\n    y\n\n- z\n",
    # empty flow collections
    "a: {}\nb: []\n",
    "- {}\n- []\n-   {}   # c\n",
    # the core schema
    "a: 1\nb: -2\nc: 0x1F\nd: 0o17\ne: 1.5e3\nf: .inf\ng: -.inf\nh: .nan\ni: ~\nj: null\nk: True\nl: FALSE\n"
    "m: yes\nn: 012\no: +1\np: 1_000\nq: 1e3\nr: 1.\ns: +.5\nt: Null\nu: nULL\n",
    "1: a\ntrue: b\nnull: c\n~: d\n",
    # plain scalars with indicators inside
    "a: http://x:80/y\nb: b:c\nc: -x\nd: ..x\ne: ---\nf: a,b[c]{d}\ng: x'y\"z\nh: '#'\n",
    "a:b: c\n",
    "é😀: 😀x\nk: 中文\nl: \u00a0x\nm: x\u3000\n",
    "-a: 1\n",
]

ANY = [
    # structural errors, continuation lines, scalars on the next line
    "a: 1\n  b: 2\n",
    "a:\n    b: 1\n  c: 2\n",
    "- a\n  - b\n",
    "a: 1\n- b\n",
    "- a\nb: 1\n",
    "a:\n  value\n",
    "a: b\n  c\n",
    "-\n  value\n",
    "a: 'x\n  y'\n",
    'a: "x\n  y"\n',
    "a: b: c\n",
    "a: - b\n",
    "- - a\n",
    "- -a\n",
    "-a\n",
    "a: x # y: z\n",
    "key  : v\n",
    "a : b\n",
    "'a':b\n",
    "'a' : b\n",
    "a: 'b' c\n",
    "a: 'b'#c\n",
    "a: b:\n",
    "a: :b\n",
    # indicators that cannot start a plain scalar
    "a: @x\n", "a: `x\n", "a: %x\n", "a: ,x\n", "a: ]x\n", "a: }x\n", "a: ?x\n", "a: ? x\n", "a: :\n",
    "a: -\n", "a: >\n  x\n", "a: |2\n  x\n", "a: |-2\n  x\n", "a: |x\n  y\n", "a: |#c\n  x\n",
    # documents, directives, anchors, tags, aliases, complex keys, flow collections
    "---\na: 1\n", "a: 1\n...\n", "a: 1\n---\nb: 2\n", "%YAML 1.2\n---\na: 1\n", "--- a: 1\n", "... a: 1\n",
    "---: a\n", "...: a\n...x: b\n", "a:: d\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "? a\n: b\n",
    "a: {x: 1}\n", "a: [ ]\n", "a: [1]\n",
    "{a: 1}\n", "[1, 2]\n", "a: { }\n",
    # duplicate keys, limits
    "a: 1\na: 2\n", "a:\n  b: 1\n  b: 2\n", "- a: 1\n  a: 2\n",
    "k" * 300 + ": v\n", "k" * 1100 + ": v\n",
    # scalar and empty documents
    "", "\n", "# only\n", "a\n", "'x'\n", "- \n", "-\n", "a:", "a: 1", "- x",
    # characters outside the subset
    "a: b\tc\n", "a:\tb\n", "a: b\r\n", "a: b\rc: d\n", "\ufeffa: 1\n", "a\u2028b: c\n", "a: \x85\n",
    "a: \x7f\n", "a: \x00\n", "a: \ufffe\n",
    # block scalars at the edges
    "a: |\n\n  x\n", "a: |\n  x", "a: |\nb: 1\n", "a: |\n", "a: |\n  \n", "a: |\n    deeper\n  less\n",
    "a:\n  b: |\n  x\n", "- |\n x\n", "a: |\n  x\n y\n",
    # escapes libyaml refuses
    '"a": "\\q"\n', '"a": "\\ud800"\n', '"a": "\\U00110000"\n', '"a": "\\x4"\n', 'a: "x\\\n  y"\n',
    # key-only lines with odd keys
    "a::\n", "a :\n", "a #b:\n  c: 1\n", "- a:\nb:\n",
]


@pytest.mark.parametrize("text", TAKEN)
def test_taken(text):
    assert agree(text), text


@pytest.mark.parametrize("text", ANY)
def test_taken_identically_or_declined(text):
    agree(text)


def test_limits_decline():
    deep = "a:\n" + "".join("  " * i + "a:\n" for i in range(1, 6)) + "  " * 6 + "b: 1\n"
    assert agree(deep)
    assert not agree(deep, Limits(max_depth=3))
    assert not agree("a: xxxxxxxxx\n", Limits(max_scalar_chars=5))
    assert not agree("a: |\n  xxx\n  xxx\n", Limits(max_scalar_chars=5))
    assert not agree("a: 123456\n", Limits(max_number_digits=5))
    assert not agree("a: 1e999\n")
    assert not agree("a: {}\n", Limits(max_depth=1))
    assert agree("a: {}\n", Limits(max_depth=2))


# ---- generated documents ----------------------------------------------------------------

ODD = [
    "", " ", "a: b", "a:b", "#x", "x #y", "x#y", "'", '"', "''", "null", "Null", "true", "no", "1", "1.0", "-1",
    "0x1F", "1e3", ".inf", "012", " lead", "trail ", "é😀", "中文", "a\nb", "a\n\nb\n", "\n", "\nx", "x\n\n",
    "- x", "-", "? x", "*x", "&x", "!x", "|", ">", "{}", "[]", "[a]", "---", "...", "%x", "@x", "`x", "\t", "a\tb",
    "\u2028", "\x85", "~", "a'b", 'a"b', "\\", "x: y: z", ":", "::", "a,b", " # c", "\u00a0", "\u3000x", "=", "<<",
    "k" * 120,
]
odd_text = st.one_of(st.sampled_from(ODD), st.text(max_size=10))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), odd_text)
data = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(odd_text, inner, max_size=4)),
    max_leaves=30,
)
collections = st.one_of(st.lists(data, min_size=1, max_size=4), st.dictionaries(odd_text, data, min_size=1, max_size=4))

identifier = st.from_regex(r"[a-z_][a-z0-9_.]{0,12}", fullmatch=True)
simple_scalars = st.one_of(st.integers(), st.booleans(), st.none(), identifier,
                           st.from_regex(r"\$\{[a-z.\[\]\"_ =]{1,20}\}", fullmatch=True),
                           st.text(alphabet="abc xyz/-_.:'\"é", max_size=12).filter(lambda s: s[:1] != ":"))
simple_data = st.recursive(  # no list right inside a list: `- - x` is declined
    simple_scalars,
    lambda inner: st.one_of(
        st.lists(st.one_of(simple_scalars, st.dictionaries(identifier, inner, max_size=4)), max_size=4),
        st.dictionaries(identifier, inner, max_size=4),
    ),
    max_leaves=30,
)


def ruamel_block(value, pure: bool) -> str:
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=pure)
    yaml.default_flow_style = False
    yaml.allow_unicode = True
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(value, out)
    return out.getvalue()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=collections)
def test_the_compilers_emitter(value):
    agree(emit_yaml(value))
    agree(emit_yaml_events(value))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=collections, pure=st.booleans())
def test_ruamels_block_dumper(value, pure):
    agree(ruamel_block(value, pure))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=st.dictionaries(identifier, simple_data, min_size=1, max_size=6))
def test_plain_data_takes_the_fast_path(value):
    text = emit_yaml(value)
    assert agree(text), text
    assert plain(yaml_fast.read_block(text, DEFAULT_LIMITS)[0]) == plain(value)  # type: ignore[index]


LINE_PARTS = dict(
    indent=st.sampled_from(["", "", " ", "  ", "  ", "    "]),
    dash=st.sampled_from(["", "", "", "- ", "- ", "-", "-  "]),
    key=st.sampled_from(["", "", "a:", "b:", "a: ", "a :", "'a':", '"b":', "a::", "?", "k#:", "1:", "...:"]),
    value=st.sampled_from(["", "x", "1", "'q'", '"q\\n"', "|", "|-", "|+", "{}", "[]", "x: y", "# c", "null",
                           "-", "- x", " x", "x ", "x #c", "'a''b'", '"a', "&a x", "*a", "!t x", "[1]", "{a: 1}",
                           "é", "x:", "---", "..."]),
)


@st.composite
def near_yaml(draw):
    lines = []
    for _ in range(draw(st.integers(1, 8))):
        if draw(st.integers(0, 9)) == 0:
            lines.append(draw(st.text(alphabet=" -:#'\"|>{}[]ab\t", max_size=8)))
            continue
        indent, dash, key, value = (draw(LINE_PARTS[k]) for k in ("indent", "dash", "key", "value"))
        lines.append(indent + dash + (key + " " + value if key and value and not key.endswith(" ") else key + value))
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=near_yaml(), small=st.booleans())
def test_near_yaml_noise(text, small):
    limits = Limits(max_depth=3, max_scalar_chars=4, max_number_digits=2) if small else DEFAULT_LIMITS
    agree(text, limits)


MUTATIONS = ("indent", "dedent", "insert", "delete", "duplicate", "swap", "join", "split")
INSERTS = [" ", "  ", "- ", ":", ": ", "#", " #", "'", '"', "|", "{}", "[]", "-", "?", "&a ", "*", "\\", "x", "é",
           "\n"]


@st.composite
def mutated(draw):
    """A document the line reader takes (emitted from plain data, or a hand-picked one), a
    few lines of it changed: most stay near enough to YAML to be read by both readers."""
    if draw(st.booleans()):
        text = emit_yaml(draw(st.dictionaries(identifier, simple_data, min_size=1, max_size=4)))
    else:
        text = draw(st.sampled_from(TAKEN))
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.integers(0, len(lines) - 1))
        line = lines[k]
        at = draw(st.integers(0, len(line)))
        op = draw(st.sampled_from(MUTATIONS))
        if op == "indent":
            lines[k] = " " * draw(st.integers(1, 3)) + line
        elif op == "dedent":
            lines[k] = line[draw(st.integers(1, 3)):] if line.startswith(" ") else line
        elif op == "insert":
            lines[k] = line[:at] + draw(st.sampled_from(INSERTS)) + line[at:]
        elif op == "delete":
            lines[k] = line[:at] + line[at + draw(st.integers(1, 3)):]
        elif op == "duplicate":
            lines.insert(k, line)
        elif op == "swap" and k + 1 < len(lines):
            lines[k], lines[k + 1] = lines[k + 1], line
        elif op == "join" and k + 1 < len(lines):
            lines[k:k + 2] = [line + " " + lines[k + 1].lstrip(" ")]
        elif op == "split":
            lines[k:k + 1] = [line[:at], " " * draw(st.integers(0, 4)) + line[at:]]
    return "\n".join(lines)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=mutated(), small=st.booleans())
def test_mutated_documents(text, small):
    limits = Limits(max_depth=3, max_scalar_chars=6, max_number_digits=2) if small else DEFAULT_LIMITS
    agree(text, limits)
