"""A committed workflow that is stale or missing: what `compile --check` and `gate` find
besides diagnostics. It is not a diagnostic (it is about a committed file, not a node of
the plan), so it has no code; the renderings carry it beside the diagnostics (docs/ci.md):

- `json`: `"stale": [{"plan", "workflow", "state", "command", "message"}, ...]` after
  `diagnostics`, and `summary.stale`, the number of entries;
- `sarif`: the same list in `run.properties.stale`, and `stale` in `run.properties.summary`;
- `github`: one `::error file=F,title=stale workflow::MESSAGE` per entry, on the
  workflow (on the plan when the workflow is missing), after the summary line;
- `text`: the commands write `error: MESSAGE` on stderr, after the diff.

A command that does not compare workflows passes no list (`None`): its JSON and SARIF
have no `stale` at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

TITLE = "stale workflow"
"""The title of the `github` annotation."""


@dataclass(frozen=True, slots=True)
class StaleWorkflow:
    plan: str
    workflow: str
    state: str
    """`stale` (the committed workflow differs) or `missing` (there is none)."""
    command: str
    """The command that recompiles it, shell-quoted (`taskplan compile PLAN ... -o OUT`)."""
    message: str
    """What the text rendering says (`OUT is stale: recompile it with ...`, or what `gate --write` did)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "plan": self.plan,
            "workflow": self.workflow,
            "state": self.state,
            "command": self.command,
            "message": self.message,
        }
