"""The PlanningGraph: the compiler's IR between the typed plan and workflow YAML.

A graph is a set of workflows (the root scope is `main`; every child scope and
group body is a workflow of its own), each with typed inputs, steps, cleanup
steps (`finally`) and outputs. Steps carry their fields as data trees whose
leaves are `Expr` (an expression of the dialect, without `${}`), `Literal`
(data that is never evaluated), or plain JSON scalars (literal too). Every step
remembers its `source` (a pointer into the TaskPlan) and its structural `key`,
the business identity its generated ID is a function of.

Invariants (`check()`): step IDs are unique per workflow; every `data.steps.X`
an expression reads names a step that runs earlier in the same workflow (or,
in `finally`, any step of `steps`); every called workflow exists; the
entrypoint exists. `to_data()` gives the plain data the emitter writes.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from taskplan.fastinit import maker
from taskplan.workflow import dialect

_NAME_RE = re.compile(r"^[A-Za-z0-9_-]+$")
# A step reference, or a string literal (consumed whole, so that text inside it is never taken for a reference).
_PLAIN_STEP_REF_RE = re.compile(r"data\.steps\.([A-Za-z0-9_-]+)")
_STEP_REF_RE = re.compile(r'data\.steps(?:\.([A-Za-z0-9_-]+)|\["((?:[^"\\]|\\.)*)"\])|"(?:[^"\\]|\\.)*"')


class Expr:
    """An expression of the dialect (the text between `${` and `}`)."""

    __slots__ = ("text", "simple")

    def __init__(self, text: str, simple: bool = True):
        self.text = text
        self.simple = simple
        """A path, literal or call: needs no parentheses as an operand."""

    def __repr__(self) -> str:
        return f"Expr({self.text!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Expr) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)

    def render(self) -> str:
        return f"${{{self.text}}}"

    def operand(self) -> str:
        return self.text if self.simple else f"({self.text})"


class Literal:
    """A literal data tree from the plan or the catalog: emitted so that nothing in it
    is ever evaluated (dialect.escape_literal)."""

    __slots__ = ("value",)

    def __init__(self, value: Any):
        self.value = value

    def __repr__(self) -> str:
        return f"Literal({self.value!r})"


_new = object.__new__


def new_expr(text: str, simple: bool = True) -> Expr:
    """`Expr(text, simple)`, made without calling the class: a class call that runs a Python
    `__init__` is not inlined by the interpreter (3.11) and costs about twice a function
    call, and lowering makes an Expr for most ports and steps it reads. Held to
    `Expr(text, simple)` by tests/test_lower_fast_paths.py; the path builders below make
    theirs the same way, inline (held to the class call by the same tests)."""
    e = _new(Expr)
    e.text = text
    e.simple = simple
    return e


def new_literal(value: Any) -> Literal:
    """`Literal(value)`, made without calling the class (see `new_expr`): lowering makes one
    for every string literal of the plan. Held to the class call by
    tests/test_lower_fast_paths.py."""
    lit = _new(Literal)
    lit.value = value
    return lit


def segment(name: str | int) -> str:
    """A path segment: `.name` when the name is plain, else `["name"]`; `[n]` for an index."""
    if isinstance(name, int):
        return f"[{name}]"
    return f".{name}" if _NAME_RE.match(name) else f"[{dialect.expression_string(name)}]"


_SEGMENTS: dict[str, str] = {}
"""Name -> `segment(name)`: lowering reads the same few port and input names over and over,
and a regex match costs ~1,600 instructions (its state is set up anew on every call).
Bounded (names come from the plans a process compiles): cleared when full."""
_SEGMENTS_MAX = 4096


def _new_segment(name: str | int) -> str:
    """`segment(name)`, remembered in `_SEGMENTS` for a string name."""
    seg = segment(name)
    if type(name) is str:
        if len(_SEGMENTS) >= _SEGMENTS_MAX:
            _SEGMENTS.clear()
        _SEGMENTS[name] = seg
    return seg


def path(base: str, *names: str | int) -> Expr:
    return _segments_expr(base, names)


def step_path(step_id: str, field_name: str, *names: str | int) -> Expr:
    """`data.steps.<id>.<field>...`, quoting generated IDs (they contain dots)."""
    base = f"data.steps.{step_id}.{field_name}" if _NAME_RE.match(step_id) else f'data.steps["{step_id}"].{field_name}'
    return _segments_expr(base, names)


def task_step_path(task_id: str, field_name: str, *names: str | int) -> Expr:
    """`step_path` of a task's own step, its ID not tested: a task ID of a clean plan (the
    only plans lowered) is 1-64 ASCII letters, digits, `_` or `-` (passes/identity.py).
    `_segments_expr`, inline (no second call: lowering reads every port through here)."""
    base = f"data.steps.{task_id}.{field_name}"
    for name in names:
        base += _SEGMENTS.get(name) or _new_segment(name)
    e = _new(Expr)
    e.text = base
    e.simple = True
    return e


def _segments_expr(base: str, names: tuple) -> Expr:
    """`path(base, *names)`, without a call that unpacks its arguments."""
    for name in names:  # `segment(name)`, a remembered one found at once
        base += _SEGMENTS.get(name) or _new_segment(name)
    e = _new(Expr)  # `new_expr(base)`, without a call of it
    e.text = base
    e.simple = True
    return e


def generated_step_path(step_id: str, field_name: str) -> Expr:
    """`step_path` of a generated step, its ID not tested: a generated ID
    (`__<task>.<role>...`) has dots, so it is always quoted."""
    e = _new(Expr)  # `new_expr(...)`, without a call of it
    e.text = f'data.steps["{step_id}"].{field_name}'
    e.simple = True
    return e


def step_record(step_id: str) -> Expr:
    """`data.steps.<id>`: the step's record, present once the step has run (whatever null
    its fields hold): what a cleanup guard tests for a generated step it reads."""
    return new_expr(f"data.steps.{step_id}" if _NAME_RE.match(step_id) else f'data.steps["{step_id}"]')


def input_path(name: str, *names: str | int) -> Expr:
    return _segments_expr("data.inputs" + (_SEGMENTS.get(name) or _new_segment(name)), names)


def task_input_path(name: str, *names: str | int) -> Expr:
    """`input_path` of an input whose name is a plain segment by construction, not tested:
    a captured task's input (its task ID, or the ID with a hash: passes/lower.py)."""
    return _segments_expr(f"data.inputs.{name}", names)


