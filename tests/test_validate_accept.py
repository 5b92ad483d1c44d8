"""The validate pass's accept path (`validate._accepts`) says "nothing to find" only where the
full path (`_Validator.run`) finds nothing, and it does say so for compiled output (the
self-check's common case, the reason it exists):

- its structural half (`structure.step_predicates`: the document predicate with steps taken
  as valid, and each step kind's predicate, applied step by step) agrees exactly with
  `check_structure`'s predicate;
- on valid and broken workflows, compiled output, and many mutations of them (random
  values, and references rewired to other steps, inputs, items, fields), and under small
  limits: accepted => the full path reports nothing.
"""

from __future__ import annotations

import copy
import json
import random
import re
import sys
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan import api
from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.passes import validate as validate_module
from taskplan.source.document import SourceDocument
from taskplan.workflow import dialect as d
from taskplan.workflow import structure
from taskplan.workflow.fastschema import ecma_pattern

ROOT = Path(__file__).resolve().parents[1]
VALID = sorted((ROOT / "fixtures" / "workflows" / "valid").glob("*.yaml"))
BROKEN = sorted((ROOT / "fixtures" / "errors" / "workflow").glob("*.workflow.yaml"))
BENCHMARKS = ROOT / "benchmarks"
for extra in (str(BENCHMARKS), str(Path(__file__).resolve().parent)):
    if extra not in sys.path:
        sys.path.insert(0, extra)

from datatrees import node_at, tree_paths  # noqa: E402
from generate import catalog, plan  # noqa: E402
from test_validate_fast_paths import _mutate  # noqa: E402


def _load(path: Path):
    return YAML(typ="safe", pure=False).load(path.read_text(encoding="utf-8"))


def _loadable(paths):
    out = []
    for path in paths:
        try:
            out.append(_load(path))
        except Exception:  # noqa: BLE001 - the syntax cases
            pass
    return out


_compiled_cache: list = []


def _compiled(tmp_path_factory) -> list:
    """Compiled output of generated plans (switches, loops, cleanup, calls, schemas)."""
    if not _compiled_cache:
        base = tmp_path_factory.mktemp("accept")
        catalog_path = base / "catalog.json"
        catalog_path.write_text(json.dumps(catalog(40)))
        for n in (3, 16, 45):
            plan_path = base / f"plan{n}.json"
            plan_path.write_text(json.dumps(plan(n, 40)))
            result = api.compile_plan(plan_path, catalogs=[catalog_path], auto=True)
            assert result.ok, [x.message for x in result.diagnostics]
            _compiled_cache.append(YAML(typ="safe", pure=False).load(result.yaml))
    return _compiled_cache


def _full_findings(doc, limits: Limits = DEFAULT_LIMITS) -> list:
    document = SourceDocument(path="<t>", text="", format="yaml", digest="sha256:", tree=doc, ok=True)
    validator = validate_module._Validator(document, Reporter(document, Diagnostics()), limits)
    validator.run()
    return [(f.diagnostic.code, f.pointer, f.diagnostic.message) for f in validator.findings]


def _check(doc, limits: Limits = DEFAULT_LIMITS) -> bool:
    accepted = validate_module._accepts(doc, limits)
    if accepted:
        assert _full_findings(doc, limits) == [], json.dumps(doc)[:400]
    return accepted


def _step_lists(doc):
    """Every `steps` list the schema's `#/$defs/steps` applies to, when the shapes allow."""
    workflows = doc.get("workflows") if isinstance(doc, dict) else None
    if not isinstance(workflows, dict):
        return
    stack = []
    for wf in workflows.values():
        if isinstance(wf, dict):
            stack.extend(wf.get(k) for k in ("steps", "finally") if k in wf)
    while stack:
        items = stack.pop()
        if not isinstance(items, list):
            continue
        yield items
        for step in items:
            if isinstance(step, dict) and step.get("type") == "switch":
                branches = list(step.get("cases")) if isinstance(step.get("cases"), list) else []
                if "default" in step:
                    branches.append(step["default"])
                stack.extend(b["steps"] for b in branches if isinstance(b, dict) and "steps" in b)


