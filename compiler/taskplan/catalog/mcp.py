"""Importing MCP tools into a catalog (catalog.md, Import).

Accepted inputs (one source per import):
- a `tools/list` result: `{"tools": [...]}` (other members, e.g. `serverInfo`, ignored);
- a JSON-RPC response carrying one: `{"jsonrpc": "2.0", "result": {"tools": [...]}}`;
- a single tool object: `{"name": ..., "inputSchema": ...}`;
- a directory of tool files (`*.snap`, `*.json`: one tool object, or a tools list,
  each), read in file-name order, as github-mcp-server's `__toolsnaps__`.

Each tool becomes operation `<source>.<tool name>`: `readOnlyHint` gives effect
read, else `destructiveHint` gives destroy, else write; executor `{type: mcp.call,
config: {server: <source>, tool: <name>}}`; `inputSchema` -> `input`,
`outputSchema` -> `output`; the title is the tool's `title`, else
`annotations.title`. Operations are written sorted by ID; schemas keep the
server's key order. Problems are located diagnostics in the tools file
(CATALOG_SYNTAX for a file that is not a tools list or a malformed tool,
CATALOG_SCHEMA_INVALID for an invalid schema, CATALOG_NAME_RESERVED for an input
property a workflow request cannot carry, CATALOG_DUPLICATE_OPERATION for a tool
name twice); nothing is written when there is any.
"""

from __future__ import annotations

import copy
import io
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.source import pointer as jp

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
TOOL_FILE_SUFFIXES = (".snap", ".json")


@dataclass(slots=True)
class ImportResult:
    """The catalog tree built from MCP tools (None when there were errors), the
    documents read (for rendering diagnostics) and the files that could not be read."""

    catalog: dict[str, Any] | None
    documents: dict[str, Any] = field(default_factory=dict)
    input_errors: list[tuple[str, str]] = field(default_factory=list)
    tools: int = 0


def valid_source_id(source: str) -> bool:
    return bool(_ID_RE.match(source))


def import_mcp(
    path: str | os.PathLike[str],
    source: str,
    sink: Diagnostics,
    limits: Limits = DEFAULT_LIMITS,
    *,
    data: bytes | None = None,
) -> ImportResult:
    """Import the MCP tools at `path` (a tools-list file, a tool file or a directory of
    tool files) as source `source`. Diagnostics go to `sink`."""
    from taskplan.catalog.load import read_catalog_file

    display = os.fspath(path)
    result = ImportResult(None)
    files: list[str]
    if data is None and os.path.isdir(display):
        try:
            names = sorted(n for n in os.listdir(display) if n.endswith(TOOL_FILE_SUFFIXES))
        except OSError as exc:
            result.input_errors.append((display, (exc.strerror or type(exc).__name__).lower()))
            return result
        if not names:
            result.input_errors.append((display, "no *.snap or *.json tool files in this directory"))
            return result
        files = [os.path.join(display, n) for n in names]
    else:
        files = [display]

    tools: list[tuple[Reporter, str, dict[str, Any]]] = []
    description: str | None = None
    before = sink.error_count()
    for file in files:
        if data is not None:
            content: bytes | None = data
            reason = None
        else:
            content, reason = read_catalog_file(file, limits)
        if content is None:
            result.input_errors.append((file, reason or "cannot be read"))
            continue
        found, server = _read_tools(file, content, sink, limits, result)
        tools.extend(found)
        if server and description is None and len(files) == 1:
            description = server
    if result.input_errors:
        return result

    operations: dict[str, dict[str, Any]] = {}
    first: dict[str, tuple[Reporter, str]] = {}
    for reporter, pointer, tool in tools:
        op = _operation(reporter, pointer, tool, source, limits)
        if op is None:
            continue
        op_id = op["id"]
        if op_id in first:
            first_reporter, first_pointer = first[op_id]
            reporter.report(
                "CATALOG_DUPLICATE_OPERATION", pointer + "/name",
                f"tool `{tool['name']}` is listed twice",
                related=[first_reporter.related(first_pointer + "/name", "first listed here")],
            )
            continue
        first[op_id] = (reporter, pointer)
        operations[op_id] = op
    result.tools = len(operations)
    if sink.error_count() > before:
        return result
    src: dict[str, Any] = {"id": source}
    if description:
        src["description"] = description
    src["operations"] = [operations[k] for k in sorted(operations)]
    result.catalog = {"version": 1, "sources": [src]}
    return result