def literal_expr(value: Any) -> Expr:
    """A JSON scalar as an expression literal (strings are quoted: never evaluated)."""
    if value is None:
        return Expr("null")
    if value is True:
        return Expr("true")
    if value is False:
        return Expr("false")
    if isinstance(value, str):
        return Expr(dialect.expression_string(value))
    return Expr(repr(value) if isinstance(value, float) else str(value))


@dataclass(slots=True, eq=False)
class Step:
    id: str
    type: str
    source: str
    """The TaskPlan pointer this step was compiled from."""
    fields: dict[str, Any]
    """The step's own fields (after id/type/source/when), in emission order."""
    key: tuple[str, ...]
    """The structural key: (task or scope ID, role...). The generated ID is a function of it."""
    when: Expr | None = None
    title: str | None = None
    data: dict[str, Any] | None = field(default=None, repr=False)
    """The step as `to_data()` emits it, when lowering made it with the step (rendering
    each field once, where it is built, costs far less than a second walk of every
    field); None otherwise, and in a copy: a step is rendered from its fields then. A
    lowered graph is never changed in place (a test that changes one changes a copy)."""

    @property
    def generated(self) -> bool:
        return self.id.startswith("__")

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        return _state_without_data(self)

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        _set_state(self, state)


def _state_without_data(obj: Any) -> tuple[None, dict[str, Any]]:
    """The state of a Step or a Workflow for copy.deepcopy and pickle: the copy may be
    changed, so it has no `data` (it is rendered from its parts)."""
    state = {name: getattr(obj, name) for name in obj.__slots__}
    state["data"] = None
    return (None, state)


def _set_state(obj: Any, state: tuple[None, dict[str, Any]]) -> None:
    for name, value in state[1].items():
        object.__setattr__(obj, name, value)


@dataclass(slots=True, eq=False)
class WorkflowInput:
    schema: dict[str, Any]
    required: bool = True
    default: Any = None
    has_default: bool = False


@dataclass(slots=True, eq=False)
class WorkflowOutput:
    expr: Expr
    schema: dict[str, Any] | None = None


def new_output(expr: Expr, schema: dict[str, Any] | None) -> WorkflowOutput:
    """`WorkflowOutput(expr, schema)`, made without calling the class (see `new_expr`): a
    workflow's output, one for every output of every scope. Held to the class call by
    tests/test_lower_fast_paths.py."""
    out = _new(WorkflowOutput)
    out.expr = expr
    out.schema = schema
    return out