def _stepwise_valid(doc) -> bool:
    root, by_kind, found, names = structure.step_predicates()
    names.reset()
    found.clear()
    if not root(doc):
        return False
    ids = []
    for items in _step_lists(doc):
        for step in items:
            if not isinstance(step, dict):
                return False
            kind = d.step_kind(step.get("type"))
            if kind is None or not by_kind[kind](step):
                return False
            ids.append(step["id"])
    if not all(len(text) >= 3 and structure.is_whole(text) for text in found):  # left to the reader
        return False
    return structure.step_ids_ok(ids, len(ids)) and names.ok()


_ID_SAMPLES = ["a", "a\na", "A-b_9", "x" * 64, "x" * 65, "__a", "__a.b", "__a.b-c_d.e", "__", "__.a", "__a.", "__a..b", "_a.b", "a.b",
               "", "a\n", "\na", "a b", "é", "__é", "___.a", "__-", "__" + "a" * 70, "a" * 64 + ".b", "__a." + "b" * 70,
               "a" * 70 + "\na", "__" + "a" * 62, "_" * 65, "__a.b\n", "a__.b",
               # the schema's maxLength (255), which only a generated ID can reach
               "__" + "a" * 253, "__" + "a" * 254, "__a." + "b" * 251, "__a." + "b" * 252, "__" + "a" * 300 + ".b"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="aZ9_-.\n é", max_size=8) | st.sampled_from(_ID_SAMPLES), min_size=1, max_size=5))
def test_step_ids_are_matched_together_as_one_by_one(ids):
    """`step_ids_ok` (the IDs of a document joined, one regex call) holds exactly when each
    ID matches STEP_ID_PATTERN (a search of it, as the schema's checks do) and is at most
    MAX_NAME_LENGTH long (the step predicates measure no ID)."""
    search = re.compile(ecma_pattern(d.STEP_ID_PATTERN)).search
    expected = all(search(i) is not None and len(i) <= d.MAX_NAME_LENGTH for i in ids)
    assert structure.step_ids_ok(iter(ids), len(ids)) == expected, ids


@pytest.mark.parametrize("sid", _ID_SAMPLES)
def test_a_step_id_is_checked_as_the_structure_predicate_does(sid):
    doc = {"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": {"steps": [{"id": sid, "type": "set", "value": 1}]}}}
    assert _stepwise_valid(doc) == structure._valid()(doc)
    assert _check(doc) == structure._valid()(doc)


def _with_steps(steps: list, cleanup: list | None = None) -> dict:
    main: dict = {"inputs": {"x": {"type": {"type": "boolean"}}}, "steps": steps}
    if cleanup is not None:
        main["finally"] = cleanup
    return {"version": 1, "name": "x", "entrypoint": "main",
            "workflows": {"main": main, "other": {"steps": [{"id": "a", "type": "set", "value": 1}]}}}


def _set(sid: str, value: object = 1) -> dict:
    return {"id": sid, "type": "set", "value": value}


def _switch(sid: str, *lists: list) -> dict:
    return {"id": sid, "type": "switch", "cases": [{"when": "${data.inputs.x}", "steps": steps} for steps in lists]}


@pytest.mark.parametrize("doc, repeated", [
    (_with_steps([_set("a"), _set("b")]), False),  # `a` again in the other workflow: fine
    (_with_steps([_set("a"), _set("a")]), True),
    (_with_steps([_set("a"), _set("b"), _set("a", "${data.steps.a.value}")]), True),
    (_with_steps([_set("a")], [_set("a")]), True),
    (_with_steps([_set("b")], [_set("a"), _set("a")]), True),
    (_with_steps([_switch("s", [_set("a"), _set("a")])]), True),
    (_with_steps([_switch("s", [_set("a")]), _set("a")]), True),
    (_with_steps([_set("a"), _switch("s", [_set("a")]), _set("c", "${data.steps.a.value}")]), True),
    (_with_steps([_switch("s", [_set("a")], [_set("a")])]), True),
    (_with_steps([_switch("s", [_set("a")], [_set("b")]), _set("c")]), False),
    (_with_steps([_switch("s", [_switch("s", [_set("a")])])]), True),
])
def test_a_repeated_step_id_is_refused_wherever_it_is(doc, repeated):
    """The accept path counts the IDs (a set per workflow) against the steps walked (no
    test per step): an ID
    repeated in one list, in `steps` and `finally`, in an inline list and around it, or in
    two inline lists is refused (the full path reports it), and never breaks the walk (an
    inline list's steps leave `ran` once each)."""
    assert _check(doc) == (not repeated)
    assert bool(_full_findings(doc)) == repeated


