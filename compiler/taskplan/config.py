"""Settings with safe defaults: the reading limits and (later) project configuration.

Every limit the compiler enforces lives here, so that none is a constant
scattered in a pass (taskplan.md, Limits).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds enforced while reading and shaping a document."""

    max_bytes: int = 16 * MIB
    """Largest document (a plan or a catalog), in bytes, before decoding."""
    max_depth: int = 256
    """Deepest nesting of mappings and sequences in one document."""
    max_tasks: int = 50_000
    """Most tasks (at every depth, `always` and group bodies included) in one plan."""
    max_value_depth: int = 64
    """Deepest nesting of TaskValues (TASK_VALUE_INVALID beyond it)."""
    max_schema_depth: int = 64
    """Deepest nesting of subschemas in one catalog JSON Schema (CATALOG_SCHEMA_INVALID beyond it)."""
    max_scalar_chars: int = 1 * MIB
    """Longest single string or key."""
    max_number_digits: int = 4000
    """Longest integer literal, in digits (Python refuses to parse past 4300)."""
    max_workflow_steps: int = 250_000
    """Most steps (every workflow, `finally` and switch cases included) in one workflow document."""
    max_workflow_depth: int = 128
    """Deepest nesting of steps in a workflow document: a switch case's steps and a called
    workflow's steps are each one level deeper than the step that runs them."""
    max_expression_chars: int = 8192
    """Longest `${...}` expression in a workflow document."""
    max_workflow_bytes: int = 64 * MIB
    """Largest workflow document, in bytes: `validate` reads workflow files up to it (in
    place of max_bytes), and `compile` refuses to write a workflow larger than it
    (PLAN_LIMIT), so that validate accepts whatever compile writes. A plan of
    max_tasks tasks compiles to about 30 MB (some 600 bytes a task)."""

    def for_workflows(self) -> "Limits":
        """These limits as a workflow document is read with: max_workflow_bytes in place
        of max_bytes (a compiled workflow is larger than its plan)."""
        return replace(self, max_bytes=self.max_workflow_bytes)


DEFAULT_LIMITS = Limits()