@dataclass(slots=True, eq=False)
class Workflow:
    name: str
    source: str
    """The TaskPlan pointer of the scope (or group) it was compiled from."""
    inputs: dict[str, WorkflowInput] = field(default_factory=dict)
    steps: list[Step] = field(default_factory=list)
    finally_: list[Step] = field(default_factory=list)
    outputs: dict[str, WorkflowOutput] = field(default_factory=dict)
    data: dict[str, Any] | None = field(default=None, repr=False)
    """The workflow as `to_data()` emits it, when lowering made it with the workflow (its
    inputs and outputs rendered where they are made, its steps' `Step.data` gathered once
    they are all made: no second walk of every workflow); None otherwise, and in a copy: a
    workflow is rendered from its parts then (see `Step.data`)."""

    def __getstate__(self) -> tuple[None, dict[str, Any]]:
        return _state_without_data(self)

    def __setstate__(self, state: tuple[None, dict[str, Any]]) -> None:
        _set_state(self, state)


def new_workflow(name: str, source: str) -> Workflow:
    """`Workflow(name, source)`, made without calling the class (see `new_expr`): its
    dataclass `__init__` also calls a factory for each of its four containers. Held to
    the class call by tests/test_lower_fast_paths.py."""
    wf = _new(Workflow)
    wf.name = name
    wf.source = source
    wf.inputs = {}
    wf.steps = []
    wf.finally_ = []
    wf.outputs = {}
    wf.data = None
    return wf


new_input = maker(
    WorkflowInput,
    ("schema",),
    """`WorkflowInput(schema)` (required, no default), made without calling the class
    (see `new_expr`): a child workflow's input, one for each capture. Held to the class
    call by tests/test_lower_fast_paths.py.""",
)


