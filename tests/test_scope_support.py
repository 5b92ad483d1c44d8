"""Support for the identity and scope tests (no tests here): YAML text -> a TaskPlan
with its SourceDocument (the real read and shape passes), then the identity and
scope passes alone, so that each test sees exactly their diagnostics."""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent

from taskplan.diagnostics import Diagnostic, Diagnostics, Reporter
from taskplan.ir.checked import CheckedPlan, IdentityTable
from taskplan.model.plan import TaskPlan
from taskplan.passes import identity as identity_pass
from taskplan.passes import scope as scope_pass
from taskplan.passes.shape import shape
from taskplan.source.document import SourceDocument
from taskplan.source.read import read_document


def load(text: str, path: str = "plan.taskplan.yaml", *, shape_errors: bool = False) -> tuple[SourceDocument, TaskPlan]:
    """Read and shape `text` with the project's reader and shape pass. Unless
    `shape_errors`, the plan must shape cleanly (these tests are about later passes)."""
    sink = Diagnostics()
    doc = read_document(text.encode(), path, sink)
    plan = shape(doc, Reporter(doc, sink))
    assert plan is not None, [d.to_json() for d in sink.sorted()]
    if not shape_errors:
        assert not len(sink), [d.to_json() for d in sink.sorted()]
    return doc, plan


@dataclass
class Result:
    doc: SourceDocument
    plan: TaskPlan
    identity: IdentityTable
    checked: CheckedPlan
    diagnostics: list[Diagnostic]

    @property
    def found(self) -> list[tuple[str, str]]:
        """(code, pointer) of every diagnostic, in the reported order."""
        return [(d.code, d.location.pointer) for d in self.diagnostics]

    def only(self, code: str) -> Diagnostic:
        hits = [d for d in self.diagnostics if d.code == code]
        assert len(hits) == 1, self.found
        return hits[0]


def check_plan(plan: TaskPlan, doc: SourceDocument) -> Result:
    sink = Diagnostics()
    reporter = Reporter(doc, sink)
    table = identity_pass.run(plan, reporter)
    checked = scope_pass.run(plan, table, reporter)
    return Result(doc, plan, table, checked, sink.sorted())


def check(text: str) -> Result:
    doc, plan = load(text)
    return check_plan(plan, doc)


def codes(result: Result) -> list[str]:
    return [d.code for d in result.diagnostics]


# ------------------------------------------------------------ plan text builders


def plan(body: str) -> str:
    return dedent(body).lstrip()


def out(source: str, port: str = "out") -> str:
    return f"{{kind: output, source: {source}, port: {port}}}"


def val(task_id: str, value: str = "{kind: string, text: x}", extra: str = "", name: str = "out") -> str:
    """A value task in flow style with one output (`out` unless named)."""
    return f"{{id: {task_id}, kind: value, objective: O, outputs: [{{name: {name}, value: {value}}}]{extra}}}"
