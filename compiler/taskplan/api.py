"""The Python API: typed results, no printing.

`check_plan` runs everything that can be wrong with a plan without lowering
it (diagnostics.md, Commands and passes): the catalogs are loaded (once per
run), then the plan goes read -> shape -> structure -> identity -> scope ->
types (against the catalogs' contracts) -> usage (exports nothing reads: warnings). Each pass runs only on what the
previous one produced.

The pipeline never raises on user input. An exception escaping a pass is a
compiler bug: it becomes one `COMPILER_INTERNAL` diagnostic located at the
file being worked on, and the exit code is 3. A file that cannot be read at
all (missing, a directory, no permission) is not a diagnostic about its
content: it is listed in `input_errors`, exit code 2.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Union

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostic, Diagnostics, Location, Reporter, Severity

if TYPE_CHECKING:
    from taskplan.catalog import Catalog
    from taskplan.ir.checked import CheckedPlan
    from taskplan.ir.graph import PlanningGraph
    from taskplan.ir.typed import TypedPlan
    from taskplan.passes.validate import ValidationResult
    from taskplan.source.document import SourceDocument

PathLike = Union[str, "os.PathLike[str]"]

EXIT_OK = 0
"""No errors (warnings allowed)."""
EXIT_ERRORS = 1
"""The input has errors."""
EXIT_USAGE = 2
"""Bad usage, or an input that cannot be read at all."""
EXIT_INTERNAL = 3
"""The compiler itself failed."""

INTERNAL_CODE = "COMPILER_INTERNAL"

CHECK_PASSES = ("read", "shape", "structure", "identity", "scope", "types", "usage")
"""The passes `check_plan` runs, in order: the owners (CodeInfo.owner) of every code it can report."""


class UnreadableInput(Exception):
    """A file that cannot be read at all: not found, a directory, no permission."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"cannot read {path}: {reason}")
        self.path = path
        self.reason = reason


