"""The validate pass: any workflow document (the compiler's own output, or a file a
person wrote) -> findings, each exactly once, at the exact YAML node.

What it checks, in order (docs/workflow-dialect.md, Validation):

1. limits: steps per document (WORKFLOW_LIMIT); the version (WORKFLOW_SCHEMA,
   and nothing else is checked for a version other than 1);
2. structure against the dialect's JSON Schema, dispatching each step to its
   own type's schema (WORKFLOW_SCHEMA; WORKFLOW_EXPRESSION for text that should
   be, or must not look like, a `${...}` expression); step IDs unique per
   workflow; embedded JSON Schemas valid (draft 2020-12), an `llm.call` schema
   strict, an input's `default` valid against its `type`;
3. references: call targets and the entrypoint exist; a call binds only
   declared inputs and every required one; `data.steps.X` names a step of the
   same workflow that has run before (earlier in its list or an enclosing
   one; from `finally`, any top-level step of `steps`); the result field
   after the ID exists for that step type (and a called workflow's output
   exists); `data.inputs.X` is a declared input; `data.item`/`data.index` only
   in a loop body (a workflow that is not the entrypoint and is run only by
   `loop.*` steps); template placeholders have values (WORKFLOW_REFERENCE);
4. expression syntax, located at the exact column inside the YAML string when
   the string is written on one line (WORKFLOW_EXPRESSION);
5. the graph: no cycle of workflow calls (WORKFLOW_CYCLE), nesting depth
   (WORKFLOW_LIMIT).

Nothing that follows from an earlier finding is reported again: a step of an
unknown type is not looked into; a call to an unknown workflow binds nothing;
an expression that does not parse reads nothing; a missing or misspelt `steps`,
`inputs` or `outputs` of a workflow declares nothing that can be found missing;
while a loop's call is unknown, a workflow nothing runs may read `data.item`; a
cleanup guard that is not an expression may guard anything; a call-input key that
is not a name, or that suggests a required input, is one finding.

Every finding carries the workflow, the step and the step's `source` pointer,
so that the compiler can map a finding in its own output back to the TaskPlan.
"""

from __future__ import annotations

import json
import marshal
import threading
from collections.abc import Callable, Iterable
from itertools import chain
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostic, Diagnostics, Related, Reporter, Severity
from taskplan.gcpause import gc_paused
from taskplan.source import pointer as jp
from taskplan.source.document import SourceDocument
from taskplan.source.span import Span
from taskplan.workflow import dialect as d
from taskplan.workflow import expr as ex
from taskplan.workflow.fastschema import suggest
from taskplan.workflow.schema import schema as _dialect_schema
from taskplan.workflow.structure import check_structure, is_whole, step_ids_ok, step_predicates

_placeholders = d.TEMPLATE_PLACEHOLDER_RE.findall
_plain_expression = ex.PLAIN_EXPRESSION.fullmatch
_called_plain_expression = ex.CALLED_PLAIN_EXPRESSION.fullmatch
_plain_path_match = ex.PLAIN_PATH.fullmatch
_path_in_shape = ex.path_in_shape
_marshal = marshal.dumps
_RESULT_FIELDS = d.RESULT_FIELDS
_LITERAL = d.LITERAL
_EXECUTOR = d.EXECUTOR
_BUILTIN_TYPES = frozenset(d.BUILTIN_TYPES)

SCHEMA = "WORKFLOW_SCHEMA"
EXPRESSION = "WORKFLOW_EXPRESSION"
REFERENCE = "WORKFLOW_REFERENCE"
CYCLE = "WORKFLOW_CYCLE"
LIMIT = "WORKFLOW_LIMIT"


# --- results -----------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Finding:
    """One diagnostic of the validate pass, with where it is in the workflow's structure."""

    diagnostic: Diagnostic
    pointer: str
    """The JSON Pointer (into the workflow document) the finding is about."""
    workflow: str | None = None
    """The workflow it is in, if any."""
    step: str | None = None
    """The ID of the innermost step it is in, if any."""
    step_pointer: str | None = None
    """That step's pointer."""
    source: str | None = None
    """That step's `source`: the TaskPlan pointer it was compiled from (compiled output only)."""


@dataclass(slots=True)
class ValidationResult:
    """What validating one workflow document found."""

    document: SourceDocument
    findings: list[Finding] = field(default_factory=list)
    """The validate pass's findings, sorted like diagnostics (file, line, column, code)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """Sorted: from `validate_text`, every diagnostic about the document (the read pass's
    included); from `validate_document`, this pass's (the findings' diagnostics)."""

    @property
    def path(self) -> str:
        return self.document.path

    @property
    def errors(self) -> int:
        return sum(1 for x in self.diagnostics if x.severity is Severity.ERROR)

    @property
    def ok(self) -> bool:
        return self.document.ok and self.errors == 0


def validate_text(
    data: bytes, path: str, *, limits: Limits = DEFAULT_LIMITS, format: str | None = None
) -> ValidationResult:
    """Read the bytes of a workflow file (shown as `path`) and validate it."""
    from taskplan.source.read import WORKFLOW_CODES, read_document

    sink = Diagnostics()
    document = read_document(data, path, sink, codes=WORKFLOW_CODES, limits=limits, format=format)  # type: ignore[arg-type]
    result = ValidationResult(document)
    if document.ok:
        result = validate_document(document, Reporter(document, sink), limits)
    result.diagnostics = sink.sorted()
    return result


def validate_data(
    data: Any, text: str = "", path: str = "<compiled workflow>", *, limits: Limits = DEFAULT_LIMITS
) -> ValidationResult:
    """Validate a workflow document given as plain data (what the compiler is about to
    emit as `text`), without reading text back: the compiler's self-check. Findings
    have no YAML positions; they carry the step and its `source` (the TaskPlan pointer)."""
    document = _EmittedDocument(path=path, text=text, format="yaml", digest=None, tree=data, ok=True)  # type: ignore[arg-type]
    sink = Diagnostics()
    result = validate_document(document, Reporter(document, sink), limits)
    result.diagnostics = sink.sorted()
    return result


_DIGEST = SourceDocument.__dict__["digest"]
"""SourceDocument's own `digest` slot."""


class _EmittedDocument(SourceDocument):
    """The document of `validate_data`: its `digest` (of `text`) is computed when first read.
    Why: nothing in the self-check reads it (findings carry no digest), and hashing the
    text cost 15 % of the self-check's instructions (tests/test_validate_accept.py)."""

    __slots__ = ()

    @property  # type: ignore[override]
    def digest(self) -> str:
        value = _DIGEST.__get__(self, SourceDocument)
        if value is None:
            import hashlib

            value = "sha256:" + hashlib.sha256(self.text.encode("utf-8")).hexdigest()
            _DIGEST.__set__(self, value)
        return value

    @digest.setter
    def digest(self, value: str | None) -> None:
        _DIGEST.__set__(self, value)


def validate_document(
    document: SourceDocument, reporter: Reporter, limits: Limits = DEFAULT_LIMITS
) -> ValidationResult:
    """Validate a workflow document that was read (document.ok). Reports through
    `reporter` and returns the findings. Never raises on user input."""
    result = ValidationResult(document)
    if not document.ok:
        return result
    validator = _Validator(document, reporter, limits)
    # The pass allocates many small tuples over a large live heap (the document tree):
    # CPython's generational collector would traverse that heap again and again, costing
    # more than the pass itself. The pause is restored on exit.
    with gc_paused():
        if _accepts(document.tree, limits):  # the common case: nothing to find, nothing to locate
            return result
        validator.run()
    seen: set[tuple] = set()
    for finding in sorted(validator.findings, key=lambda f: f.diagnostic.sort_key):
        dx = finding.diagnostic
        key = (dx.code, dx.location, dx.message)
        if key not in seen:
            seen.add(key)
            result.findings.append(finding)
    result.diagnostics = [f.diagnostic for f in result.findings]
    return result


# --- the document's structure, as the checks need it ----------------------------------------------

class _Step:
    __slots__ = ("id", "kind", "node", "path", "list_path", "index", "parent", "section", "workflow",
                 "calls", "inline", "height")

    def __init__(self, node: dict, path: tuple, list_path: tuple, index: int, parent: "_Step | None",
                 section: str, workflow: "_Workflow"):
        sid = node.get("id")
        self.id: str | None = sid if type(sid) is str else None
        type_ = node.get("type")
        # a built-in type is its own kind (no call); `step_kind` says for the rest
        self.kind = type_ if type(type_) is str and type_ in _BUILTIN_TYPES else d.step_kind(type_)
        self.node = node
        self.path = path
        self.list_path = list_path
        self.index = index
        self.parent = parent
        self.section = section
        self.workflow = workflow
        self.calls: list[_Call] = []
        self.inline: list[list[_Step]] = []
        self.height = 0


class _Call:
    __slots__ = ("caller", "target_name", "path", "loop", "input", "input_path", "target")

    def __init__(self, caller: _Step, target_name: str, path: tuple, loop: bool, input_: Any, input_path: tuple):
        self.caller = caller
        self.target_name = target_name
        self.path = path
        self.loop = loop
        self.input = input_
        self.input_path = input_path
        self.target: _Workflow | None = None


_WORKFLOW_FIELDS: tuple[str, ...] = tuple(_dialect_schema()["$defs"]["workflow"]["properties"])
"""The fields of a workflow (`description`, `inputs`, `steps`, `finally`, `outputs`)."""


def _misspelt(node: dict, fields: tuple[str, ...]) -> set[str]:
    """The fields absent from `node` that an unknown key of it suggests: the structural
    check reported that key ("did you mean"), so what the field holds is unknown."""
    unknown = [k for k in node if k not in fields]
    if not unknown:
        return set()
    return {close for k in unknown if type(k) is str and (close := suggest(k, list(fields))) is not None
            and close not in node}


