"""The structure pass: rules about one node at a time that need no name resolution
(objectives, bounds, branch counts, value and type well-formedness, choice structure)."""

from __future__ import annotations

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Reporter
from taskplan.model.plan import TaskPlan


def run(plan: TaskPlan, reporter: Reporter, limits: Limits = DEFAULT_LIMITS) -> None:
    raise NotImplementedError