def _read_tools(
    file: str, content: bytes, sink: Diagnostics, limits: Limits, result: ImportResult
) -> tuple[list[tuple[Reporter, str, dict[str, Any]]], str | None]:
    from taskplan.source.read import CATALOG_CODES, read_document

    fmt = "json" if file.endswith((".json", ".snap")) else None
    document = read_document(content, file, sink, codes=CATALOG_CODES, limits=limits, format=fmt)
    result.documents[file] = document
    if not document.ok:
        return [], None
    reporter = Reporter(document, sink)
    tree = document.tree
    base = ""
    if isinstance(tree, dict) and isinstance(tree.get("result"), dict) and "tools" not in tree:
        tree, base = tree["result"], "/result"
    if isinstance(tree, dict) and "tools" in tree:
        tools = tree["tools"]
        if not isinstance(tools, list):
            reporter.report("CATALOG_SYNTAX", base + "/tools", "`tools` must be a list of tool objects")
            return [], None
        out = []
        for i, tool in enumerate(tools):
            pointer = f"{base}/tools/{i}"
            if _tool_shape(reporter, pointer, tool):
                out.append((reporter, pointer, tool))
        return out, _server_description(tree.get("serverInfo"))
    if isinstance(tree, dict) and "name" in tree and "inputSchema" in tree:
        if _tool_shape(reporter, base, tree):
            return [(reporter, base, tree)], None
        return [], None
    reporter.report(
        "CATALOG_SYNTAX", base,
        "not an MCP tools list: expected `{\"tools\": [...]}`, a JSON-RPC `result` holding one, or one tool object",
        hint="save the result of the server's `tools/list` request as JSON",
    )
    return [], None


def _server_description(info: Any) -> str | None:
    if not isinstance(info, dict):
        return None
    name = info.get("title") or info.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    version = info.get("version")
    text = f"MCP server {name.strip()}"
    if isinstance(version, str) and version.strip():
        text += f" {version.strip()}"
    return text


def _tool_shape(reporter: Reporter, pointer: str, tool: Any) -> bool:
    if not isinstance(tool, dict):
        reporter.report("CATALOG_SYNTAX", pointer, "a tool must be an object with `name` and `inputSchema`")
        return False
    ok = True
    name = tool.get("name")
    if not isinstance(name, str) or not name:
        reporter.report("CATALOG_SYNTAX", pointer + ("/name" if "name" in tool else ""),
                        "a tool needs a non-empty string `name`")
        ok = False
    if "inputSchema" not in tool:
        reporter.report("CATALOG_SYNTAX", pointer, "a tool needs an `inputSchema`")
        ok = False
    elif not isinstance(tool["inputSchema"], dict):
        reporter.report("CATALOG_SYNTAX", pointer + "/inputSchema", "`inputSchema` must be a JSON Schema object")
        ok = False
    if "outputSchema" in tool and not isinstance(tool["outputSchema"], (dict, type(None))):
        reporter.report("CATALOG_SYNTAX", pointer + "/outputSchema", "`outputSchema` must be a JSON Schema object")
        ok = False
    for key in ("description", "title"):
        if key in tool and not isinstance(tool[key], (str, type(None))):
            reporter.report("CATALOG_SYNTAX", jp.join(pointer, key), f"`{key}` must be a string")
            ok = False
    if "annotations" in tool and not isinstance(tool["annotations"], (dict, type(None))):
        reporter.report("CATALOG_SYNTAX", pointer + "/annotations", "`annotations` must be an object")
        ok = False
    return ok


def effect_of(annotations: Any) -> str:
    """readOnlyHint -> read; else destructiveHint -> destroy; else write (catalog.md)."""
    if isinstance(annotations, dict):
        if annotations.get("readOnlyHint") is True:
            return "read"
        if annotations.get("destructiveHint") is True:
            return "destroy"
    return "write"


