"""The fault-injection corpus: one or more mutation operators per diagnostic code,
each injecting exactly that fault into valid documents (plans, catalogs, compiled
workflows, the project configuration).

    python -m tests.faults --report     # the detection report, per code
    python -m tests.faults --cases      # every case, with what was found

tests/test_fault_injection.py runs every operator on a few seeds each; docs/robustness.md
describes the corpus.
"""

from __future__ import annotations

from . import ops_reading  # noqa: F401  (each module registers its operators)
from .core import OPERATORS, Injection, Operator, Outcome, cases, location_problems, run, seeds_for

_MODULES = ("ops_reading", "ops_plan", "ops_catalog", "ops_workflow", "ops_config")
for _name in _MODULES[1:]:
    try:
        __import__(f"{__name__}.{_name}")
    except ModuleNotFoundError as exc:  # while the corpus is being written
        if exc.name != f"{__name__}.{_name}":
            raise

EXEMPT = {"COMPILER_INTERNAL": "no input triggers it: tests/test_fault_injection.py monkeypatches each pass to raise"}
"""Codes without an operator, and why."""

__all__ = ["EXEMPT", "OPERATORS", "Injection", "Operator", "Outcome", "cases", "location_problems", "run", "seeds_for"]