def _item_reader(text: str, by_loop: bool) -> dict:
    call = ({"id": "l", "type": "loop.sequential", "items": "${data.inputs.x}", "call": "body"} if by_loop
            else {"id": "l", "type": "workflow.call", "workflow": "body"})
    return {"version": 1, "name": "x", "entrypoint": "main", "workflows": {
        "main": {"inputs": {"x": {"type": {"type": "array"}}}, "steps": [call]},
        "body": {"steps": [_set("a", {"v": text})]}}}


@pytest.mark.parametrize("text", ["${data.item}", "${data.index}", "${data.item.a}", "${ data.item }"])
@pytest.mark.parametrize("by_loop", [True, False])
@pytest.mark.parametrize("max_chars", [8192, 16, 15])
def test_a_loop_body_reads_its_item(text, by_loop, max_chars):
    """`${data.item}` and `${data.index}` are taken without a parse (`_ITEM_EXPRESSIONS`),
    as `_reference` takes them: only a workflow run by loops reads them, and each
    expression is within `max_expression_chars` (16: the loop's `items`)."""
    doc = _item_reader(text, by_loop)
    limits = Limits(max_expression_chars=max_chars)
    valid = by_loop and max(len(text), 16) <= max_chars
    assert _check(doc, limits) == valid
    assert (_full_findings(doc, limits) == []) == valid


def test_compiled_output_is_accepted(tmp_path_factory):
    for doc in _compiled(tmp_path_factory):
        assert _check(doc)
    for doc in _loadable(VALID):
        assert _check(doc)


def test_stepwise_predicates_agree_with_the_structure_predicate(tmp_path_factory):
    rng = random.Random(7)
    bases = _loadable(VALID) + _compiled(tmp_path_factory)
    docs = bases + _loadable(BROKEN) + [_mutate(rng.choice(bases), rng) for _ in range(600)]
    for doc in docs:
        assert _stepwise_valid(doc) == structure._valid()(doc), json.dumps(doc)[:300]


def test_broken_fixtures_are_not_accepted():
    for doc in _loadable(BROKEN):
        assert not _check(doc)


@pytest.mark.parametrize("seed", range(4))
def test_random_mutations(seed, tmp_path_factory):
    rng = random.Random(seed)
    bases = _loadable(VALID) + _compiled(tmp_path_factory)
    for _ in range(250):
        _check(_mutate(rng.choice(bases), rng))


def _expressions(doc) -> list[tuple]:
    """The paths of every whole-expression string of the document."""
    out = []
    for path in tree_paths(doc):
        node = node_at(doc, path)
        if isinstance(node, str) and node.startswith("${") and node.endswith("}"):
            out.append(path)
    return out


def _ids(doc) -> list[str]:
    ids = []
    for path in tree_paths(doc):
        if path and path[-1] == "id":
            node = node_at(doc, path)
            if isinstance(node, str):
                ids.append(node)
    return ids


_FIELDS = ["result", "value", "outputs", "outputs.x", "results", "text", "json", "case", "branches", "nope", "", "[0]"]