class _Workflow:
    __slots__ = ("name", "node", "path", "inputs", "outputs", "steps", "finally_", "by_id", "callers",
                 "calls", "item_ok", "height", "prefixes", "required", "steps_known")

    def __init__(self, name: str, node: dict):
        self.name = name
        self.node = node
        self.path = ("workflows", name)
        misspelt = _misspelt(node, _WORKFLOW_FIELDS)
        # None: unknown (a wrong type, or a misspelt field, reported by the structural check)
        inputs = node.get("inputs", None if "inputs" in misspelt else {})
        outputs = node.get("outputs", None if "outputs" in misspelt else {})
        self.inputs: dict | None = inputs if type(inputs) is dict else None
        self.outputs: dict | None = outputs if type(outputs) is dict else None
        self.steps_known = type(node.get("steps")) is list
        """False: `steps` is missing, misspelt or not a list (reported): a step it does not
        find is not reported."""
        self.steps: list[_Step] = []
        self.finally_: list[_Step] = []
        self.by_id: dict[str, _Step] = {}
        self.callers: list[_Call] = []
        self.calls: list[_Call] = []
        self.item_ok = False
        self.height = 0
        self.prefixes: dict[str, str] | None = None
        self.required: set[str] | None = None


class _TooManySteps(Exception):
    """The document has more steps than Limits.max_workflow_steps: indexing stops."""


def _valid_name(name: Any) -> bool:
    """A workflow, input or output name (`#/$defs/name`); one that is not is reported by
    the structural check, and nothing else is said about it."""
    return type(name) is str and len(name) <= d.MAX_NAME_LENGTH and d.NAME_RE.fullmatch(name) is not None


def _input_required(decl: Any) -> bool:
    if type(decl) is not dict:
        return False
    required = decl.get("required")
    if required is None:
        return "default" not in decl
    return required is True


