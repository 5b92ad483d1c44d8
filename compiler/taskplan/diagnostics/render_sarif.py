"""The `sarif` rendering: SARIF 2.1.0 for code-scanning uploads (diagnostics.md, Renderings).

One log, one run. The run's driver is `taskplan` (version, informationUri) with
one rule per code that appears in the results (sorted by code; `ruleIndex`
points into that list): `shortDescription` is the code's title,
`fullDescription` its explanation, `help` the explanation with the wrong and
the right example (text and Markdown), `defaultConfiguration.level` its
severity. Each diagnostic is one result:

- `ruleId`/`ruleIndex`, `level` (`error`/`warning`);
- `message.text`: the message, then `help: <hint>` on a second line (the hint is
  also `properties.hint`, for tools);
- `locations[0]`: the file as a relative URI against `%SRCROOT%` (the directory
  taskplan ran in: the repository root in CI) or an absolute `file:` URI, and the
  region (1-based lines and columns in Unicode code points, end exclusive:
  exactly the contract's span; the run says `columnKind: unicodeCodePoints`);
- `relatedLocations`: the diagnostic's `related` notes, with their messages;
- `properties`: the RFC 6901 `pointer` and the business `subject`.

The run's `properties.summary` repeats the JSON summary; for `compile --check` and
`gate`, `properties.stale` lists the stale or missing workflows (diagnostics/stale.py).

`originalUriBaseIds` names `%SRCROOT%` without an absolute URI, so the same
diagnostics give the same bytes on every machine; code scanning resolves
relative URIs against the checkout. The log is built as plain dicts (the
sarif-om classes have no serializer) and written with sorted diagnostics,
fields in a fixed order, two-space indentation (one line per rule and per
result), UTF-8 and a final newline.
It validates against the official SARIF 2.1.0 JSON Schema (tests/test_sarif.py).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import PurePosixPath, PureWindowsPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from taskplan import __version__
from taskplan.diagnostics.diagnostic import Diagnostic, Location, Severity
from taskplan.diagnostics.render_json import sort_diagnostics

if TYPE_CHECKING:
    from taskplan.diagnostics.stale import StaleWorkflow
    from taskplan.source.document import SourceDocument

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
"""The `id` of the official SARIF 2.1.0 (errata 01) JSON Schema."""
SARIF_VERSION = "2.1.0"
TOOL_NAME = "taskplan"
INFORMATION_URI = "https://taskplan.dev/"
"""The project's home (the namespace of its published schemas)."""
SRCROOT = "%SRCROOT%"


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
    """Render `diagnostics`, sorted and deduplicated, as one SARIF log (and the `stale`
    workflows in the run's properties, when the command compares any). `documents`,
    `color` and `noun` are part of every renderer's signature; SARIF does not use them."""
    log = sarif_log(sort_diagnostics(diagnostics), files=files, unreadable=unreadable, stale=stale)
    return _pretty(log) + "\n"


def _pretty(value: Any, depth: int = 0, key: str = "") -> str:
    """Objects indented by two spaces, but each rule and each result on one line:
    readable, diff- and grep-friendly, and written by the C encoder (an `indent`
    would switch json to its pure-Python encoder, five times slower)."""
    pad = "  " * depth
    if isinstance(value, dict) and value:
        fields = ",\n".join(f"{pad}  {_one(k)}: {_pretty(v, depth + 1, k)}" for k, v in value.items())
        return f"{{\n{fields}\n{pad}}}"
    if isinstance(value, list) and value:
        items = ",\n".join(f"{pad}  {_pretty(v, depth + 1) if key == 'runs' else _one(v)}" for v in value)
        return f"[\n{items}\n{pad}]"
    return _one(value)


def _one(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))