def _rewire(doc, rng: random.Random):
    """Point one to three expressions at other places: steps before, after, in cases, in
    cleanup, own; inputs; items; other fields; or swap two expressions."""
    doc = copy.deepcopy(doc)
    ids = _ids(doc) or ["x"]
    steps = [p for p in tree_paths(doc) if p and isinstance(p[-1], int) and len(p) > 2 and p[-2] in ("steps", "finally")]
    if steps and rng.random() < 0.5:  # a guard on a random step (compiled output has few)
        step = node_at(doc, rng.choice(steps))
        if isinstance(step, dict):
            step["when"] = "${data.steps." + rng.choice(ids) + ".result}"
    paths = _expressions(doc)
    for _ in range(rng.choice([1, 1, 2, 3])):
        if not paths:
            break
        path = rng.choice(paths)
        parent = node_at(doc, path[:-1])
        choice = rng.randrange(7)
        sid = rng.choice(ids)
        name = f'["{sid}"]' if "." in sid else f".{sid}"
        field = rng.choice(_FIELDS)
        field = "" if not field else (field if field.startswith("[") else "." + field)
        if choice == 0:
            text = "${data.steps" + name + field + "}"
        elif choice == 1:
            text = "${present(data.steps" + name + ")}"
        elif choice == 2:
            text = "${json(data.steps" + name + field + ")}"
        elif choice == 3:
            text = rng.choice(["${data.item}", "${data.index}", "${data.item.a}", "${data.inputs.nope}"])
        elif choice == 4:
            other = rng.choice(paths)
            node = node_at(doc, other)
            text = node
        elif choice == 5:
            text = "${data.steps" + name + field + " == 1 && data.inputs.x}"
        else:
            text = "${data.steps" + name + field + " == }"
        parent[path[-1]] = text
    return doc


@pytest.mark.parametrize("seed", range(4))
def test_rewired_references(seed, tmp_path_factory):
    rng = random.Random(100 + seed)
    bases = _loadable(VALID) + _compiled(tmp_path_factory)
    accepted = 0
    for _ in range(150):
        accepted += _check(_rewire(rng.choice(bases), rng))
    assert accepted  # some rewirings are fine: the comparison is not vacuous


@pytest.mark.parametrize(
    "limits",
    [
        Limits(max_workflow_depth=1),
        Limits(max_workflow_depth=2),
        Limits(max_workflow_depth=3),
        Limits(max_workflow_steps=3),
        Limits(max_workflow_steps=20),
        Limits(max_expression_chars=20),
        Limits(max_expression_chars=40),
    ],
)
def test_small_limits(limits, tmp_path_factory):
    for doc in _loadable(VALID) + _compiled(tmp_path_factory):
        _check(doc, limits)


_STRINGS = st.sampled_from(["", "a", "$", "$x", "${", "${x}", "a ${x}", "${x} b", "${}", "${a}}", "}", "${data.item}", "a${",
                           "${a", "x${}"])
_KEYS = st.one_of(st.sampled_from(["k", "j", "a b"]), _STRINGS, st.sampled_from(["$literal", "$"]), st.integers(0, 2))
_TREES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.floats(allow_nan=False), _STRINGS),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(_KEYS, inner, max_size=4)),
    max_leaves=20,
)


def _expressions_in(value) -> list[str]:
    """What `_Validator._value` checks as expressions (on a tree `_value_ok` accepts)."""
    out = []
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            if node.startswith("${"):
                out.append(node)
        elif isinstance(node, dict):
            if d.LITERAL not in node:
                stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return sorted(out)


@settings(max_examples=400, deadline=None)
@given(_TREES)
@example({"k": "${x} b"})
@example(["${x} b", "${y}"])
@example({"k": {"j": ["a ${x}"]}})
@example({"k": [{"$literal": "${"}, {"$literal": 1, "j": 2}]})
@example({"k": {"$x": "${y}"}})
def test_the_collecting_data_tree_predicate(value):
    found: list[str] = []
    ok = structure._data_tree_ok(found.append)(value)
    assert ok == structure._value_ok(value)
    if ok:
        assert sorted(found) == _expressions_in(value)
    # the accept path's: whether each string pushed is whole is left to the reader
    pushed: list[str] = []
    loose = structure._data_tree_ok(pushed.append, whole=False)(value)
    assert all(len(text) >= 3 for text in pushed)
    assert (loose and all(structure.is_whole(text) for text in pushed)) == ok
    if ok:
        assert sorted(pushed) == _expressions_in(value)


@pytest.mark.parametrize("type_", ["mcp.call", "mcp.call\n", "set.x", "value.projct", "a.b.c", "A.b", "mcp", "", 1, None,
                                   "operation.call", "loop.x", "x.loop", "a..b", "a.b\nc"])