@dataclass(slots=True, eq=False)
class PlanningGraph:
    name: str
    plan_path: str
    digest: str
    entrypoint: str = "main"
    choices: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Choice ID -> {selected, auto}: how each choice the plan reads was resolved."""
    workflows: dict[str, Workflow] = field(default_factory=dict)

    # ----------------------------------------------------------------- queries

    def source_map(self) -> dict[tuple[str, str], str]:
        """(workflow, step ID) -> the TaskPlan pointer it came from."""
        out: dict[tuple[str, str], str] = {}
        for wf in self.workflows.values():
            for step in wf.steps + wf.finally_:
                out[(wf.name, step.id)] = step.source
        return out

    def steps(self) -> list[tuple[Workflow, Step]]:
        return [(wf, s) for wf in self.workflows.values() for s in wf.steps + wf.finally_]

    # -------------------------------------------------------------- invariants

    def check(self) -> list[str]:
        """Violations of the graph's invariants (empty when sound): a lowering bug otherwise.

        Run by the tests on every graph they compile, not by compile: its self-check
        (validate_data of the emitted data) reports every violation found here
        (tests/test_graph_check_self_check.py).

        One pass over each step (its expressions collected in one walk of its fields),
        in the order the problems are reported: a duplicate ID, then each reference
        read before its step runs, then each call of an unknown workflow."""
        problems: list[str] = []
        workflows = self.workflows
        if self.entrypoint not in workflows:
            problems.append(f"entrypoint `{self.entrypoint}` is not a workflow")
        for wf in workflows.values():
            seen: set[str] = set()
            for steps in (wf.steps, wf.finally_):
                for step in steps:
                    if step.id in seen:
                        problems.append(f"{wf.name}: step `{step.id}` appears twice")
                    for ref in _step_refs(step):
                        if ref not in seen:
                            problems.append(f"{wf.name}: step `{step.id}` reads `{ref}` before it runs")
                    for target in _calls(step):
                        if target not in workflows:
                            problems.append(f"{wf.name}: step `{step.id}` calls unknown workflow `{target}`")
                    seen.add(step.id)
            for name, out in wf.outputs.items():
                for ref in _refs_in(out.expr):
                    if ref not in seen:
                        problems.append(f"{wf.name}: output `{name}` reads unknown step `{ref}`")
        return problems

    # ------------------------------------------------------------------- data

    def to_data(self) -> dict[str, Any]:
        """The workflow document as plain data, in emission order."""
        return {
            "version": dialect.VERSION,
            "name": self.name,
            "entrypoint": self.entrypoint,
            "source": {"plan": self.plan_path, "digest": self.digest},
            **({"choices": {k: dict(v) for k, v in self.choices.items()}} if self.choices else {}),
            "workflows": {
                name: wf.data if wf.data is not None else _workflow_data(wf) for name, wf in self.workflows.items()
            },
        }

    def dump(self) -> str:
        """A readable outline, for debugging."""
        lines = [f"graph {self.name} (entrypoint {self.entrypoint})"]
        for wf in self.workflows.values():
            lines.append(f"  workflow {wf.name} <- {wf.source}")
            if wf.inputs:
                lines.append("    inputs: " + ", ".join(wf.inputs))
            for section, steps in (("step", wf.steps), ("finally", wf.finally_)):
                for s in steps:
                    guard = f" when {s.when.text}" if s.when is not None else ""
                    lines.append(f"    {section} {s.id}: {s.type} <- {s.source}{guard}")
            if wf.outputs:
                lines.append("    outputs: " + ", ".join(wf.outputs))
        return "\n".join(lines) + "\n"


# ------------------------------------------------------------------ rendering


_SCALARS = frozenset({int, float, bool, type(None)})
escape_literal = dialect.escape_literal


def render_tree(tree: Any) -> Any:
    """A data tree as emitted: Expr -> `${...}`, literal strings escaped.

    Dispatches on the exact type (a step's fields hold hundreds of thousands of
    nodes in a large plan); anything else (a subclass) goes `_render_general`."""
    t = type(tree)
    if t is Expr:
        return f"${{{tree.text}}}"
    if t is dict:
        # the members of a request or a `set` value: mostly expressions, literals and
        # numbers, rendered here without a call each
        out = {}
        for k, v in tree.items():
            t = type(v)
            if t is Expr:
                out[k] = f"${{{v.text}}}"
            elif t is Literal:
                out[k] = escape_literal(v.value)
            elif t in _SCALARS:
                out[k] = v
            else:
                out[k] = render_tree(v)
        return out
    if t is Literal:
        return dialect.escape_literal(tree.value)
    if t is str:
        return dialect.escape_literal(tree)
    if t is list:
        return [render_tree(v) for v in tree]
    if t in _SCALARS:
        return tree
    return _render_general(tree)


def _render_general(tree: Any) -> Any:
    if isinstance(tree, Expr):
        return tree.render()
    if isinstance(tree, Literal):
        return dialect.escape_literal(tree.value)
    if isinstance(tree, str):
        return dialect.escape_literal(tree)
    if isinstance(tree, dict):
        return {k: render_tree(v) for k, v in tree.items()}
    if isinstance(tree, list):
        return [render_tree(v) for v in tree]
    return tree


_VERBATIM = frozenset({"schema", "path", "template", "max_items", "max_concurrency", "call", "workflow", "required", "effect"})
"""Fields that are not data trees: taken as written."""
_CALL_LISTS = frozenset({"branches", "cases"})


_FIELD_FORMS = dict.fromkeys(_VERBATIM, False) | dict.fromkeys(_CALL_LISTS | {"default"}, True)
"""Field name -> False: taken as written; True: `_field_data`. Any other field is a data tree."""


def _step_data(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"id": step.id, "type": step.type}
    if step.title:
        out["title"] = step.title
    out["source"] = step.source
    if step.when is not None:
        out["when"] = step.when.render()
    for name, value in step.fields.items():
        form = _FIELD_FORMS.get(name)
        if form is None:  # a data tree; often one expression (`from`, `value`, `items`, `prompt`)
            out[name] = f"${{{value.text}}}" if type(value) is Expr else render_tree(value)
        elif form:
            out[name] = _field_data(name, value)
        else:
            out[name] = value
    return out


def _field_data(name: str, value: Any) -> Any:
    if name in _VERBATIM:
        return value
    if name in ("branches", "cases"):
        return [{k: (render_tree(v) if k in ("input", "when") else v) for k, v in item.items()} for item in value]
    if name == "default" and isinstance(value, dict):
        return {k: (render_tree(v) if k == "input" else v) for k, v in value.items()}
    return render_tree(value)


def _steps_data(steps: list[Step]) -> list[dict[str, Any]]:
    """The steps as emitted: the data lowering made with each (`Step.data`), gathered
    without a Python call per step; a step without it is rendered from its fields. (A
    loop: the interpreter reads a slot and appends to a list far faster than
    `map(attrgetter("data"), ...)` does, and a comprehension costs a function object.)"""
    out = []
    for s in steps:
        data = s.data
        out.append(data if data is not None else _step_data(s))
    return out


def input_data(inp: WorkflowInput) -> dict[str, Any]:
    """A workflow input as emitted."""
    entry: dict[str, Any] = {"type": inp.schema}
    if inp.has_default:
        entry["required"] = False
        entry["default"] = inp.default  # literal by position: never evaluated, never escaped
    elif not inp.required:
        entry["required"] = False
    return entry


def output_data(out: WorkflowOutput) -> dict[str, Any]:
    """A workflow output as emitted."""
    expr = f"${{{out.expr.text}}}"
    return {"expr": expr} if out.schema is None else {"type": out.schema, "expr": expr}


def workflow_data(
    inputs: dict[str, Any], steps: list[dict[str, Any]], finally_: list[dict[str, Any]], outputs: dict[str, Any]
) -> dict[str, Any]:
    """A workflow as emitted, from its parts as emitted: `steps` always, the others when
    they have any (the one place that knows the order and which parts may be left out)."""
    out: dict[str, Any] = {}
    if inputs:
        out["inputs"] = inputs
    out["steps"] = steps
    if finally_:
        out["finally"] = finally_
    if outputs:
        out["outputs"] = outputs
    return out


def _workflow_data(wf: Workflow) -> dict[str, Any]:
    """The workflow as emitted, from its parts (`Workflow.data` is this, made by lowering)."""
    steps = []
    for step in wf.steps:  # `_steps_data(wf.steps)`, without a call of it (one per workflow)
        data = step.data
        steps.append(data if data is not None else _step_data(step))
    return workflow_data(
        {name: input_data(inp) for name, inp in wf.inputs.items()},
        steps,
        _steps_data(wf.finally_),
        {name: output_data(o) for name, o in wf.outputs.items()},
    )


_LEAVES = frozenset({str, int, float, bool, type(None), Literal})
"""Types `_collect_exprs` skips at once (a Literal is never evaluated)."""


def _collect_exprs(value: Any, out: list[Expr]) -> None:
    """Every Expr in a data tree, in document order, appended to `out`."""
    t = type(value)
    if t is dict:
        for v in value.values():
            t = type(v)
            if t is Expr:
                out.append(v)
            elif t not in _LEAVES:
                _collect_exprs(v, out)
    elif t is list:
        for v in value:
            t = type(v)
            if t is Expr:
                out.append(v)
            elif t not in _LEAVES:
                _collect_exprs(v, out)
    elif t is Expr or (t not in _LEAVES and isinstance(value, Expr)):
        out.append(value)
    elif t not in _LEAVES and isinstance(value, dict):  # subclasses: rare, the general way
        for v in value.values():
            _collect_exprs(v, out)
    elif t not in _LEAVES and isinstance(value, list):
        for v in value:
            _collect_exprs(v, out)


def _refs_in(expr: Expr) -> list[str]:
    text = expr.text
    if "data.steps" not in text:  # no reference (inputs, literals)
        return []
    if '"' not in text:  # no string literal, no quoted ID: only the plain form can match
        return _PLAIN_STEP_REF_RE.findall(text)
    out = []
    for m in _STEP_REF_RE.finditer(text):
        name = m.group(1)
        if name is not None:
            out.append(name)
        else:
            quoted = m.group(2)
            if quoted is not None:
                # a JSON string body: taken as it is when there is nothing to decode
                out.append(quoted if "\\" not in quoted and quoted.isprintable() else json.loads(f'"{quoted}"'))
    return out


def _step_refs(step: Step) -> list[str]:
    exprs: list[Expr] = [step.when] if step.when is not None else []
    _collect_exprs(step.fields, exprs)
    refs: list[str] = []
    for e in exprs:
        refs.extend(_refs_in(e))
    return refs


_CALL_FIELDS = frozenset({"call", "workflow", "branches", "cases", "default"})


def _calls(step: Step) -> list[str]:
    f = step.fields
    if _CALL_FIELDS.isdisjoint(f):
        return []
    out = [f[k] for k in ("call", "workflow") if isinstance(f.get(k), str)]
    for k in ("branches", "cases"):
        out.extend(item["call"] for item in f.get(k, ()) if "call" in item)
    if isinstance(f.get("default"), dict) and "call" in f["default"]:
        out.append(f["default"]["call"])
    return out
