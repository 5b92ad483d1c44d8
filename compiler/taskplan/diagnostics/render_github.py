"""The `github` rendering: GitHub Actions workflow commands, one annotation per diagnostic.

```
::error file=plans/triage.taskplan.yaml,line=14,col=11,endLine=14,endColumn=16,title=TASK_ID_DUPLICATE::task ID `fetch` is declared twice%0Anote: the first declaration at plans/triage.taskplan.yaml:6:11%0Ahelp: rename one of the tasks
error: 1 error in 1 file
```

- `::error` for errors, `::warning` for warnings; `title` is the code.
- `line`/`endLine` always; `col`/`endColumn` only when the span starts and
  ends on the same line (GitHub ignores columns across lines). Columns are the
  contract's: 1-based code points, `endColumn` exclusive.
- The message is the diagnostic's message, then one `note: ... at FILE:LINE:COL`
  line per related location, then `help: <hint>`.
- Escaping as the Actions toolkit does: `%`, CR and LF in the message
  (`%25`, `%0D`, `%0A`), and additionally `:` and `,` in property values
  (`%3A`, `%2C`). Control and bidirectional-override characters coming from the
  input are first made visible (as in the text rendering): a plan cannot inject
  a second workflow command or drive the log.
- The summary line is the text rendering's (`error: 2 errors in 1 file`,
  `ok: 3 plans checked`), a plain log line.
- After it, for `compile --check` and `gate`, one
  `::error file=F,title=stale workflow::MESSAGE` per stale or missing workflow
  (diagnostics/stale.py): on the workflow, on the plan when the workflow is missing.

Sorted and deduplicated like every rendering: the same diagnostics give the same bytes.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from taskplan.diagnostics.diagnostic import Diagnostic, Severity
from taskplan.diagnostics.render_json import sort_diagnostics
from taskplan.diagnostics.render_text import clean, summary

if TYPE_CHECKING:
    from taskplan.diagnostics.stale import StaleWorkflow
    from taskplan.source.document import SourceDocument


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
    """One workflow command per diagnostic (sorted, deduplicated), the summary line, then
    one per `stale` workflow. `documents` and `color` are part of every renderer's
    signature; unused here."""
    diagnostics = sort_diagnostics(diagnostics)
    lines = [annotation(d) for d in diagnostics]
    lines.append(summary(diagnostics, files=files, unreadable=unreadable, noun=noun))
    lines.extend(stale_annotation(entry) for entry in stale or ())
    return "\n".join(lines) + "\n"


def stale_annotation(entry: "StaleWorkflow") -> str:
    """`::error file=WORKFLOW,title=stale workflow::MESSAGE` (file: the plan when the
    workflow is missing), cleaned and escaped like a diagnostic's."""
    from taskplan.diagnostics.stale import TITLE

    where = entry.workflow if entry.state == "stale" else entry.plan
    props = [("file", where.replace(os.sep, "/")), ("title", TITLE)]
    rendered = ",".join(f"{key}={escape_property(clean(value))}" for key, value in props)
    return f"::error {rendered}::{escape_data(clean(entry.message))}"


def annotation(d: Diagnostic) -> str:
    """`::error file=F,line=L,col=C,endLine=L,endColumn=C,title=CODE::message`."""
    loc = d.location
    line = max(loc.line, 1)
    end_line = max(loc.end_line, line)
    props = [("file", loc.file.replace(os.sep, "/")), ("line", str(line))]  # GitHub wants `/`
    if end_line == line:
        column = max(loc.column, 1)
        props.append(("col", str(column)))
        props.append(("endLine", str(end_line)))
        props.append(("endColumn", str(max(loc.end_column, column))))
    else:
        props.append(("endLine", str(end_line)))
    props.append(("title", d.code))
    rendered = ",".join(f"{key}={escape_property(clean(value))}" for key, value in props)
    command = "error" if d.severity is Severity.ERROR else "warning"
    return f"::{command} {rendered}::{escape_data(message(d))}"


def message(d: Diagnostic) -> str:
    """The annotation's text: message, related notes, hint, one per line."""
    parts = [clean(d.message)]
    for related in d.related:
        rloc = related.location
        parts.append(f"note: {clean(related.message)} at {clean(rloc.file)}:{rloc.line}:{rloc.column}")
    if d.hint:
        parts.append(f"help: {clean(d.hint)}")
    return "\n".join(parts)


def escape_data(text: str) -> str:
    """A workflow command's message: `%`, CR and LF percent-encoded."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as a message, and `:` and `,` too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