def test_the_remembering_executor_type_predicate(type_):
    step = {"id": "a", "type": type_, "input": {"request": {}}}
    doc = {"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": {"steps": [step]}}}
    _root, by_kind, _found, _names = structure.step_predicates()
    for _ in range(2):  # the second time from what it remembers
        assert by_kind[d.EXECUTOR](step) == structure._valid()(doc)


@pytest.mark.parametrize(("input_", "valid"), [
    ({"server": "x", "tool": "y"}, False),  # no request
    ({}, False),
    ({"server": "x", "request": 5}, False),
    ({"request": None}, False),
    ({"request": [1]}, False),
    ({"request": "${data.inputs.q}"}, False),  # one expression for the whole request
    ({"request": {"$literal": {"a": 1}}}, False),
    ({"request": {}}, True),  # nothing bound: what lower writes
    ({"server": "x", "request": {"a": "${data.inputs.q}", "b": {"$literal": "${x}"}, "c d": [1, {"e": None}]}}, True),
])
def test_an_executor_input_needs_a_request_mapping(input_, valid):
    """The accept path and the full path agree on an executor's `request` (a mapping of ports)."""
    step = {"id": "a", "type": "mcp.call", "input": input_}
    doc = {"version": 1, "name": "x", "entrypoint": "main",
           "workflows": {"main": {"inputs": {"q": {"type": {"type": "string"}}}, "steps": [step]}}}
    assert validate_module._accepts(doc, DEFAULT_LIMITS) is valid
    findings = _full_findings(doc)
    assert (findings == []) is valid
    if not valid:
        assert [code for code, _pointer, _message in findings] == ["WORKFLOW_SCHEMA"], findings
        assert findings[0][1].startswith("/workflows/main/steps/0/input")


def _not_whole(text: str) -> list[str]:
    return ["x" + text, text + "x", text[:-1], "${", text[1:], text.replace("${", "$ {", 1), "ab", "" , "}" + text[2:]]


def test_a_string_that_is_not_a_whole_expression_is_refused(tmp_path_factory):
    """The step predicates push what would be an expression without checking its `${` and
    `}` (`is_whole` is the reader's): put in place of any expression of compiled output, in
    a data tree or an expression field, of a step, a case or a workflow's outputs, a string
    that is not a whole `${...}` is refused by the accept path and found by the full path."""
    doc = _compiled(tmp_path_factory)[1]
    paths = _expressions(doc)
    assert len(paths) > 20
    for path in paths:
        for text in _not_whole(node_at(doc, path)):
            changed = copy.deepcopy(doc)
            node_at(changed, path[:-1])[path[-1]] = text
            if "${" not in text and path[-1] not in _EXPRESSION_FIELDS | {"expr", "value"}:
                continue  # a literal string of a data tree: fine
            accepted = validate_module._accepts(changed, DEFAULT_LIMITS)
            assert accepted == (_full_findings(changed) == []), (path, text)
            assert not accepted or "${" not in text, (path, text)


def test_the_self_check_document_digest_is_the_texts():
    """`validate_data` hashes the text only when the digest is read: the same value."""
    import hashlib

    text = "version: 1\nname: é\n"
    result = validate_module.validate_data({"version": 1}, text)
    assert result.document.digest == "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert result.document.digest == result.document.digest  # stored once computed
    assert isinstance(result.document, SourceDocument)


_DATA_TREE_FIELDS = {"value", "values", "input"}
_EXPRESSION_FIELDS = {"when", "items", "prompt", "from"}


def _step_expressions(step: dict) -> list[str]:
    """What the accept path checks as a step's own expressions: its data trees' (`value` of
    `set`, `values`, `input`: a call's or an executor's) and its expression fields' (`when`,
    `items`, `prompt`, `from`, `value` of `value.validate`; a case's `when`), not its inline
    steps'."""
    out: list[str] = []
    branches = [step] + list(step.get("cases", [])) + [step[k] for k in ("default",) if k in step]
    branches += list(step.get("branches", []))
    for node in branches:
        for key, member in node.items():
            if key in _EXPRESSION_FIELDS or (key == "value" and step["type"] == "value.validate"):
                out.append(member)
            elif key in _DATA_TREE_FIELDS:
                out.extend(_expressions_in(member))
    return sorted(out)


