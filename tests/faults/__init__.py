"""The fault-injection corpus: one or more mutation operators per diagnostic code,
each injecting exactly that fault into valid documents (plans, catalogs, compiled
workflows, the project configuration).

    python -m tests.faults              # the detection report, per code (every seed)
    python -m tests.faults --cases      # every case, with what was found
    python -m tests.faults --code PLAN_LIMIT --limit 2

tests/test_fault_injection.py runs every operator on a few seeds each; docs/robustness.md
describes the corpus. tests/faults/fuzz.py holds the cross-pass properties shared by
tests/test_properties.py and benchmarks/fuzz_long.py.
"""

from __future__ import annotations

# each module registers its operators
from . import ops_catalog, ops_config, ops_plan, ops_reading, ops_workflow  # noqa: F401
from .core import OPERATORS, Injection, Operator, Outcome, cases, location_problems, run, seeds_for

EXEMPT = {"COMPILER_INTERNAL": "no input triggers it: tests/test_fault_injection.py monkeypatches each pass to raise"}
"""Codes without an operator, and why."""

__all__ = ["EXEMPT", "OPERATORS", "Injection", "Operator", "Outcome", "cases", "location_problems", "run", "seeds_for"]