class _Validator:
    def __init__(self, document: SourceDocument, reporter: Reporter, limits: Limits):
        self.document = document
        self.reporter = reporter
        self.limits = limits
        self.tree = document.tree
        self.findings: list[Finding] = []
        self.workflows: dict[str, _Workflow] = {}
        self._owners: dict[str, str] | None = None
        """step ID -> the first workflow (document order) that declares it; made when first
        needed (only a wrong reference asks)."""
        self.calls: list[_Call] = []
        self.budget = self.SUGGESTION_BUDGET
        self.guards: frozenset | None = frozenset()
        """The steps that the `when` of the cleanup step being checked (or of an enclosing
        one) tests with `present(...)`; None: unknown (a guard that is not a valid
        expression, reported), and no read is reported as unguarded."""
        self.unknown_loop_call = False
        """Some `loop.*` step (or a step of an unknown type with a `call`) runs a workflow
        that is not known (misspelt, missing, not a name; reported)."""
        self.max_expression_chars = limits.max_expression_chars
        self.steps_seen = 0
        """Steps indexed so far, in all lists (items that are not mappings included)."""
        self.held: list | None = None
        """Findings of the indexing, held back until the structural findings are reported."""
        self.schema_problems = _SchemaMemo(_embedded_schema_problem)
        """Embedded schema -> `_schema_problem` of it."""
        self.strict_problems = _SchemaMemo(_strict_problem)
        """The same for `_strict_problem` (the key keeps the order of keys, which its message follows)."""
        self.default_problems = _SchemaMemo(_field_default_problem)
        """The same for `_field_default_problem` (an input's type)."""

    # --- reporting ------------------------------------------------------------------------

    SUGGESTION_BUDGET = 50_000
    """Candidates compared for "did you mean" in one document, at most: past it, no more
    suggestions (a document with thousands of wrong names stays linear)."""

    def suggest(self, word: str, candidates: dict | list) -> str | None:
        if len(candidates) > self.budget:
            return None
        self.budget -= len(candidates)
        return suggest(word, [c for c in candidates if type(c) is str])

    def report(
        self,
        code: str,
        path: tuple,
        message: str,
        *,
        key: bool = False,
        span: Span | None = None,
        hint: str | None = None,
        related: Iterable[Related] = (),
        step: _Step | None = None,
    ) -> None:
        pointer = jp.from_path(path)
        diagnostic = self.reporter.report(code, pointer, message, key=key, span=span, hint=hint, related=related)
        workflow, step_node, step_path = self._context(path) if step is None else (step.workflow.name, step.node, step.path)
        sid = step_node.get("id") if step_node is not None else None
        source = step_node.get("source") if step_node is not None else None
        self.findings.append(
            Finding(
                diagnostic,
                pointer,
                workflow,
                sid if type(sid) is str else None,
                jp.from_path(step_path) if step_path is not None else None,
                source if type(source) is str else None,
            )
        )

    def _context(self, path: tuple) -> tuple[str | None, dict | None, tuple | None]:
        """The workflow and the innermost step that `path` lies in."""
        if len(path) < 2 or path[0] != "workflows" or type(self.tree) is not dict:
            return None, None, None
        workflows = self.tree.get("workflows")
        if type(workflows) is not dict or path[1] not in workflows:
            return None, None, None
        node: Any = workflows[path[1]]
        step: dict | None = None
        step_path: tuple | None = None
        i = 2
        while i + 1 < len(path) and type(node) is dict:
            if path[i] in ("steps", "finally") and type(path[i + 1]) is int:
                items = node.get(path[i])
                if type(items) is not list or path[i + 1] >= len(items) or type(items[path[i + 1]]) is not dict:
                    break
                node = items[path[i + 1]]
                step, step_path = node, path[: i + 2]
                i += 2
            elif path[i] == "cases" and type(path[i + 1]) is int and i + 2 < len(path) and path[i + 2] == "steps":
                cases = node.get("cases")
                if type(cases) is not list or path[i + 1] >= len(cases) or type(cases[path[i + 1]]) is not dict:
                    break
                node = cases[path[i + 1]]
                i += 2
            elif path[i] == "default" and path[i + 1] == "steps":
                node = node.get("default")
                i += 1
            else:
                break
        return path[1], step, step_path

    def span_in_string(self, path: tuple, text: str, start: int, end: int, prefix: int) -> Span | None:
        """The span of text[prefix+start : prefix+end] inside the YAML/JSON scalar at `path`,
        when the scalar is written on one line without escapes; else None (the node)."""
        resolved = self.document.map.resolve(jp.from_path(path))
        if not resolved.exact:
            return None
        span = resolved.span
        if span.line != span.end_line:
            return None
        raw = self.document.line_text(span.line)[span.column - 1 : span.end_column - 1]
        if raw == text:
            base = span.column
        elif len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "'\"" and raw[1:-1] == text:
            base = span.column + 1
        else:
            return None
        first = base + prefix + start
        last = base + prefix + end
        if last <= first:  # an empty place (the end of the expression): its next character
            last = first + 1
        return Span(span.line, first, span.line, last)

    # --- the run ----------------------------------------------------------------------------

    def run(self) -> None:
        tree = self.tree
        if type(tree) is dict and not self._version(tree):
            return
        workflows = tree.get("workflows") if type(tree) is dict else None
        if type(workflows) is dict:
            # Index first, counting the steps on the way (one walk less), its findings held
            # back: over the step limit, nothing but the limit is reported, as if the steps
            # were counted before anything else; else the findings come in their usual place.
            for name, node in workflows.items():
                if type(node) is dict:
                    self.workflows[name] = _Workflow(name, node)
            self.held = []
            try:
                for wf in self.workflows.values():
                    self._index(wf)
            except _TooManySteps:
                self._count_steps(tree)  # reports the first step past the limit
                return
        errors = check_structure(tree)
        for e in errors:
            self.report(e.code, e.path, e.message, key=e.key)
        if type(workflows) is not dict:
            return
        held, self.held = self.held, None
        for report in held:
            report()
        self._resolve_calls(tree)
        self._loop_bodies()
        for wf in self.workflows.values():
            self._check_workflow(wf)
        order = self._cycles()
        if order is not None:
            self._depth(tree, order)

    def _version(self, tree: dict) -> bool:
        if "version" not in tree:
            self.report(SCHEMA, (), "missing required field `version` (this taskplan reads workflow version 1)")
            return False
        version = tree["version"]
        if type(version) is not int or version != d.VERSION:
            self.report(
                SCHEMA,
                ("version",),
                f"unsupported workflow version {json.dumps(version)}; this taskplan reads version {d.VERSION}",
                hint="a document of another version is not checked further",
            )
            return False
        return True

    def _count_steps(self, tree: Any) -> bool:
        """Whether the document is within the step limit (else one WORKFLOW_LIMIT, at the first
        step past it, and nothing else is checked)."""
        if type(tree) is not dict or type(tree.get("workflows")) is not dict:
            return True
        limit = self.limits.max_workflow_steps
        count = 0
        stack: list[tuple[Any, tuple]] = []
        for name, wf in reversed(list(tree["workflows"].items())):
            if type(wf) is dict:
                for section in ("finally", "steps"):
                    stack.append((wf.get(section), ("workflows", name, section)))
        while stack:
            items, path = stack.pop()
            if type(items) is not list:
                continue
            count += len(items)
            if count > limit:
                self.report(
                    LIMIT,
                    path + (len(items) - (count - limit),),  # the first step past the limit
                    f"the document has more than {limit} steps (the limit, Limits.max_workflow_steps)",
                )
                return False
            # only a switch holds steps (found in one comprehension, pushed last first)
            switches = [i for i, step in enumerate(items) if type(step) is dict and step.get("type") == "switch"]
            for i in reversed(switches):
                step = items[i]
                default = step.get("default")
                if type(default) is dict:
                    stack.append((default.get("steps"), path + (i, "default", "steps")))
                cases = step.get("cases")
                if type(cases) is list:
                    for j in range(len(cases) - 1, -1, -1):
                        if type(cases[j]) is dict:
                            stack.append((cases[j].get("steps"), path + (i, "cases", j, "steps")))
        return True

    # --- indexing -------------------------------------------------------------------------------

    def _index(self, wf: _Workflow) -> None:
        wf.steps = self._index_list(wf, wf.node.get("steps"), wf.path + ("steps",), None, "steps")
        wf.finally_ = self._index_list(wf, wf.node.get("finally"), wf.path + ("finally",), None, "finally")

    def _index_list(self, wf: _Workflow, items: Any, list_path: tuple, parent: _Step | None, section: str) -> list[_Step]:
        out: list[_Step] = []
        if type(items) is not list:
            return out
        self.steps_seen += len(items)  # every item, as `_count_steps` counts
        if self.steps_seen > self.limits.max_workflow_steps:
            raise _TooManySteps
        by_id = wf.by_id
        for i, node in enumerate(items):
            if type(node) is not dict:
                continue
            path = list_path + (i,)
            step = _Step(node, path, list_path, i, parent, section, wf)
            out.append(step)
            if step.id is not None:
                first = by_id.setdefault(step.id, step)
                if first is not step:
                    self._hold(lambda step=step, first=first: self.report(
                        SCHEMA,
                        step.path + ("id",),
                        f"step ID `{step.id}` is declared twice in workflow `{wf.name}`",
                        related=[self.reporter.related(jp.from_path(first.path + ("id",)), "first declared here")],
                        step=step,
                    ))
            kind = step.kind
            if kind == _EXECUTOR or kind == "set":  # the commonest: no calls
                continue
            if kind is None and "call" in node:  # an unknown type (reported): maybe a loop
                self.unknown_loop_call = True
            if kind == "workflow.call":
                self._call(step, node.get("workflow"), path + ("workflow",), False, node, path)
            elif kind in d.LOOP_TYPES:
                self._call(step, node.get("call"), path + ("call",), True, node, path)
            elif kind == "parallel":
                branches = node.get("branches")
                if type(branches) is list:
                    for j, branch in enumerate(branches):
                        if type(branch) is dict:
                            self._call(step, branch.get("call"), path + ("branches", j, "call"), False, branch, path + ("branches", j))
            elif kind == "switch":
                cases = node.get("cases")
                branches = [(case, path + ("cases", j)) for j, case in enumerate(cases)] if type(cases) is list else []
                if "default" in node:
                    branches.append((node["default"], path + ("default",)))
                for branch, bpath in branches:
                    if type(branch) is not dict:
                        continue
                    if "call" in branch:
                        self._call(step, branch.get("call"), bpath + ("call",), False, branch, bpath)
                    if "steps" in branch:
                        step.inline.append(self._index_list(wf, branch["steps"], bpath + ("steps",), step, section))
        return out

    def _hold(self, report: Any) -> None:
        """Report now, or after the structural findings while indexing runs before them."""
        if self.held is None:
            report()
        else:
            self.held.append(report)

    def _call(self, step: _Step, target: Any, path: tuple, loop: bool, holder: dict, holder_path: tuple) -> None:
        if type(target) is not str:
            if loop:
                self.unknown_loop_call = True
            return
        call = _Call(step, target, path, loop, holder.get("input"), holder_path + ("input",))
        step.calls.append(call)
        step.workflow.calls.append(call)
        self.calls.append(call)

    def _resolve_calls(self, tree: dict) -> None:
        names = list(self.workflows)
        entry = tree.get("entrypoint")
        if type(entry) is str and entry not in self.workflows:
            self._unknown_workflow(("entrypoint",), entry, names)
        for call in self.calls:
            target = self.workflows.get(call.target_name)
            if target is None:
                self._unknown_workflow(call.path, call.target_name, names, call.caller)
                if call.loop:
                    self.unknown_loop_call = True
                continue
            call.target = target
            target.callers.append(call)
            self._check_call_inputs(call, target)

    def _unknown_workflow(self, path: tuple, name: str, names: list[str], step: _Step | None = None) -> None:
        message = f"unknown workflow `{name}`"
        close = self.suggest(name, names)
        if close:
            message += f"; did you mean `{close}`?"
        self.report(REFERENCE, path, message, step=step)

    def _check_call_inputs(self, call: _Call, target: _Workflow) -> None:
        declared = target.inputs
        if declared is None:
            return
        given = call.input
        if given is None:
            given = {}
        if type(given) is not dict:
            return
        # the inputs that a wrong key suggests: a misspelt input is one diagnostic, at the
        # key, not also a required input missing
        meant: set[str] = set()
        if not given.keys() <= declared.keys():  # the full scan only to report
            for key in given:
                if key not in declared:
                    close = self.suggest(key, declared) if type(key) is str else None
                    if close:
                        meant.add(close)
                    if not _valid_name(key):
                        continue  # not a name at all: reported as such by the structural check
                    message = f"workflow `{target.name}` has no input `{key}`"
                    if close:
                        message += f"; did you mean `{close}`?"
                    self.report(REFERENCE, call.input_path + (key,), message, key=True, step=call.caller)
        if target.required is None:  # an invalid name is reported at the declaration, not here
            target.required = {name for name, decl in declared.items() if _input_required(decl) and _valid_name(name)}
        required = target.required
        if given.keys() >= required:  # every required input bound; the full scan only to report
            return
        missing = [name for name in declared if name in required and name not in given and name not in meant]
        if missing:
            names = ", ".join(f"`{m}`" for m in missing)
            self.report(
                REFERENCE,
                call.input_path,
                f"workflow `{target.name}` requires input{'s' if len(missing) > 1 else ''} {names}",
                step=call.caller,
            )

    def _loop_bodies(self) -> None:
        entry = self.tree.get("entrypoint") if type(self.tree) is dict else None
        unknown = self.unknown_loop_call
        for wf in self.workflows.values():
            if wf.callers:
                wf.item_ok = wf.name != entry and all(c.loop for c in wf.callers)
            else:
                # a workflow nothing runs may be the body of the loop whose call is unknown:
                # whether it is a loop body cannot be known, so its `data.item` is not reported
                wf.item_ok = unknown and wf.name != entry

    # --- per workflow: expressions, references, templates, schemas ----------------------------------

    def _check_workflow(self, wf: _Workflow) -> None:
        steps_path = wf.path + ("steps",)
        self._check_list(wf, wf.steps, ())
        self._check_list(wf, wf.finally_, ())
        if wf.inputs is not None:
            for name, decl in wf.inputs.items():
                if type(decl) is dict:
                    self._check_input_schema(wf.path + ("inputs", name), decl)
        if wf.outputs is not None:
            chain = ((steps_path, len(wf.steps) and (wf.steps[-1].index + 1)),)
            for name, out in wf.outputs.items():
                if type(out) is not dict:
                    continue
                path = wf.path + ("outputs", name)
                if "type" in out:
                    self._check_schema(path + ("type",), out["type"])
                if "expr" in out:
                    self._expression(wf, out["expr"], path + ("expr",), chain, "outputs", None)

    def _check_list(self, wf: _Workflow, steps: list[_Step], outer: tuple, guards: frozenset | None = frozenset()) -> None:
        for step in steps:
            chain = ((step.list_path, step.index),) + outer
            own = guards
            if step.section == "finally" and step.kind is not None and "when" in step.node:
                tested = _present_guards(step.node["when"])
                own = None if tested is None or guards is None else guards | tested
            self.guards = own
            if step.kind is not None:
                self._check_step(wf, step, chain)
            for inline in step.inline:
                self._check_list(wf, inline, chain, own)

    def _check_step(self, wf: _Workflow, step: _Step, chain: tuple) -> None:
        node, path, kind = step.node, step.path, step.kind
        section = step.section
        expression, value = self._expression, self._value

        if "when" in node:
            expression(wf, node["when"], path + ("when",), chain, section, step)
        if kind == _EXECUTOR:
            if "input" in node:
                value(wf, node["input"], path + ("input",), chain, section, step)
        elif kind == "set":
            if "value" in node:
                value(wf, node["value"], path + ("value",), chain, section, step)
        elif kind == "switch":
            cases = node.get("cases")
            if type(cases) is list:
                for j, case in enumerate(cases):
                    if type(case) is dict:
                        if "when" in case:
                            expression(wf, case["when"], path + ("cases", j, "when"), chain, section, step)
                        if "input" in case:
                            value(wf, case["input"], path + ("cases", j, "input"), chain, section, step)
            default = node.get("default")
            if type(default) is dict and "input" in default:
                value(wf, default["input"], path + ("default", "input"), chain, section, step)
        elif kind == "parallel":
            branches = node.get("branches")
            if type(branches) is list:
                for j, branch in enumerate(branches):
                    if type(branch) is dict and "input" in branch:
                        value(wf, branch["input"], path + ("branches", j, "input"), chain, section, step)
        elif kind in d.LOOP_TYPES:
            if "items" in node:
                expression(wf, node["items"], path + ("items",), chain, section, step)
            if "input" in node:
                value(wf, node["input"], path + ("input",), chain, section, step)
        elif kind == "workflow.call":
            if "input" in node:
                value(wf, node["input"], path + ("input",), chain, section, step)
        elif kind == "template.render":
            if "values" in node:
                value(wf, node["values"], path + ("values",), chain, section, step)
            self._check_template(node, path, step)
        elif kind == "llm.call":
            if "prompt" in node:
                expression(wf, node["prompt"], path + ("prompt",), chain, section, step)
            if "schema" in node and self._check_schema(path + ("schema",), node["schema"], step):
                self._check_strict(path + ("schema",), node["schema"], step)
        elif kind in ("value.project", "array.project"):
            if "from" in node:
                expression(wf, node["from"], path + ("from",), chain, section, step)
            if "schema" in node:
                self._check_schema(path + ("schema",), node["schema"], step)
        elif kind == "value.validate":
            if "value" in node:
                expression(wf, node["value"], path + ("value",), chain, section, step)
            if "schema" in node:
                self._check_schema(path + ("schema",), node["schema"], step)

    def _value(self, wf: _Workflow, value: Any, path: tuple, chain: tuple, section: str, step: _Step | None) -> None:
        """Every expression of a data tree (iteratively; `$literal` and `$` keys are data).
        Paths are built only for containers and expressions."""
        t = type(value)
        if t is str:
            if value.startswith("${"):
                self._expression(wf, value, path, chain, section, step)
            return
        if t is not dict and t is not list:
            return
        stack: list[tuple[Any, tuple]] = [(value, path)]  # mappings and lists only
        while stack:
            node, where = stack.pop()
            if type(node) is dict:
                if _LITERAL in node:
                    continue
                items: Iterable[tuple[Any, Any]] = node.items()
            else:
                items = enumerate(node)
            for key, member in items:
                t = type(member)
                if t is str:
                    # `in` first: most strings are literal text, without `${` anywhere
                    if "${" in member and member.startswith("${") and not (type(key) is str and key.startswith("$")):
                        self._expression(wf, member, where + (key,), chain, section, step)
                elif (t is dict or t is list) and not (type(key) is str and key.startswith("$")):
                    stack.append((member, where + (key,)))

    def _expression(self, wf: _Workflow, text: Any, path: tuple, chain: tuple, section: str, step: _Step | None) -> None:
        if type(text) is not str:
            return  # the structural check reported it
        # The commonest expression, one plain path (`${data.steps.a.result.id}`), recognised
        # and split in one regex call: most references read are plainly fine.
        plain = _plain_expression(text)
        if plain is not None:
            if len(text) <= self.max_expression_chars and self._plainly_fine(wf, plain.groups(), chain, section):
                return
        elif len(text) < 3 or not text.startswith("${") or not text.endswith("}"):
            return  # not a whole expression (ex.split): the structural check said so
        body = text[2:-1]
        if len(text) > self.max_expression_chars:
            self.report(
                LIMIT, path,
                f"the expression is {len(text)} characters long, more than the limit of {self.limits.max_expression_chars} (Limits.max_expression_chars)",
                step=step,
            )
            return
        if plain is None:  # one plain path in a shape the lowering pass writes: no parse either
            inner = _path_in_shape(body)
            shaped = _plain_path_match(inner) if inner is not None else None
            if shaped is not None and self._plainly_fine(wf, shaped.groups(), chain, section):
                return
        parsed = ex.parse(body)
        if parsed.error is not None:
            err = parsed.error
            span = self.span_in_string(path, text, err.offset, err.end, 2)
            self.report(EXPRESSION, path, f"invalid expression: {err.message}", span=span, step=step)
            return
        for ref in parsed.refs:
            segments = ref.segments
            parts = (ref.root, ref.name, None, segments[0] if segments else None, segments[1] if len(segments) > 1 else None)
            if not self._plainly_fine(wf, parts, chain, section):
                self._reference(wf, ref, text, path, chain, section, step)

    def _plainly_fine(self, wf: _Workflow, parts: tuple, chain: tuple, section: str) -> bool:
        """The common references, where `_reference` would report nothing: a declared input,
        an item in a loop body, or a result field (a called workflow's output included) of
        an earlier step of the same list, or, from cleanup, of a top-level step that the
        cleanup step's guard tests. False: ask `_reference`.
        `parts`: as the groups of `ex.PLAIN_PATH`: the root, the name, the name if quoted
        (None if not), the first two segments after the name (None when absent)."""
        root, name, quoted, first, second = parts
        if quoted is not None:
            name = quoted
        if root == "steps":
            target = wf.by_id.get(name)
            if target is None:
                return False
            here = chain[0]
            if target.list_path != here[0] or target.index >= here[1]:
                # `_visibility`: from `finally`, a top-level step of `steps` has run
                guards = self.guards
                if not (section == "finally" and target.section == "steps" and target.parent is None
                        and (guards is None or target.id in guards)):
                    return False
            kind = target.kind
            if first is None or kind is None:
                return True
            if first not in _RESULT_FIELDS[kind]:
                return False
            if kind != "workflow.call" or second is None or first != "outputs":
                return True
            called = target.node.get("workflow")  # `_result_field`: the called workflow's output
            callee = self.workflows.get(called) if type(called) is str else None
            return callee is None or callee.outputs is None or second in callee.outputs
        if root == "inputs":
            return wf.inputs is None or name in wf.inputs
        return wf.item_ok

    # --- references -------------------------------------------------------------------------

    def _reference(self, wf: _Workflow, ref: ex.Ref, text: str, path: tuple, chain: tuple, section: str, step: _Step | None) -> None:
        def at(start: int, end: int) -> Span | None:
            return self.span_in_string(path, text, start, end, 2)

        if ref.root == "inputs":
            if wf.inputs is not None and ref.name not in wf.inputs:
                message = f"workflow `{wf.name}` has no input `{ref.name}`"
                close = self.suggest(ref.name or "", wf.inputs)
                hint = None
                if close:
                    message += f"; did you mean `{close}`?"
                elif not wf.inputs:
                    hint = "declare it under the workflow's `inputs`"
                self.report(REFERENCE, path, message, span=at(ref.name_start, ref.name_end), hint=hint, step=step)
            return
        if ref.root in ("item", "index"):
            if not wf.item_ok:
                self._item_outside_loop(wf, ref, path, at(ref.name_start, ref.name_end), step)
            return
        self._step_reference(wf, ref, path, chain, section, step, at)

    def _item_outside_loop(self, wf: _Workflow, ref: ex.Ref, path: tuple, span: Span | None, step: _Step | None) -> None:
        what = f"`data.{ref.root}`"
        entry = self.tree.get("entrypoint")
        related: list[Related] = []
        if wf.name == entry:
            reason = f"`{wf.name}` is the entrypoint"
        elif not wf.callers:
            reason = f"no `loop.parallel` or `loop.sequential` step runs workflow `{wf.name}`"
        else:
            other = next(c for c in wf.callers if not c.loop)
            reason = f"workflow `{wf.name}` is also run by step `{other.caller.id}`, which is not a loop"
            related.append(self.reporter.related(jp.from_path(other.path), "run here without an item"))
        self.report(
            REFERENCE, path,
            f"{what} is only defined in a loop body, and {reason}",
            span=span, related=related,
            hint="pass the value as an input of the workflow instead",
            step=step,
        )

    def _step_reference(self, wf: _Workflow, ref: ex.Ref, path: tuple, chain: tuple, section: str,
                        step: _Step | None, at: Any) -> None:
        name = ref.name or ""
        target = wf.by_id.get(name)
        if target is None or (target.list_path == chain[0][0] and target.index < chain[0][1]):
            if target is not None:  # the common case: an earlier step of the same list
                self._result_field(target, ref, path, step, at)
                return
            if not wf.steps_known:
                return  # the workflow's `steps` is missing, misspelt or not a list (reported)
            name_span = at(ref.name_start, ref.name_end)
            owner = self._owner(name)
            hint = None
            if owner is not None:
                message = f"step `{name}` belongs to workflow `{owner}`, not to `{wf.name}`"
                hint = "a workflow reads another's results through the `outputs` of the step that calls it, or as an input"
            else:
                message = f"no step `{name}` in workflow `{wf.name}`"
                quoted = self._dotted(wf, name)
                if quoted is not None:
                    hint = f"a step ID with dots is quoted: `{ex.step_path(quoted)}`"
                else:
                    close = self.suggest(name, wf.by_id)
                    if close:
                        message += f"; did you mean `{close}`?"
            self.report(REFERENCE, path, message, span=name_span, hint=hint, step=step)
            return
        problem = self._visibility(target, chain, section, ref.in_present)
        if problem is not None:
            self.report(REFERENCE, path, problem, span=at(ref.name_start, ref.name_end), step=step,
                        related=[self.reporter.related(jp.from_path(target.path + ("id",)), "the step is declared here")])
            return
        guards = self.guards
        if (section == "finally" and target.section == "steps" and not ref.in_present and guards is not None
                and target.id not in guards):
            self.report(
                REFERENCE, path,
                f"cleanup reads step `{target.id}` without a presence guard: it may not have run",
                span=at(ref.name_start, ref.name_end), step=step,
                hint="guard the cleanup step with `when: " + ex.expression(f"present({ex.step_path(target.id)})") + "`",
            )
            return
        self._result_field(target, ref, path, step, at)

    def _result_field(self, target: _Step, ref: ex.Ref, path: tuple, step: _Step | None, at: Any) -> None:
        if not ref.segments or target.kind is None:
            return
        first = ref.segments[0]
        fields = d.RESULT_FIELDS[target.kind]
        if first not in fields:
            shown = f"`{first}`" if isinstance(first, str) else f"item {first}"
            kind = target.node.get("type")
            message = f"a `{kind}` step's result has no {shown}; it has " + ", ".join(f"`{f}`" for f in fields)
            start, end = ref.segment_spans[0]
            self.report(REFERENCE, path, message, span=at(start, end), step=step)
            return
        if target.kind == "workflow.call" and first == "outputs" and len(ref.segments) > 1 and isinstance(ref.segments[1], str):
            callee = self.workflows.get(target.node.get("workflow")) if type(target.node.get("workflow")) is str else None
            if callee is not None and callee.outputs is not None and ref.segments[1] not in callee.outputs:
                message = f"workflow `{callee.name}` has no output `{ref.segments[1]}`"
                close = self.suggest(ref.segments[1], callee.outputs)
                if close:
                    message += f"; did you mean `{close}`?"
                start, end = ref.segment_spans[1]
                self.report(REFERENCE, path, message, span=at(start, end), step=step)

    def _visibility(self, target: _Step, chain: tuple, section: str, in_present: bool = False) -> str | None:
        """Why `target` cannot be read at the position `chain` (innermost list first), or None.
        `present(...)` may also test a step that runs only inside a switch case, once that
        switch has run."""
        for depth, (list_path, index) in enumerate(chain):
            if target.list_path == list_path:
                if target.index < index:
                    return None
                if target.index == index:
                    if depth == 0:
                        return f"step `{target.id}` reads its own result"
                    return f"step `{target.id}` has not finished while its own cases run"
                return f"step `{target.id}` has not run yet: it runs after this step"
        if section == "finally" and target.section == "steps" and target.parent is None:
            return None
        if target.section == "finally" and section != "finally":
            return f"step `{target.id}` is a cleanup step (`finally`): it runs after every step and output"
        if target.parent is not None:
            if in_present:
                lists = {list_path for list_path, _ in chain}
                switch = target.parent
                while switch.parent is not None and switch.list_path not in lists:
                    switch = switch.parent
                if self._visibility(switch, chain, section) is None:
                    return None
            return f"step `{target.id}` runs only inside a case of switch `{target.parent.id}`: it may not have run"
        return f"step `{target.id}` is not visible here"  # pragma: no cover - every case is named above

    def _owner(self, name: str) -> str | None:
        """The first workflow (document order) that declares step ID `name`."""
        if self._owners is None:
            self._owners = {}
            for wf in self.workflows.values():
                for sid in wf.by_id:
                    self._owners.setdefault(sid, wf.name)
        return self._owners.get(name)

    def _dotted(self, wf: _Workflow, name: str) -> str | None:
        """The first step ID that starts with `name.` (the user wrote a dotted ID unquoted)."""
        if wf.prefixes is None:
            wf.prefixes = {}
            for sid in wf.by_id:
                parts = sid.split(".")
                for i in range(1, len(parts)):
                    wf.prefixes.setdefault(".".join(parts[:i]), sid)
        return wf.prefixes.get(name)

    # --- templates and embedded schemas ----------------------------------------------------

    def _check_template(self, node: dict, path: tuple, step: _Step) -> None:
        template = node.get("template")
        values = node.get("values", {})
        if type(template) is not str or type(values) is not dict:
            return
        for match in d.TEMPLATE_PLACEHOLDER_RE.finditer(template):
            name = match.group(1)
            if name not in values:
                span = self.span_in_string(path + ("template",), template, match.start(), match.end(), 0)
                message = f"the template's placeholder `{{{{ {name} }}}}` has no value in `values`"
                close = self.suggest(name, values)
                if close:
                    message += f"; did you mean `{close}`?"
                self.report(REFERENCE, path + ("template",), message, span=span, step=step)

    def _check_schema(self, path: tuple, schema: Any, step: _Step | None = None) -> bool:
        """An embedded JSON Schema must be a valid draft 2020-12 schema: one finding at the
        first problem. Returns whether it is valid."""
        if type(schema) not in (dict, bool):
            return False  # the structural check reported its type
        problem = self.schema_problems(schema)
        if problem is None:
            return True
        where, message = problem
        self.report(SCHEMA, path + where, f"not a valid JSON Schema: {message}", step=step)
        return False

    def _check_strict(self, path: tuple, schema: Any, step: _Step) -> None:
        problem = self.strict_problems(schema)
        if problem is not None:
            where, message = problem
            self.report(SCHEMA, path + where, f"an `llm.call` schema must be strict: {message}", step=step,
                        hint="close every object (`additionalProperties: false`) and list every property in `required` (nullable ones with a `null` type)")

    def _check_input_schema(self, path: tuple, decl: dict) -> None:
        if "type" not in decl or not self._check_schema(path + ("type",), decl["type"]):
            return
        nested = self.default_problems(decl["type"])
        if nested is not None:
            where, problem = nested
            self.report(SCHEMA, path + ("type", *where), f"the default does not fit the field's type: {problem}")
        if "default" in decl:
            problem = _instance_problem(_canonical(decl["type"]), decl["default"])
            if problem is not None:
                self.report(SCHEMA, path + ("default",), f"the default does not fit the input's type: {problem}")

    # --- the call graph ---------------------------------------------------------------------

    def _cycles(self) -> list[_Workflow] | None:
        """Report each cycle of workflow calls once; return the workflows callees-first when
        there is none (None otherwise)."""
        order = self._callees_first()
        if order is not None:
            return order  # no cycle: nothing to report
        index: dict[str, int] = {}
        low: dict[str, int] = {}
        on_stack: set[str] = set()
        stack: list[_Workflow] = []
        components: list[list[_Workflow]] = []
        counter = 0
        for root in self.workflows.values():
            if root.name in index:
                continue
            work: list[tuple[_Workflow, int]] = [(root, 0)]
            index[root.name] = low[root.name] = counter
            counter += 1
            stack.append(root)
            on_stack.add(root.name)
            while work:
                wf, i = work[-1]
                if i < len(wf.calls):
                    work[-1] = (wf, i + 1)
                    callee = wf.calls[i].target
                    if callee is None:
                        continue
                    if callee.name not in index:
                        index[callee.name] = low[callee.name] = counter
                        counter += 1
                        stack.append(callee)
                        on_stack.add(callee.name)
                        work.append((callee, 0))
                    elif callee.name in on_stack:
                        low[wf.name] = min(low[wf.name], index[callee.name])
                    continue
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent.name] = min(low[parent.name], low[wf.name])
                if low[wf.name] == index[wf.name]:
                    component: list[_Workflow] = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member.name)
                        component.append(member)
                        if member is wf:
                            break
                    components.append(component)
        found = False
        for component in components:
            if len(component) == 1 and all(c.target is not component[0] for c in component[0].calls):
                continue  # the common case: a workflow on its own that does not call itself
            names = {w.name for w in component}
            edges = [c for w in component for c in w.calls if c.target is not None and c.target.name in names]
            if not edges:
                continue
            found = True
            first = min(edges, key=lambda c: self._order(c))
            cycle = self._cycle_path(first, names)
            self.report(
                CYCLE,
                first.path,
                f"workflow `{cycle[0]}` calls itself" if len(cycle) == 2 else
                "workflows call each other in a cycle: " + " -> ".join(f"`{n}`" for n in cycle),
                step=first.caller,
            )
        if found:
            return None
        return [c[0] for c in components]

    def _callees_first(self) -> list[_Workflow] | None:
        """The workflows, each after every workflow it calls, or None when calls form a cycle
        (Kahn's algorithm: ~4x cheaper than the components of `_cycles`, which then find
        and report the cycles). Any such order gives `_depth` the same heights."""
        remaining = {wf.name: sum(1 for call in wf.calls if call.target is not None) for wf in self.workflows.values()}
        order = [wf for wf in self.workflows.values() if not remaining[wf.name]]
        for wf in order:  # grows while it is read
            for call in wf.callers:
                caller = call.caller.workflow
                remaining[caller.name] -= 1
                if not remaining[caller.name]:
                    order.append(caller)
        return order if len(order) == len(self.workflows) else None

    def _order(self, call: _Call) -> tuple:
        location = self.reporter.locate(jp.from_path(call.path))
        return (location.line, location.column, jp.from_path(call.path))

    def _cycle_path(self, first: _Call, names: set[str]) -> list[str]:
        """caller -> target -> ... -> caller, the shortest way back (breadth first, document order)."""
        start = first.caller.workflow.name
        goal = first.target.name if first.target is not None else start
        previous: dict[str, str | None] = {goal: None}
        queue = [goal]
        for current in queue:
            if current == start:
                break
            for call in self.workflows[current].calls:
                nxt = call.target.name if call.target is not None else None
                if nxt in names and nxt not in previous:
                    previous[nxt] = current
                    queue.append(nxt)
        path: list[str] = []
        node: str | None = start
        while node is not None:
            path.append(node)
            node = previous.get(node)
        path.reverse()  # goal ... start
        return [start] + path

    def _depth(self, tree: dict, order: list[_Workflow]) -> None:
        """Nesting depth: a case's steps and a called workflow's steps are one level deeper."""
        limit = self.limits.max_workflow_depth

        def list_height(steps: list[_Step]) -> int:
            best = 0
            for step in steps:
                h = 0
                if step.inline or step.calls:
                    for inline in step.inline:
                        h = max(h, list_height(inline))
                    for call in step.calls:
                        if call.target is not None:
                            h = max(h, call.target.height)
                step.height = h + 1
                if h + 1 > best:
                    best = h + 1
            return best

        for wf in order:  # callees first
            wf.height = max(list_height(wf.steps), list_height(wf.finally_))
        entry = tree.get("entrypoint")
        roots = [w for w in self.workflows.values() if w.name == entry or not w.callers]
        for root in roots:
            if root.height > limit:
                self._too_deep(root, limit)

    def _too_deep(self, root: _Workflow, limit: int) -> None:
        """Follow the deepest chain from `root` (first in document order at each level) to
        the first step past the limit, and report there."""

        def deepest(steps: list[_Step]) -> _Step | None:
            best: _Step | None = None
            for s in steps:
                if best is None or s.height > best.height:
                    best = s
            return best

        step = deepest(root.steps + root.finally_)
        level = 1
        while step is not None:
            if level > limit:
                self.report(
                    LIMIT, step.path,
                    f"steps are nested more than {limit} levels deep from workflow `{root.name}` (Limits.max_workflow_depth)",
                    step=step,
                )
                return
            need = step.height - 1
            nxt: _Step | None = None
            for inline in step.inline:
                candidate = deepest(inline)
                if candidate is not None and candidate.height == need:
                    nxt = candidate
                    break
            if nxt is None:
                for call in step.calls:
                    t = call.target
                    if t is not None and t.height == need:
                        nxt = deepest(t.steps + t.finally_)
                        break
            step = nxt
            level += 1


