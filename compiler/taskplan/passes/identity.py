"""The identity pass: the one namespace of task, group and choice IDs; lexical rules;
names duplicated within a list."""

from __future__ import annotations

from taskplan.diagnostics import Reporter
from taskplan.ir.checked import IdentityTable
from taskplan.model.plan import TaskPlan


def run(plan: TaskPlan, reporter: Reporter) -> IdentityTable:
    raise NotImplementedError