def read_input(path: PathLike, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The bytes of the file at `path`, at most one byte past the size limit (so that
    the read pass reports the limit without the whole of a huge file in memory).

    Raises UnreadableInput, never another OSError."""
    from taskplan.source.read import nonblocking_opener

    display = os.fspath(path)
    try:
        with open(display, "rb", opener=nonblocking_opener) as handle:  # a named pipe never blocks
            return handle.read(limits.max_bytes + 1)
    except FileNotFoundError:
        reason = "no such file"
    except IsADirectoryError:
        reason = "is a directory, not a file"
    except PermissionError:
        reason = "permission denied"
    except OSError as exc:  # a device that cannot be read, a name too long, ...
        reason = (exc.strerror or type(exc).__name__).lower()
    except ValueError as exc:  # an embedded NUL in the path
        reason = str(exc)
    raise UnreadableInput(display, reason)


def _exit_code(diagnostics: Sequence[Diagnostic], input_errors: Sequence[UnreadableInput]) -> int:
    if any(d.code == INTERNAL_CODE for d in diagnostics):
        return EXIT_INTERNAL
    if input_errors:
        return EXIT_USAGE
    return EXIT_ERRORS if any(d.severity is Severity.ERROR for d in diagnostics) else EXIT_OK


@dataclass(slots=True)
class CatalogSet:
    """The catalogs of a run, loaded once: what they say, and what is wrong with them."""

    paths: list[str] = field(default_factory=list)
    catalog: "Catalog | None" = None
    """The loaded catalog (None when no catalog was given, or loading failed)."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    documents: dict[str, "SourceDocument"] = field(default_factory=dict)
    input_errors: list[UnreadableInput] = field(default_factory=list)


def load_catalog_set(paths: Sequence[PathLike] = (), *, limits: Limits = DEFAULT_LIMITS) -> CatalogSet:
    """Load the catalog files at `paths` (display paths, as given) into one catalog.
    Never raises: a bug of the loader becomes COMPILER_INTERNAL at the first file."""
    result = CatalogSet(paths=[os.fspath(p) for p in paths])
    if not result.paths:
        return result
    sink = Diagnostics()
    try:
        from taskplan.catalog import load_catalogs

        catalog = load_catalogs(result.paths, sink, limits)
        result.catalog = catalog
        result.documents = dict(catalog.documents)
        result.input_errors = [UnreadableInput(path, reason) for path, reason in catalog.input_errors]
    except Exception as exc:  # noqa: BLE001 - a bug of ours, reported as such
        sink.add(internal_error(sorted(result.paths)[0], "catalog", exc))
    result.diagnostics = sink.sorted()
    return result


@dataclass(slots=True)
class CheckResult:
    """What checking one plan (against its catalogs) found."""

    path: str
    """The plan's display path, as given: every diagnostic about the plan names it."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """Sorted (file, line, column, code) and deduplicated: the plan's and its catalogs'."""
    documents: dict[str, "SourceDocument"] = field(default_factory=dict)
    """Every document read for this check (the plan and its catalogs), by display path."""
    plan: "CheckedPlan | None" = None
    """The checked plan, when the pipeline got that far (it may still have errors: see `ok`)."""
    typed: "TypedPlan | None" = None
    """The typed plan (the types pass's output), when the pipeline got that far."""
    input_errors: list[UnreadableInput] = field(default_factory=list)
    """Files that could not be read at all (the plan: then it was not checked; catalogs)."""

    @property
    def readable(self) -> bool:
        """Whether the plan itself could be read (and so was checked)."""
        return not any(e.path == self.path for e in self.input_errors)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)

    @property
    def ok(self) -> bool:
        """Everything readable and no errors (warnings allowed)."""
        return not self.input_errors and self.errors == 0

    @property
    def exit_code(self) -> int:
        """3 a compiler failure, 2 an unreadable file, 1 errors, 0 clean."""
        return _exit_code(self.diagnostics, self.input_errors)


@dataclass(slots=True)
class CheckRun:
    """What checking several plans in one run found."""

    results: list[CheckResult]

    @property
    def diagnostics(self) -> list[Diagnostic]:
        """All diagnostics of all plans and catalogs, in one sorted, deduplicated list."""
        sink = Diagnostics()
        for result in self.results:
            sink.extend(result.diagnostics)
        return sink.sorted()

    @property
    def documents(self) -> dict[str, "SourceDocument"]:
        out: dict[str, SourceDocument] = {}
        for result in self.results:
            out.update(result.documents)
        return out

    @property
    def checked(self) -> int:
        """How many plans could be read (and so were checked)."""
        return sum(1 for r in self.results if r.readable)

    @property
    def input_errors(self) -> list[UnreadableInput]:
        """Every file that could not be read, once each, in the order met."""
        seen: dict[str, UnreadableInput] = {}
        for result in self.results:
            for error in result.input_errors:
                seen.setdefault(error.path, error)
        return list(seen.values())

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def exit_code(self) -> int:
        """The worst exit code of any plan (0 for no plans)."""
        return max((r.exit_code for r in self.results), default=EXIT_OK)


def check_plan(
    path: PathLike,
    *,
    catalogs: Sequence[PathLike] | CatalogSet = (),
    limits: Limits = DEFAULT_LIMITS,
    text: bytes | None = None,
) -> CheckResult:
    """Check the plan at `path` (or `text`, the plan's bytes, shown as `path`) against
    the catalog files `catalogs` (or a CatalogSet already loaded)."""
    display = os.fspath(path)
    loaded = catalogs if isinstance(catalogs, CatalogSet) else load_catalog_set(catalogs, limits=limits)
    result = CheckResult(path=display, documents=dict(loaded.documents), input_errors=list(loaded.input_errors))
    sink = Diagnostics()
    sink.extend(loaded.diagnostics)
    if text is None:
        try:
            text = read_input(display, limits)
        except UnreadableInput as exc:
            result.input_errors.insert(0, exc)
    if text is not None:
        _Pipeline(display, text, limits, sink, result, loaded.catalog).run()
    result.diagnostics = sink.sorted()
    return result


def check_plans(
    paths: Iterable[PathLike],
    *,
    catalogs: Sequence[PathLike] = (),
    limits: Limits = DEFAULT_LIMITS,
) -> CheckRun:
    """Check several plans in one run against the same catalogs, loaded once (a path
    given twice is checked once)."""
    loaded = load_catalog_set(catalogs, limits=limits)
    seen: set[str] = set()
    results: list[CheckResult] = []
    for path in paths:
        display = os.fspath(path)
        if display in seen:
            continue
        seen.add(display)
        results.append(check_plan(display, catalogs=loaded, limits=limits))
    return CheckRun(results)


class _Pipeline:
    """One plan through the check passes; an exception in a pass becomes COMPILER_INTERNAL."""

    def __init__(
        self, path: str, data: bytes, limits: Limits, sink: Diagnostics, result: CheckResult, catalog: "Catalog | None"
    ):
        self.path = path
        self.data = data
        self.limits = limits
        self.sink = sink
        self.result = result
        self.catalog = catalog
        self.stage = "read"

    def run(self) -> None:
        from taskplan.gcpause import gc_paused

        try:
            with gc_paused():  # one collector policy for the whole pipeline (see gcpause)
                self._run()
        except Exception as exc:  # noqa: BLE001 - a bug of ours, reported as such
            self.sink.add(internal_error(self.path, self.stage, exc))

    def _run(self) -> None:
        # Imported here so that importing the API (and `taskplan --version`) stays cheap.
        from taskplan.passes import identity, scope, shape, structure, subjects, types, usage
        from taskplan.source.read import read_document

        self.stage = "read"
        read_from = len(self.sink)
        document = read_document(self.data, self.path, self.sink, limits=self.limits)
        self.result.documents[self.path] = document
        if not document.ok:
            return
        if len(self.sink) > read_from:  # the reader's findings (duplicate keys) get their subjects
            self.sink.amend(read_from, lambda d: subjects.with_subject(d, document.tree))
        reporter = Reporter(document, self.sink)

        self.stage = "shape"
        plan = shape.shape(document, reporter, self.limits)
        if plan is None:
            return

        self.stage = "structure"
        structure.run(plan, reporter, self.limits)

        self.stage = "identity"
        table = identity.run(plan, reporter)

        self.stage = "scope"
        checked = scope.run(plan, table, reporter)
        self.result.plan = checked

        self.stage = "types"
        self.result.typed = types.run(checked, self.catalog, reporter)

        self.stage = "usage"
        usage.run(checked, reporter)


def internal_error(path: str, stage: str, exc: BaseException) -> Diagnostic:
    """The one diagnostic for an exception that escaped the `stage` pass while
    working on the file at `path`."""
    where = _innermost_frame(exc)
    detail = " ".join(str(exc).split()) or "(no message)"
    if len(detail) > 500:
        detail = detail[:500] + "..."
    return Diagnostic(
        code=INTERNAL_CODE,
        severity=Severity.ERROR,
        message=f"internal compiler error in the {stage} pass: {type(exc).__name__}: {detail}{where}",
        location=Location(path, "", 1, 1, 1, 1),
        hint="this is a bug in taskplan, not in the input; please report it together with the input",
    )


def _innermost_frame(exc: BaseException) -> str:
    """` (at taskplan/passes/scope.py:123)`: the deepest frame inside the package."""
    root = Path(__file__).resolve().parent
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        try:
            relative = Path(frame.filename).resolve().relative_to(root.parent)
        except ValueError:
            continue
        found = f" (at {relative.as_posix()}:{frame.lineno})"
    return found


# ------------------------------------------------------------------- compile


@dataclass(slots=True)
class CompileResult(CheckResult):
    """What compiling one plan produced: the check's findings, and when the plan is
    clean, the PlanningGraph and the workflow YAML (validated before it is returned)."""

    graph: "PlanningGraph | None" = None
    yaml: str | None = None
    """The workflow YAML, only when the plan compiled and the output validated."""
    usage_errors: list[str] = field(default_factory=list)
    """Bad `choose` selections (an unknown choice or alternative): exit code 2."""

    @property
    def exit_code(self) -> int:
        code = CheckResult.exit_code.fget(self)  # type: ignore[attr-defined]
        if code in (EXIT_OK, EXIT_ERRORS) and self.usage_errors:
            return EXIT_USAGE
        return code


def compile_plan(
    path: PathLike,
    *,
    catalogs: Sequence[PathLike] | CatalogSet = (),
    choose: Mapping[str, str] | None = None,
    auto: bool = False,
    limits: Limits = DEFAULT_LIMITS,
    text: bytes | None = None,
) -> CompileResult:
    """Compile the plan at `path` (or `text`, shown as `path`) with every pass:
    check, then lower, emit and validate its own output. `choose` selects choice
    alternatives (choice ID -> alternative ID); with `auto`, a choice without a
    selection takes its recommendation (recorded in the output)."""
    display = os.fspath(path)
    loaded = catalogs if isinstance(catalogs, CatalogSet) else load_catalog_set(catalogs, limits=limits)
    result = CompileResult(path=display, documents=dict(loaded.documents), input_errors=list(loaded.input_errors))
    sink = Diagnostics()
    sink.extend(loaded.diagnostics)
    if text is None:
        try:
            text = read_input(display, limits)
        except UnreadableInput as exc:
            result.input_errors.insert(0, exc)
    if text is not None:
        _CompilePipeline(display, text, limits, sink, result, loaded.catalog, dict(choose or {}), auto).run()
    result.diagnostics = sink.sorted()
    return result


class _CompilePipeline(_Pipeline):
    """The check passes, then (on a clean plan) lower -> emit -> validate."""

    def __init__(self, path, data, limits, sink, result, catalog, choose: dict[str, str], auto: bool):
        super().__init__(path, data, limits, sink, result, catalog)
        self.choose = choose
        self.auto = auto

    def _run(self) -> None:
        super()._run()
        result = self.result
        typed = result.typed
        if typed is None or self.sink.has_errors or result.input_errors:
            return  # fail closed: nothing is lowered from a plan in error
        from taskplan.passes import lower
        from taskplan.passes.validate import validate_data
        from taskplan.workflow.emit import emit_yaml

        reporter = Reporter(result.documents[self.path], self.sink)
        if self.catalog is None:  # none given (a catalog in error has stopped compile above)
            from taskplan.passes.types import require_catalog

            if not require_catalog(typed.checked, reporter):
                return  # check accepts a plan without a catalog; lowering an operation call needs one
        if not self._check_selections(typed):
            return

        self.stage = "lower"
        selections = lower.resolve_choices(typed, reporter, self.choose, self.auto)
        if selections is None:
            return
        graph = lower.lower(typed, reporter, selections)
        # graph.check() is not run here: the self-check below reports every violation it
        # finds (tests/test_graph_check_self_check.py), and the tests run it on every
        # graph they compile.

        self.stage = "emit"
        data = graph.to_data()
        text = emit_yaml(data)
        if not self._fits(text, reporter):
            return

        self.stage = "validate"
        # The compiler re-validates its own output: any finding is a compiler bug,
        # shown at the TaskPlan slot the offending step was compiled from. It validates
        # the document the emitter wrote (the same data a reader of the text gets back:
        # the emitter's round trip is tested on adversarial data and on every snapshot),
        # which spares re-parsing the text, the most expensive part of validation.
        validation = validate_data(data, text, limits=self.limits)
        if validation.diagnostics:
            for finding in validation.findings or []:
                self._internal(reporter, finding.source or "", finding.diagnostic, finding.step)
            if not validation.findings:
                for d in validation.diagnostics:
                    self._internal(reporter, "", d, None)
            return
        result.graph = graph
        result.yaml = text

    def _fits(self, text: str, reporter: Reporter) -> bool:
        """Whether the workflow is within max_workflow_bytes, the size `validate` reads
        workflow files up to; else PLAN_LIMIT at the plan's tasks, and nothing is
        written (the plan is too large to compile, not the compiler wrong)."""
        limit = self.limits.max_workflow_bytes
        if len(text) <= limit // 4:  # at most 4 bytes a character: no need to encode
            return True
        size = len(text.encode("utf-8"))
        if size <= limit:
            return True
        reporter.report(
            "PLAN_LIMIT",
            "/root/tasks",
            f"the plan compiles to a workflow of {size:,} bytes, more than the limit of {_bytes(limit)} "
            "(the limit `max_workflow_bytes`, up to which `taskplan validate` reads workflows)",
            key=True,
            hint="split the plan, or raise max-workflow-bytes in [tool.taskplan.limits] "
            "(validate reads the same setting)",
        )
        return False

    def _check_selections(self, typed: "TypedPlan") -> bool:
        choices = {c.id: c for c in typed.checked.choices}
        ok = True
        for choice_id, alt in sorted(self.choose.items()):
            c = choices.get(choice_id)
            if c is None:
                known = ", ".join(sorted(choices)) or "none"
                self.result.usage_errors.append(f"--choose {choice_id}={alt}: the plan has no choice `{choice_id}` (its choices: {known})")
                ok = False
            elif alt not in [a.id for a in c.model.alternatives]:
                alts = ", ".join(a.id for a in c.model.alternatives)
                self.result.usage_errors.append(f"--choose {choice_id}={alt}: choice `{choice_id}` has no alternative `{alt}` (its alternatives: {alts})")
                ok = False
        return ok

    def _internal(self, reporter: Reporter, pointer: str, finding: Diagnostic, step: str | None) -> None:
        where = f" (step `{step}`)" if step else ""
        self.sink.add(
            Diagnostic(
                code=INTERNAL_CODE,
                severity=Severity.ERROR,
                message=f"internal compiler error: the compiled workflow does not validate{where}: "
                f"{finding.code}: {finding.message}",
                location=reporter.locate(pointer),
                hint="this is a bug in taskplan, not in the plan; please report it together with the plan",
            )
        )


def _bytes(n: int) -> str:
    """`64 MiB`, `512 KiB`, or `1,000 bytes`."""
    for unit, size in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if n % size == 0:
            return f"{n // size} {unit}"
    return f"{n:,} bytes"


# ------------------------------------------------------------------ validate


def validate_workflow(
    path: PathLike, *, limits: Limits = DEFAULT_LIMITS, text: bytes | None = None
) -> "ValidationResult":
    """Validate the workflow YAML at `path` (or `text`, shown as `path`): schema,
    expressions, references and graph rules. The file is read up to
    `limits.max_workflow_bytes` (not max_bytes: a compiled workflow is larger than
    its plan, and whatever compile writes validates). A file that cannot be read at
    all raises UnreadableInput (the CLI turns it into exit code 2)."""
    from taskplan.passes.validate import validate_text

    display = os.fspath(path)
    reading = limits.for_workflows()
    if text is None:
        text = read_input(display, reading)
    return validate_text(text, display, limits=reading)