def test_the_step_predicates_push_each_expression_of_the_step(tmp_path_factory):
    """The step kinds' predicates push every expression of the step that they accept, the
    expression fields' included, and nothing of its inline steps."""
    _root, by_kind, found, _names = structure.step_predicates()
    docs = _loadable(VALID) + _compiled(tmp_path_factory)
    docs.append({"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": {"steps": [
        {"id": "s", "type": "switch", "when": "${data.inputs.a}", "cases": [
            {"when": "${data.inputs.b}", "steps": [{"id": "t", "type": "set", "value": "${data.inputs.c}"}]}],
         "default": {"call": "w", "input": {"k": ["${data.inputs.d}", {"$literal": "${x}"}]}}}]}}})
    checked = 0
    for doc in docs:
        for items in _step_lists(doc):
            for step in items:
                found.clear()
                assert by_kind[d.step_kind(step["type"])](step), step
                assert sorted(found) == _step_expressions(step), step
                checked += 1
    assert checked > 100


@pytest.mark.parametrize("name", ["w", "a.b", "a..b", ".a", "a.", "a b", "a\n", "", "x" * 255, "x" * 256, 1, None, "é", "$a",
                                  "a\nb", "\n", "x" * 254 + "\n", "a." + "x" * 253, "a." + "x" * 254])
def test_the_remembering_name_predicates(name):
    """Names (a call's target, its input keys: pending until `names.ok`) and placeholder
    names (accepted the second time from what the predicate remembers), exactly as the
    structure predicate says."""
    call = {"id": "a", "type": "workflow.call", "workflow": name}
    if isinstance(name, str):
        call["input"] = {name: 1}
    render = {"id": "b", "type": "template.render", "template": "t", "values": {name: "v"} if isinstance(name, str) else {}}
    _root, by_kind, _found, names = structure.step_predicates()
    for step in (call, render):
        doc = {"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": {"steps": [step]}}}
        for _ in range(2):
            names.reset()
            assert (by_kind[step["type"]](step) and names.ok()) == structure._valid()(doc), step
            assert not names.pending


_LONG_NAMES = ["x" * 255, "x" * 256, "a." + "x" * 253, "a." + "x" * 254, "x" * 300, "x" * 255 + "\n"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="aZ9_-.\n é", max_size=8) | st.sampled_from(_LONG_NAMES), min_size=1, max_size=5))
def test_pending_names_are_matched_together_as_one_by_one(pending):
    """`PendingNames.ok` (one regex call over the names joined) holds exactly when each name
    matches NAME_PATTERN (a search of it, as the schema's checks do) and is at most
    MAX_NAME_LENGTH long."""
    search = re.compile(ecma_pattern(d.NAME_PATTERN)).search
    names = structure.PendingNames()
    for name in pending:
        names.take(name)
    ok = all(search(n) is not None and len(n) <= d.MAX_NAME_LENGTH for n in pending)
    assert names.ok() == ok, pending
    assert not names.pending


def test_a_document_that_stops_early_leaves_no_name_pending():
    """A name taken from a document that the accept path leaves before matching its names
    (here: two steps with one ID) is not pending in the next document."""
    _root, _by_kind, _found, names = structure.step_predicates()
    step = {"id": "a", "type": "workflow.call", "workflow": "w..x"}
    doc = {"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": {"steps": [step, dict(step)]}, "w..x": {"steps": []}}}
    assert not validate_module._accepts(doc, DEFAULT_LIMITS)
    assert not names.pending
    assert not _check({"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": {"steps": [step]}}})