def _present_guards(when: Any) -> frozenset | None:
    """The step IDs that a guard tests with `present(data.steps.<id>...)`; None when the
    guard is not a valid expression (reported: what it tests is unknown)."""
    if type(when) is not str:
        return None
    body = ex.split(when)
    if body is None:
        return None
    if body.startswith("present("):  # the guard the lowering pass writes: one path, no parse
        inner = _path_in_shape(body)
        parts = ex.plain_path(inner) if inner is not None else None
        if parts is not None:
            return frozenset((parts[1],)) if parts[0] == "steps" else frozenset()
    parsed = ex.parse(body)
    if parsed.error is not None:
        return None
    return frozenset(r.name for r in parsed.refs if r.root == "steps" and r.in_present)


# --- embedded JSON Schemas (cached by canonical text: compiled output repeats them) ------------

def _key(schema: Any) -> bytes | None:
    """A schema's content, for the per-document memos: its marshal bytes, version 2 (no
    back-references, so they follow the data alone; types and key order kept, like repr;
    ~2.5x cheaper than repr). Equal bytes, equal schemas. None: not plain data, or too deep."""
    try:
        return _marshal(schema, 2)
    except (ValueError, RecursionError):  # pragma: no cover - readers give plain data of limited depth
        return None


def _canonical(schema: Any) -> str:
    return json.dumps(schema, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


class _SchemaMemo:
    """`problem_of(schema)` once per schema of a document: compiled output shares one schema
    object between many places (about half of them at 10,000 tasks: found by identity, no
    key) and repeats a few schemas thousands of times (found by `_key`, ~5x cheaper than
    the canonical JSON text). Each schema is held, so that its id is not reused."""

    __slots__ = ("problem_of", "by_id", "by_key")

    def __init__(self, problem_of: Callable[[Any], tuple[tuple, str] | None]):
        self.problem_of = problem_of
        self.by_id: dict[int, tuple[Any, tuple[tuple, str] | None]] = {}
        self.by_key: dict[bytes, tuple[tuple, str] | None] = {}

    def __call__(self, schema: Any) -> tuple[tuple, str] | None:
        seen = self.by_id.get(id(schema))
        if seen is not None and seen[0] is schema:
            return seen[1]
        key = _key(schema)
        if key is None:  # pragma: no cover - reading limits the depth
            problem = self.problem_of(schema)
        elif key in self.by_key:
            problem = self.by_key[key]
        else:
            problem = self.by_key[key] = self.problem_of(schema)
        self.by_id[id(schema)] = (schema, problem)
        return problem


class _SchemaVerdicts:
    """Whether `problem_of(schema)` is None, once per schema of a document, for the accept
    path (which reads no more than that). As `_SchemaMemo`, and before its key: an earlier
    schema of the same shape (length and `type`) that is `==` to this one gives its verdict
    (a C comparison, about half the cost of the key: compiled output builds equal schemas as
    separate objects hundreds of times), when each of its booleans and integers has the
    same type here (`==` holds for `True`, `1` and `1.0` alike). Why that suffices: the
    two may then differ only in key order, which no verdict depends on (each problem is
    found whatever the order of the walk; the JSON text is sorted), and in subclasses of
    dict or str, where `problem_of` checks less (skips a node not exactly a dict) or reads
    the same JSON text: "valid" is then still right, and a wrong "not valid" only sends
    the document to the full path. A schema with a float is never such an earlier one.
    tests/test_validate_fast_paths.py holds this to `problem_of`."""

    __slots__ = ("memo", "by_id", "by_shape")

    _SHAPE_SLOTS = 4
    """Earlier schemas compared per shape, the latest first: a bound on the comparisons."""

    def __init__(self, problem_of: Callable[[Any], tuple[tuple, str] | None]):
        self.memo = _SchemaMemo(problem_of)
        self.by_id: dict[int, tuple[Any, bool]] = {}
        self.by_shape: dict[tuple, list[tuple[Any, list, bool]]] = {}

    def __call__(self, schema: Any) -> bool:
        seen = self.by_id.get(id(schema))
        if seen is not None and seen[0] is schema:
            return seen[1]
        shape = None
        if type(schema) is dict:
            kind = schema.get("type")
            shape = (len(schema), kind if type(kind) is str else None)
            earlier = self.by_shape.get(shape)
            if earlier is not None:
                for other, numbers, ok in earlier:
                    try:
                        if other != schema:
                            continue
                    except RecursionError:  # pragma: no cover - readers give data of limited depth
                        break
                    for where, t in numbers:  # the same types where `other` has a number
                        node = schema
                        for step in where:
                            node = node[step]
                        if type(node) is not t:
                            break
                    else:
                        self.by_id[id(schema)] = (schema, ok)
                        return ok
        ok = self.memo(schema) is None
        self.by_id[id(schema)] = (schema, ok)
        if shape is not None:
            numbers = _number_leaves(schema)
            if numbers is not None:
                slots = self.by_shape.setdefault(shape, [])
                slots.insert(0, (schema, numbers, ok))
                del slots[self._SHAPE_SLOTS:]
        return ok

    def step_check(self, field: str, optional: bool = False) -> Callable[[dict, int], bool]:
        """The accept path's check of a step's schema `field` (`optional`: a step without
        it passes): a schema met before (by identity, the commonest case: compiled output
        shares them) in the check itself, one call where `__call__` would be a second."""
        by_id_get = self.by_id.get

        def check(node: dict, level: int) -> bool:
            if optional and field not in node:
                return True
            schema = node[field]
            seen = by_id_get(id(schema))
            if seen is not None and seen[0] is schema:
                return seen[1]
            return self(schema)

        return check


def _number_leaves(schema: Any) -> list[tuple[tuple, type]] | None:
    """Where a schema holds a boolean or an integer (its path) and which; None: it holds
    a float (or something not plain data), which `_SchemaVerdicts` never compares to."""
    leaves: list[tuple[tuple, type]] = []
    stack: list[tuple[Any, tuple]] = [(schema, ())]
    while stack:
        node, where = stack.pop()
        t = type(node)
        if t is dict:
            stack.extend((v, where + (k,)) for k, v in node.items())
        elif t is list:
            stack.extend((v, where + (i,)) for i, v in enumerate(node))
        elif t is bool or t is int:
            leaves.append((where, t))
        elif t is not str and node is not None:
            return None
    return leaves


def _embedded_schema_problem(schema: Any) -> tuple[tuple, str] | None:
    """Where and why an embedded schema is not a valid draft 2020-12 schema; None: it is."""
    return None if _plainly_valid(schema) else _schema_problem(_canonical(schema))


_SIMPLE_TYPES = frozenset({"array", "boolean", "integer", "null", "number", "object", "string"})
_PLAIN_KEYWORDS = frozenset({"type", "properties", "required", "items", "additionalProperties", "enum", "const",
                             "description", "title", "default"})


def _plainly_valid(schema: Any) -> bool:
    """Whether a schema is made only of the keywords compiled output uses, each with a value
    that the draft 2020-12 metaschema allows, so that `_schema_problem` would find nothing
    (the metaschema costs ~1.5 ms a schema). False: ask the metaschema.
    tests/test_validate_fast_paths.py holds this to it."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if type(node) is bool:
            continue
        if type(node) is not dict or not _PLAIN_KEYWORDS.issuperset(node):
            return False
        for keyword, value in node.items():
            t = type(value)
            if keyword == "type":
                if t is list:  # a non-empty list of distinct simple types
                    if not value or not _distinct_strings(value) or not _SIMPLE_TYPES.issuperset(value):
                        return False
                elif t is not str or value not in _SIMPLE_TYPES:
                    return False
            elif keyword == "properties":
                if t is not dict or not all(type(name) is str for name in value):
                    return False
                stack.extend(value.values())
            elif keyword == "required":
                if t is not list or not _distinct_strings(value):
                    return False
            elif keyword == "items" or keyword == "additionalProperties":
                stack.append(value)
            elif keyword == "enum":  # any values; here scalars, which `_canonical` always writes
                if t is not list or not all(type(option) in _SCALARS for option in value):
                    return False
            elif keyword == "const":
                if t not in _SCALARS:
                    return False
            elif keyword == "default":  # any value (an annotation to the metaschema)
                continue
            elif t is not str:  # description, title
                return False
    return True


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _distinct_strings(items: list) -> bool:
    return all(type(item) is str for item in items) and len(set(items)) == len(items)


@lru_cache(maxsize=1)
def _meta_validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(Draft202012Validator.META_SCHEMA)


@lru_cache(maxsize=4096)
def _schema_problem(text: str) -> tuple[tuple, str] | None:
    from jsonschema.exceptions import best_match

    schema = json.loads(text)
    try:
        error = best_match(_meta_validator().iter_errors(schema))
    except RecursionError:
        return (), "nested too deeply to be checked"
    if error is None:
        return None
    return tuple(error.absolute_path), error.message


@lru_cache(maxsize=4096)
def _validator_for(text: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(json.loads(text))


def _instance_problem(schema_text: str, instance: Any) -> str | None:
    from jsonschema.exceptions import best_match

    try:
        error = best_match(_validator_for(schema_text).iter_errors(instance))
    except RecursionError:
        return "nested too deeply to be checked"
    except Exception as exc:  # noqa: BLE001 - an unresolvable $ref in a hand-written schema
        return f"the type cannot be evaluated ({type(exc).__name__})"
    if error is None:
        return None
    where = jp.from_path(error.absolute_path)
    return f"{error.message}" + (f" (at {where})" if where else "")


def _field_default_problem(schema: Any) -> tuple[tuple, str] | None:
    """In an input's type, the first `default` of an object's property (reached from the
    root through `properties` and `items`, the ones the runtime fills in) that does not
    fit that property's schema: (where, why). None: every one fits, or there is none."""
    stack: list[tuple[Any, tuple]] = [(schema, ())]
    while stack:
        node, where = stack.pop()
        if type(node) is not dict:
            continue
        properties = node.get("properties")
        if type(properties) is dict:
            for name in reversed(properties):  # popped in document order
                prop = properties[name]
                if type(prop) is dict and "default" in prop:
                    problem = _instance_problem(_canonical(prop), prop["default"])
                    if problem is not None:
                        return (*where, "properties", name, "default"), problem
                stack.append((prop, (*where, "properties", name)))
        if type(node.get("items")) is dict:
            stack.append((node["items"], (*where, "items")))
    return None


def _input_type_problem(schema: Any) -> tuple[tuple, str] | None:
    """An input's type: `_embedded_schema_problem`, then `_field_default_problem`."""
    return _embedded_schema_problem(schema) or _field_default_problem(schema)


def _llm_schema_problem(schema: Any) -> tuple[tuple, str] | None:
    """An `llm.call` schema: `_embedded_schema_problem`, then `_strict_problem`."""
    return _embedded_schema_problem(schema) or _strict_problem(schema)


def _strict_problem(schema: Any) -> tuple[tuple, str] | None:
    """The first place where a structured-output schema is not strict: the root is an
    object schema; every object schema closes (`additionalProperties: false`) and
    requires all of its properties."""
    if type(schema) is not dict or not _is_object_schema(schema):
        return (), "the root must be an object schema (`type: object`)"
    stack: list[tuple[Any, tuple]] = [(schema, ())]
    while stack:
        node, where = stack.pop()
        if type(node) is not dict:
            continue
        if _is_object_schema(node):
            if node.get("additionalProperties") is not False:
                return where, "an object schema needs `additionalProperties: false`"
            properties = node.get("properties", {})
            required = node.get("required", [])
            if type(properties) is dict and type(required) is list:
                missing = [p for p in properties if p not in required]
                if missing:
                    return where + ("required",) if "required" in node else where, (
                        "every property must be required; not required: " + ", ".join(f"`{m}`" for m in missing)
                    )
        children: list[tuple[Any, tuple]] = []
        for keyword in ("properties", "$defs", "definitions"):
            members = node.get(keyword)
            if type(members) is dict:
                children.extend((v, where + (keyword, k)) for k, v in members.items())
        for keyword in ("items", "additionalProperties", "not", "contains"):
            if type(node.get(keyword)) is dict:
                children.append((node[keyword], where + (keyword,)))
        for keyword in ("anyOf", "oneOf", "allOf", "prefixItems"):
            members = node.get(keyword)
            if type(members) is list:
                children.extend((v, where + (keyword, i)) for i, v in enumerate(members))
        stack.extend(reversed(children))
    return None


def _is_object_schema(node: dict) -> bool:
    t = node.get("type")
    return t == "object" or (type(t) is list and "object" in t) or "properties" in node


# --- the accept path -------------------------------------------------------------------------------

_NO_GUARDS: frozenset = frozenset()
"""A cleanup step's guards outside any `when`."""
_NO_INPUTS: frozenset = frozenset()
"""The required inputs of a workflow without inputs."""
_NO_MAPPING: dict = {}
"""The inputs or outputs of a workflow without them: one for all, never written (only read)."""

class _Fields(frozenset):
    """A step kind's result fields that the accept path reads without `_reference` (all
    of `d.RESULT_FIELDS` but a `workflow.call`'s `outputs`, whose next field names an
    output of the called workflow), knowing the kind: what `_Accept.ran` holds for a step."""

    __slots__ = ("kind",)

    def __new__(cls, kind: str, fields: Iterable[str]) -> "_Fields":
        self = super().__new__(cls, fields)
        self.kind = kind
        return self


_FIELDS: dict[str, _Fields] = {
    kind: _Fields(kind, (f for f in fields if kind != "workflow.call" or f != "outputs"))
    for kind, fields in _RESULT_FIELDS.items()
}
_ITEM_EXPRESSIONS = frozenset({"${data.item}", "${data.index}"})
"""A loop body's reads of its item and index, whole (what `_reference` takes without a check)."""
_NO_FIELDS: frozenset = frozenset()
"""What a step that has not run gives to read: nothing."""

_accept_lock = threading.Lock()
"""The accept path's step predicates append to one shared list: one document at a time."""


def _accepts(tree: Any, limits: Limits) -> bool:
    """Whether `_Validator.run` would find nothing in `tree`: one walk over the steps that
    checks each against its type's schema, its expressions (collected by the schema's
    data-tree predicate as it goes: no second walk), its references, templates and
    embedded schemas; then the calls, loop bodies, cycles and depth. Why: a valid
    document is the common case (the compiler's self-check), and the full path pays for
    finding and locating findings on every node (a `_Step`, path and chain tuples each).
    True only where the full path reports nothing; False where it may report something,
    and also where this path does not look (e.g. a reference into a switch case through
    `present(...)`): then the full path runs and gives the diagnostics.
    tests/test_validate_accept.py holds this to the full path."""
    if not _accept_lock.acquire(blocking=False):
        return False  # another thread is in it: the full path, which shares nothing
    try:
        return _Accept(tree, limits).run()
    except RecursionError:  # pragma: no cover - steps nested past the interpreter's stack
        return False
    finally:
        step_predicates()[3].reset()  # no name known that was not matched (`PendingNames`)
        _accept_lock.release()


class _Accept:
    __slots__ = ("tree", "workflows", "max_steps", "max_chars", "steps_seen", "by_kind", "found", "calls",
                 "wants_item", "schemas", "schema_ok", "llm_schemas", "input_type_ok", "wf_inputs", "wf_name",
                 "ids", "id_sets", "ran", "top_ran", "callees", "guards", "section", "levels", "wf_calls", "max_depth", "kinds",
                 "required")

    def __init__(self, tree: Any, limits: Limits):
        self.tree = tree
        self.max_steps = limits.max_workflow_steps
        self.max_chars = limits.max_expression_chars
        self.max_depth = limits.max_workflow_depth
        self.steps_seen = 0
        self.kinds: dict[str, tuple[Any, _Fields, Any]] = {}
        """Step type -> `_kind` of a step of that type, for the types seen."""
        self.wants_item: list[str] = []
        # One memo per use, each of every check of that use: the key of a schema that
        # is not found by identity (a marshal call) is made once, not once per check.
        # (Each its `__call__` bound: a call of it costs less than one of the instance.)
        self.schemas = _SchemaVerdicts(_embedded_schema_problem)
        self.schema_ok = self.schemas.__call__
        self.llm_schemas = _SchemaVerdicts(_llm_schema_problem)
        self.input_type_ok = _SchemaVerdicts(_input_type_problem).__call__
        self.levels: dict[str, int] = {}
        """workflow -> its deepest step's level (1: top-level)."""
        self.wf_calls: dict[str, list[tuple[int, str, bool, Any]]] = {}
        """workflow -> (level of the calling step, called workflow, by a loop, input) for each
        of its calls (`calls`: the current workflow's)."""
        self.required: dict[str, set[str]] = {}
        """workflow -> its required inputs (`_input_required`), found as its inputs are checked."""

    def run(self) -> bool:
        tree = self.tree
        if type(tree) is not dict:
            return False
        version = tree.get("version")
        if type(version) is not int or version != d.VERSION:
            return False
        root_ok, self.by_kind, found, names = step_predicates()
        self.found = found
        names.start()  # nothing remembered from an earlier document
        if not root_ok(tree):
            return False
        found.clear()  # the outputs' expressions (read from the workflows), and any left by an earlier document
        self.workflows = workflows = tree["workflows"]
        entry = tree["entrypoint"]
        if entry not in workflows:
            return False
        self.id_sets = []
        for name, node in workflows.items():
            if not self._workflow(name, node):
                return False
        # one ID per step walked: a set per workflow, so an ID repeated in one has too few
        if not step_ids_ok(chain.from_iterable(self.id_sets), self.steps_seen):
            return False
        if not names.ok():
            return False
        return self._graph(workflows, entry)

    def _workflow(self, name: str, node: dict) -> bool:
        self.wf_name = name
        inputs = node.get("inputs", _NO_MAPPING)
        outputs = node.get("outputs", _NO_MAPPING)
        self.wf_inputs = inputs
        self.ids = ids = set()
        """The workflow's step IDs so far: as many as its steps when each is unique in it,
        which `step_ids_ok` counts once all are known, as it matches them against the
        pattern (no test per step)."""
        self.id_sets.append(ids)
        self.ran = {}
        """Step ID -> kind, for the steps that have run before the step being checked:
        the earlier ones of its list and of each enclosing step's list (the lists that
        `_list` walks; a list's steps leave when it ends). A step joins once checked, so
        that it does not read itself (nor an enclosing step read from inside)."""
        self.callees = {}
        """A `workflow.call` step's ID -> the workflow it calls (for `outputs.<name>`)."""
        steps = node["steps"]
        levels = self.levels
        levels[name] = 1 if steps else 0  # the top level here, the inline lists' in `_list`
        self.wf_calls[name] = self.calls = []
        self.guards = _NO_GUARDS
        self.section = "steps"
        if not self._list(steps, 1):
            return False
        self.top_ran = top_ran = self.ran  # the top-level steps of `steps`: what cleanup and outputs read
        if "finally" in node:
            self.section = "finally"
            self.ran = {}
            cleanup = node["finally"]
            if cleanup and not levels[name]:
                levels[name] = 1
            if not self._list(cleanup, 1):
                return False
        if inputs:
            self.required[name] = required = set()
            for input_name, decl in inputs.items():  # each a mapping with a `type` (the schema holds)
                if not self.input_type_ok(decl["type"]):
                    return False
                if "default" in decl and _instance_problem(_canonical(decl["type"]), decl["default"]) is not None:
                    return False
                if _input_required(decl):
                    required.add(input_name)
        else:
            self.required[name] = _NO_INPUTS
        if outputs:
            self.section = "outputs"
            self.ran = top_ran
            for out in outputs.values():
                if "type" in out and not self.schema_ok(out["type"]):
                    return False
                if "expr" in out and not self._expression(out["expr"]):
                    return False
        return True

    def _list(self, items: list, level: int) -> bool:
        # (Only what every step reads is a local here: a list of one step, the commonest,
        # pays for each local it sets up; the module's constants are read as globals.)
        self.steps_seen += len(items)
        if self.steps_seen > self.max_steps:
            return False
        ids = self.ids
        ran = self.ran
        found = self.found
        kinds = self.kinds
        finally_ = self.section == "finally"
        outer_guards = self.guards
        if level > 1 and items and level > self.levels[self.wf_name]:  # level 1: set by `_workflow`
            self.levels[self.wf_name] = level
        for node in items:
            try:
                valid, fields, special = kinds[node["type"]]
            except (KeyError, TypeError):  # a type not seen yet in this document (or no step)
                seen = self._kind(node)
                if seen is None:
                    return False
                valid, fields, special = seen
            if not valid(node):
                return False
            sid = node["id"]
            ids.add(sid)  # a repeated ID: fewer IDs than steps (`run`, `step_ids_ok`)
            if finally_:
                if "when" in node:
                    tested = _present_guards(node["when"])
                    if tested is None:
                        return False  # the guard is not a valid expression
                    self.guards = outer_guards | tested
                else:
                    self.guards = outer_guards
            # The step's expressions, then `found` emptied for the next step (a `for` over
            # the list costs less than taking each out; a step that fails leaves them, and
            # the next document's `run` empties it).
            for text in found:
                # the commonest cases without a call (`_expression`, inline)
                plain = (_plain_expression if text[2] == "d" else _called_plain_expression)(text)
                if plain is None:
                    if text in _ITEM_EXPRESSIONS and len(text) <= self.max_chars:
                        self.wants_item.append(self.wf_name)  # `_reference` of `data.item` / `data.index`
                    elif not self._unusual_expression(text):
                        return False
                    continue
                if len(text) > self.max_chars:
                    return False
                root, name, quoted, first, second = plain.groups()
                if quoted is not None:
                    name = quoted
                # `_reference`'s commonest cases inline (all else is left to it): a field of
                # a step that has run (of the same list or an enclosing one), an input
                if root == "steps":
                    if first in ran.get(name, _NO_FIELDS):
                        continue
                elif name in self.wf_inputs:
                    continue
                if not self._reference(root, name, None, first, second):
                    return False
            found.clear()
            if special is not None and not special(node, level):
                return False
            ran[sid] = fields
        if level > 1:  # an inline list: later steps of the enclosing list do not read its steps
            for node in items:
                ran.pop(node["id"], None)  # (an ID repeated in the list leaves once)
        self.guards = outer_guards
        return True

    def _kind(self, node: Any) -> tuple[Any, _Fields, Any] | None:
        """`kinds`'s entry for the type of `node` (remembered): the kind's predicate, its
        result fields (`_Fields`), and its own checks (`_special_checks`); None when
        `node` is not a mapping of a known type."""
        if type(node) is not dict:
            return None
        type_ = node.get("type")
        kind = d.step_kind(type_)
        if kind is None:
            return None
        seen = (self.by_kind[kind], _FIELDS[kind], self._special_checks(kind))
        if type(type_) is str:
            self.kinds[type_] = seen
        return seen

    def _special_checks(self, kind: str) -> Any:
        """The checks of a step kind other than executor and `set`, bound (None: none)."""
        if kind in d.LOOP_TYPES:
            return self._loop
        return {
            "workflow.call": self._workflow_call,
            "parallel": self._parallel,
            "switch": self._switch,
            "template.render": self._template,
            "llm.call": self.llm_schemas.step_check("schema"),
            "value.project": self.schemas.step_check("schema", optional=True),
            "value.validate": self.schemas.step_check("schema"),
        }.get(kind)

    # The checks of the step types other than executor and `set`: their calls, templates,
    # schemas and inline steps (their expressions are in `found`).

    def _loop(self, node: dict, level: int) -> bool:
        self.calls.append((level, node["call"], True, node.get("input")))
        return True

    def _workflow_call(self, node: dict, level: int) -> bool:
        self.callees[node["id"]] = node["workflow"]
        self.calls.append((level, node["workflow"], False, node.get("input")))
        return True

    def _parallel(self, node: dict, level: int) -> bool:
        calls = self.calls
        for branch in node["branches"]:
            calls.append((level, branch["call"], False, branch.get("input")))
        return True

    def _switch(self, node: dict, level: int) -> bool:
        branches = list(node["cases"])
        if "default" in node:
            branches.append(node["default"])
        guards = self.guards
        for branch in branches:
            if "call" in branch:
                self.calls.append((level, branch["call"], False, branch.get("input")))
            if "steps" in branch:
                if not self._list(branch["steps"], level + 1):
                    return False
                self.guards = guards
        return True

    def _template(self, node: dict, level: int) -> bool:
        values = node.get("values", {})
        for name in _placeholders(node["template"]):  # each placeholder's name (its one group)
            if name not in values:
                return False
        return True

    def _expression(self, text: str) -> bool:
        """`_Validator._expression` finds nothing (the schema holds but for the `${` and `}`:
        a string of at least 3 characters; the regexes match them). A
        plain path, also in `json(...)` or `present(...)`, is read without `_path_in_shape`:
        by the regex of its shape, told by its first character after `${` (`d` of `data`;
        `j` or `p` of a call), so that no other regex fails on it first."""
        plain = (_plain_expression if text[2] == "d" else _called_plain_expression)(text)
        if plain is not None:
            return len(text) <= self.max_chars and self._reference(*plain.groups())
        return self._unusual_expression(text)

    def _unusual_expression(self, text: str) -> bool:
        """`_expression` of a text that is not a plain path (nor one in a call), or not even
        a whole `${...}` (the step predicates leave that to the reader: `is_whole`)."""
        if len(text) > self.max_chars or not is_whole(text):
            return False
        body = text[2:-1]
        inner = _path_in_shape(body)
        shaped = _plain_path_match(inner) if inner is not None else None
        if shaped is not None and self._reference(*shaped.groups()):
            return True
        parsed = ex.parse(body)
        if parsed.error is not None:
            return False
        for ref in parsed.refs:
            segments = ref.segments
            if not self._reference(ref.root, ref.name, None, segments[0] if segments else None,
                                   segments[1] if len(segments) > 1 else None):
                return False
        return True

    def _reference(self, root: str, name: str | None, quoted: str | None, first: Any, second: Any) -> bool:
        """`_Validator._reference` finds nothing; the arguments as in `_plainly_fine`. A step
        read must be one that has run: earlier in the list of the step being checked or of
        an enclosing step, or, from cleanup, a top-level step of `steps` that the guard tests."""
        if quoted is not None:
            name = quoted
        if root == "steps":
            fields = self.ran.get(name)
            if fields is None:
                if self.section != "finally" or name not in self.guards:
                    return False
                fields = self.top_ran.get(name)  # cleanup reads a top-level step that the guard tests
                if fields is None:
                    return False
            kind = fields.kind
            if first is None:
                return True
            if first not in _RESULT_FIELDS[kind]:
                return False
            if kind != "workflow.call" or second is None or first != "outputs":
                return True
            callee = self.workflows.get(self.callees[name])
            if callee is None:
                return False
            return second in callee.get("outputs", {})
        if root == "inputs":
            return name in self.wf_inputs
        self.wants_item.append(self.wf_name)  # `data.item` / `data.index`: a loop body only
        return True

    def _graph(self, workflows: dict, entry: str) -> bool:
        """The calls: each target exists and gets its required inputs and no others; a
        workflow that reads `data.item` is run only by loops; no cycle; depth within the limit.
        Why in this order: most workflows call nothing (loop bodies, branches), and such a
        workflow's height is its own (`levels`), known at once; a caller's calls of those
        are counted as they are checked, and only its calls of other callers are walked
        (callees first: a cycle is a caller met again on the walk's path)."""
        called: set[str] = set()
        non_loop: set[str] = set()
        required = self.required
        wf_calls = self.wf_calls
        heights = self.levels  # each workflow's own, then a caller's with its callees'
        deep: dict[str, list[tuple[int, str]]] = {}
        """A caller -> its calls of callers (level, target): their heights are not known yet."""
        for name, calls in wf_calls.items():
            if not calls:
                continue
            height = heights[name]
            inner = None
            for level, target, loop, given in calls:
                callee = workflows.get(target)
                if callee is None:
                    return False
                if given:  # a mapping (the schema holds)
                    declared = callee.get("inputs")
                    keys = given.keys()
                    if declared is None or not keys <= declared.keys() or not keys >= required[target]:
                        return False
                elif required[target]:
                    return False
                called.add(target)
                if not loop:
                    non_loop.add(target)
                if wf_calls[target]:
                    if inner is None:
                        deep[name] = inner = []
                    inner.append((level, target))
                elif level + heights[target] > height:
                    height = level + heights[target]
            heights[name] = height  # with the callees that call nothing: a bound from below
        for name in self.wants_item:
            if name == entry or name not in called or name in non_loop:
                return False
        limit = self.max_depth
        if max(heights.values()) > limit:  # final but for the callers in `deep` (those only grow)
            return False
        done: set[str] = set()  # the callers in `deep` whose height is final
        for root in deep:
            if root in done:
                continue
            frames = [[root, 0]]  # the walk's path: each caller and its next call to follow
            on_path = {root}
            while frames:
                frame = frames[-1]
                name = frame[0]
                inner = deep[name]
                i = frame[1]
                if i < len(inner):
                    frame[1] = i + 1
                    target = inner[i][1]
                    if target in on_path:
                        return False  # a cycle
                    if target in deep and target not in done:
                        on_path.add(target)
                        frames.append([target, 0])
                    continue
                height = heights[name]
                for level, target in inner:
                    if level + heights[target] > height:
                        height = level + heights[target]
                if height > limit:
                    return False
                heights[name] = height
                done.add(name)
                on_path.discard(name)
                frames.pop()
        return True
