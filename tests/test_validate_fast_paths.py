"""The validate pass's fast paths agree with the general paths they stand in for:

- the structural predicates (`fastschema.PredicateCompiler`, generated code) say "valid"
  exactly when the error-reporting checks (`fastschema.Compiler`) report nothing;
- the pattern tests that replace a regex call hold exactly when the regex matches;
- the expression shapes recognised without the descent parser (`expr._plain`,
  `expr._shaped`) give what the grammar gives;
- the references the validator skips as plainly fine are those it would not report.
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan import api
from taskplan.passes import validate as validate_module
from taskplan.passes.validate import validate_data, validate_text
from taskplan.workflow import dialect as d
from taskplan.workflow import expr as ex
from taskplan.workflow import structure
from taskplan.workflow.fastschema import Compiler, PredicateCompiler, ecma_pattern, whole_pattern

ROOT = Path(__file__).resolve().parents[1]
VALID = sorted((ROOT / "fixtures" / "workflows" / "valid").glob("*.yaml"))
BROKEN = sorted((ROOT / "fixtures" / "errors" / "workflow").glob("*.workflow.yaml"))


def _load(path: Path):
    return YAML(typ="safe", pure=False).load(path.read_text(encoding="utf-8"))


def _closures_report_nothing(doc) -> bool:
    out: list = []
    structure._root()(doc, (), out)
    return not out


# --- structural predicates ----------------------------------------------------------------

_REPLACEMENTS = [None, True, False, 0, -1, 1, 2, 1.5, 2.0, "", "x", "x" * 256, "${data.inputs.pr_url}", "a ${b}", "${",
                 [], {}, {"$literal": 1}, {"$literal": 1, "x": 2}, {"$x": 1}, "mcp.call", "set", "switch", "value.projct",
                 "set.x", "llm.call", "__a.b", "a b", "Zz", "/a~0b", "/a~2", "a/b", "~", "abc\n", "$x", [{"a": "${x}"}],
                 {"call": "a", "steps": []}, {"when": "${x}"}, {"when": "${x}", "input": {}, "steps": []},
                 {"input": {}, "steps": []}, {"type": {}, "default": 1, "required": True}, {"type": {}, "default": 1},
                 "read", "write", "delete", ["a", 1], "executor"]
_KEYS = ["extra", "when", "input", "max_items", "max_concurrency", "call", "steps", "$literal", "type", "id", "source",
         "default", "required", "cases", "branches", "effect", "items", "title", "values", "template", "schema", "$bad",
         "version", "path", "inputs"]


if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from datatrees import node_at, tree_paths as _paths  # noqa: E402  (tests/ is on sys.path)


def _mutate(doc, rng: random.Random):
    doc = copy.deepcopy(doc)
    for _ in range(rng.choice([1, 1, 2])):
        paths = [p for p in _paths(doc) if p]
        if not paths:
            break
        path = rng.choice(paths)
        parent = node_at(doc, path[:-1])
        last = path[-1]
        action = rng.randrange(3)
        if action == 0 and isinstance(parent, dict):
            del parent[last]
        elif action == 1 and isinstance(parent, dict):
            parent[rng.choice(_KEYS)] = copy.deepcopy(rng.choice(_REPLACEMENTS))
        else:
            parent[last] = copy.deepcopy(rng.choice(_REPLACEMENTS))
    return doc


@pytest.mark.parametrize("path", VALID + BROKEN, ids=[p.name for p in VALID + BROKEN])
def test_predicate_agrees_on_fixtures(path):
    try:
        doc = _load(path)
    except Exception:  # the syntax cases
        pytest.skip("not loadable YAML")
    assert structure._valid()(doc) == _closures_report_nothing(doc)


@pytest.mark.parametrize("seed", range(6))
def test_predicate_agrees_on_mutations(seed):
    rng = random.Random(seed)
    bases = [_load(p) for p in VALID]
    for _ in range(300):
        doc = _mutate(rng.choice(bases), rng)
        assert structure._valid()(doc) == _closures_report_nothing(doc), json.dumps(doc)[:300]


_SCHEMAS = [
    {"type": "integer", "minimum": 1, "maximum": 5},
    {"type": ["string", "null"], "minLength": 2, "maxLength": 3, "pattern": "^a"},
    {"enum": ["a", 1, None, [1]]},
    {"const": 1},
    {"const": "x"},
    {"type": "array", "minItems": 1, "maxItems": 2, "items": {"type": "boolean"}},
    {"type": "object", "required": ["a"], "properties": {"a": {"type": "number"}, "b": {}}, "additionalProperties": False,
     "dependentRequired": {"b": ["a"]}, "minProperties": 1},
    {"minProperties": 2, "dependentRequired": {"b": ["k"]}},
    {"propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"type": "string"}},
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"oneOf": [{"required": ["a"]}, {"required": ["b"]}]},
    {"oneOf": [{"type": "number"}, {"type": "integer"}]},
    {"not": {"type": "string"}},
    {"if": {"properties": {"k": {"const": 1}}, "required": ["k"]}, "then": {"required": ["v"]}, "else": {"required": ["w"]}},
    {"allOf": [{"type": "object"}, {"dependentSchemas": {"d": {"properties": {"e": {"const": False}}}}}]},
    {"$ref": "#/$defs/leaf"},
    {"type": "object", "additionalProperties": {"$ref": "#/$defs/s"}},
    {"anyOf": []},
    True,
    False,
    # closed objects (members counted), required members read without a test (KeyError),
    # also in items and in tested subschemas
    {"type": "object", "required": ["a", "z"], "properties": {"a": {"type": "integer"}, "b": True, "c": {"type": "string"}},
     "additionalProperties": False},
    {"required": ["a"], "properties": {"a": {"type": "integer"}, "b": {}}, "additionalProperties": False},
    {"type": "array", "items": {"required": ["a"], "properties": {"a": {"const": 1}}}},
    {"anyOf": [{"required": ["a"], "properties": {"a": {"const": 1}}},
               {"required": ["b"], "properties": {"b": {"type": "integer"}}, "additionalProperties": False}]},
    {"not": {"required": ["a"], "properties": {"a": {"type": "integer"}}}},
]
_INSTANCES = [None, True, False, 0, 1, 1.0, 2.5, 7, -3, "", "a", "ab", "abc", "abcd", "x1", [], [True], [True, False, True],
              [1], {}, {"a": 1}, {"a": "s"}, {"b": 1}, {"a": 1, "b": 2}, {"b": 2, "k": 1}, {"A": "x"}, {"k": 1, "v": 2}, {"k": 1, "w": 2},
              {"k": 2, "w": 1}, {"d": 1, "e": False}, {"d": 1, "e": True}, {"x": {"y": {}}}, {"x": {"y": 1}},
              {"a": 1, "c": "s"}, {"a": 1, "z": 1}, {"a": 1, "b": 1, "z": 0}, {"a": 1, "c": 1, "z": 1}, {"a": 1, "b": 1, "c": "s", "z": 0},
              {"a": 1, "b": 1, "c": "s", "z": 0, "y": 0}, [{"a": 1}], [{"b": 1}], [{"a": 1}, {}], [{"a": 2}]]


@pytest.mark.parametrize("schema", _SCHEMAS, ids=[str(i) for i in range(len(_SCHEMAS))])
def test_predicate_compiler_agrees_with_compiler(schema):
    root = {"$defs": {"s": schema, "leaf": {"type": "string", "pattern": "^x"}}}
    check = Compiler(root).ref("#/$defs/s")
    (valid,) = PredicateCompiler(root).refs("#/$defs/s")
    for instance in _INSTANCES:
        out: list = []
        check(instance, (), out)
        assert valid(instance) == (not out), (schema, instance, out)


_PATTERN_SAMPLES = ["", "/", "//", "/a", "a", "a/b", "/a~0", "/a~1b", "/a~2", "~", "/~", "/a/~01", "/a\n", "\n", "$", "$a",
                    "a$", "/$", "/a b/c", "/é", "#", "#$", "%", "%$", "$%", "$\U0010ffff", "\x00", "\x00$", "é$"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="/~01a$\n #%", max_size=8))
def test_pattern_tests_agree_with_their_regex(text):
    for pattern, test in structure._PATTERN_TESTS.items():
        search = re.compile(ecma_pattern(pattern)).search
        for sample in [text] + _PATTERN_SAMPLES:
            assert eval(test.format(v="v", search="search"), {"search": search, "v": sample}) == (search(sample) is not None), (pattern, sample)



_DIALECT_PATTERNS = sorted({getattr(d, n) for n in dir(d) if n.endswith("_PATTERN")})
_WHOLE_SAMPLES = ["", "a", "a.b", "a..b", ".a", "a.", "__a.b", "__", "_", "a-b_c", "A" * 64, "A" * 65, "a\n", "\na",
                  "a b", "é", "mcp.call", "Mcp.call", "sha256:" + "0" * 64, "${x}", "a${x}", "/a~0", "a|b", "(", "]"]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="aZ9_-.$/{}~\n|", max_size=10))
def test_whole_patterns_match_what_their_search_does(text):
    """A pattern `^X$` that `whole_pattern` reads: `fullmatch` of X accepts exactly what a
    search of the pattern does (the predicates use it for the dialect's patterns)."""
    read = 0
    for pattern in _DIALECT_PATTERNS:
        whole = whole_pattern(pattern)
        if whole is None:
            continue
        read += 1
        search, fullmatch = re.compile(ecma_pattern(pattern)).search, re.compile(whole).fullmatch
        for sample in [text] + _WHOLE_SAMPLES:
            assert (fullmatch(sample) is None) == (search(sample) is None), (pattern, sample)
    assert read >= 8  # the step ID, name, executor type... patterns


@pytest.mark.parametrize(("pattern", "whole"), [
    ("^a|b$", None), ("^a$|^b$", None), ("^(a|b)$", "(a|b)"), ("^[|]$", "[|]"), ("^[]|]$", "[]|]"),
    ("^[^]|]$", "[^]|]"), ("^[](]a|b$", None), (r"^[\]|]x$", r"[\]|]x"), (r"^\|$", r"\|"), (r"^a\$", None),
    ("a$", None), ("^a", None), ("^(?!\\$)", None),
])
def test_whole_pattern_reads_top_level_alternation(pattern, whole):
    assert whole_pattern(pattern) == whole
    if whole is not None:
        for sample in ["a", "b", "|", "]", "(", "x", "]x", "|x", "\\", ""]:
            assert (re.compile(whole).fullmatch(sample) is None) == (re.compile(ecma_pattern(pattern)).search(sample) is None)


# --- expression shapes --------------------------------------------------------------------

_NAMES = ["x", "a-b", "1", "_", "__g.h", "a b", 'q"r', "and", "data", "json", "true", "é", "a)", "a<b", "a==b", "", "a\\b"]


@st.composite
def _path(draw):
    root = draw(st.sampled_from(["inputs", "steps", "item", "index", "foo"]))
    text = "data" + draw(st.sampled_from(["", "", " "])) + "." + root
    segments = []
    if root in ("inputs", "steps") or draw(st.booleans()):
        segments.append(draw(st.integers(0, 9)))
    segments += draw(st.lists(st.integers(0, 9), max_size=3))
    for kind in segments:
        name = draw(st.sampled_from(_NAMES))
        if kind < 5:
            text += "." + name
        elif kind < 7:
            text += "[" + json.dumps(name, ensure_ascii=draw(st.booleans())) + "]"
        elif kind < 8:
            text += "[" + draw(st.sampled_from(["0", "1", "12", "01", "-1"])) + "]"
        else:
            text += "['" + name.replace("'", "\\'") + "']"
    return text


@st.composite
def _shaped_body(draw):
    ws = st.sampled_from(["", "", " ", "\t", "\n"])
    path = draw(ws) + draw(_path()) + draw(ws)
    kind = draw(st.integers(0, 3))
    if kind == 0:
        body = "json(" + path + ")"
    elif kind == 1:
        body = "present(" + path + ")"
    elif kind == 2:
        literal = draw(st.sampled_from(['"ok"', "'ok'", "1", "-1", "1.5", "1e3", "01", "true", "false", "null", "truex", '"a\\"b"', "x"]))
        body = path + draw(st.sampled_from(["==", "!=", "<", "<=", ">", ">=", "=", "=<"])) + draw(ws) + literal + draw(ws)
    else:
        body = path
    if draw(st.booleans()):
        i = draw(st.integers(0, len(body)))
        body = body[:i] + draw(st.sampled_from(["(", ")", " ", ".", '"', "]", "[", "x", "="])) + body[i:]
    return body


@settings(max_examples=1500, deadline=None)
@given(_shaped_body())
def test_expression_shapes_agree_with_the_grammar(body):
    slow = ex.parse_slow(body)
    for fast in (ex._plain(body), ex._shaped(body), ex._fast(body)):
        if fast is not None:
            assert slow.error is None, (body, slow.error)
            assert fast == slow, body
            assert type(fast) is ex.Expression and all(type(r) is ex.Ref for r in fast.refs)
    parts = ex.plain_path(body)
    if parts is not None:
        (ref,) = slow.refs
        assert (parts[0], parts[1], tuple(parts[2:])) == (ref.root, ref.name, ref.segments)
    inner = ex.path_in_shape(body)
    parts = ex.plain_path(inner) if inner is not None else None
    if parts is not None:
        assert slow.error is None, (body, slow.error)
        (ref,) = slow.refs
        assert (parts[0], parts[1], tuple(parts[2:])) == (ref.root, ref.name, ref.segments), body
        assert ref.in_present == body.startswith("present("), body
    for text in (body, inner or ""):
        _assert_plain_groups(text)
    _assert_called_groups(body)


def _assert_called_groups(body):
    """`ex.CALLED_PLAIN_EXPRESSION` matches `${body}` exactly when `path_in_shape` finds a
    plain path in `json(...)` or `present(...)`, with that path's groups."""
    match = ex.CALLED_PLAIN_EXPRESSION.fullmatch("${" + body + "}")
    inner = ex.path_in_shape(body) if body.startswith(("json(", "present(")) else None
    path = ex.PLAIN_PATH.fullmatch(inner) if inner is not None else None
    assert (match is None) == (path is None), body
    if match is not None:
        assert match.groups() == path.groups(), body


def _assert_plain_groups(body):
    """`ex.PLAIN_PATH` (and `ex.PLAIN_EXPRESSION` around `${...}`) matches exactly what
    `plain_path` accepts, with its parts as groups."""
    parts = ex.plain_path(body)
    for match in (ex.PLAIN_PATH.fullmatch(body), ex.PLAIN_EXPRESSION.fullmatch("${" + body + "}")):
        assert (match is None) == (parts is None), body
        if match is not None:
            root, name, quoted, first, second = match.groups()
            assert (name is None) != (quoted is None), body
            fields = parts[2:] + [None, None]
            assert [root, name if quoted is None else quoted, fields[0], fields[1]] == parts[:2] + fields[:2], body


def test_compiled_shapes_take_the_fast_paths():
    for body in ['data.steps.b0_fetch.result.id', 'data.inputs.topic', 'json(data.steps["__a.inputs"].value)',
                 'present(data.steps.a.result)', 'data.steps.a.result.status == "ok"']:
        assert (ex._plain(body) or ex._shaped(body)) is not None, body
        inner = ex.path_in_shape(body)
        assert ex.PLAIN_EXPRESSION.fullmatch("${" + body + "}") or ex.PLAIN_PATH.fullmatch(inner), body


# --- references skipped as plainly fine --------------------------------------------------------


def _everything(result):
    return [(repr(f.diagnostic), f.pointer, f.workflow, f.step, f.step_pointer, f.source) for f in result.findings]


@pytest.mark.parametrize("path", VALID + BROKEN, ids=[p.name for p in VALID + BROKEN])
def test_plainly_fine_references_hide_nothing(path, monkeypatch):
    data = path.read_bytes()
    fast = validate_text(data, str(path))
    monkeypatch.setattr(validate_module._Validator, "_plainly_fine", lambda self, *args: False)
    slow = validate_text(data, str(path))
    assert _everything(fast) == _everything(slow)
    assert fast.diagnostics == slow.diagnostics


@pytest.mark.parametrize("seed", range(3))
def test_plainly_fine_references_hide_nothing_on_mutations(seed, monkeypatch):
    rng = random.Random(seed)
    bases = [_load(p) for p in VALID]
    docs = [_mutate(rng.choice(bases), rng) for _ in range(150)]
    fast = [_everything(validate_data(doc)) for doc in docs]
    monkeypatch.setattr(validate_module._Validator, "_plainly_fine", lambda self, *args: False)
    slow = [_everything(validate_data(doc)) for doc in docs]
    assert fast == slow


def test_step_kind_cache_is_the_function():
    for value in ["set", "mcp.call", "value.projct", "mcp.call\n", "Mcp.call", None, 1, ["set"], {"a": 1}, "switch"]:
        expected = None
        if isinstance(value, str):
            if value in d.RESULT_FIELDS and value != d.EXECUTOR:
                expected = value
            elif d.EXECUTOR_TYPE_RE.match(value) and not d.RESERVED_TYPE_RE.match(value):
                expected = d.EXECUTOR
        assert d.step_kind(value) == expected


# --- references rewritten: the fast paths against the general ones -----------------------------

_EXPRESSION = re.compile(r"\$\{[^{}]*\}")


def _compiled_base():
    """A small compiled workflow (benchmarks/generate.py): every shape the lowering pass
    emits (cleanup guards, calls read through `outputs`, `json(...)`, comparisons)."""
    benchmarks = str(ROOT / "benchmarks")
    if benchmarks not in sys.path:
        sys.path.insert(0, benchmarks)
    from generate import catalog, plan

    with tempfile.TemporaryDirectory() as tmp:
        plan_path, catalog_path = Path(tmp) / "plan.json", Path(tmp) / "catalog.json"
        plan_path.write_text(json.dumps(plan(30, 40)))
        catalog_path.write_text(json.dumps(catalog(40)))
        result = api.compile_plan(plan_path, catalogs=[catalog_path], auto=True)
    assert result.ok
    return YAML(typ="safe", pure=False).load(result.yaml)


def _strings(node, out):
    """(container, key) of every string in the tree."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if isinstance(value, str):
            out.append((node, key))
        else:
            _strings(value, out)
    return out


def _rewrite_references(doc, rng: random.Random):
    """Rewrite a few expressions (a name swapped for another name of the document, a field
    changed, a guard dropped), and sometimes drop an output or reorder a list of steps."""
    doc = copy.deepcopy(doc)
    slots = [(c, k) for c, k in _strings(doc, []) if _EXPRESSION.search(c[k])]
    words = sorted({w for c, k in slots for w in re.findall(r"[A-Za-z0-9_.-]+", c[k])} | {"value", "outputs", "result"})
    for _ in range(rng.choice([1, 2, 3])):
        if not slots:
            break
        container, key = rng.choice(slots)
        text = container[key]
        tokens = re.findall(r"[A-Za-z0-9_-]+", text)
        action = rng.randrange(4)
        if action == 0 and tokens:
            container[key] = text.replace(rng.choice(tokens), rng.choice(words).split(".")[0], 1)
        elif action == 1 and tokens:
            container[key] = text.replace(rng.choice(tokens), rng.choice(words), 1)
        elif action == 2 and key == "when":
            del container[key]
        else:
            container[key] = text.replace("present(", "json(") if "present(" in text else text.replace("json(", "present(")
    workflows = doc.get("workflows", {})
    for wf in workflows.values():
        if rng.random() < 0.1 and wf.get("outputs"):
            del wf["outputs"][rng.choice(sorted(wf["outputs"]))]
        if rng.random() < 0.05 and len(wf.get("steps", [])) > 1:
            rng.shuffle(wf["steps"])
    return doc


@pytest.mark.parametrize("seed", range(3))
def test_fast_references_hide_nothing_on_rewritten_references(seed, monkeypatch):
    rng = random.Random(seed)
    bases = [_load(p) for p in VALID] + [_compiled_base()]
    docs = [_rewrite_references(rng.choice(bases), rng) for _ in range(200)]
    fast = [_everything(validate_data(doc)) for doc in docs]
    assert any(fast) and not all(fast)
    monkeypatch.setattr(validate_module._Validator, "_plainly_fine", lambda self, *args: False)
    monkeypatch.setattr(validate_module, "_plain_expression", lambda text: None)
    monkeypatch.setattr(validate_module, "_path_in_shape", lambda body: None)
    slow = [_everything(validate_data(doc)) for doc in docs]
    assert fast == slow


# --- the key of the embedded-schema memos -----------------------------------------------------

_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3) | st.floats(allow_nan=False, min_value=-2, max_value=2) | st.sampled_from(["a", "b", "type", "é"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["a", "b", "type", "é"]), inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=500, deadline=None)
@given(_json_values, _json_values)
def test_schema_key_follows_the_data_like_repr(a, b):
    """Equal keys exactly when equal reprs (same values, types and key order), whatever
    objects are shared: a copy has the key of the original."""
    key = validate_module._key
    assert (key(a) == key(b)) == (repr(a) == repr(b))
    assert key([a, a]) == key([a, _rebuilt(a)])


def _rebuilt(value):
    """The same data, every container and string a new object."""
    if isinstance(value, dict):
        return {"".join(list(k)): _rebuilt(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rebuilt(v) for v in value]
    return "".join(list(value)) if isinstance(value, str) else value


# --- embedded schemas accepted without the metaschema -------------------------------------------

_type_names = st.sampled_from(["array", "boolean", "integer", "null", "number", "object", "string", "str", "any", ""])
_schema_values = st.none() | st.booleans() | st.integers(-2, 2) | st.sampled_from(["", "a", "string"]) | st.floats(allow_nan=False)


@st.composite
def _schemas(draw, depth=2):
    """Schema-like data over the keywords of `_plainly_valid` (and a few others), values of
    the right and of wrong types."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.booleans() | _schema_values | st.lists(_schema_values, max_size=2))
    keywords = draw(st.lists(st.sampled_from(["type", "properties", "required", "items", "additionalProperties", "enum",
                                              "const", "description", "title", "default", "minimum", "$ref", "format"]), max_size=5, unique=True))
    schema = {}
    for keyword in keywords:
        if keyword == "type":
            value = draw(_type_names | st.lists(_type_names, max_size=3) | _schema_values)
        elif keyword == "required":
            value = draw(st.lists(st.sampled_from(["a", "b", 1, None]), max_size=3) | _schema_values)
        elif keyword in ("enum", "const", "default"):
            value = draw(st.lists(_schema_values | st.just({"a": 1}), max_size=3) | _schema_values | st.just({"a": 1}))
        elif keyword in ("description", "title", "format", "$ref"):
            value = draw(st.sampled_from(["x", "#", "#/nowhere", "date"]) | _schema_values)
        elif keyword == "minimum":
            value = draw(_schema_values)
        elif depth == 0:
            value = draw(st.booleans() | st.just({}) | _schema_values)
        elif keyword == "properties":
            value = draw(st.dictionaries(st.sampled_from(["a", "b", "$x"]), _schemas(depth=depth - 1), max_size=2) | _schema_values)
        else:
            value = draw(_schemas(depth=depth - 1))
        schema[keyword] = value
    return schema


@settings(max_examples=1500, deadline=None)
@given(_schemas())
def test_plainly_valid_schemas_are_valid_for_the_metaschema(schema):
    if validate_module._plainly_valid(schema):
        assert validate_module._schema_problem(validate_module._canonical(schema)) is None, schema


def test_compiled_schemas_are_plainly_valid():
    doc = _compiled_base()
    schemas = [step["schema"] for wf in doc["workflows"].values() for step in wf["steps"] + wf.get("finally", []) if "schema" in step]
    schemas += [decl["type"] for wf in doc["workflows"].values() for decl in list(wf.get("inputs", {}).values()) + list(wf.get("outputs", {}).values()) if "type" in decl]
    assert len(schemas) > 10 and all(validate_module._plainly_valid(s) for s in schemas)


# --- the accept path's schema verdicts (`_SchemaVerdicts`) ----------------------------------------

class _Mapping(dict):
    pass


class _Text(str):
    pass


def _variant(value, rng: random.Random, subclasses: bool):
    """Data `==` to `value` that may differ in what `==` overlooks: each container and string
    a new object (or, with `subclasses`, a subclass' instance), a mapping's key order, a
    boolean or an integer for an equal number of another type."""
    t = type(value)
    if t is dict:
        items = [(_variant(k, rng, subclasses) if rng.random() < 0.2 else k, _variant(v, rng, subclasses))
                 for k, v in value.items()]
        if rng.random() < 0.3:
            items.reverse()
        return (_Mapping if subclasses and rng.random() < 0.1 else dict)(items)
    if t is list:
        return [_variant(v, rng, subclasses) for v in value]
    if t is str:
        return _Text(value) if subclasses and rng.random() < 0.1 else "".join(list(value))
    if (t is bool or t is int) and rng.random() < 0.4:
        others = [v for v in (int(value), bool(value), float(value)) if type(v) is not t and v == value]
        return rng.choice(others) if others else value
    return value


@settings(max_examples=400, deadline=None)
@given(_schemas(), st.integers(0, 2**32), st.booleans())
def test_schema_verdicts_are_those_of_the_problem(schema, seed, subclasses):
    """Each verdict, however the schemas before it were found (by identity, by `==` to an
    earlier one of the same shape, or by the memo's key) and asked for (the verdicts' call,
    a step's check: `step_check`), is whether `problem_of` finds
    nothing; with subclasses of dict and str, which `problem_of` checks less, "valid" is
    still never said of a schema it finds something in."""
    rng = random.Random(seed)
    wrapped = {"type": "object", "properties": {"a": schema}, "additionalProperties": False, "required": ["a"]}
    sequence = [schema, wrapped] + [_variant(rng.choice([schema, wrapped]), rng, subclasses) for _ in range(6)]
    sequence += [rng.choice(sequence) for _ in range(4)]  # the same objects again
    for problem_of in (validate_module._embedded_schema_problem, validate_module._llm_schema_problem,
                       validate_module._input_type_problem):
        verdicts = validate_module._SchemaVerdicts(problem_of)
        # a step's check (`step_check`: a schema met before, by identity, in the check itself)
        # and the verdicts' own call take turns, so that each finds what the other left
        ways = (verdicts, lambda item: verdicts.step_check("schema")({"id": "s", "schema": item}, 1),
                lambda item: verdicts.step_check("schema", optional=True)({"schema": item}, 1))
        for i, item in enumerate(sequence + sequence):
            verdict, fine = ways[i % 3](item), problem_of(item) is None
            assert verdict == fine or (subclasses and not verdict), (problem_of.__name__, item)
        assert verdicts.step_check("schema", optional=True)({"id": "s"}, 1) is True


def test_schema_verdicts_compare_the_number_types():
    """`==` holds for `1` and `True`: an equal schema whose integer is a boolean is not given the
    verdict of the earlier one; an equal one with the same types is, without `problem_of`."""
    calls = []

    def problem_of(schema):
        calls.append(schema)
        return validate_module._embedded_schema_problem(schema)

    verdicts = validate_module._SchemaVerdicts(problem_of)
    assert verdicts({"type": "string", "minLength": 1}) is True
    assert verdicts({"type": "string", "minLength": True}) is False  # not an integer for the metaschema
    assert len(calls) == 2
    assert verdicts({"minLength": 1, "type": "string"}) is True  # found by `==` (key order aside)
    assert verdicts({"type": "string", "minLength": 1.0}) is True
    assert len(calls) == 3  # the float is not compared: the memo's key