def _reads(read: str, where: str) -> dict:
    """A workflow whose steps, inline case steps and cleanup can read one another: `read`
    is put at `where` (a step ID of it, or `output`)."""
    def step(sid: str, **extra):
        node = {"id": sid, "type": "set", "value": {"x": "${" + read + "}"} if sid == where else 1}
        node.update(extra)
        return node

    cases = [{"when": "${data.inputs.a}", "steps": [step("c1"), step("c2")]}, {"when": "${data.inputs.a}", "steps": [step("d1")]}]
    main = {"inputs": {"a": {"type": {"type": "boolean"}}},
            "steps": [step("s1"), {"id": "sw", "type": "switch", "cases": cases, "default": {"steps": [step("e1")]}}, step("s2")],
            "finally": [step("f1", when="${present(data.steps.s1)}"), step("f2")],
            "outputs": {"o": {"expr": "${" + read + "}" if where == "output" else "${data.inputs.a}"}}}
    return {"version": 1, "name": "x", "entrypoint": "main", "workflows": {"main": main}}


@pytest.mark.parametrize(("read", "where", "valid"), [
    ("data.steps.s1.value", "c1", True),  # an enclosing list's earlier step
    ("data.steps.c1.value", "c2", True),  # an earlier step of its own list
    ("data.steps.c2.value", "c1", False),  # a later one
    ("data.steps.c1.value", "c1", False),  # itself
    ("data.steps.sw.case", "c1", False),  # the enclosing step
    ("data.steps.c1.value", "d1", False),  # another case's
    ("data.steps.c1.value", "e1", False),
    ("data.steps.c1.value", "s2", False),  # an inline step, after its list
    ("data.steps.sw.case", "s2", True),
    ("data.steps.s1.value", "f1", True),  # cleanup: a top-level step that the guard tests
    ("data.steps.s2.value", "f1", False),  # one it does not test
    ("data.steps.c1.value", "f1", False),
    ("data.steps.f1.value", "f2", True),  # an earlier cleanup step
    ("data.steps.s2.value", "output", True),
    ("data.steps.c1.value", "output", False),
    ("data.steps.f1.value", "output", False),
])
def test_which_steps_a_read_finds(read, where, valid):
    doc = _reads(read, where)
    assert validate_module._accepts(doc, DEFAULT_LIMITS) is valid
    assert (_full_findings(doc) == []) is valid


def test_nothing_is_remembered_from_an_earlier_document():
    """The strings the accept path remembers (names, executor types, placeholder names) are
    those of the document being checked: checking one costs the same whatever the process
    checked before (no cross-document memo, which would flatter a benchmark that compiles
    the same plan twice)."""
    from taskplan.passes.validate import validate_data

    def doc(tag):
        return {"version": 1, "name": "x", "entrypoint": f"main_{tag}", "workflows": {f"main_{tag}": {"steps": [
            {"id": "a", "type": "workflow.call", "workflow": f"sub_{tag}", "input": {f"in_{tag}": 1}},
            {"id": "b", "type": "template.render", "template": "{{" + f"v_{tag}" + "}}", "values": {f"v_{tag}": "v"}},
            {"id": "c", "type": f"svc_{tag}.call", "input": {"request": {}}},
        ]}, f"sub_{tag}": {"inputs": {f"in_{tag}": {"type": {"type": "integer"}}}, "steps": []}}}

    _root, _by_kind, _found, names = structure.step_predicates()
    assert not validate_data(doc("one"), "").diagnostics
    remembered = set(names.pending).union(*names.remembered)
    assert {"v_one", "svc_one.call"} <= remembered  # what the first document taught
    assert not validate_data(doc("two"), "").diagnostics
    remembered = set(names.pending).union(*names.remembered)
    assert "svc_two.call" in remembered and not {s for s in remembered if s.endswith("_one") or "_one." in s}


def _call_graph(rng: random.Random) -> dict:
    """Workflows `w0`..: each calls some (itself too), or sets a value, from the top level
    (of `steps` or `finally`) or from a switch case (one level deeper); the rest of the
    document is valid."""
    count = rng.randint(1, 6)
    workflows = {}
    for index in range(count):
        steps = []
        for j in range(rng.choice([0, 0, 1, 1, 2, 3])):
            step = {"id": f"c{j}", "type": "workflow.call", "workflow": f"w{rng.randrange(count)}"}
            if rng.random() < 0.4:  # no call: the workflow's own height
                step = {"id": f"c{j}", "type": "set", "value": j}
            for _ in range(rng.choice([0, 0, 1, 2])):
                step = {"id": f"s{j}_{len(json.dumps(step))}", "type": "switch",
                        "cases": [{"when": "${data.inputs.x == 1}", "steps": [step]}]}
            steps.append(step)
        workflow = {"inputs": {"x": {"type": {"type": "integer"}, "required": False}}, "steps": steps}
        if rng.random() < 0.3:  # as cleanup steps: also at the top level
            workflow["steps"], workflow["finally"] = [], steps
        workflows[f"w{index}"] = workflow
    return {"version": 1, "name": "g", "entrypoint": "w0", "workflows": workflows}


