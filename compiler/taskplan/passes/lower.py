"""The lower pass: a clean TypedPlan -> PlanningGraph (workflow.md, Lowering recipes).

Runs only on a plan that checked clean. Choices are resolved first (the
selection, or the recommendation in auto mode, recorded in the graph);
a choice the plan reads with no selection is CHOICE_REQUIRED, the one
diagnostic this pass owns.

Workflows: the root scope is `main`; a child scope is `<task>.body`,
`<task>.otherwise` or `<task>.branch<i>`; a group body is `<group>.group`.
A child workflow's inputs are its captures: each captured task's whole result
container (so checks of optional ports stay at the consumer), each captured
workflow or group input, and the enclosing foreach's `item`/`index`.

Generated step IDs are `__<task>.<role>...`: built from business names (task
IDs, binding, output and member names) and structural roles, never from a
counter over the plan, so an edit to one task renames nothing elsewhere. A name
that is not a plain segment, and any two generated IDs that would collide, get
a short stable hash of their structural key.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from typing import Any

from taskplan.diagnostics import Reporter
from taskplan.ir.checked import (
    BODY,
    BRANCH,
    FOREACH_BODY,
    GROUP_BODY,
    OTHERWISE,
    REF_OUTPUT,
    ChoiceNode,
    InputDecl,
    ScopeNode,
    TaskNode,
)
from taskplan.ir.graph import _SEGMENTS, _new_segment
from taskplan.ir.graph import (
    Expr,
    Literal,
    PlanningGraph,
    Step,
    Workflow,
    WorkflowInput,
    generated_step_path,
    input_data,
    input_path,
    literal_expr,
    new_expr,
    new_literal,
    new_output,
    new_workflow,
    output_data,
    render_tree,
    step_record,
    task_input_path,
    task_step_path,
    workflow_data,
)
from taskplan.source.pointer import INDEX as _INDEX  # (a label part of the first positions)
from taskplan.source.pointer import INPUT_VALUE as _INPUT_VALUE
from taskplan.source.pointer import ITEM as _ITEM
from taskplan.source.pointer import MEMBER_VALUE as _MEMBER_VALUE
from taskplan.source.pointer import OUTPUT_VALUE as _OUTPUT_VALUE
from taskplan.source.pointer import SUFFIXES as _SUFFIXES
from taskplan.workflow.dialect import REQUEST, escape_literal
from taskplan.ir.typed import TypedPlan
from taskplan.model import btype as bt
from taskplan.model.btype import BType
from taskplan.model.plan import (
    ArrayValue,
    BooleanValue,
    CallTask,
    ChoiceValue,
    ConditionalTask,
    FieldValue,
    ForeachTask,
    IndexValue,
    InputValue,
    ItemValue,
    JsonValue,
    NullValue,
    NumberValue,
    ObjectValue,
    OperationTask,
    OutputValue,
    ParallelTask,
    PredicateValue,
    PresentValue,
    SequenceTask,
    StringValue,
    TaskOutput,
    TransformTask,
    ValueTask,
    effective_name,
)

TRANSFORM_TEMPLATE = (
    "You are one step of an automated workflow.\n"
    "Objective: {{ objective }}\n"
    "\n"
    "Inputs, as JSON:\n"
    "{{ inputs }}\n"
    "\n"
    "Answer with one JSON object that matches the response schema exactly.\n"
)
"""The fixed prompt of every transform: the compiler owns it; plan text only ever
enters through `values` (data, never template syntax)."""

_SEGMENT_RE = re.compile(r"^[A-Za-z0-9_-]+$")
_COMPARATORS = {
    "equal": "==",
    "not_equal": "!=",
    "less": "<",
    "less_equal": "<=",
    "greater": ">",
    "greater_equal": ">=",
}


def short_hash(key: str) -> str:
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]


def clean_segment(name: str) -> str:
    """`name` as an ID segment ([A-Za-z0-9_-]+); anything else gets a stable hash."""
    if _SEGMENT_RE.match(name):
        return name
    cleaned = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "x"
    return f"{cleaned}-h{short_hash(name)}"


def role_id(task_id: str, role: str) -> str:
    """`generated_id(task_id, role)` for one of a task's fixed roles (`inputs`, `validate`...):
    both are plain segments by construction (a task ID of a clean plan is one), so there is
    nothing to test or clean."""
    return f"__{task_id}.{role}"


_PLAIN_PARTS: dict[str, bool] = {}
"""Part -> whether it is a plain segment: the parts of generated IDs (task IDs, roles, port
and binding names) repeat, and a regex match costs ~1,600 instructions (its state is set up
anew on every call). Bounded (parts come from the plans a process compiles): cleared when full."""
_PLAIN_PARTS_MAX = 4096


def _plain_part(part: str) -> bool:
    plain = _PLAIN_PARTS.get(part)
    if plain is None:
        if len(_PLAIN_PARTS) >= _PLAIN_PARTS_MAX:
            _PLAIN_PARTS.clear()
        plain = _PLAIN_PARTS[part] = _SEGMENT_RE.fullmatch(part) is not None
    return plain


def generated_id(*parts: str) -> str:
    for part in parts:
        if not (_PLAIN_PARTS.get(part) or _plain_part(part)):  # a remembered plain part without a call
            return "__" + ".".join(map(clean_segment, parts))
    return "__" + ".".join(parts)  # every part a plain segment already (task IDs, roles, port names)


_MODEL_CLASSES = (
    StringValue, NumberValue, BooleanValue, NullValue, ObjectValue, ArrayValue, ChoiceValue, InputValue, ItemValue,
    IndexValue, PresentValue, OutputValue, FieldValue, JsonValue, PredicateValue,
    OperationTask, ValueTask, TransformTask, CallTask, SequenceTask, ConditionalTask, ParallelTask, ForeachTask,
)
_MODEL_CLASS = {c: c for c in _MODEL_CLASSES}


def model_class(m: Any) -> type | None:
    """Which TaskPlan value or task class `m` is an instance of (None: none of them).
    One dict look-up of its type: lowering would otherwise test every value and task
    against a dozen classes, one isinstance call each. A subclass is found the
    general way."""
    cls = _MODEL_CLASS.get(type(m))
    if cls is None:
        for c in _MODEL_CLASSES:
            if isinstance(m, c):
                return c
    return cls


def json_number(n: int | float) -> int | float:
    """A number literal as emitted: an integral one (`1e2`, `100.0`) is typed integer
    (taskplan.md), so it is written as one (`100`); `100.0` fails a draft-04 `integer`
    and strict integer parsers. (The structure pass bounds literals to +-2^53.)"""
    if type(n) is float and n.is_integer() and -_INT_BOUND <= n <= _INT_BOUND:
        return int(n)
    return n


_INT_BOUND = 2.0**53


def literal_value(v: Any) -> Any:
    """The plain JSON of a literal TaskValue."""
    cls = model_class(v)
    if cls is StringValue:
        return v.text
    if cls is NumberValue:
        return json_number(v.number)
    if cls is BooleanValue:
        return v.boolean
    if cls is NullValue:
        return None
    if cls is ObjectValue:
        return {m.name: literal_value(m.value) for m in v.members}
    if cls is ArrayValue:
        return [literal_value(i) for i in v.items]
    raise ValueError(f"not a literal: {v!r}")


def _field_defaults(schema: dict[str, Any], t: Any) -> dict[str, Any]:
    """A declared input's schema with the `default` of every optional object field that
    has one written into that field's property schema (through `properties` and `items`):
    the runtime fills it in where the input's value leaves the field out (docs/
    workflow-dialect.md, Workflow), so the default stands in for what the caller left out
    wherever the value goes. `t` is the input's TaskType. Copies only what changes (the
    schemas are shared between workflows and steps); nothing when no field has a default."""
    if t is None or type(schema) is not dict:
        return schema
    if t.kind == "array":
        items = schema.get("items")
        new = _field_defaults(items, t.items) if items is not None else None
        return schema if new is items else {**schema, "items": new}
    if t.kind != "object" or not t.fields or type(schema.get("properties")) is not dict:
        return schema
    properties = schema["properties"]
    changed: dict[str, Any] = {}
    for f in t.fields:
        prop = properties.get(f.name)
        if prop is None:
            continue
        new = _field_defaults(prop, f.type)
        if f.default is not None:
            new = {**new, "default": literal_value(f.default)}
        if new is not prop:
            changed[f.name] = new
    return {**schema, "properties": {**properties, **changed}} if changed else schema


def strict_schema(t: BType | None) -> dict[str, Any]:
    """The strict structured-output schema of a transform's result: every object closed
    with every property required; an optional field becomes nullable instead."""
    if t is None:
        return {}
    if t.kind != "object":
        if t.kind == "array":
            out = bt.to_json_schema(t)
            out["items"] = strict_schema(t.items)
            return out
        return bt.to_json_schema(t)
    props = {}
    for f in t.fields:
        ft = f.type if f.required else f.type.with_nullable(True)
        props[f.name] = strict_schema(ft)
    out: dict[str, Any] = {"type": ["object", "null"] if t.nullable else "object"}
    if t.description:
        out["description"] = t.description
    out["properties"] = props
    out["required"] = [f.name for f in t.fields]
    out["additionalProperties"] = False
    return out


def schema_of(t: BType | None) -> dict[str, Any]:
    return bt.to_json_schema(t) if t is not None else {}


def resolve_choices(
    typed: TypedPlan, reporter: Reporter, selections: Mapping[str, str], auto: bool
) -> dict[ChoiceNode, tuple[str, bool]] | None:
    """Choice -> (selected alternative, chosen by auto mode), for every choice the plan
    reads; None when one has no selection (CHOICE_REQUIRED reported)."""
    out: dict[ChoiceNode, tuple[str, bool]] = {}
    ok = True
    for c in typed.checked.choices:
        if not c.reads or c.duplicate:
            continue
        m = c.model
        selected = selections.get(c.id) or getattr(m, "selected", None)
        if selected is not None:
            out[c] = (selected, False)
        elif auto and getattr(m, "recommended", None):
            out[c] = (m.recommended, True)
        else:
            ok = False
            alternatives = [a.id for a in m.alternatives]
            reporter.report(
                "CHOICE_REQUIRED",
                c.pointer,
                f"choice `{c.id}` has no selection: {getattr(m, 'question', '') or 'it must be decided'}",
                subject={"choice": c.id},
                hint=f"select one with `--choose {c.id}=<{'|'.join(alternatives)}>`"
                + (f", or take the recommendation (`{m.recommended}`) with `--auto`" if m.recommended else ""),
            )
    return out if ok else None


def lower(
    typed: TypedPlan,
    reporter: Reporter,
    choices: Mapping[ChoiceNode, tuple[str, bool]],
) -> PlanningGraph:
    return _Lowerer(typed, reporter, choices).run()


_new_object = object.__new__



class _Site:
    """Where the helper steps of one consumer go: its workflow list, its ID prefix,
    its source pointer and its guard."""

    __slots__ = ("prefix", "task", "wf", "out", "out_data", "when", "source", "ids", "role")

    def __init__(
        self, prefix: tuple[str, ...] | None, out: list[Step], when: Expr | None, source: str, ids: dict[str, tuple],
        role: tuple[str, ...] = (),
    ):
        self.prefix = prefix
        """A scope's outputs' ID prefix, the parts of the workflow's name (`wf`); None until
        a helper step needs it (`_prefix`). A task's helper steps have their task's ID."""
        self.task: TaskNode | None = None
        """The task being lowered (None: a scope's outputs): the ID prefix and the source
        of its helper steps, read from it when one needs them (most tasks make none)."""
        self.wf = ""
        self.role = role
        """Part of the structural key, not of the ID: ("scope",) for a scope's outputs,
        whose prefix (the workflow's name, `main`) may also be a task's ID."""
        self.out = out
        self.out_data: list[dict[str, Any]] = []
        """The data of the steps of `out`, in step order (`Workflow.data`'s `steps` or `finally`)."""
        self.when = when
        self.source = source
        """The source of a scope output's helper steps (a task's is its pointer)."""
        self.ids = ids
        """The workflow's step IDs so far -> their structural keys (one registry per workflow)."""

    def claim(self, step_id: str, key: tuple) -> str:
        """`step_id`, or, when another structural key already holds it in this workflow,
        `step_id` with a short stable hash of `key` (never a position). `_step` registers it."""
        holder = self.ids.get(step_id)
        if holder is not None and holder != key:
            step_id = f"{step_id}-h{short_hash(repr(key))}"
        return step_id


def _prefix(site: _Site) -> tuple[str, ...]:
    """The site's ID prefix: `(task ID,)` for a task's helper steps, the parts of the
    workflow's name for a scope's outputs; made when a helper step needs it (most tasks
    make none)."""
    task = site.task
    if task is not None:
        return (task.id,)
    prefix = site.prefix
    if prefix is None:
        prefix = site.prefix = tuple(site.wf.split("."))
    return prefix


def _guarded(data: dict[str, Any], when: Expr) -> dict[str, Any]:
    """A step's data with its guard: `when` right after `source` (a cleanup step's)."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        out[k] = v
        if k == "source":
            out["when"] = f"${{{when.text}}}"
    return out


_NO_TASKS: frozenset[TaskNode] = frozenset()
_NO_TYPES: Mapping[str, BType | None] = {}
"""The export types of a scope the types pass has none for (read only)."""
_SCOPE_ROLE = ("scope",)


def _only_tested(scope: ScopeNode, tested: list[TaskNode]) -> set[TaskNode]:
    """The captured tasks of `scope` it only tests with `present` (`tested`: those it tests)."""
    read = {cap.target for cap in scope.captures.values() if cap.kind == "output"}
    return set(tested) - read


def _distinct_names(names: dict[tuple, str]) -> dict[tuple, str]:
    """Capture names made distinct (nearly never needed: names are distinct): a task and
    an input (or item) with one name both get a hash; again while a hashed name meets
    another name (a task may be called `g-hf82770`)."""
    while len(set(names.values())) != len(names):
        counts: dict[str, int] = {}
        for name in names.values():
            counts[name] = counts.get(name, 0) + 1
        names = {
            key: f"{name}-h{short_hash(_key_text(key))}" if counts[name] > 1 else name
            for key, name in names.items()
        }
    return names


def _schema_key(t: BType) -> tuple:
    """What `bt.to_json_schema(t)` reads, as a hashable value: kind, nullability, values,
    closedness, description, and for an object each field's name, requiredness and the key
    of its type, for an array the key of its items' type (an array of `never` has no items,
    only their description). Equal keys make equal schemas. One walk of the type, one
    tuple per field: (name, requiredness, the key of its type) or, for a leaf field (most
    are: no call for them), (name, requiredness, kind, nullability, values, closedness,
    description), inline (the lengths differ, so neither is taken for the other)."""
    kind = t.kind
    sub: Any = None
    if kind == "object":
        parts: list[Any] = []
        add = parts.append
        for f in t.fields:
            ft = f.type
            fk = ft.kind
            if fk == "object" or fk == "array":
                add((f.name, f.required, _schema_key(ft)))
            else:
                add((f.name, f.required, fk, ft.nullable, ft.enum, ft.const, ft.closed, ft.description))
        sub = tuple(parts)
    elif kind == "array":
        items = t.items or bt.ANY
        sub = ("never", items.description) if items.kind == "never" else _schema_key(items)
    return (kind, t.nullable, t.enum, t.const, t.closed, t.description, sub)


class _Lowerer:
    def __init__(self, typed: TypedPlan, reporter: Reporter, choices: Mapping[ChoiceNode, tuple[str, bool]]):
        self.tp = typed
        self.cp = typed.checked
        self.resolutions = self.cp.resolutions
        self.task_types = typed.tasks
        self.value_types = typed.values
        doc = reporter.document
        self.graph = PlanningGraph(
            name=effective_name(self.cp.plan, doc.path), plan_path=doc.path, digest=doc.digest
        )
        self.choice_literals: dict[ChoiceNode, Literal] = {}
        """Choice -> the Literal of its selected alternative's value, one for all its reads
        (Literals are never changed)."""
        for c, (alt_id, auto) in choices.items():
            self.graph.choices[c.id] = {"selected": alt_id, "auto": auto}
            for alt in c.model.alternatives:
                if alt.id == alt_id:
                    self.choice_literals[c] = Literal(literal_value(alt.value))
        self.wf_names: dict[ScopeNode, str] = {}
        self.cap_names: dict[ScopeNode, dict[tuple, str]] = {}
        self.site = _Site((), [], None, "", {})
        """Where the helper steps of the task being lowered go (`_workflow`)."""
        self.presence_only: dict[ScopeNode, set[TaskNode]] = {}
        """Per child scope, the captured tasks it only tests with `present`: passed as a
        boolean (did the task produce a non-null result), not as their result."""
        # Per-lowering memos (nothing outlives the document): see the methods below.
        self.schemas: dict[int, tuple[BType, dict[str, Any]]] = {}
        """id(type) -> (type, its JSON Schema) (`_schema`)."""
        self.interned: dict[tuple, dict[str, Any]] = {}
        """A type's schema-relevant content -> its JSON Schema: one dict per distinct schema
        (`_schema`)."""
        self.strict: dict[int, dict[str, Any]] = {}
        """id(a type's schema) -> the strict schema of the type (`_strict_schema`)."""
        self.any_schema: dict[str, Any] = {}
        """The schema of an unknown type (`_schema(None)`)."""
        self.step_paths: dict[tuple[str, str], Expr] = {}
        """(task ID, field) -> the Expr reading it."""
        self.string_exprs: dict[str, Expr] = {}
        """String literal -> the Expr of it (`_literal_expr`)."""
        self.input_paths: dict[str, Expr] = {}
        self.item_exprs: dict[str, Expr] = {}
        """`item` / `index` -> the Expr reading it in its foreach's body (`_item_ref`)."""
        """Input name -> the Expr reading it."""
        self.input_ports: dict[tuple[str, str], Expr] = {}
        """(input name, port) -> the Expr reading the port of a captured task."""
        self.port_reads: dict[tuple[TaskNode, str], Expr] = {}
        """(task, port) -> the Expr reading the port in the task's own scope (`_local_port`)."""
        self.op_literals: dict[Any, tuple[Any, dict[str, Literal], dict[str, Any], dict[str, Literal], dict[str, Any]]] = {}
        """Operation -> (operation, its executor config, its fixed inputs: `_op_literals`). An
        operation is hashed by identity (catalog.load.Operation: `eq=False`), in C: no `id` call."""

    def _step_path(self, task_id: str, field_name: str) -> Expr:
        """`task_step_path(task_id, field_name)`, made once per lowering: every reader of a
        task's result gets the same Expr (Exprs are never changed)."""
        key = (task_id, field_name)
        expr = self.step_paths.get(key)
        if expr is None:
            expr = self.step_paths[key] = task_step_path(task_id, field_name)
        return expr

    def _input_path(self, name: str) -> Expr:
        """`input_path(name)`, made once per lowering: a captured task is read under the same
        input name in every workflow that captures it."""
        expr = self.input_paths.get(name)
        if expr is None:
            expr = self.input_paths[name] = input_path(name)
        return expr

    def _input_port(self, name: str, port: str) -> Expr:
        """`input_path(name, port)` for the input `name` of a captured task (a plain segment:
        `_captures`), made once per lowering (see `_input_path`)."""
        key = (name, port)
        expr = self.input_ports.get(key)
        if expr is None:
            expr = self.input_ports[key] = task_input_path(name, port)
        return expr

    def _literal_expr(self, value: Any) -> Expr:
        """`literal_expr(value)`, made once per lowering for a string: a plan repeats its
        string literals (a status compared in every block), and quoting one goes through
        json.dumps. (Only strings: `True == 1` and `0.0 == -0.0` as keys.)"""
        if type(value) is not str:
            return literal_expr(value)
        expr = self.string_exprs.get(value)
        if expr is None:
            expr = self.string_exprs[value] = literal_expr(value)
        return expr

    def _op_literals(self, op: Any) -> tuple[Any, dict[str, Literal], dict[str, Any], dict[str, Literal], dict[str, Any]]:
        """(op, its executor config (with the `operation` an `operation.call` names) as
        Literals, as emitted, its host-owned inputs as Literals, as emitted), made once per
        operation and shared by the steps that call it (Literals and emitted data are never
        changed; the host-owned inputs are copied into each request by `|=`)."""
        hit = self.op_literals.get(op)
        if hit is None:
            fixed = {name: Literal(value) for name, value in op.fixed.items()}
            config = {k: Literal(v) for k, v in op.executor_config.items()}
            if op.executor == "operation.call" and "operation" not in config:
                config["operation"] = Literal(op.ref)
            hit = self.op_literals[op] = (
                op, config, render_tree(config), fixed, render_tree(fixed)
            )
        return hit

    def _schema(self, t: BType | None) -> dict[str, Any]:
        """`schema_of(t)`, found once per type object (BTypes are immutable), and one dict
        for all the types of one schema: the workflows that capture one task's result, and
        the steps that check one value, carry the schema of the same type; the types pass
        makes equal types for equal slots of the plan (the result of every value task of one
        shape). The dict is shared by them: read-only, like every field of a Step and all
        emitted data (the self-check's schema memos then find it by identity).

        A type met for the first time (most are: the types pass makes a type per task) is
        found by what its schema is made of (`_schema_key`: one walk of the type, no memo
        entry per nested type), made by `bt.to_json_schema` with each nested type's schema
        through `_schema` when no type of that schema was met before. Held to
        `bt.to_json_schema` by tests/test_lower_emitted.py."""
        if t is None:
            return self.any_schema
        hit = self.schemas.get(id(t))
        if hit is not None:
            return hit[1]
        key = _schema_key(t)
        try:
            schema = self.interned.get(key)
        except TypeError:  # pragma: no cover - a part that is not hashable (the constructors make tuples)
            schema = bt.to_json_schema(t, self._schema)
        else:
            if schema is None:
                schema = self.interned[key] = bt.to_json_schema(t, self._schema)
        self.schemas[id(t)] = (t, schema)
        return schema

    def _strict_schema(self, t: BType | None) -> dict[str, Any]:
        """`strict_schema(t)`, once per distinct schema of `t`: the strict schema is made
        of what the plain one is (kind, nullability, description, each field's name,
        requiredness and type, the items' type), so types of one `_schema` share one.
        Held to `strict_schema` by tests/test_lower_emitted.py."""
        if t is None:
            return strict_schema(t)
        key = id(self._schema(t))
        schema = self.strict.get(key)
        if schema is None:
            schema = self.strict[key] = strict_schema(t)
        return schema

    # ================================================================= driver

    def run(self) -> PlanningGraph:
        cp = self.cp
        root = cp.root
        wf_names = self.wf_names
        for scope in cp.scopes:
            role = scope.role
            if scope is root:
                wf_names[scope] = "main"
            elif role is GROUP_BODY:
                wf_names[scope] = f"{scope.owner.id}.group"
            elif role is BRANCH:
                wf_names[scope] = f"{scope.owner.id}.branch{scope.branch}"
            elif role is OTHERWISE:
                wf_names[scope] = f"{scope.owner.id}.otherwise"
            else:
                wf_names[scope] = f"{scope.owner.id}.body"
        workflows = self.graph.workflows
        for scope, name in wf_names.items():  # document order: main, nested scopes, group bodies
            # `scope.group`: the group whose body the scope is in, at any depth (None: under the root)
            group = scope.group
            if group is not None and not group.calls:
                continue  # a group nobody calls compiles to nothing, the scopes nested in it included
            workflows[name] = self._workflow(scope, name)
        return self.graph

    # ============================================================== workflows

    def _workflow(self, scope: ScopeNode, name: str) -> Workflow:
        wf = new_workflow(name, scope.pointer)
        inputs_data = self._inputs(scope, wf)
        # One site for the whole lowering, moved from task to task (a site is only read
        # while its task is lowered): the tasks of `steps`, then those of `finally`, then
        # the outputs, with one registry of step IDs per workflow.
        site = self.site
        site.out = wf.steps
        steps_data = site.out_data = []
        finally_data: list[dict[str, Any]] = []
        outputs_data: dict[str, Any] = {}
        site.when = None
        site.role = ()
        site.ids = {}
        task = self._task
        for t in scope.order:
            site.task = t
            task(t, scope, site)
        if scope.always_order:
            site.out = wf.finally_
            site.out_data = finally_data
            for t in scope.always_order:
                site.task = t
                site.when = self._guard(t, scope)
                task(t, scope, site)
        if scope.outputs:
            # the site of the scope's outputs: their helper steps go at the end of `steps`
            site.prefix = None
            site.task = None
            site.wf = name
            site.out = wf.steps
            site.out_data = steps_data
            site.when = None
            site.role = _SCOPE_ROLE
            outputs_types = self.tp.scope_outputs.get(scope) or _NO_TYPES
            outputs = wf.outputs
            for o in scope.outputs:
                out_name = o.name
                if out_name in outputs:
                    continue  # only the first output of a name
                pointer = site.source = o.pointer
                label = ("out", out_name)
                tree = self._value(o.model.value, pointer + "/value", scope, site, label)
                expr = tree if type(tree) is Expr else self._as_expr(tree, site, label)
                output = outputs[out_name] = new_output(expr, self._schema(outputs_types.get(out_name)))
                outputs_data[out_name] = output_data(output)
        # the workflow as emitted, its steps' data gathered as they were made (every step
        # lowering makes has its `data`)
        wf.data = workflow_data(inputs_data, steps_data, finally_data, outputs_data)
        return wf

    def _inputs(self, scope: ScopeNode, wf: Workflow) -> dict[str, Any]:
        """The workflow's inputs (`wf.inputs`), and returned as emitted."""
        inputs = wf.inputs
        emitted: dict[str, Any] = {}
        if scope is self.cp.root or scope.role is GROUP_BODY:
            for decl in self.cp.inputs if scope is self.cp.root else scope.owner.inputs:
                inp = inputs[decl.name] = self._declared_input(decl)
                emitted[decl.name] = input_data(inp)
            return emitted
        names = self.cap_names.get(scope)  # `_captures(scope)`: made by the call into the scope, lowered first
        if names is None:
            names = self._captures(scope)
        presence_only = self.presence_only[scope]
        task_types = self.task_types
        schemas = self.schemas
        for key, name in names.items():
            target = key[1]
            if key[0] == "task" and target not in presence_only:
                # a captured task's whole result (the commonest capture): `_capture_schema`,
                # inline, its type's schema found without a call when it was met before
                tt = task_types.get(target)
                whole = tt.whole if tt is not None else None
                hit = schemas.get(id(whole))
                schema = hit[1] if hit is not None else self._schema(whole)
            else:
                schema = self._capture_schema(key, scope)
            # `new_input(schema)`, inline (held to the class call by tests/test_lower_fast_paths.py)
            inp = _new_object(WorkflowInput)
            inp.schema = schema
            inp.required = True
            inp.default = None
            inp.has_default = False
            inputs[name] = inp
            emitted[name] = {"type": schema}  # `input_data(inp)`: required, no default
        return emitted

    def _declared_input(self, decl: InputDecl) -> WorkflowInput:
        m = decl.model
        schema = _field_defaults(self._schema(self.tp.inputs.get(decl)), m.type)
        if m.default is not None:
            return WorkflowInput(schema, False, literal_value(m.default), True)
        return WorkflowInput(schema, bool(m.required))

    def _captures(self, scope: ScopeNode) -> dict[tuple, str]:
        """What a child workflow takes as inputs: key -> input name. Keys:
        ("task", TaskNode), ("input", InputDecl), ("item"|"index", foreach TaskNode)."""
        names = self.cap_names.get(scope)
        if names is not None:
            return names
        readable: dict[tuple, str] = {}
        tested: list[TaskNode] | None = None
        for cap in scope.captures.values():
            kind = cap.kind
            if kind == "output" or kind == "present":
                target = cap.target
                key, name = ("task", target), target.id
                if kind == "present":
                    if tested is None:
                        tested = []
                    tested.append(target)
            elif kind == "input":
                key, name = ("input", cap.target), cap.target.name
            else:
                key, name = (kind, cap.target), kind
            if key not in readable:
                readable[key] = name
        if len(readable) > 1 and len(set(readable.values())) != len(readable):
            readable = _distinct_names(readable)
        self.cap_names[scope] = readable
        self.presence_only[scope] = _NO_TASKS if tested is None else _only_tested(scope, tested)
        return readable

    def _capture_schema(self, key: tuple, scope: ScopeNode) -> dict[str, Any]:
        kind, target = key
        if kind == "task" and target in self.presence_only[scope]:
            return {"type": "boolean"}
        if kind == "task":
            tt = self.task_types.get(target)
            return self._schema(tt.whole if tt is not None else None)
        if kind == "input":
            return self._schema(self.tp.inputs.get(target))
        if kind == "index":
            return {"type": "integer"}
        items = self.value_types.get(f"{target.pointer}/items")
        return self._schema(items.items if items is not None and items.kind == "array" else None)

    def _call_input(self, child: ScopeNode, scope: ScopeNode) -> tuple[dict[str, Any], dict[str, Any]]:
        """The inputs a call from `scope` passes to the child workflow of `child`, and the
        same as emitted (`render_tree` of them, made in the same loop: every call of a
        child workflow emits its inputs)."""
        out: dict[str, Any] = {}
        emitted: dict[str, Any] = {}
        presence_only = None
        names = self.cap_names.get(child)  # `_captures(child)`, found without a call once made
        if names is None:
            names = self._captures(child)
        for key, name in names.items():
            kind, target = key
            if kind == "task":
                if presence_only is None:
                    presence_only = self.presence_only[child]
                if target in presence_only:
                    v = self._presence_test(target, scope)
                else:
                    v = self._container(target, scope)
            elif kind == "input":
                v = self._input_ref(target, scope)
            elif kind == "item":
                v = self._item_ref(target, scope, "item")
            else:
                v = self._item_ref(target, scope, "index")
            out[name] = v
            # an Expr, or (a parallel's or a foreach's whole result) an object of them
            emitted[name] = f"${{{v.text}}}" if type(v) is Expr else render_tree(v)
        return out, emitted

    # ============================================================= references

    def _container(self, t: TaskNode, scope: ScopeNode) -> Any:
        """The whole result of task `t`, read from `scope`: an Expr, or (for parallel and
        foreach, whose ports come from several steps) an object of Exprs."""
        if t.scope is not scope:
            return self._input_path(self._captures(scope)[("task", t)])
        m = t.model
        cls = type(m)
        if cls is not OperationTask and cls not in _MODEL_CLASS:  # (the commonest task needs no look-up)
            cls = model_class(m)
        if cls is OperationTask:
            return self._step_path(t.id, "result")
        if cls is ValueTask or cls is TransformTask:
            return self._step_path(t.id, "value")
        if cls is SequenceTask or cls is CallTask or cls is ConditionalTask:
            return self._step_path(t.id, "outputs")
        return self._ports(t)

    def _ports(self, t: TaskNode) -> dict[str, Expr]:
        """Every port of task `t` read in its own scope, as an object."""
        out: dict[str, Expr] = {}
        for p in self.task_types[t].ports or {}:
            out[p] = self._local_port(t, p)
        return out

    def _local_port(self, t: TaskNode, port: str) -> Expr:
        """The Expr reading port `port` of task `t` in its own scope: made once per lowering
        (every reader of the port gets the same Expr; Exprs are never changed)."""
        expr = self.port_reads.get((t, port))
        return expr if expr is not None else self._new_port_read(t, port)

    def _new_port_read(self, t: TaskNode, port: str) -> Expr:
        """`_local_port(t, port)` the first time it is asked for."""
        expr = None
        m = t.model
        cls = type(m)
        if cls is not OperationTask and cls not in _MODEL_CLASS:  # (the commonest task needs no look-up)
            cls = model_class(m)
        field_name = _RESULT_FIELDS.get(cls)
        if field_name is not None:
            # `task_step_path(t.id, field_name, port)`, inline (most ports are read here)
            expr = _new_object(Expr)
            expr.text = f"data.steps.{t.id}.{field_name}" + (_SEGMENTS.get(port) or _new_segment(port))
            expr.simple = True
        elif cls is ConditionalTask:
            expr = generated_step_path(generated_id(t.id, "merge", port), "value")
        elif cls is ForeachTask:
            expr = generated_step_path(generated_id(t.id, "collect", port), "value")
        elif cls is ParallelTask:
            expr = _branch_port(t, port)
        if expr is None:
            raise AssertionError(f"no port {port!r} on {t!r}")
        self.port_reads[(t, port)] = expr
        return expr

    def _presence(self, t: TaskNode, scope: ScopeNode) -> Expr:
        if t.scope is not scope:
            return self._input_path(self._captures(scope)[("task", t)])
        cls = model_class(t.model)
        if cls is OperationTask:
            return self._step_path(t.id, "result")
        if cls is ValueTask or cls is TransformTask:
            return self._step_path(t.id, "value")
        if cls is ParallelTask:
            return self._step_path(t.id, "branches")
        if cls is ForeachTask:
            return self._step_path(t.id, "results")
        return self._step_path(t.id, "outputs")

    def _presence_test(self, t: TaskNode, scope: ScopeNode) -> Expr:
        """`present(t)` read from `scope`: a boolean expression. A child scope that only
        tests `t` gets the boolean itself from its caller: passing `t`'s result instead
        would read a result that may be null or missing (a cleanup's call would need a
        guard that makes the test always true; any call would fail on a null result)."""
        if t.scope is not scope:
            names = self._captures(scope)  # (fills presence_only[scope])
            if t in self.presence_only[scope]:
                return self._input_path(names[("task", t)])
        return new_expr(f"present({self._presence(t, scope).text})")

    def _input_ref(self, decl: InputDecl, scope: ScopeNode) -> Expr:
        native = scope is self.cp.root if decl.group is None else scope is decl.group.body
        if native:
            return self._input_path(decl.name)
        return self._input_path(self._captures(scope)[("input", decl)])

    def _item_ref(self, foreach: TaskNode, scope: ScopeNode, kind: str) -> Expr:
        if scope.owner is foreach and scope.role is FOREACH_BODY:  # `scope is foreach.child(FOREACH_BODY)`
            expr = self.item_exprs.get(kind)
            if expr is None:
                expr = self.item_exprs[kind] = new_expr(f"data.{kind}")
            return expr
        return self._input_path(self._captures(scope)[(kind, foreach)])

    def _guard(self, t: TaskNode, scope: ScopeNode) -> Expr | None:
        """A cleanup task runs only when every producer it reads has produced a result:
        the producer's own step, and for a foreach or a conditional the `collect` or
        `merge` steps its ports are read from. Each is tested by its record, never by a
        field of it: a result that is null is still a result (an operation that answered
        null, a conditional that chose a null side), and the cleanup must run. A producer
        of an enclosing scope needs no guard: its value is one of this workflow's inputs,
        bound whenever the workflow runs (the call that runs it comes after the producer)."""
        parts: list[str] = []
        resolutions = self.resolutions
        for d in t.deps.values():
            # Only reads of a value are guarded: `present(X)` reads nothing that could be
            # missing, and guarding it by X's presence would make it always true (a cleanup
            # that reports "X failed" could never run).
            if d.task.scope is not scope or not d.reads or not _reads_output(d.pointers, resolutions):
                continue
            refs = [step_record(d.task.id)]
            cls = model_class(d.task.model)
            if cls is ForeachTask or cls is ConditionalTask:
                for r in map(resolutions.get, d.pointers):
                    if r is None or r.kind != REF_OUTPUT:
                        continue
                    if r.port is not None and r.reader is t:
                        ports = [r.port]  # read directly: that port's step
                    elif cls is ForeachTask:
                        ports = list(self.task_types[d.task].ports or {})  # its whole result: every collect step
                    else:
                        ports = []  # a conditional's whole result is its own step's
                    role = "collect" if cls is ForeachTask else "merge"
                    for port in ports:
                        refs.append(step_record(generated_id(d.task.id, role, port)))
            for ref in refs:
                text = f"present({ref.text})"
                if text not in parts:
                    parts.append(text)
        if not parts:
            return None
        return new_expr(" and ".join(parts), len(parts) == 1)

    # ================================================================= values

    def _value(self, v: Any, ptr: str, scope: ScopeNode, site: _Site, label: tuple[str, ...]) -> Any:
        """Value `v` as a data tree (leaves: Expr, Literal, JSON scalars)."""
        cls = type(v)
        if cls is OutputValue:  # the commonest value first: a port read
            return self._output(v, ptr, scope, site, label)
        if cls not in _MODEL_CLASS:
            cls = model_class(v)
            if cls is OutputValue:
                return self._output(v, ptr, scope, site, label)
        # then literal scalars
        if cls is NumberValue:
            n = v.number
            return n if type(n) is int else json_number(n)
        if cls is StringValue:
            return new_literal(v.text)
        if cls is BooleanValue:
            return v.boolean
        if cls is NullValue:
            return None
        if cls is ObjectValue:
            return self._object(v, ptr, scope, site, label)
        if cls is ArrayValue:
            return self._array(v, ptr, scope, site, label)
        if cls is ChoiceValue:
            target = self.resolutions[ptr].target
            return self.choice_literals[target]
        if cls is InputValue:
            return self._input_ref(self.resolutions[ptr].target, scope)
        if cls is ItemValue or cls is IndexValue:
            return self._item_ref(self.resolutions[ptr].target, scope, v.kind)
        if cls is PresentValue:
            target = self.resolutions[ptr].target
            return self._presence_test(target, scope)
        if cls is FieldValue:
            return self._field(v, ptr, scope, site, label)
        if cls is JsonValue:
            inner = self._value(v.items[0], ptr + "/items/0", scope, site, label + ("0",))
            return new_expr(f"json({self._as_expr(inner, site, label + ('json',)).text})")
        if cls is PredicateValue:
            return self._predicate(v, ptr, scope, site, label)
        raise AssertionError(f"cannot lower {v!r}")  # a clean plan has no other value

    def _object(self, v: ObjectValue, ptr: str, scope: ScopeNode, site: _Site, label: tuple[str, ...]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        i = 0  # (a counter: cheaper than enumerate for a few members)
        for m in v.members:
            name = m.name
            member_ptr = ptr + (_MEMBER_VALUE[i] if i < _SUFFIXES else f"/members/{i}/value")
            out[name] = self._value(m.value, member_ptr, scope, site, label + (name,))
            i += 1
        return out

    def _array(self, v: ArrayValue, ptr: str, scope: ScopeNode, site: _Site, label: tuple[str, ...]) -> list[Any]:
        out: list[Any] = []
        i = 0  # (a counter: cheaper than enumerate for a few items)
        for item in v.items:
            if i < _SUFFIXES:
                out.append(self._value(item, ptr + _ITEM[i], scope, site, label + (_INDEX[i],)))
            else:
                out.append(self._value(item, f"{ptr}/items/{i}", scope, site, label + (str(i),)))
            i += 1
        return out

    def _output(self, v: OutputValue, ptr: str, scope: ScopeNode, site: _Site, label: tuple[str, ...]) -> Any:
        t = self.resolutions[ptr].target
        port = v.port
        if port is None:
            return self._container(t, scope)
        if port in self.task_types[t].optional_ports:
            # an optional port: a checked projection at the consumer
            return self._project(self._container(t, scope), [port], self.value_types.get(ptr), site, label, ptr)
        if t.scope is scope:
            expr = self.port_reads.get((t, port))
            return expr if expr is not None else self._new_port_read(t, port)
        names = self.cap_names.get(scope)  # `_captures(scope)`, found without a call once made
        if names is None:
            names = self._captures(scope)
        return self._input_port(names[("task", t)], port)

    def _field(self, v: FieldValue, ptr: str, scope: ScopeNode, site: _Site, label: tuple[str, ...]) -> Expr:
        """A (nested) field selection: one checked projection of the whole path."""
        names: list[str] = []
        cur, cur_ptr = v, ptr
        while model_class(cur) is FieldValue:
            names.insert(0, cur.port)
            cur, cur_ptr = cur.items[0], cur_ptr + "/items/0"
        base: Any
        if model_class(cur) is OutputValue and cur.port is not None:
            t = self.resolutions[cur_ptr].target
            container = self._container(t, scope)
            if isinstance(container, Expr):
                base, names = container, [cur.port] + names
            else:
                base = self._local_port(t, cur.port)
        else:
            base = self._value(cur, cur_ptr, scope, site, label + ("of",))
        return self._project(base, names, self.value_types.get(ptr), site, label, ptr)

    def _project(
        self, base: Any, names: list[str], t: BType | None, site: _Site, label: tuple[str, ...], source: str
    ) -> Expr:
        from_expr = self._as_expr(base, site, label + ("from",))
        prefix = _prefix(site)
        key = ("project",) + site.role + prefix + label
        step_id = site.claim(generated_id(*prefix, *label, "project"), key)
        path, schema = list(names), self._schema(t)
        self._step(
            site, step_id, "value.project", source, {"from": from_expr, "path": path, "schema": schema, "required": True},
            key,
            {
                "id": step_id, "type": "value.project", "source": source, "from": f"${{{from_expr.text}}}",
                "path": path, "schema": schema, "required": True,
            },
        )
        return generated_step_path(step_id, "value")

    def _predicate(self, v: PredicateValue, ptr: str, scope: ScopeNode, site: _Site, label: tuple[str, ...]) -> Expr:
        ops = []
        i = 0  # (a counter: cheaper than enumerate for one or two operands)
        for item in v.items:
            if i < _SUFFIXES:
                item_ptr, item_label = ptr + _ITEM[i], label + (_INDEX[i],)
            else:
                item_ptr, item_label = f"{ptr}/items/{i}", label + (str(i),)
            i += 1
            tree = self._value(item, item_ptr, scope, site, item_label)
            ops.append(tree if type(tree) is Expr else self._as_expr(tree, site, item_label))
        name = v.predicate
        if name == "not":
            return new_expr(f"not {ops[0].operand()}", False)
        if name == "and" or name == "or":
            return new_expr(f"{ops[0].operand()} {name} {ops[1].operand()}", False)
        return new_expr(f"{ops[0].operand()} {_COMPARATORS[name]} {ops[1].operand()}", False)

    def _as_expr(self, tree: Any, site: _Site, label: tuple[str, ...]) -> Expr:
        """A data tree as one expression: scalars become expression literals; objects and
        arrays are materialized by a `set` step and read back."""
        if type(tree) is Expr or isinstance(tree, Expr):
            return tree
        if isinstance(tree, Literal) and not isinstance(tree.value, (dict, list)):
            return self._literal_expr(tree.value)
        if tree is None or isinstance(tree, (bool, int, float, str)):
            return self._literal_expr(tree)
        prefix = _prefix(site)
        key = ("set",) + site.role + prefix + label
        step_id = site.claim(generated_id(*prefix, *label, "value"), key)
        task = site.task
        source = task.pointer if task is not None else site.source
        self._step(
            site, step_id, "set", source, {"value": tree}, key,
            {"id": step_id, "type": "set", "source": source, "value": render_tree(tree)},
        )
        return generated_step_path(step_id, "value")

    # ================================================================== tasks

    def _step(
        self, site: _Site, step_id: str, type_: str, source: str, fields: dict[str, Any], key: tuple,
        data: dict[str, Any],
    ) -> None:
        """A step with `fields`, and `data`: the step as to_data() emits it (`Step.data`),
        made by the caller with the same fields as emitted, in their order, where each
        field's form is known; the guard (`when`) is put in here."""
        # Business IDs and the fixed roles of one task (merge, collect, validate, the
        # transform's steps) are unique by construction: the task ID is unique in the plan.
        site.ids[step_id] = key
        when = site.when
        if when is not None:
            data = _guarded(data, when)
        # `Step(step_id, type_, source, fields, key, when, None, data)`, made without calling the
        # class (see graph.new_expr), here rather than in a function of its own: one for every
        # step of the graph. Held to the class call by tests/test_lower_fast_paths.py.
        step = _new_object(Step)
        step.id = step_id
        step.type = type_
        step.source = source
        step.fields = fields
        step.key = key
        step.when = when
        step.title = None
        step.data = data
        site.out.append(step)
        site.out_data.append(data)

    def _task(self, t: TaskNode, scope: ScopeNode, site: _Site) -> None:
        m = t.model
        cls = type(m)
        if cls is not OperationTask and cls not in _MODEL_CLASS:  # (the commonest task needs no look-up)
            cls = model_class(m)
        tid = t.id
        if cls is OperationTask:
            task_types = self.task_types
            resolutions = self.resolutions
            port_reads = self.port_reads
            op = task_types[t].operation
            request: dict[str, Any] = {}
            emitted: dict[str, Any] = {}
            pointer = t.pointer
            # the commonest task: its bindings' fields read as slots, a port read
            # dispatched at once
            i = -1
            for b in m.inputs:
                i += 1
                value = b.value
                name = b.name
                if type(value) is NumberValue:  # a literal number: no pointer to make, nothing to resolve
                    n = value.number
                    request[name] = emitted[name] = n if type(n) is int else json_number(n)
                    continue
                ptr = pointer + (_INPUT_VALUE[i] if i < _SUFFIXES else f"/inputs/{i}/value")
                if type(value) is OutputValue:
                    # `self._output(...)`, its commonest case inline: a required port of a
                    # task of this scope, read by the Expr made for it once per lowering
                    producer = resolutions[ptr].target
                    port = value.port
                    if (
                        port is not None and producer.scope is scope
                        and port not in task_types[producer].optional_ports
                    ):
                        v = port_reads.get((producer, port)) or self._new_port_read(producer, port)
                        request[name] = v
                        emitted[name] = f"${{{v.text}}}"
                        continue
                    v = self._output(value, ptr, scope, site, ("in", name))
                else:
                    v = self._value(value, ptr, scope, site, ("in", name))
                request[name] = v
                tv = type(v)
                if tv is Expr:
                    emitted[name] = f"${{{v.text}}}"
                elif tv is Literal:  # a string literal (`render_tree`'s way, without its call)
                    emitted[name] = escape_literal(v.value)
                elif tv is int or tv is float or tv is bool or v is None:
                    emitted[name] = v
                else:
                    emitted[name] = render_tree(v)
            hit = self.op_literals.get(op)
            if hit is None:
                hit = self._op_literals(op)
            # host-owned inputs, injected after the bindings (`|=`: `dict.update` packs its
            # arguments in a tuple)
            request |= hit[3]
            emitted |= hit[4]
            config: dict[str, Any] = hit[1].copy()
            config[REQUEST] = request
            config_emitted = hit[2].copy()
            config_emitted[REQUEST] = emitted
            executor, effect = op.executor, op.effect
            key = ("task", tid)
            # `self._step(site, tid, executor, pointer, fields, key, data)`, inline: the commonest
            # step (held to the class call, with and without a guard, by tests/test_lower_fast_paths.py)
            site.ids[tid] = key
            when = site.when
            if when is None:
                data = {"id": tid, "type": executor, "source": pointer, "input": config_emitted, "effect": effect}
            else:  # a cleanup step: `_guarded(data, when)`, made at once
                data = {
                    "id": tid, "type": executor, "source": pointer, "when": f"${{{when.text}}}",
                    "input": config_emitted, "effect": effect,
                }
            step = _new_object(Step)
            step.id = tid
            step.type = executor
            step.source = pointer
            step.fields = {"input": config, "effect": effect}
            step.key = key
            step.when = when
            step.title = None
            step.data = data
            site.out.append(step)
            site.out_data.append(data)
        elif cls is ValueTask:
            pointer = t.pointer
            value: dict[str, Any] = {}
            i = 0  # (a counter: cheaper than enumerate for a few outputs)
            for o in m.outputs:
                name = o.name
                value[name] = self._value(
                    o.value, pointer + (_OUTPUT_VALUE[i] if i < _SUFFIXES else f"/outputs/{i}/value"), scope, site,
                    ("out", name),
                )
                i += 1
            self._step(
                site, tid, "set", pointer, {"value": value}, ("task", tid),
                {"id": tid, "type": "set", "source": pointer, "value": render_tree(value)},
            )
        elif cls is TransformTask:
            self._transform(t, m, scope, site)
        elif cls is CallTask:
            pointer = t.pointer
            inputs, emitted = self._bindings(m, pointer, scope, site)
            self._workflow_call(site, tid, pointer, self.wf_names[t.group.body], inputs, emitted)
        elif cls is SequenceTask:
            body = t.child(BODY)
            self._workflow_call(site, tid, t.pointer, self.wf_names[body], *self._call_input(body, scope))
        elif cls is ConditionalTask:
            self._conditional(t, m, scope, site)
        elif cls is ParallelTask:
            branches = []
            branches_emitted = []
            for branch in t.children:
                call = self.wf_names[branch]
                call_input, input_emitted = self._call_input(branch, scope)
                if call_input:
                    branches.append({"call": call, "input": call_input})
                    branches_emitted.append({"call": call, "input": input_emitted})
                else:
                    branches.append({"call": call})
                    branches_emitted.append({"call": call})
            pointer, limit = t.pointer, m.maxConcurrency
            self._step(
                site, tid, "parallel", pointer, {"branches": branches, "max_concurrency": limit}, ("task", tid),
                {
                    "id": tid, "type": "parallel", "source": pointer, "branches": branches_emitted,
                    "max_concurrency": limit,
                },
            )
        elif cls is ForeachTask:
            self._foreach(t, m, scope, site)
        else:  # pragma: no cover - a clean plan has no placeholder
            raise AssertionError(f"cannot lower {t!r}")

    def _bindings(self, m: Any, pointer: str, scope: ScopeNode, site: _Site) -> tuple[dict[str, Any], dict[str, Any]]:
        """A task's input bindings (`m.inputs`) as a data tree, by name, and the same as
        emitted (`render_tree` of it, made in the same loop)."""
        out: dict[str, Any] = {}
        emitted: dict[str, Any] = {}
        i = 0  # (a counter: cheaper than enumerate for a few bindings)
        for b in m.inputs:
            name = b.name
            ptr = pointer + (_INPUT_VALUE[i] if i < _SUFFIXES else f"/inputs/{i}/value")
            v = out[name] = self._value(b.value, ptr, scope, site, ("in", name))
            emitted[name] = f"${{{v.text}}}" if type(v) is Expr else render_tree(v)
            i += 1
        return out, emitted

    def _workflow_call(
        self, site: _Site, tid: str, pointer: str, workflow: str, inputs: dict[str, Any], emitted: dict[str, Any]
    ) -> None:
        """The `workflow.call` step of task `tid` (a group call or a sequence), with its
        inputs (`emitted`: as emitted) when it has any."""
        if inputs:
            self._step(
                site, tid, "workflow.call", pointer, {"workflow": workflow, "input": inputs}, ("task", tid),
                {"id": tid, "type": "workflow.call", "source": pointer, "workflow": workflow, "input": emitted},
            )
        else:
            self._step(
                site, tid, "workflow.call", pointer, {"workflow": workflow}, ("task", tid),
                {"id": tid, "type": "workflow.call", "source": pointer, "workflow": workflow},
            )

    def _transform(self, t: TaskNode, m: TransformTask, scope: ScopeNode, site: _Site) -> None:
        tid = t.id
        pointer = t.pointer
        inputs, inputs_emitted = self._bindings(m, pointer, scope, site)
        inputs_id = role_id(tid, "inputs")
        prompt_id = role_id(tid, "prompt")
        call_id = role_id(tid, "call")
        step = self._step
        step(
            site, inputs_id, "set", pointer, {"value": inputs}, ("transform", tid, "inputs"),
            {"id": inputs_id, "type": "set", "source": pointer, "value": inputs_emitted},
        )
        objective = m.objective or ""
        inputs_json = new_expr(f"json({generated_step_path(inputs_id, 'value').text})")
        step(
            site, prompt_id, "template.render", pointer,
            {"template": TRANSFORM_TEMPLATE, "values": {"objective": new_literal(objective), "inputs": inputs_json}},
            ("transform", tid, "prompt"),
            {
                "id": prompt_id, "type": "template.render", "source": pointer, "template": TRANSFORM_TEMPLATE,
                "values": {"objective": escape_literal(objective), "inputs": f"${{{inputs_json.text}}}"},
            },
        )
        schema = self._strict_schema(self.task_types[t].whole)
        result_ptr = pointer + "/resultType"
        prompt = generated_step_path(prompt_id, "text")
        step(
            site, call_id, "llm.call", result_ptr, {"prompt": prompt, "schema": schema}, ("transform", tid, "call"),
            {"id": call_id, "type": "llm.call", "source": result_ptr, "prompt": f"${{{prompt.text}}}", "schema": schema},
        )
        # the result is validated (enum and nullability included) before anything reads it
        value = generated_step_path(call_id, "json")
        step(
            site, tid, "value.validate", result_ptr, {"value": value, "schema": schema}, ("task", tid),
            {"id": tid, "type": "value.validate", "source": result_ptr, "value": f"${{{value.text}}}", "schema": schema},
        )

    def _conditional(self, t: TaskNode, m: ConditionalTask, scope: ScopeNode, site: _Site) -> None:
        tid = t.id
        pointer = t.pointer
        cond_tree = self._value(m.condition, pointer + "/condition", scope, site, ("cond",))
        cond = cond_tree if type(cond_tree) is Expr else self._as_expr(cond_tree, site, ("cond",))
        body = t.child(BODY)
        call = self.wf_names[body]
        when = f"${{{cond.text}}}"
        call_input, input_emitted = self._call_input(body, scope)
        if call_input:
            case: dict[str, Any] = {"when": cond, "call": call, "input": call_input}
            case_emitted: dict[str, Any] = {"when": when, "call": call, "input": input_emitted}
        else:
            case = {"when": cond, "call": call}
            case_emitted = {"when": when, "call": call}
        other = t.child(OTHERWISE)
        if other is not None:
            call = self.wf_names[other]
            other_input, other_emitted = self._call_input(other, scope)
            if other_input:
                default: dict[str, Any] = {"call": call, "input": other_input}
                default_emitted: dict[str, Any] = {"call": call, "input": other_emitted}
            else:
                default = {"call": call}
                default_emitted = {"call": call}
            self._step(
                site, tid, "switch", pointer, {"cases": [case], "default": default}, ("task", tid),
                {"id": tid, "type": "switch", "source": pointer, "cases": [case_emitted], "default": default_emitted},
            )
        else:
            self._step(
                site, tid, "switch", pointer, {"cases": [case]}, ("task", tid),
                {"id": tid, "type": "switch", "source": pointer, "cases": [case_emitted]},
            )
        ports = self.task_types[t].ports or {}
        outputs = self._step_path(tid, "outputs")
        outputs_emitted = f"${{{outputs.text}}}"
        for o in body.outputs:
            name = o.name
            if name not in ports:
                continue
            step_id, source = generated_id(tid, "merge", name), o.pointer
            path, schema = [name], self._schema(ports[name])
            self._step(
                site, step_id, "value.project", source,
                {"from": outputs, "path": path, "schema": schema, "required": True}, ("merge", tid, name),
                {
                    "id": step_id, "type": "value.project", "source": source, "from": outputs_emitted, "path": path,
                    "schema": schema, "required": True,
                },
            )

    def _foreach(self, t: TaskNode, m: ForeachTask, scope: ScopeNode, site: _Site) -> None:
        tid = t.id
        pointer = t.pointer
        items_ptr = pointer + "/items"
        items_tree = self._value(m.items, items_ptr, scope, site, ("items",))
        items = items_tree if type(items_tree) is Expr else self._as_expr(items_tree, site, ("items",))
        validate_id = role_id(tid, "validate")
        # the collection's size is checked before any item is dispatched
        schema = self._schema(self.value_types.get(items_ptr))
        max_items = m.maxItems
        self._step(
            site, validate_id, "value.validate", items_ptr, {"value": items, "schema": schema, "max_items": max_items},
            ("validate", tid),
            {
                "id": validate_id, "type": "value.validate", "source": items_ptr, "value": f"${{{items.text}}}",
                "schema": schema, "max_items": max_items,
            },
        )
        body = t.child(FOREACH_BODY)
        validated = generated_step_path(validate_id, "value")
        call = self.wf_names[body]
        fields: dict[str, Any] = {"items": validated, "call": call}
        data: dict[str, Any] = {
            "id": tid, "type": "loop.parallel" if m.parallel else "loop.sequential", "source": pointer,
            "items": f"${{{validated.text}}}", "call": call,
        }
        call_input, input_emitted = self._call_input(body, scope)
        if call_input:
            fields["input"] = call_input
            data["input"] = input_emitted
        if m.parallel:
            fields["max_concurrency"] = data["max_concurrency"] = m.maxConcurrency
        self._step(site, tid, data["type"], pointer, fields, ("task", tid), data)
        seen: set[str] = set()
        results = self._step_path(tid, "results")
        results_emitted = f"${{{results.text}}}"
        for o in body.outputs:
            name = o.name
            if name in seen:
                continue
            seen.add(name)
            step_id, source = generated_id(tid, "collect", name), o.pointer
            path = [name]
            self._step(
                site, step_id, "array.project", source, {"from": results, "path": path}, ("collect", tid, name),
                {"id": step_id, "type": "array.project", "source": source, "from": results_emitted, "path": path},
            )


_RESULT_FIELDS = {
    OperationTask: "result", ValueTask: "value", TransformTask: "value", SequenceTask: "outputs", CallTask: "outputs",
}
"""Task class -> the field of its own step its ports are read from (a conditional's, a
foreach's and a parallel's ports come from other steps)."""


def _branch_port(t: TaskNode, port: str) -> Expr | None:
    """Port `port` of parallel task `t`: read from the first branch that exports it."""
    for i, branch in enumerate(t.children):
        for o in branch.outputs:
            if o.name == port:
                return task_step_path(t.id, "branches", i, port)
    return None


def _reads_output(pointers: list[str], resolutions: Mapping[str, Any]) -> bool:
    """Whether some of `pointers` resolves to a read of a task's output."""
    for p in pointers:
        r = resolutions.get(p)
        if r is not None and r.kind == REF_OUTPUT:
            return True
    return False


def _key_text(key: tuple) -> str:
    kind, target = key
    name = getattr(target, "id", None) or getattr(target, "name", None) or ""
    return f"{kind}:{name}:{getattr(target, 'pointer', '')}"