def _operation(
    reporter: Reporter, pointer: str, tool: dict[str, Any], source: str, limits: Limits
) -> dict[str, Any] | None:
    from taskplan.catalog.load import check_schema_at

    name = tool["name"]
    op_id = f"{source}.{name}"
    ok = True
    if not _ID_RE.match(op_id):
        reporter.report(
            "CATALOG_SYNTAX", pointer + "/name",
            f"tool name {name!r} does not make a valid operation ID (`{op_id}`)",
            hint="operation IDs are 1-128 letters, digits, `_`, `.`, `:`, `/` or `-`",
        )
        ok = False
    if check_schema_at(reporter, pointer + "/inputSchema", tool["inputSchema"], input_=True, limits=limits):
        ok = False
    output = tool.get("outputSchema")
    if output is not None and check_schema_at(
        reporter, pointer + "/outputSchema", output, input_=False, limits=limits
    ):
        ok = False
    if ok:  # a port the workflow request could not carry (CATALOG_NAME_RESERVED)
        from taskplan.catalog.jsonschema_types import shallow_type
        from taskplan.catalog.load import report_reserved_ports

        at = pointer + "/inputSchema"
        ok = report_reserved_ports(reporter, tool["inputSchema"], at, shallow_type(tool["inputSchema"], "", at))
    if not ok:
        return None
    annotations = tool.get("annotations") if isinstance(tool.get("annotations"), dict) else {}
    title = tool.get("title")
    if not (isinstance(title, str) and title.strip()):
        title = annotations.get("title") if isinstance(annotations.get("title"), str) else None
    op: dict[str, Any] = {"id": op_id}
    if title and title.strip():
        op["title"] = title.strip()
    description = tool.get("description")
    if isinstance(description, str) and description.strip():
        op["description"] = description
    op["executor"] = {"type": "mcp.call", "config": {"server": source, "tool": name}}
    op["input"] = copy.deepcopy(tool["inputSchema"])
    if output is not None:
        op["output"] = copy.deepcopy(output)
    op["effect"] = effect_of(annotations)
    return op


# ------------------------------------------------------------------- writing


def dump_yaml(tree: Any, header: Sequence[str] = ()) -> str:
    """Deterministic block-style YAML for a catalog tree: mapping order kept, 2-space
    indents, multi-line text as literal blocks where that is exact, every string
    that a YAML 1.1 or 1.2 reader could take for something else quoted."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.default_flow_style = False
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.allow_unicode = True
    out = io.StringIO()
    for line in header:
        out.write(f"# {line}\n" if line else "#\n")
    yaml.dump(_to_yaml(tree), out)
    return out.getvalue()


_RESOLVERS: list[Any] = []


def _ambiguous(text: str) -> bool:
    if not _RESOLVERS:
        from ruamel.yaml.resolver import VersionedResolver

        _RESOLVERS.extend(VersionedResolver(version=v) for v in ((1, 1), (1, 2)))
    from ruamel.yaml.nodes import ScalarNode

    return any(r.resolve(ScalarNode, text, (True, False)) != "tag:yaml.org,2002:str" for r in _RESOLVERS)


def _literal_ok(text: str) -> bool:
    """Whether `text` can be written as a literal block (`|`) and read back exactly."""
    if "\n" not in text or text[:1] in (" ", "\t"):
        return False
    if any(line != line.rstrip(" \t") for line in text.split("\n")):
        return False
    return all(c in "\n\t" or (c.isprintable() and c not in "\ufeff\u2028\u2029\x85") for c in text)


def _to_yaml(node: Any) -> Any:
    from ruamel.yaml.comments import CommentedMap, CommentedSeq
    from ruamel.yaml.scalarstring import DoubleQuotedScalarString, LiteralScalarString

    if isinstance(node, dict):
        out = CommentedMap()
        for k, v in node.items():
            key = DoubleQuotedScalarString(k) if isinstance(k, str) and _ambiguous(k) else k
            out[key] = _to_yaml(v)
        return out
    if isinstance(node, list):
        return CommentedSeq(_to_yaml(v) for v in node)
    if isinstance(node, str):
        if _literal_ok(node):
            return LiteralScalarString(node)
        if _ambiguous(node):
            return DoubleQuotedScalarString(node)
        return node
    return node


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically: a temporary file beside it, then rename."""
    target = Path(path)
    directory = target.parent if str(target.parent) else Path(".")
    try:
        mode = os.stat(target).st_mode & 0o7777  # keep an existing file's permissions
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask  # a new file gets the usual permissions, not mkstemp's 0600
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
