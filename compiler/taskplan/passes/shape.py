"""The shape pass: a document tree -> TaskPlan models (closed objects, tagged unions)."""

from __future__ import annotations

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Reporter
from taskplan.model.plan import TaskPlan
from taskplan.source.document import SourceDocument


def shape(document: SourceDocument, reporter: Reporter, limits: Limits = DEFAULT_LIMITS) -> TaskPlan | None:
    """Shape `document` into a TaskPlan. Returns None only when nothing more can be
    checked (PLAN_VERSION, or a document that is not a mapping)."""
    raise NotImplementedError