@pytest.mark.parametrize("seed", range(3))
def test_call_graphs_cycles_and_depth(seed):
    """`_Accept._graph` (a walk from the callers only) accepts a call graph exactly where
    the full path finds no cycle and no workflow nested past the limit."""
    rng = random.Random(300 + seed)
    outcomes = set()
    for _ in range(200):
        doc = _call_graph(rng)
        limits = Limits(max_workflow_depth=rng.randint(1, 4))
        accepted = validate_module._accepts(doc, limits)
        assert accepted == (_full_findings(doc, limits) == []), json.dumps(doc)
        outcomes.add(accepted)
    assert outcomes == {True, False}


def _called_from_w0(callee: dict) -> dict:
    """A document whose entry workflow w0 calls `callee` (w1) and does nothing else."""
    return {"version": 1, "name": "h", "entrypoint": "w0", "workflows": {
        "w0": {"steps": [{"id": "c", "type": "workflow.call", "workflow": "w1"}]}, "w1": callee}}


def _agreed_verdict(doc, limits: Limits) -> bool:
    """The accept path's verdict on `doc`, held to the full path's: no findings exactly
    when it accepts (`_check` holds only its acceptances)."""
    accepted = validate_module._accepts(doc, limits)
    assert (_full_findings(doc, limits) == []) == accepted
    return accepted


@pytest.mark.parametrize("section", ["steps", "finally"])
@pytest.mark.parametrize("depth", [1, 2])
def test_a_called_workflows_own_height(section, depth):
    """A workflow that calls nothing is as high as its top level, in `steps` or in
    `finally` alone (`_Accept._workflow` sets that level, not `_list`)."""
    callee = {"steps": [], section: [{"id": "s", "type": "set", "value": 1}]}
    assert _agreed_verdict(_called_from_w0(callee), Limits(max_workflow_depth=depth)) == (depth == 2)


@pytest.mark.parametrize("depth", [2, 3])
def test_cleanup_does_not_lower_a_workflows_height(depth):
    """`steps` two levels deep (a switch case's) and `finally` one: the workflow is two high."""
    case = {"when": "${data.inputs.x == 1}", "steps": [{"id": "s", "type": "set", "value": 1}]}
    callee = {"inputs": {"x": {"type": {"type": "integer"}, "required": False}},
              "steps": [{"id": "w", "type": "switch", "cases": [case]}],
              "finally": [{"id": "f", "type": "set", "value": 1}]}
    assert _agreed_verdict(_called_from_w0(callee), Limits(max_workflow_depth=depth)) == (depth == 3)


@pytest.mark.parametrize("required", [None, True, False])
@pytest.mark.parametrize("default", [None, 1, "one"])
@pytest.mark.parametrize("given", [False, True])
def test_a_called_workflows_required_inputs(required, default, given):
    """Which inputs a call must give (`_input_required`, inline in `_Accept._workflow`)."""
    decl: dict = {"type": {"type": "integer"}}
    if required is not None:
        decl["required"] = required
    if default is not None:
        decl["default"] = default
    call = {"id": "c", "type": "workflow.call", "workflow": "w1"}
    if given:
        call["input"] = {"a": 2}
    doc = {"version": 1, "name": "r", "entrypoint": "w0", "workflows": {
        "w0": {"steps": [call]}, "w1": {"inputs": {"a": decl}, "steps": []}}}
    accepted = validate_module._accepts(doc, DEFAULT_LIMITS)
    assert (_full_findings(doc) == []) == accepted
    if default != "one" and not (required and default is not None):  # else the declaration is refused
        assert accepted == (given or not validate_module._input_required(decl))
