"""Support for the identity and scope tests (no tests here): YAML text -> a TaskPlan
with its SourceDocument, then the identity and scope passes.

Uses the project's reader and shape pass when they exist; until then (or when
`TASKPLAN_TEST_FALLBACK_READER=1`) a small stand-in built on ruamel's composer
gives the same tree and source map positions.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

from taskplan.diagnostics import Diagnostic, Diagnostics, Reporter
from taskplan.ir.checked import CheckedPlan, IdentityTable
from taskplan.model.plan import TaskPlan
from taskplan.passes import identity as identity_pass
from taskplan.passes import scope as scope_pass
from taskplan.source.document import SourceDocument
from taskplan.source.sourcemap import MapPos, SeqPos, SourceMap
from taskplan.source.span import Span


def _fallback_read(text: str, path: str) -> SourceDocument:
    from ruamel.yaml import YAML

    node = YAML(typ="safe").compose(text)

    def span(n: Any) -> Span:
        return Span(n.start_mark.line + 1, n.start_mark.column + 1, n.end_mark.line + 1, n.end_mark.column + 1)

    def scalar(n: Any) -> Any:
        tag = n.tag.rsplit(":", 1)[-1]
        if tag == "int":
            return int(n.value)
        if tag == "float":
            return float(n.value)
        if tag == "bool":
            return n.value.lower() == "true"
        if tag == "null":
            return None
        return n.value

    def build(n: Any) -> tuple[Any, Any]:
        kind = type(n).__name__
        if kind == "MappingNode":
            tree: dict[str, Any] = {}
            keys: dict[str, Any] = {}
            for k, v in n.value:
                child, pos = build(v)
                tree[k.value] = child
                keys[k.value] = (span(k), pos)
            return tree, MapPos(span(n), keys)
        if kind == "SequenceNode":
            items, poss = [], []
            for v in n.value:
                child, pos = build(v)
                items.append(child)
                poss.append(pos)
            return items, SeqPos(span(n), poss)
        return scalar(n), span(n)

    tree, pos = build(node)
    digest = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return SourceDocument(path, text, "yaml", digest, tree, SourceMap(pos), True)


def _real_available() -> bool:
    if os.environ.get("TASKPLAN_TEST_FALLBACK_READER") == "1":
        return False
    try:
        from taskplan.passes.shape import shape
        from taskplan.source.read import read_document

        sink = Diagnostics()
        doc = read_document(b"version: 1\nroot: {}\n", "probe.yaml", sink)
        return shape(doc, Reporter(doc, sink)) is not None and not len(sink)
    except Exception:  # not there yet (or half-written by its owner): use the stand-in
        return False


_REAL: bool | None = None


def load(text: str, path: str = "plan.taskplan.yaml") -> tuple[SourceDocument, TaskPlan]:
    """Read and shape `text`; the plan must shape cleanly (tests are about later passes)."""
    global _REAL
    if _REAL is None:
        _REAL = _real_available()
    if _REAL:
        from taskplan.passes.shape import shape
        from taskplan.source.read import read_document

        sink = Diagnostics()
        doc = read_document(text.encode(), path, sink)
        plan = shape(doc, Reporter(doc, sink))
        assert not len(sink), [d.to_json() for d in sink.sorted()]
        assert plan is not None
        return doc, plan
    doc = _fallback_read(text, path)
    return doc, TaskPlan.model_validate(doc.tree)


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
