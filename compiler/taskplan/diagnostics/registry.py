"""The one registry of diagnostic codes.

Each code has a family, the pass that owns it, a title, an explanation, and a
wrong and a right example (a complete TaskPlan, or a workflow/catalog file for
those families). `taskplan explain CODE` and docs/diagnostics.md are generated
from here. Codes are stable: never reuse one for a different meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from taskplan.diagnostics.diagnostic import Severity


@dataclass(frozen=True, slots=True)
class CodeInfo:
    code: str
    family: str
    owner: str
    """The pass (or component) that reports it: read, shape, identity, scope, types, lower, validate, catalog, compiler."""
    title: str
    explanation: str
    wrong: str = ""
    """A complete document (a TaskPlan; a catalog or workflow for those families) that produces the code."""
    right: str = ""
    """The same document, repaired: it checks (or compiles) clean."""
    catalog: str = ""
    """A catalog (YAML) the examples are checked against, when they call operations."""
    severity: Severity = Severity.ERROR


REGISTRY: dict[str, CodeInfo] = {}


def register(info: CodeInfo) -> CodeInfo:
    if info.code in REGISTRY:
        raise ValueError(f"diagnostic code registered twice: {info.code}")
    REGISTRY[info.code] = info
    return info


# The entries themselves live in taskplan.diagnostics.codes, one module per family.
from taskplan.diagnostics import codes as _codes  # noqa: E402,F401  (registers every code)
