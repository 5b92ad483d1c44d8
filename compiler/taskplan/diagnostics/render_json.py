"""The `json` rendering: the contract of diagnostics.md, for CI and models.

```json
{"diagnostics": [Diagnostic.to_json(), ...],
 "summary": {"errors": 1, "warnings": 0, "files": 2}}
```

`files` is the number of files checked (plans; workflows for `validate`). The commands
that compare committed workflows (`compile --check`, `gate`) add `"stale": [...]`
after the diagnostics and `stale` (their number) to the summary (diagnostics/stale.py). The diagnostics are sorted and
deduplicated (`Diagnostics.sorted()`: file, line, column, code), one per line;
fields keep the contract's order, non-ASCII text is written as is (UTF-8), and
the output ends with a newline: the same diagnostics give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from taskplan.diagnostics.diagnostic import Diagnostic, Severity
from taskplan.diagnostics.reporter import Diagnostics

if TYPE_CHECKING:
    from taskplan.diagnostics.stale import StaleWorkflow
    from taskplan.source.document import SourceDocument


def sort_diagnostics(diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """The contract's order (file, line, column, code) without duplicates."""
    collected = Diagnostics()
    collected.extend(diagnostics)
    return collected.sorted()


def document(
    diagnostics: Sequence[Diagnostic], *, files: int = 0, stale: Sequence["StaleWorkflow"] | None = None
) -> dict[str, Any]:
    """The JSON document as Python data (`stale`: None for a command that compares no workflow)."""
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    out: dict[str, Any] = {"diagnostics": [d.to_json() for d in diagnostics]}
    summary: dict[str, Any] = {"errors": errors, "warnings": len(diagnostics) - errors, "files": files}
    if stale is not None:
        out["stale"] = [entry.to_json() for entry in stale]
        summary["stale"] = len(stale)
    out["summary"] = summary
    return out


def render(
    diagnostics: Sequence[Diagnostic],
    *,
    documents: Mapping[str, "SourceDocument"] | None = None,
    files: int = 0,
    unreadable: int = 0,
    color: bool = False,
    noun: str = "plan",
    stale: Sequence["StaleWorkflow"] | None = None,
) -> str:
    """Render `diagnostics`, sorted and deduplicated (and the `stale` workflows, when the
    command compares any). `documents`, `unreadable`, `color` and `noun` are part of every
    renderer's signature; JSON does not use them."""
    data = document(sort_diagnostics(diagnostics), files=files, stale=stale)
    # One diagnostic per line: readable, diff- and grep-friendly, and written by the C
    # encoder (an `indent` would switch json to its pure-Python encoder).
    fields = [f'  "diagnostics": {_items(data["diagnostics"])}']
    if "stale" in data:
        fields.append(f'  "stale": {_items(data["stale"])}')
    fields.append(f'  "summary": {_dumps(data["summary"])}')
    return "{\n" + ",\n".join(fields) + "\n}\n"


def _items(values: list[Any]) -> str:
    items = ",\n".join(f"    {_dumps(item)}" for item in values)
    return f"[\n{items}\n  ]" if items else "[]"


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