def sarif_log(
    diagnostics: Sequence[Diagnostic],
    *,
    files: int = 0,
    unreadable: int = 0,
    stale: Sequence["StaleWorkflow"] | None = None,
) -> dict[str, Any]:
    """The SARIF log as Python data, for `diagnostics` in the order given. A stale
    workflow is no result (no rule, no region: it is about a committed file, not a node
    of the plan): the run's properties list them, as the JSON rendering does."""
    rule_ids = sorted({d.code for d in diagnostics})
    index = {code: i for i, code in enumerate(rule_ids)}
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "semanticVersion": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [rule(code) for code in rule_ids],
            }
        },
        "originalUriBaseIds": {
            SRCROOT: {
                "description": {"text": "The directory taskplan ran in (the repository root in CI)."},
            }
        },
        "results": [result(d, index[d.code]) for d in diagnostics],
        "columnKind": "unicodeCodePoints",
        "properties": {
            "summary": {
                "errors": errors,
                "warnings": len(diagnostics) - errors,
                "files": files,
                "unreadable": unreadable,
            }
        },
    }
    if stale is not None:
        run["properties"]["summary"]["stale"] = len(stale)
        run["properties"]["stale"] = [entry.to_json() for entry in stale]
    return {"$schema": SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


# ------------------------------------------------------------------- rules


def rule(code: str) -> dict[str, Any]:
    """The reportingDescriptor of `code`, from the registry (a bare one for a code
    the registry does not know, which would be a bug elsewhere: never fail here)."""
    from taskplan.diagnostics.registry import REGISTRY

    info = REGISTRY.get(code)
    if info is None:
        return {
            "id": code,
            "name": rule_name(code),
            "shortDescription": {"text": code},
            "defaultConfiguration": {"level": "error"},
        }
    text, markdown = _help(info.explanation, info.wrong, info.right, info.catalog)
    return {
        "id": code,
        "name": rule_name(code),
        "shortDescription": {"text": info.title},
        "fullDescription": {"text": info.explanation},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": _level(info.severity)},
        "properties": {"tags": ["taskplan", info.family]},
    }


def rule_name(code: str) -> str:
    """`TASK_ID_DUPLICATE` -> `TaskIdDuplicate` (SARIF's readable rule name)."""
    return "".join(part.capitalize() for part in code.split("_") if part)


def _help(explanation: str, wrong: str, right: str, catalog: str) -> tuple[str, str]:
    text = [explanation]
    markdown = [explanation]
    for label, example in (("Wrong", wrong), ("Right", right), ("With this catalog", catalog)):
        if not example:
            continue
        body = example if example.endswith("\n") else example + "\n"
        text.append(f"{label}:\n\n{_indent(body)}")
        fence = _fence(body)
        markdown.append(f"{label}:\n\n{fence}{_language(body)}\n{body}{fence}")
    return "\n\n".join(text), "\n\n".join(markdown)


def _indent(body: str) -> str:
    return "".join(f"    {line}" if line.strip() else line for line in body.splitlines(keepends=True))


def _fence(body: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    return "`" * (longest + 1)


def _language(body: str) -> str:
    return "json" if body.lstrip().startswith(("{", "[")) else "yaml"


# ----------------------------------------------------------------- results


def result(d: Diagnostic, rule_index: int) -> dict[str, Any]:
    """One SARIF result for one diagnostic."""
    text = d.message if not d.hint else f"{d.message}\nhelp: {d.hint}"
    out: dict[str, Any] = {
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": _level(d.severity),
        "message": {"text": text},
        "locations": [{"physicalLocation": physical_location(d.location)}],
    }
    if d.related:
        out["relatedLocations"] = [
            {"id": i, "physicalLocation": physical_location(r.location), "message": {"text": r.message}}
            for i, r in enumerate(d.related, start=1)
        ]
    properties: dict[str, Any] = {"pointer": d.location.pointer}
    if d.subject:
        properties["subject"] = dict(d.subject)
    if d.hint:
        properties["hint"] = d.hint
    out["properties"] = properties
    return out


def physical_location(loc: Location) -> dict[str, Any]:
    return {"artifactLocation": artifact_location(loc.file), "region": region(loc)}


def artifact_location(path: str) -> dict[str, Any]:
    """A relative path -> `{"uri": "plans/a%20b.yaml", "uriBaseId": "%SRCROOT%"}`;
    an absolute one -> `{"uri": "file:///..."}`. Always a valid URI reference: spaces,
    `%`, `#`, `?` and non-ASCII characters are percent-encoded (UTF-8)."""
    absolute, parts = _split(path)
    if absolute is not None:
        return {"uri": "file://" + quote(absolute, safe="/:")}
    return {"uri": quote("/".join(parts), safe="/"), "uriBaseId": SRCROOT}


def _split(path: str) -> tuple[str | None, list[str]]:
    """(the absolute path as a URI path, []) or (None, the relative path's segments)."""
    pure = PureWindowsPath(path) if os.name == "nt" else PurePosixPath(path)
    if pure.is_absolute():
        return "/" + pure.as_posix().lstrip("/"), []
    # `:` is percent-encoded by quote(), so `a:b.yaml` never reads as a URI scheme.
    return None, [s for s in pure.parts if s != "."] or ["."]


def region(loc: Location) -> dict[str, int]:
    """The contract's span as a SARIF region (both are 1-based, end exclusive, in code
    points); defensive against a degenerate span (never below 1, never ending before it starts)."""
    start_line = max(loc.line, 1)
    start_column = max(loc.column, 1)
    end_line = max(loc.end_line, start_line)
    end_column = max(loc.end_column, 1)
    if end_line == start_line and end_column < start_column:
        end_column = start_column
    return {"startLine": start_line, "startColumn": start_column, "endLine": end_line, "endColumn": end_column}


def _level(severity: Severity) -> str:
    return "error" if severity is Severity.ERROR else "warning"
