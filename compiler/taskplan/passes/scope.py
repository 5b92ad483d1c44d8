"""The scope pass: the scope tree, visibility, captures, exports, dependencies and
their order, cycles, groups, choices. Produces the CheckedPlan."""

from __future__ import annotations

from taskplan.diagnostics import Reporter
from taskplan.ir.checked import CheckedPlan, IdentityTable
from taskplan.model.plan import TaskPlan


def run(plan: TaskPlan, identity: IdentityTable, reporter: Reporter) -> CheckedPlan:
    raise NotImplementedError
