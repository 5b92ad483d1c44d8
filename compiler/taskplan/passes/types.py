"""The types pass: contracts from the catalog, port typing, values, predicates,
conditions, defaults, choices and artifacts (taskplan.md: Operations, Values,
Types, Groups, Choices; catalog.md).

Input: the CheckedPlan (scopes resolved, dependencies ordered) and the Catalog
(or None: no catalog given, so operation contracts are unknown and nothing is
reported about them). Output: the TypedPlan.

Order: each scope's tasks are typed in their topological order, so a producer
is typed before any reader (captures make the compound task depend on the
producer, so ancestors' values are typed before the child scope). Group bodies
are typed once, on the first call that needs them. A read of something whose
type is unknown (a declaration in error, a cycle) yields an unknown type (None)
and nothing more is reported: one mistake, one diagnostic.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from taskplan.diagnostics import Related, Reporter
from taskplan.ir.checked import BODY, FOREACH_BODY, OTHERWISE, CheckedPlan, ChoiceNode, GroupNode, InputDecl, ScopeNode, TaskNode
from taskplan.ir.typed import TaskTypes, TypedPlan
from taskplan.model import btype as bt
from taskplan.model.btype import BType, Field, Mismatch, Slot, new_slot
from taskplan.model.plan import (
    PREDICATES,
    ArrayValue,
    BooleanValue,
    CallTask,
    ChoiceValue,
    ConditionalTask,
    FieldValue,
    ForeachTask,
    IndexValue,
    InputValue,
    InvalidTask,
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
    TaskInput,
    TaskOutput,
    TaskType,
    TransformTask,
    ValueTask,
    dropped_fields,
    has_shape_error,
    is_broken,
)

from taskplan.fastinit import maker
from taskplan.passes.subjects import subject_at
from taskplan.source.pointer import INPUT_VALUE as _INPUT_VALUE  # pointer suffixes, made once
from taskplan.source.pointer import ITEM as _ITEM
from taskplan.source.pointer import MEMBER as _MEMBER
from taskplan.source.pointer import OUTPUT_VALUE as _OUTPUT_VALUE
from taskplan.source.pointer import SUFFIXES as _SUFFIXES

if TYPE_CHECKING:
    from taskplan.catalog.load import Catalog, Operation, Resolution

_LITERALS = (NullValue, StringValue, NumberValue, BooleanValue, ObjectValue, ArrayValue)


_tuple_new = tuple.__new__
_SCALARS = bt.SCALAR_KINDS


def run(checked: CheckedPlan, catalog: "Catalog | None", reporter: Reporter) -> TypedPlan:
    return _Typer(checked, catalog, reporter).run()


def is_literal(value: Any) -> bool:
    """A literal, recursively: null, string, number, boolean, and objects and arrays of literals."""
    stack = [value]
    while stack:
        v = stack.pop()
        if is_broken(v):
            continue  # a value in error was reported where it is; it is not also "not a literal"
        if not isinstance(v, _LITERALS):
            return False
        if isinstance(v, ObjectValue):
            stack.extend(m.value for m in v.members if isinstance(m, TaskOutput))
        elif isinstance(v, ArrayValue):
            stack.extend(v.items)
    return True


class _Binding:
    """An operation binding to an artifact-consuming port, checked once origins are known."""

    __slots__ = ("task", "op", "port", "kind", "pointer", "value", "scope", "type")

    def __init__(self, task, op, port, kind, pointer, value, scope, type_):
        self.task, self.op, self.port, self.kind = task, op, port, kind
        self.pointer, self.value, self.scope, self.type = pointer, value, scope, type_


class _Contract(NamedTuple):
    """What `_operation` reads of an operation, for every task calling it."""

    input_ports: Mapping[str, Field]
    """Port name -> the port (`input_type.get_field`)."""
    fixed: Mapping[str, Any]
    consumes: Mapping[str, str]
    required_ports: tuple[Field, ...]
    output_type: BType | None
    output_port_types: Mapping[str, BType]
    optional_output_ports: frozenset[str]

    @classmethod
    def of(cls, op: "Operation") -> "_Contract":
        out_t = op.output_type
        ports: dict[str, Field] = {}
        for f in op.input_type.fields:
            ports.setdefault(f.name, f)
        out_ports: Mapping[str, BType] = op.output_port_types if out_t is not None else {}
        optional = op.optional_output_ports if out_t is not None else frozenset()
        if out_t is not None and out_t.nullable:
            # A port of a result that may be null may be null too (as `field` of a nullable
            # object is), made so by the result's null slot; and it is read like an optional
            # port, by a checked projection (a plain path through a null result means nothing).
            null_slot = out_t.null_slot
            out_ports = {name: t.with_nullable(True, null_slot) for name, t in out_ports.items()}
            optional = frozenset(out_ports)
        return cls(ports, op.fixed, op.consumes, op.required_ports, out_t, out_ports, optional)


def _port_check(i: int, port: Field) -> tuple[str, Field, str | None, bool]:
    """What a clean call (`_clean_call`) checks of its binding `i` to `port`, found once:
    (the pointer suffix of the binding's value, the port, the port's kind when it is a
    scalar kind without enum or const (else None), whether the port may be null). A value
    of exactly that scalar kind fits the port unless the value may be null and the port
    may not: what `bt.fits` finds, without its call. (A plain tuple: a NamedTuple is
    unpacked through its iterator.)"""
    rt = port.type
    plain = rt.kind in _SCALARS and rt.const is None and rt.enum is None
    suffix = _INPUT_VALUE[i] if i < _SUFFIXES else f"/inputs/{i}/value"
    return (suffix, port, rt.kind if plain else None, rt.nullable)


class _Typer:
    def __init__(self, checked: CheckedPlan, catalog: "Catalog | None", reporter: Reporter):
        self.cp = checked
        self.catalog = catalog
        self.rep = reporter
        self.file = reporter.document.path
        self.out = TypedPlan(checked, catalog)
        self.values = self.out.values
        self.tasks = self.out.tasks
        self.resolutions = checked.resolutions
        self._copy_scopes = checked.copy_scopes
        self._type_cache: dict[int, BType | None] = {}
        self._item_types: dict[TaskNode, BType | None] = {}
        self._scopes_done: set[ScopeNode] = set()
        self._groups_busy: set[GroupNode] = set()
        # artifacts
        self._consuming: list[_Binding] = []
        self._missing_consumed: list[tuple[TaskNode, "Operation", Field, str, bool]] = []
        self._produced: set[str] = set()
        self._any_producer = catalog is None
        self._origin_memo: dict[Any, frozenset[str] | None] = {}
        self._contracts: dict["Operation", _Contract] = {}
        """Operation -> what the tasks calling it are checked against (looked up once)."""
        self._clean_calls: dict[tuple, tuple | bool] = {}
        """(operation reference, *binding names) -> `_clean_call`'s finding."""
        self._bad_names = checked.identity.bad_names
        self._clean_calls_on = catalog is not None and not self._bad_names
        """Whether `_operation` may look for clean calls (a catalog; no binding name in error)."""
        self._call_binding_errors: set[str] = set()
        """Pointers of call bindings of the wrong type (TASK_GROUP_INPUT_TYPE)."""
        self._call_ports: dict[GroupNode, TaskTypes] = {}
        """Group -> the typed interface of a call of it, once its body is typed (shared by
        its calls, read only)."""
        self._wholes: dict[tuple, BType] = {}
        """(port names..., ids of their types...) -> the whole result of the tasks with those
        ports (`_whole`; each key's types are kept alive by its whole's fields)."""

    # ================================================================== driver

    def run(self) -> TypedPlan:
        cp = self.cp
        for decl in cp.inputs:
            self._declare_input(decl)
        for g in cp.groups:
            for decl in g.inputs:
                self._declare_input(decl)
        for c in cp.choices:
            self._choice(c)
        self._scope(cp.root)
        for g in cp.groups:
            self._group(g)
        self._check_artifacts()
        return self.out

    # ============================================================ declarations

    def task_type(self, t: Any, pointer: str) -> BType | None:
        """The BType of a TaskType model written at `pointer` (None: malformed, already reported)."""
        key = id(t)
        if key in self._type_cache:
            return self._type_cache[key]
        result = bt.from_task_type(t, self.file, pointer) if isinstance(t, TaskType) else None
        self._type_cache[key] = result
        return result

    def _declare_input(self, decl: InputDecl) -> None:
        model = decl.model
        if not isinstance(model, TaskInput):
            self.out.inputs[decl] = None
            return
        t = self.task_type(model.type, f"{decl.pointer}/type")
        self.out.inputs[decl] = t
        self._type_defaults(model.type, f"{decl.pointer}/type", t)
        if model.default is not None:
            self._default(model.default, f"{decl.pointer}/default", t, decl.name)

    def _type_defaults(self, model: Any, pointer: str, t: BType | None) -> None:
        """Defaults of object-type fields must be literals that fit the field."""
        if not isinstance(model, TaskType) or t is None:
            return
        stack: list[tuple[TaskType, str, BType]] = [(model, pointer, t)]
        while stack:
            m, ptr, ty = stack.pop()
            if m.items is not None and ty.items is not None:
                stack.append((m.items, f"{ptr}/items", ty.items))
            for j, f in enumerate(m.fields):
                if not isinstance(f, TaskInput):
                    continue
                field_t = ty.get_field(f.name)
                if field_t is None:
                    continue
                stack.append((f.type, f"{ptr}/fields/{j}/type", field_t.type))
                if f.default is not None:
                    self._default(f.default, f"{ptr}/fields/{j}/default", field_t.type, f.name)

    def _default(self, value: Any, pointer: str, t: BType | None, name: str) -> None:
        vt = self.value(value, pointer, None)
        if is_broken(value):
            return
        if not is_literal(value):
            self.rep.report(
                "TASK_DEFAULT_INVALID",
                pointer,
                f"the default of `{name}` must be a literal",
                subject={"input": name},
                hint="write a literal (null, string, number, boolean, or an object or array of literals)",
            )
            return
        if t is None or vt is None:
            return
        mismatch = bt.fits(vt, t)
        if mismatch is not None:
            where, mismatch = self._locate(value, pointer, mismatch, t)
            self.rep.report(
                "TASK_DEFAULT_INVALID",
                where,
                f"the default of `{name}` does not fit its type: {mismatch.explain()}",
                subject={"input": name},
                hint=f"write a default of type {bt.describe(t)}",
                related=self._slot_related(mismatch.required_slot, "the type is declared here"),
            )

    def _choice(self, c: ChoiceNode) -> None:
        m = c.model
        declared = self.task_type(getattr(m, "type", None), f"{c.pointer}/type")
        self._type_defaults(getattr(m, "type", None), f"{c.pointer}/type", declared)
        alt_types: list[BType] = []
        fitting = True
        for i, alt in enumerate(getattr(m, "alternatives", None) or []):
            value = getattr(alt, "value", None)
            if value is None:
                fitting = False
                continue
            ptr = f"{c.pointer}/alternatives/{i}/value"
            vt = self.value(value, ptr, None)
            if vt is None or declared is None or not is_literal(value):  # not a literal: structure's
                fitting = False
                continue
            mismatch = bt.fits(vt, declared)
            if mismatch is not None:
                fitting = False
                where, mismatch = self._locate(value, ptr, mismatch, declared)
                self.rep.report(
                    "CHOICE_INVALID",
                    where,
                    f"alternative `{getattr(alt, 'id', i)}` of choice `{c.id}` does not fit the choice's type: "
                    f"{mismatch.explain()}",
                    subject={"choice": c.id},
                    hint=f"give a literal of type {bt.describe(declared)}",
                    related=[self.rep.related(f"{c.pointer}/type", "the choice's type is declared here")],
                )
            else:
                alt_types.append(vt)
        # `check` checks the plan with every alternative: a read has their joined type.
        joined = bt.join_all(alt_types) if fitting and alt_types else None
        self.out.choices[c] = joined if joined is not None else declared

    # ================================================================= scopes

    def _scope(self, scope: ScopeNode) -> dict[str, BType | None]:
        if scope in self._scopes_done:
            return self.out.scope_outputs.get(scope, {})
        self._scopes_done.add(scope)
        task, tasks, kinds = self._task, self.tasks, _TASK_KINDS
        for t in scope.order:  # (none typed yet: a task is in one scope's list, each scope typed once)
            kind = kinds.get(type(t.model))
            if kind is None or t.broken:
                task(t)
            else:  # (_task's common case, inline)
                tasks[t] = kind(self, t, t.model)
        for t in scope.always_order:
            task(t)
        outputs: dict[str, BType | None] = {}
        values, value_kinds = self.values, _VALUE_KINDS
        for o in scope.outputs:
            m = o.model
            if not isinstance(m, TaskOutput):
                continue
            v, ptr = m.value, o.pointer + "/value"
            kind = value_kinds.get(type(v))  # (self.value, inline)
            t = values[ptr] = kind(self, v, ptr, scope) if kind is not None and not v._marks else self._value(v, ptr, scope)
            if o.usable and o.name not in outputs:
                outputs[o.name] = t
        self.out.scope_outputs[scope] = outputs
        return outputs

    def _group(self, g: GroupNode) -> dict[str, BType | None] | None:
        """The types of a group's outputs (typing its body the first time)."""
        if g.body is None or g in self._groups_busy or g.cyclic:
            return None
        if g.body in self._scopes_done:
            return self.out.scope_outputs.get(g.body)
        self._groups_busy.add(g)
        try:
            return self._scope(g.body)
        finally:
            self._groups_busy.discard(g)

    # ================================================================== tasks

    def _task(self, t: TaskNode) -> None:
        tasks = self.tasks
        if t in tasks:
            return
        m = t.model
        if t.broken:
            # In error: unknown ports, not checked further; its nested tasks still are.
            tasks[t] = _task_types(None, None)
            for child in t.children:
                self._scope(child)
            return
        kind = _TASK_KINDS.get(type(m)) or _handler(_TASK_KINDS, m)
        tasks[t] = kind(self, t, m) if kind is not None else _task_types(None, None)

    def _transform(self, t: TaskNode, m: TransformTask) -> TaskTypes:
        pointer, scope, values, kinds = t.pointer, t.scope, self.values, _VALUE_KINDS
        i = 0  # (a counter: cheaper than enumerate)
        for b in m.inputs:
            if isinstance(b, TaskOutput):
                v, ptr = b.value, pointer + (_INPUT_VALUE[i] if i < _SUFFIXES else f"/inputs/{i}/value")
                kind = kinds.get(type(v))  # (self.value, inline)
                values[ptr] = kind(self, v, ptr, scope) if kind is not None and not v._marks else self._value(v, ptr, scope)
            i += 1
        result = self.task_type(m.resultType, f"{t.pointer}/resultType")
        if result is None or result.kind != "object":
            return _task_types(None, None)
        return _task_types({f.name: f.type for f in result.fields}, result)

    def _value_task(self, t: TaskNode, m: ValueTask) -> TaskTypes:
        ports: dict[str, BType | None] = {}
        pointer, scope, values, kinds = t.pointer, t.scope, self.values, _VALUE_KINDS
        i = 0  # (a counter: cheaper than enumerate)
        for o in m.outputs:
            if isinstance(o, TaskOutput):
                v, ptr = o.value, pointer + (_OUTPUT_VALUE[i] if i < _SUFFIXES else f"/outputs/{i}/value")
                kind = kinds.get(type(v))  # (self.value, inline)
                vt = values[ptr] = kind(self, v, ptr, scope) if kind is not None and not v._marks else self._value(v, ptr, scope)
                ports.setdefault(o.name, vt)
            i += 1
        return _task_types(ports, _object(ports))  # (not `_whole`: its literal ports are new types)

    def _sequence(self, t: TaskNode, m: SequenceTask) -> TaskTypes:
        body = t.child(BODY)
        ports = self._scope(body) if body is not None else {}
        return _task_types(ports, self._whole(ports) if ports else _NO_PORTS)

    def _parallel(self, t: TaskNode, m: ParallelTask) -> TaskTypes:
        ports: dict[str, BType | None] = {}
        for branch in t.children:
            for name, ty in self._scope(branch).items():
                ports.setdefault(name, ty)
        return _task_types(ports, self._whole(ports) if ports else _NO_PORTS)

    def _operation(self, t: TaskNode, m: OperationTask) -> TaskTypes:
        # Most tasks call an operation many others call, binding the same names: what the
        # contract says about those names (all known, none fixed or consumed, every
        # required port bound) is found once per (operation, names) by `_clean_call`;
        # such a task only has its values typed and fitted to their ports.
        ref = m.operation
        if self._clean_calls_on and type(ref) is str:
            inputs = m.inputs
            names = [ref]  # (a loop: cheaper than a comprehension or `map` for a few bindings)
            for b in inputs:
                if type(b) is not TaskOutput:
                    return self._operation_general(t, m)  # a placeholder binding: not clean
                names.append(b.name)
            key = tuple(names)
            clean = self._clean_calls.get(key)
            if clean is None:
                clean = self._clean_calls[key] = self._clean_call(ref, key[1:])
            if clean is not False:
                op, found, checks = clean
                pointer, scope = t.pointer, t.scope
                values, kinds = self.values, _VALUE_KINDS
                # Each value typed, then fitted to its port, one binding after the other (what
                # each reports is at its own value: the sink's order does not depend on this).
                i = 0  # (a counter: cheaper than enumerate or zip)
                for b in inputs:
                    suffix, port, scalar, nullable = checks[i]
                    i += 1
                    v = b.value
                    value_ptr = pointer + suffix
                    kind = kinds.get(type(v))  # (self.value, inline)
                    if kind is not None and not v._marks:
                        vt = kind(self, v, value_ptr, scope)
                    else:
                        vt = self._value(v, value_ptr, scope)
                    values[value_ptr] = vt
                    if vt is None or (vt.kind == scalar and (nullable or not vt.nullable)):
                        continue  # (unknown: nothing to check; a scalar of the port's kind: what `fits` finds)
                    if bt.fits(vt, port.type) is not None:
                        self._check_port(t, op, port, v, value_ptr, vt)
                return found  # (shared by every clean call of the operation, read only)
        return self._operation_general(t, m)

    def _clean_call(self, ref: str, names: tuple[str | None, ...]) -> tuple | bool:
        """For a call of operation `ref` binding `names`, what `_operation_general` would
        find about every such call when it reports nothing about the names: (operation,
        the call's `TaskTypes`, and per binding its `_port_check`); False when it may
        report something (or the names are not all plain, distinct, bindable and complete)."""
        if None in names or len(set(names)) != len(names):
            return False
        res = self.catalog.resolve(ref)  # type: ignore[union-attr]
        if not res.ok or res.operation is None:
            return False
        op = res.operation
        contract = self._contracts.get(op)
        if contract is None:
            contract = self._contracts[op] = _Contract.of(op)
        input_ports, fixed, consumes, required_ports, out_t, out_ports, optional_out = contract
        checks = []
        for i, name in enumerate(names):
            port = input_ports.get(name)  # type: ignore[arg-type]
            if port is None or name in fixed or (consumes and name in consumes):
                return False
            checks.append(_port_check(i, port))
        if any(p.name not in names for p in required_ports):
            return False
        if out_t is None:
            return op, TaskTypes({}, bt.ANY, op), tuple(checks)
        return op, TaskTypes(out_ports, out_t, op, optional_out), tuple(checks)

    def _operation_general(self, t: TaskNode, m: OperationTask) -> TaskTypes:
        pointer, scope, value = t.pointer, t.scope, self.value
        bindings: list[tuple[int, TaskOutput, str, BType | None]] = []
        for i, b in enumerate(m.inputs):
            if isinstance(b, TaskOutput):
                value_ptr = pointer + (_INPUT_VALUE[i] if i < _SUFFIXES else f"/inputs/{i}/value")
                bindings.append((i, b, value_ptr, value(b.value, value_ptr, scope)))
        if self.catalog is None:
            return _task_types(None, None)
        res = self.catalog.resolve(m.operation)
        if not res.ok:
            if res.code is not None:
                self.rep.report(
                    res.code,
                    f"{pointer}/operation",
                    f"task `{t.id}`: {res.message()}",
                    subject={"task": t.id or ""},
                    hint=res.hint(),
                )
            return _task_types(None, None)
        op = res.operation
        assert op is not None
        contract = self._contracts.get(op)
        if contract is None:
            contract = self._contracts[op] = _Contract.of(op)
        input_ports, fixed, consumes, required_ports, out_t, out_ports, optional_out = contract
        bound: set[str] = set()
        explained: set[str] = set()
        """Ports an unknown binding is a misspelling of (its did-you-mean): not also unbound."""
        bad_names = self.cp.identity.bad_names  # (IdentityTable.name_ok, without building the pointer when empty)
        fits = bt.fits
        for i, b, value_ptr, vt in bindings:
            name = b.name
            if name in bound or (bad_names and f"{pointer}/inputs/{i}/name" in bad_names):
                continue  # already reported (invalid or duplicated name)
            bound.add(name)
            port = input_ports.get(name)
            if port is None:
                close = self._unknown_input(t, op, f"{pointer}/inputs/{i}/name", name)
                if close is not None:
                    explained.add(close)
                continue
            if name in fixed:  # (op.is_fixed)
                self.rep.report(
                    "TASK_INPUT_CATALOG_OWNED",
                    f"{pointer}/inputs/{i}/name",
                    f"task `{t.id}` binds `{name}`, which the catalog fixes for `{op.ref}`",
                    subject={"task": t.id or "", "port": name},
                    hint=f"remove this binding: the compiler injects `{name}` from the catalog",
                    related=self._slot_related(op.slot(f"/fixed/{_escape(name)}"), "the catalog fixes it here"),
                )
                continue
            kind = consumes.get(name) if consumes else None
            if kind is not None:
                self._consuming.append(_Binding(t, op, port, kind, value_ptr, b.value, scope, vt))
                continue
            if vt is not None and fits(vt, port.type) is not None:  # (what _check_port reports)
                self._check_port(t, op, port, b.value, value_ptr, vt)
        for port in required_ports:
            if port.name in bound:
                continue
            kind = consumes.get(port.name) if consumes else None
            if kind is not None:
                self._missing_consumed.append((t, op, port, kind, port.name in explained))
                continue
            if port.name not in explained:
                self._missing_input(t, op, port)
        if out_t is None:
            return TaskTypes({}, bt.ANY, op)
        return TaskTypes(out_ports, out_t, op, optional_out)

    def _unknown_input(self, t: TaskNode, op: "Operation", name_ptr: str, name: str) -> str | None:
        """Report an unknown binding; return the port it is a misspelling of, if any."""
        known = [f.name for f in op.bindable_ports]
        close = _closest(name, known)
        if close:
            hint = f"did you mean `{close}`?"
        elif known:
            hint = f"`{op.ref}` takes: " + ", ".join(f"`{k}`" for k in known)
        else:
            hint = f"`{op.ref}` takes no inputs the plan may bind"
        self.rep.report(
            "TASK_INPUT_UNKNOWN",
            name_ptr,
            f"operation `{op.ref}` has no input `{name}`",
            subject={"task": t.id or "", "port": name},
            hint=hint,
            related=self._slot_related(op.slot("/input"), "the operation's inputs are declared here"),
        )
        return close

    def _missing_input(self, t: TaskNode, op: "Operation", port: Field) -> None:
        self.rep.report(
            "TASK_INPUT_REQUIRED",
            f"{t.pointer}/inputs",
            f"task `{t.id}` leaves the required input `{port.name}` of `{op.ref}` unbound",
            subject={"task": t.id or "", "port": port.name},
            hint=f"bind it: `{{name: {port.name}, value: ...}}` with a value of type {bt.describe(port.type)}",
            related=self._slot_related(port.slot, "the port is declared here"),
        )

    def _check_port(
        self, t: TaskNode, op: "Operation", port: Field, value: Any, pointer: str, vt: BType | None
    ) -> None:
        if vt is None:
            return
        mismatch = bt.fits(vt, port.type)
        if mismatch is None:
            return
        where, mismatch = self._locate(value, pointer, mismatch, port.type)
        related = self._slot_related(port.slot, "the port is declared here")
        related += self._producer_related(mismatch)
        self.rep.report(
            "TASK_INPUT_TYPE",
            where,
            f"input `{port.name}` of task `{t.id}` {_expects(mismatch)}",
            subject={"task": t.id or "", "port": port.name},
            hint=_type_hint(mismatch),
            related=related,
        )

    def _call(self, t: TaskNode, m: CallTask) -> TaskTypes:
        group = t.group
        values: list[tuple[int, TaskOutput, BType | None]] = []
        i = 0  # (a counter: cheaper than enumerate for a few bindings)
        for b in m.inputs:
            if isinstance(b, TaskOutput):
                ptr = t.pointer + (_INPUT_VALUE[i] if i < _SUFFIXES else f"/inputs/{i}/value")
                values.append((i, b, self.value(b.value, ptr, t.scope)))
            i += 1
        if group is None:
            return _task_types(None, None)
        seen: set[str] = set()
        bad_names = self._bad_names  # (IdentityTable.name_ok, without building the pointer when empty)
        for i, b, vt in values:
            if (bad_names and f"{t.pointer}/inputs/{i}/name" in bad_names) or b.name in seen:
                continue
            seen.add(b.name)
            decl = group.input_by_name.get(b.name)
            if decl is None or not decl.usable or vt is None:
                continue  # unknown group inputs are the scope pass's TASK_GROUP_INPUTS
            required = self.out.inputs.get(decl)
            if required is None:
                continue
            mismatch = bt.fits(vt, required)
            if mismatch is not None:
                ptr = f"{t.pointer}/inputs/{i}/value"
                self._call_binding_errors.add(ptr)
                where, mismatch = self._locate(b.value, ptr, mismatch, required)
                self.rep.report(
                    "TASK_GROUP_INPUT_TYPE",
                    where,
                    f"input `{b.name}` of group `{group.id}` (called by `{t.id}`) {_expects(mismatch)}",
                    subject={"task": t.id or "", "group": group.id, "input": b.name},
                    hint=_type_hint(mismatch),
                    related=[self.rep.related(decl.pointer, f"`{b.name}` is declared here")]
                    + self._producer_related(mismatch),
                )
        found = self._call_ports.get(group)
        if found is None:
            ports = self._group(group)
            if ports is None:
                return _task_types(None, None)
            found = self._call_ports[group] = _task_types(ports, self._whole(ports) if ports else _NO_PORTS)
        return found  # (shared by the group's calls, read only)

    def _conditional(self, t: TaskNode, m: ConditionalTask) -> TaskTypes:
        ct = self.value(m.condition, f"{t.pointer}/condition", t.scope)
        if ct is not None and (ct.kind != "boolean" or ct.nullable):
            why = "it may be null" if ct.kind == "boolean" else f"got {bt.describe(ct)}"
            self.rep.report(
                "TASK_CONDITION_TYPE",
                f"{t.pointer}/condition",
                f"the condition of `{t.id}` must be a boolean: {why}",
                subject={"task": t.id or ""},
                hint="compare it with a predicate (e.g. `{kind: predicate, predicate: equal, items: [...]}`)"
                " or test `{kind: present, source: ...}`",
            )
        body = t.child(BODY)
        other = t.child(OTHERWISE)
        then_ports = self._scope(body) if body is not None else {}
        other_ports = self._scope(other) if other is not None else {}
        ports: dict[str, BType | None] = {}
        for name, a in then_ports.items():
            b = other_ports.get(name)
            if name not in other_ports:
                continue  # a name on one side only: the structure pass's TASK_BRANCH_OUTPUTS
            if a is None or b is None:
                ports[name] = None
                continue
            joined = bt.join(a, b)
            if joined is None:
                decl = _output(other, name)
                self.rep.report(
                    "TASK_BRANCH_OUTPUTS",
                    f"{decl.pointer}/value",
                    f"output `{name}` of `{t.id}` is {bt.describe(a)} in `body` but {bt.describe(b)} in `otherwise`",
                    subject={"task": t.id or "", "port": name},
                    hint="make both sides produce the same kind of value",
                    related=[
                        self.rep.related(
                            f"{_output_pointer(body, name)}/value", "the `body` side declares it here"
                        )
                    ],
                )
            ports[name] = joined
        return _task_types(ports, self._whole(ports) if ports else _NO_PORTS)

    def _foreach(self, t: TaskNode, m: ForeachTask) -> TaskTypes:
        items_ptr = f"{t.pointer}/items"
        it = self.value(m.items, items_ptr, t.scope)
        element: BType | None = None
        if it is not None:
            if it.kind != "array" or it.nullable:
                why = "it may be null" if it.kind == "array" else f"got {bt.describe(it)}"
                hint = (
                    "the value is opaque: add a transform whose resultType declares the array"
                    if it.kind == "any"
                    else "iterate over an array value"
                )
                self.rep.report(
                    "TASK_ITEMS_INVALID",
                    items_ptr,
                    f"foreach `{t.id}` must iterate over an array: {why}",
                    subject={"task": t.id or ""},
                    hint=hint,
                )
            else:
                element = it.items or bt.ANY
        self._item_types[t] = element
        body = t.child(FOREACH_BODY)
        outs = self._scope(body) if body is not None else {}
        ports: dict[str, BType | None] = {}
        array_of = bt.array_of
        for name, ty in outs.items():
            ports[name] = array_of(ty) if ty is not None else None
        return _task_types(ports, _object(ports))  # (not `_whole`: its arrays are new types)

    def _whole(self, ports: dict[str, BType | None]) -> BType | None:
        """`_object(ports)` for ports (at least one), one object for every task whose ports
        are the same type objects: a scope's outputs that read other tasks' ports (an
        operation's contract types), the sides of a conditional that read one port. The whole
        has no slot of its own (no origin; fields without slots), so it is a pure function of
        its ports' names and type objects: sharing it changes no diagnostic, and lower finds
        its schema by identity (tests/test_types_fast_paths.py). (Not for a value task, nor a
        foreach: their ports are new types, literals and arrays, never met again.)"""
        if len(ports) == 1:  # (the commonest: one output)
            ((name, t),) = ports.items()
            key: tuple = (name, id(t))
        else:
            key = (*ports, *map(id, ports.values()))  # (names, then ids: no Python step per port)
        whole = self._wholes.get(key)
        if whole is None:
            whole = _object(ports)
            if whole is not None:  # (unknown when a port is: None's id is in the key, never stored)
                self._wholes[key] = whole
        return whole

    # ================================================================= values

    def value(self, v: Any, pointer: str, scope: ScopeNode | None) -> BType | None:
        """The type of value `v` at `pointer` (recorded in the TypedPlan); None: unknown."""
        kind = _VALUE_KINDS.get(type(v))
        if kind is not None and not v._marks:  # the common case: a value model, not broken
            t = kind(self, v, pointer, scope)
        else:
            t = self._value(v, pointer, scope)
        self.values[pointer] = t
        return t

    def _value(self, v: Any, ptr: str, scope: ScopeNode | None) -> BType | None:
        kind = _VALUE_KINDS.get(type(v))
        if kind is None:  # not exactly a value model: a placeholder, or the general lookup
            if is_broken(v):
                return None
            kind = _handler(_VALUE_KINDS, v)
            if kind is None:
                return None
        elif v._marks:  # is_broken(v) for a model: marked by the shape pass or a later one
            return None
        return kind(self, v, ptr, scope)

    # -- literals and computed values: their own type, located at the value

    # (The slots are built inline: `new_slot`, without its call.)

    def _string(self, v: StringValue, ptr: str, scope: ScopeNode | None) -> BType:
        return bt.string_const(v.text, _tuple_new(Slot, (self.file, ptr)))

    def _number(self, v: NumberValue, ptr: str, scope: ScopeNode | None) -> BType:
        n = v.number
        integral = type(n) is int or isinstance(n, int) or (isinstance(n, float) and n.is_integer())
        return bt.plain("integer" if integral else "number", _tuple_new(Slot, (self.file, ptr)))

    def _boolean(self, v: Any, ptr: str, scope: ScopeNode | None) -> BType:
        return bt.plain("boolean", _tuple_new(Slot, (self.file, ptr)))  # a boolean literal, `present`

    def _null(self, v: NullValue, ptr: str, scope: ScopeNode | None) -> BType:
        return bt.scalar("null", new_slot(self.file, ptr))

    def _index(self, v: IndexValue, ptr: str, scope: ScopeNode | None) -> BType:
        return bt.plain("integer", _tuple_new(Slot, (self.file, ptr)))

    def _object_value(self, v: ObjectValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        fields: list[Field] = []
        known = True
        names: set[str] = set()
        i = -1  # (a counter: cheaper than enumerate for a few members)
        for member in v.members:
            i += 1
            if not isinstance(member, TaskOutput):
                known = False
                continue
            mptr = ptr + (_MEMBER[i] if i < _SUFFIXES else f"/members/{i}")
            mt = self.value(member.value, mptr + "/value", scope)
            if mt is None:
                known = False
            elif member.name not in names:
                names.add(member.name)
                fields.append(bt.new_field(member.name, mt, True, new_slot(self.file, mptr)))
        return bt.closed_object(fields, new_slot(self.file, ptr)) if known else None

    def _array(self, v: ArrayValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        types = self._items(v.items, ptr, scope)
        for t in types:
            if t is None:
                return None
        joined = bt.join_all(types) if types else bt.NEVER  # empty: fits every array port
        return bt.array_of(joined, origin=new_slot(self.file, ptr))  # mixed kinds: array of any

    def _items(self, items: Any, ptr: str, scope: ScopeNode | None) -> list[BType | None]:
        """The types of the items of the value at `ptr`, in order (a loop: a comprehension
        would hold its variables in closure cells)."""
        values, kinds = self.values, _VALUE_KINDS
        types = []
        i = 0  # (a counter: cheaper than enumerate)
        for v in items:
            item_ptr = ptr + (_ITEM[i] if i < _SUFFIXES else f"/items/{i}")
            kind = kinds.get(type(v))  # (self.value, inline)
            t = values[item_ptr] = kind(self, v, item_ptr, scope) if kind is not None and not v._marks else self._value(v, item_ptr, scope)
            types.append(t)
            i += 1
        return types

    def _json(self, v: JsonValue, ptr: str, scope: ScopeNode | None) -> BType:
        self._items(v.items, ptr, scope)
        return bt.plain("string", _tuple_new(Slot, (self.file, ptr)))

    def _predicate_value(self, v: PredicateValue, ptr: str, scope: ScopeNode | None) -> BType:
        self._predicate(v, ptr, scope)
        return bt.plain("boolean", _tuple_new(Slot, (self.file, ptr)))

    # -- references: the type of what they resolve to (None: in error, already reported)

    def _target(self, ptr: str) -> Any:
        r = self.cp.resolutions.get(ptr)
        if r is None or not r.ok:
            return None
        return r.target

    def _output_read(self, v: OutputValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        r = self.resolutions.get(ptr)  # (_target, inline: the commonest value)
        if r is None or not r.ok:
            return None
        target = r.target
        tt = self.tasks.get(target)  # (None too for no target)
        if tt is None:
            return None  # in error, or on a cycle: already reported
        ports = tt.ports
        if ports is None:
            return None  # likewise
        if self._copy_scopes and self.cp.copy_visible(target.id, scope):
            return None  # it may mean the later copy: the duplicate (reported) is the one mistake
        port = v.port
        if port is None:
            return tt.whole
        if port in ports:
            return ports[port]
        self._unknown_output(target, tt, port, ptr)
        return None

    def _input_read(self, v: InputValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        target = self._target(ptr)
        return self.out.inputs.get(target) if target is not None else None

    def _choice_read(self, v: ChoiceValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        target = self._target(ptr)
        return self.out.choices.get(target) if target is not None else None

    def _item_read(self, v: ItemValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        target = self._target(ptr)
        return self._item_types.get(target) if target is not None else None

    def _subject(self, ptr: str) -> dict[str, str] | None:
        """The subject of a value at `ptr`: the task (and port) holding it (passes/subjects.py)."""
        return subject_at(self.rep.document.tree, ptr) or None

    def _unknown_output(self, target: TaskNode, tt: TaskTypes, port: str, ptr: str) -> None:
        op = tt.operation
        if op is not None and op.opaque:
            message = f"`{target.id}` has an opaque result (`{op.ref}` declares no output schema): it has no port `{port}`"
            hint = "read the whole result with `port: null`, or add a transform that extracts a typed value"
            related = [self.rep.related(target.pointer, f"`{target.id}` is declared here")]
            related += self._slot_related(op.slot(), "the operation is declared here")
        else:
            names = list(tt.ports)
            close = _closest(port, names)
            message = f"task `{target.id}` has no port `{port}`"
            if close:
                hint = f"did you mean `{close}`?"
            elif names:
                hint = f"`{target.id}` has: " + ", ".join(f"`{n}`" for n in names)
            else:
                hint = f"`{target.id}` has no ports: declare the value in its outputs"
            related = [self.rep.related(target.pointer, f"`{target.id}` is declared here")]
        self.rep.report(
            "TASK_OUTPUT_UNKNOWN",
            f"{ptr}/port",
            message,
            subject=self._subject(ptr),  # the reader, whose slot is repaired (the producer: related)
            hint=hint,
            related=related,
        )

    def _field(self, v: FieldValue, ptr: str, scope: ScopeNode | None) -> BType | None:
        inner_types = self._items(v.items, ptr, scope)
        if len(v.items) != 1:
            return None  # TASK_VALUE_INVALID (the structure pass)
        inner = inner_types[0]
        if inner is None:
            return None
        if inner.kind != "object":
            opaque = inner.kind == "any"
            self.rep.report(
                "TASK_FIELD_TYPE",
                f"{ptr}/items/0",
                f"cannot select field `{v.port}`: the value is "
                + ("opaque (its fields are not declared)" if opaque else bt.describe(inner)),
                subject=self._subject(ptr),
                hint=(
                    "add a transform whose resultType declares the field, and select from its result"
                    if opaque
                    else "select fields from an object value only"
                ),
                related=self._slot_related(inner.origin, "the value's type comes from here"),
            )
            return None
        f = inner.get_field(v.port)
        if f is None:
            names = [x.name for x in inner.fields]
            close = _closest(v.port, names)
            self.rep.report(
                "TASK_FIELD_UNKNOWN",
                f"{ptr}/port",
                f"the object has no field `{v.port}`",
                subject=self._subject(ptr),
                hint=f"did you mean `{close}`?"
                if close
                else ("its fields: " + ", ".join(f"`{n}`" for n in names) if names else "it declares no fields"),
                related=self._slot_related(inner.origin, "the object's type is declared here"),
            )
            return None
        result = f.type
        if inner.nullable:
            result = result.with_nullable(True, inner.null_slot)
        return result

    def _predicate(self, v: PredicateValue, ptr: str, scope: ScopeNode | None) -> None:
        types = self._items(v.items, ptr, scope)
        arity = PREDICATES.get(v.predicate)
        if arity is None or arity != len(v.items):
            return  # TASK_PREDICATE_INVALID (the structure pass)
        name = v.predicate
        if name == "not" or name == "and" or name == "or":
            i = 0  # (a counter: cheaper than enumerate for one or two operands)
            for t in types:
                if t is not None and (t.kind != "boolean" or t.nullable):
                    why = "it may be null" if t.kind == "boolean" else f"got {bt.describe(t)}"
                    self._predicate_error(ptr, i, f"`{name}` needs booleans: {why}", t)
                i += 1
            return
        a, b = types
        if a is None or b is None:
            return
        if name == "less" or name == "less_equal" or name == "greater" or name == "greater_equal":
            # (the first operand that may be null, without a tuple and an enumerate)
            if a.nullable:
                self._predicate_error(ptr, 0, f"`{name}` cannot order a value that may be null", a)
                return
            if b.nullable:
                self._predicate_error(ptr, 1, f"`{name}` cannot order a value that may be null", b)
                return
            numeric = _NUMERIC
            if (a.kind in numeric and b.kind in numeric) or (a.kind == b.kind == "string"):
                return
            bad = 0 if a.kind not in numeric | {"string"} else 1
            self._predicate_error(
                ptr, bad, f"`{name}` orders two numbers or two strings, got {bt.describe(a)} and {bt.describe(b)}",
                (a, b)[bad],
            )
            return
        # equal / not_equal
        if a.kind == "any" or b.kind == "any":
            return
        if a.kind == "null" or b.kind == "null":
            other, i = (b, 1) if a.kind == "null" else (a, 0)
            if other.kind != "null" and not other.nullable:
                self._predicate_error(ptr, i, f"`{name}` compares with null a value that is never null", other)
            return
        ka = "number" if a.kind == "integer" else a.kind
        kb = "number" if b.kind == "integer" else b.kind
        if ka != kb:
            self._predicate_error(
                ptr, 1, f"`{name}` compares {bt.describe(a)} with {bt.describe(b)}: they are never equal", b
            )
            return
        va, vb = a.values(), b.values()
        if va is not None and vb is not None and not set(va) & set(vb):
            i = 1 if b.const is not None else 0
            lit, other = (vb, a) if i == 1 else (va, b)
            self._predicate_error(
                ptr,
                i,
                f"`{name}` compares {bt.describe(a)} with {bt.describe(b)}: they are never equal",
                (a, b)[i],
                hint=f"use one of: {', '.join(other.values() or ())}",
            )

    def _predicate_error(self, ptr: str, i: int, message: str, t: BType, hint: str | None = None) -> None:
        self.rep.report(
            "TASK_PREDICATE_TYPE",
            f"{ptr}/items/{i}",
            message,
            subject=self._subject(ptr),
            hint=hint or "change the operand, or compare with a different predicate",
            related=self._slot_related(t.origin, "its type comes from here"),
        )

    # ============================================================== artifacts

    def _collect_producers(self) -> None:
        """The artifact kinds some task of the plan produces. A task whose contract is
        unknown may produce any kind: an unknown contract proves no absence."""
        if self.catalog is None:
            return
        resolve = self.catalog.resolve
        for node in self.cp.tasks:
            m = node.model
            if isinstance(m, OperationTask):  # in error or not: its contract says what it produces
                res = resolve(m.operation) if isinstance(m.operation, str) else None
                if res is not None and res.ok and res.operation is not None:
                    self._produced.update(res.operation.produces.values())
                else:
                    self._any_producer = True
            elif isinstance(m, InvalidTask):  # (node.is_placeholder)
                self._any_producer = True
        if any(has_shape_error(s.model) for s in self.cp.scopes):
            self._any_producer = True  # a scope in error may have lost tasks that produce any kind

    def _produced_somewhere(self, kind: str) -> bool:
        return self._any_producer or kind in self._produced

    def _check_artifacts(self) -> None:
        if not self._missing_consumed and not self._consuming:
            return  # no operation consumes an artifact: what the plan produces does not matter
        self._collect_producers()
        for t, op, port, kind, explained in self._missing_consumed:
            if self._produced_somewhere(kind):
                if not explained:
                    self._missing_input(t, op, port)
            else:
                self._prerequisite_missing(t, op, port.name, kind, f"{t.pointer}/inputs")
        for b in self._consuming:
            if not self._produced_somewhere(b.kind):
                self._prerequisite_missing(b.task, b.op, b.port.name, b.kind, b.pointer)
                continue
            origin = self._origin(b.value, b.pointer)
            if origin is not None and b.kind not in origin:
                self.rep.report(
                    "TASK_ARTIFACT_BINDING",
                    b.pointer,
                    f"input `{b.port.name}` of task `{b.task.id}` needs a `{b.kind}` artifact, "
                    "and this value does not come from a task that produces one",
                    subject={"task": b.task.id or "", "port": b.port.name},
                    hint=f"bind the output of the task that produced the `{b.kind}` "
                    "(directly, or through exports, captures and group inputs); an equal string is not enough",
                    related=self._slot_related(
                        b.op.slot(f"/artifacts"), f"`{b.op.ref}` consumes `{b.kind}` here"
                    ),
                )
                continue
            self._check_port(b.task, b.op, b.port, b.value, b.pointer, b.type)

    def _prerequisite_missing(self, t: TaskNode, op: "Operation", port: str, kind: str, pointer: str) -> None:
        self.rep.report(
            "TASK_ARTIFACT_PREREQUISITE_MISSING",
            pointer,
            f"input `{port}` of task `{t.id}` needs a `{kind}` artifact, and no task of the plan produces one",
            subject={"task": t.id or "", "port": port},
            hint=f"add a task calling an operation that produces `{kind}` "
            f"(`taskplan catalog search {kind}`), then bind its output here",
            related=self._slot_related(op.slot("/artifacts"), f"`{op.ref}` consumes `{kind}` here"),
        )

    def _origin(self, v: Any, ptr: str) -> frozenset[str] | None:
        """The artifact kinds value `v` carries (None: unknown, so nothing is reported)."""
        if is_broken(v):
            return None
        if isinstance(v, OutputValue):
            r = self.cp.resolutions.get(ptr)
            if r is None or not r.ok or not isinstance(r.target, TaskNode):
                return None
            return self._port_origin(r.target, v.port)
        if isinstance(v, InputValue):
            r = self.cp.resolutions.get(ptr)
            if r is None or not r.ok or not isinstance(r.target, InputDecl):
                return None
            return self._input_origin(r.target)
        if isinstance(v, FieldValue):
            if len(v.items) != 1:
                return None
            inner = v.items[0]
            if isinstance(inner, OutputValue) and inner.port is None:
                # a field of a task's whole result is that task's port
                r = self.cp.resolutions.get(f"{ptr}/items/0")
                if r is None or not r.ok or not isinstance(r.target, TaskNode):
                    return None
                return self._port_origin(r.target, v.port)
            return self._origin(inner, f"{ptr}/items/0")
        if isinstance(v, ItemValue):
            r = self.cp.resolutions.get(ptr)
            if r is None or not r.ok or not isinstance(r.target, TaskNode):
                return None
            m = r.target.model
            return self._origin(m.items, f"{r.target.pointer}/items") if isinstance(m, ForeachTask) else None
        return frozenset()  # literals, new objects/arrays/JSON text, choices, present, predicates

    def _memo(self, key: Any, compute) -> frozenset[str] | None:
        if key in self._origin_memo:
            return self._origin_memo[key]
        self._origin_memo[key] = None  # a cycle reads as unknown
        result = compute()
        self._origin_memo[key] = result
        return result

    def _port_origin(self, task: TaskNode, port: str | None) -> frozenset[str] | None:
        return self._memo(("port", task, port), lambda: self._compute_port_origin(task, port))

    def _compute_port_origin(self, task: TaskNode, port: str | None) -> frozenset[str] | None:
        m = task.model
        tt = self.out.tasks.get(task)
        if task.broken or tt is None or tt.ports is None:
            return None
        if port is None:
            return frozenset()
        if isinstance(m, OperationTask):
            kind = tt.operation.produces.get(port) if tt.operation is not None else None
            return frozenset((kind,)) if kind else frozenset()
        if isinstance(m, TransformTask):
            return frozenset()
        if isinstance(m, ValueTask):
            for i, o in enumerate(m.outputs):
                if isinstance(o, TaskOutput) and o.name == port:
                    return self._origin(o.value, f"{task.pointer}/outputs/{i}/value")
            return None
        if isinstance(m, (SequenceTask, ForeachTask)):
            return self._scope_origin(task.children[0] if task.children else None, port)
        if isinstance(m, CallTask):
            return self._scope_origin(task.group.body if task.group is not None else None, port)
        if isinstance(m, ConditionalTask):
            sides = [self._scope_origin(s, port) for s in task.children]
            if any(s is None for s in sides):
                return None
            if len(sides) < 2:
                return frozenset()
            return sides[0] & sides[1]  # both sides must carry the kind
        if isinstance(m, ParallelTask):
            for branch in task.children:
                if any(o.name == port for o in branch.outputs):
                    return self._scope_origin(branch, port)
        return None

    def _scope_origin(self, scope: ScopeNode | None, name: str) -> frozenset[str] | None:
        if scope is None:
            return None
        for o in scope.outputs:
            if o.name == name and isinstance(o.model, TaskOutput):
                return self._origin(o.model.value, f"{o.pointer}/value")
        return None

    def _input_origin(self, decl: InputDecl) -> frozenset[str] | None:
        if decl.group is None:
            return frozenset()  # a workflow input is not produced by any task
        return self._memo(("input", decl), lambda: self._compute_input_origin(decl))

    def _compute_input_origin(self, decl: InputDecl) -> frozenset[str] | None:
        group = decl.group
        assert group is not None
        result: frozenset[str] | None = None
        for call in group.calls:
            m = call.model
            if not isinstance(m, CallTask):
                continue
            if "inputs" in dropped_fields(m):
                continue  # its bindings were lost to a shape error: it says nothing
            binding = next(((i, b) for i, b in enumerate(m.inputs) if isinstance(b, TaskOutput) and b.name == decl.name),
                           None)
            if binding is None:
                if getattr(decl.model, "required", True) is not False:
                    continue  # a required input left unbound (TASK_GROUP_INPUTS) is that call's one error
                origin: frozenset[str] | None = frozenset()  # the default: a literal
            else:
                ptr = f"{call.pointer}/inputs/{binding[0]}/value"
                if ptr in self._call_binding_errors:
                    continue  # a binding of the wrong type (TASK_GROUP_INPUT_TYPE) is that call's one error
                origin = self._origin(binding[1].value, ptr)
            if origin is None:
                return None
            result = origin if result is None else result & origin  # every call must carry it
        return result

    # ================================================================ helpers

    def _slot_related(self, slot: Slot | None, message: str) -> list[Related]:
        if slot is None:
            return []
        if slot.file == self.file:
            return [self.rep.related(slot.pointer, message)]
        if self.catalog is not None:
            related = self.catalog.related(slot, message)
            if related is not None:
                return [related]
        return []

    def _producer_related(self, mismatch: Mismatch) -> list[Related]:
        """The exact producer slot that causes an enum or nullability mismatch."""
        if mismatch.reason == "enum":
            return self._slot_related(mismatch.produced_slot, "the produced values are declared here")
        if mismatch.reason in ("nullable", "null"):
            return self._slot_related(mismatch.produced_slot, "this makes the value nullable")
        return []

    def _locate(
        self, value: Any, pointer: str, mismatch: Mismatch, required: BType | None, start: int = 0
    ) -> tuple[str, Mismatch]:
        """Where in `value` (written at `pointer`, fitted to `required`) the mismatch is, and
        the mismatch there: inside an object literal, the member that does not fit; inside
        an array literal, the first item that does not fit by itself (the literal's items
        type joins its items', so the joined mismatch is re-found at that item, its path
        prefixed with the array's). `value` is at `mismatch.path[:start]`."""
        path = mismatch.path
        for k in range(start, len(path)):
            part = path[k]
            if part == "[]":
                if not isinstance(value, ArrayValue) or required is None or required.kind != "array":
                    return pointer, mismatch
                items = required.items or bt.ANY
                for i, item in enumerate(value.items):
                    item_ptr = f"{pointer}/items/{i}"
                    item_t = self.values.get(item_ptr)
                    found = bt.fits(item_t, items) if item_t is not None else None
                    if found is not None:
                        found = dataclasses.replace(found, path=path[: k + 1] + found.path)
                        return self._locate(item, item_ptr, found, items, k + 1)
                return pointer, mismatch
            if not isinstance(value, ObjectValue):
                return pointer, mismatch
            for i, member in enumerate(value.members):
                if isinstance(member, TaskOutput) and member.name == part:
                    value, pointer = member.value, f"{pointer}/members/{i}/value"
                    break
            else:
                return pointer, mismatch
            field = required.get_field(part) if required is not None and required.kind == "object" else None
            required = field.type if field is not None else None
        return pointer, mismatch


# ===================================================================== helpers


_task_types = maker(
    TaskTypes,
    ("ports", "whole"),
    """`TaskTypes(ports, whole)` (no operation, no optional port) without the dataclass call;
    every field set (tests/test_types_fast_paths.py compares them all).""",
)


def _object(ports: dict[str, BType | None]) -> BType | None:
    """The whole result of a task whose ports are `ports` (None when one is unknown)."""
    if not ports:
        return _NO_PORTS  # (equal for every task without ports, and without slots: made once)
    new_field = bt.new_field
    fields = []
    for name, t in ports.items():
        if t is None:
            return None
        fields.append(new_field(name, t))
    return bt.closed_object(fields)


_NUMERIC = frozenset({"integer", "number"})
"""The kinds `less` and the other orderings compare as numbers."""

_NO_PORTS = bt.closed_object(())
"""The whole result of a task without ports (read only)."""


def _output(scope: ScopeNode | None, name: str) -> Any:
    """The last output `name` of `scope` (a name on both sides of a conditional: there is one)."""
    found = None
    for o in scope.outputs if scope is not None else ():
        if o.name == name:
            found = o
    return found


def _handler(table: dict[type, Any], node: Any) -> Any:
    """The entry of `table` for `node`: by its exact class (the models are final), else
    the first class of the table it is an instance of (None: no entry)."""
    found = table.get(type(node))
    if found is None:
        for cls, entry in table.items():
            if isinstance(node, cls):
                return entry
    return found


_TASK_KINDS: dict[type, Any] = {
    OperationTask: _Typer._operation,
    TransformTask: _Typer._transform,
    ValueTask: _Typer._value_task,
    CallTask: _Typer._call,
    SequenceTask: _Typer._sequence,
    ConditionalTask: _Typer._conditional,
    ParallelTask: _Typer._parallel,
    ForeachTask: _Typer._foreach,
}
"""Task model class -> how it is typed."""

_VALUE_KINDS: dict[type, Any] = {
    StringValue: _Typer._string,
    NumberValue: _Typer._number,
    BooleanValue: _Typer._boolean,
    NullValue: _Typer._null,
    ObjectValue: _Typer._object_value,
    ArrayValue: _Typer._array,
    OutputValue: _Typer._output_read,
    InputValue: _Typer._input_read,
    ChoiceValue: _Typer._choice_read,
    ItemValue: _Typer._item_read,
    IndexValue: _Typer._index,
    PresentValue: _Typer._boolean,
    FieldValue: _Typer._field,
    JsonValue: _Typer._json,
    PredicateValue: _Typer._predicate_value,
}
"""Value model class -> how its type is found."""


def _expects(m: Mismatch) -> str:
    where = f" (at `{m.where}`)" if m.path else ""
    required, produced = bt.describe(m.required), bt.describe(m.produced)
    if m.reason == "opaque":
        return f"expects {required}, got an opaque value{where}"
    if m.reason == "null":
        return f"expects {required}, got null{where}"
    if m.reason == "nullable":
        return f"expects {required}, got {produced}, which may be null{where}"
    if m.reason == "enum":
        if m.values:
            listed = ", ".join(f"`{v}`" for v in m.values)
            return f"expects {required}, got {produced}{where}: {listed} not allowed"
        return f"expects {required}, got {produced}{where}: any string may come"
    if m.reason == "missing_field":
        return f"expects {required}, got {produced}{where}: field `{m.field}` is missing"
    if m.reason == "optional_field":
        return f"expects {required}, got {produced}{where}: field `{m.field}` may be absent"
    if m.reason == "extra_field":
        return f"expects {required}, got {produced}{where}: field `{m.field}` is not allowed"
    if m.reason == "open_object":
        return f"expects {required}, got {produced}{where}, which may carry fields not allowed there"
    return f"expects {required}, got {produced}{where}"


def _type_hint(m: Mismatch) -> str:
    required = bt.describe(m.required)
    if m.reason == "opaque":
        return "the producer's result is opaque: add a transform whose resultType declares the value you need"
    if m.reason in ("null", "nullable"):
        return "bind a value that is never null (declare the producer's field non-nullable, or branch on it first)"
    if m.reason == "enum":
        allowed = m.required.values() or ()
        return "bind one of: " + ", ".join(f"`{v}`" for v in allowed) + (
            " (declare the producer's values with a matching `enum`, or use a transform that decides)"
        )
    if m.reason == "open_object":
        return (f"bind an object of type {required}: build it from the fields it takes "
                "(an `object` value whose members read them)")
    if m.reason in ("missing_field", "optional_field", "extra_field"):
        return f"bind an object of type {required}"
    return f"bind a value of type {required}, or add a transform that converts it"


def _closest(name: str, known: Iterable[str]) -> str | None:
    import difflib

    matches = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return matches[0] if matches else None


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def _output_pointer(scope: ScopeNode | None, name: str) -> str:
    if scope is not None:
        for o in scope.outputs:
            if o.name == name:
                return o.pointer
    return scope.pointer if scope is not None else ""


def require_catalog(checked: CheckedPlan, reporter: Reporter) -> bool:
    """For compile, which needs every operation's contract to lower its call: without a
    catalog (`run` was given None, so nothing about operations was reported), the first
    operation task gets TASK_OPERATION_UNKNOWN, the others are its related locations (one
    missing catalog, one diagnostic). True when the plan calls no operation."""
    calls = [t for t in checked.tasks if isinstance(t.model, OperationTask)]
    if not calls:
        return True
    first, others = calls[0], calls[1:]
    related = [reporter.related(f"{t.pointer}/operation", f"task `{t.id}` calls `{t.model.operation}` too") for t in others[:5]]
    more = f" (and {len(others)} more operation tasks)" if others else ""
    reporter.report(
        "TASK_OPERATION_UNKNOWN",
        f"{first.pointer}/operation",
        f"task `{first.id}` calls operation `{first.model.operation}`, but no catalog was given: "
        f"its contract is unknown, so the call cannot be compiled{more}",
        subject={"task": first.id or ""},
        hint="pass the catalog with `--catalog FILE`, or list it under `catalogs` in [tool.taskplan] of pyproject.toml",
        related=related,
    )
    return False
