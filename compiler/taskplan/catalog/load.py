"""Loading capability catalogs (catalog.md): files -> one `Catalog`.

`load_catalogs(paths, sink, limits)` reads every file with the same reader and
source map as plans (`read_document(..., codes=CATALOG_CODES)`), so every
catalog diagnostic points at the exact node of the catalog file:

- CATALOG_SYNTAX: unreadable text, a wrong shape (unknown or missing fields,
  wrong JSON types, an invalid operation ID, version or executor type, `version`
  not 1);
- CATALOG_SCHEMA_INVALID: an `input`/`output` that is not valid JSON Schema of
  its draft, a `$ref` that is not local or does not resolve, an `input` that is
  not an object schema;
- CATALOG_OPERATION_INVALID: `fixed` or `artifacts` naming a port the schemas
  do not declare, or a fixed value its port's schema rejects;
- CATALOG_NAME_RESERVED: an input port or executor configuration key that a
  workflow call step cannot carry (a `$` name, a configuration key `request`),
  or an executor type that is a built-in step type or in a built-in namespace;
- CATALOG_DUPLICATE_OPERATION: an ID (and version) declared twice, across
  files too, with the first declaration as related location.

Files are processed in the order of their display paths (a path given twice is
read once), so the same files in any order give the same catalog and the same
diagnostics. Operations are sorted by ID, then version (natural order).

An operation with an error is left out of the catalog but remembered as
*broken*: a plan that calls it gets no diagnostic for the call (the catalog
error is the one mistake). A file that cannot be read or parsed at all makes
the catalog *incomplete*: an operation not found may be in it, so no
TASK_OPERATION_UNKNOWN is reported for it either. A file that cannot be read at
all (missing, a directory, no permission) is not a diagnostic: it is listed in
`Catalog.input_errors` (the CLI reports it and exits 2).
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Union

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostics, Location, Related, Reporter
from taskplan.model.btype import BType, Field, Slot
from taskplan.source import pointer as jp
from taskplan.workflow import dialect
from taskplan.workflow.dialect import REQUEST, RESERVED_KEY_PREFIX

if TYPE_CHECKING:
    from taskplan.source.document import SourceDocument

PathLike = Union[str, "os.PathLike[str]"]

_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}$")
_VERSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,63}$")
UNKNOWN_VERSION = "\x00?"
"""Stands for the version of a broken declaration whose version could not be read."""


def version_key(version: str | None) -> tuple:
    """Natural order of versions: `2` < `10`, `1.9` < `1.10`; no version first."""
    if version is None:
        return ()
    parts = re.findall(r"\d+|\D+", version)
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts)


# -------------------------------------------------------------------- operation


@dataclass(frozen=True, slots=True, repr=False, eq=False)
class Operation:
    """One operation of the catalog, with its business types.

    `input_type` is an object type whose fields are the input ports (fixed ports
    included: see `is_fixed`); `output_type` is None for an opaque result (no
    output schema). Slots of both types point into `file`. The types are converted
    from the schemas on first use (a check converts only the operations a plan
    calls); `input_ports`/`output_ports` names come from a cheap shallow pass."""

    id: str
    version: str | None
    source: str
    title: str | None
    description: str | None
    executor: str
    executor_config: Mapping[str, Any]
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any] | bool | None
    fixed: Mapping[str, Any]
    produces: Mapping[str, str]
    """output port -> artifact kind."""
    consumes: Mapping[str, str]
    """input port -> artifact kind."""
    effect: str
    file: str
    pointer: str
    """The operation object in `file`, e.g. `/sources/0/operations/3`."""
    shallow_input: BType
    """The input schema's own type: kind and declared fields (field types not converted)."""
    shallow_output: BType | None
    _types: dict[str, BType | None] = field(default_factory=dict, init=False, compare=False)
    _derived: dict[str, Any] = field(default_factory=dict, init=False, compare=False)
    """What the types pass asks of every task calling the operation, computed once."""

    @property
    def input_type(self) -> BType:
        """The full business type of the input schema (an object type: its fields are the ports)."""
        t = self._types.get("input")
        if t is None:
            from taskplan.catalog.jsonschema_types import schema_type

            t = schema_type(self.input_schema, self.file, self.pointer + "/input")
            self._types["input"] = t
        return t

    @property
    def output_type(self) -> BType | None:
        """The full business type of the output schema; None for an opaque result."""
        if self.output_schema is None:
            return None
        t = self._types.get("output")
        if t is None:
            from taskplan.catalog.jsonschema_types import schema_type

            t = schema_type(self.output_schema, self.file, self.pointer + "/output")
            self._types["output"] = t
        return t

    @property
    def input_names(self) -> tuple[str, ...]:
        """The input port names, without converting their types."""
        return tuple(f.name for f in self.shallow_input.fields)

    @property
    def output_names(self) -> tuple[str, ...]:
        """The output port names (none when opaque), without converting their types."""
        return tuple(f.name for f in self.shallow_output.fields) if self.shallow_output is not None else ()

    @property
    def ref(self) -> str:
        """`id@version`, or `id` when unversioned."""
        return f"{self.id}@{self.version}" if self.version is not None else self.id

    @property
    def opaque(self) -> bool:
        """True when the operation declares no output schema (its result is `any`)."""
        return self.output_type is None

    @property
    def input_ports(self) -> tuple[Field, ...]:
        """Every input port (the top-level properties of the input schema), fixed ones included."""
        return self.input_type.fields

    def input_port(self, name: str) -> Field | None:
        return self.input_type.get_field(name)

    def is_fixed(self, name: str) -> bool:
        """Whether the catalog fixes port `name` (the plan may not bind it)."""
        return name in self.fixed

    @property
    def bindable_ports(self) -> tuple[Field, ...]:
        """The input ports a plan may bind: every port the catalog does not fix."""
        return tuple(f for f in self.input_type.fields if f.name not in self.fixed)

    @property
    def required_ports(self) -> tuple[Field, ...]:
        """The ports a plan must bind: required and not fixed."""
        found = self._derived.get("required_ports")
        if found is None:
            found = self._derived["required_ports"] = tuple(
                f for f in self.input_type.fields if f.required and f.name not in self.fixed
            )
        return found

    @property
    def output_port_types(self) -> Mapping[str, BType]:
        """Output port name -> its type (empty when opaque). Shared: copy it before changing it."""
        found = self._derived.get("output_port_types")
        if found is None:
            found = self._derived["output_port_types"] = {f.name: f.type for f in self.output_ports}
        return found

    @property
    def optional_output_ports(self) -> frozenset[str]:
        """The output ports that may be absent from the result (not required by the schema)."""
        found = self._derived.get("optional_output_ports")
        if found is None:
            found = self._derived["optional_output_ports"] = frozenset(
                f.name for f in self.output_ports if not f.required
            )
        return found

    @property
    def output_ports(self) -> tuple[Field, ...]:
        """The output ports (the top-level properties of the output schema); none when opaque."""
        return self.output_type.fields if self.output_type is not None else ()

    def output_port(self, name: str) -> Field | None:
        """The output port `name`, or None (undeclared, or an opaque result)."""
        return self.output_type.get_field(name) if self.output_type is not None else None

    def slot(self, suffix: str = "") -> Slot:
        """A place in the operation's declaration, e.g. `slot("/id")`."""
        return Slot(self.file, self.pointer + suffix)

    def __repr__(self) -> str:
        return f"Operation({self.ref!r} at {self.file}#{self.pointer})"


# ------------------------------------------------------------------- resolution

RESOLUTION_REASONS = ("ok", "unknown", "version_unknown", "unversioned", "ambiguous", "broken", "unavailable")


@dataclass(frozen=True, slots=True)
class Resolution:
    """What an operation reference (`ID` or `ID@version`) resolves to.

    reason:
    - `ok`: `operation` is the one operation meant;
    - `unknown`: no operation has this ID (`suggestions`: the closest IDs);
    - `version_unknown`: the pin names no declared version (`versions`: the declared ones);
    - `unversioned`: a pin on an operation that declares no version;
    - `ambiguous`: no pin, and the ID has several versions (`versions`);
    - `broken`: the operation's declaration has a catalog error (already reported):
      report nothing, treat the task's ports as unknown;
    - `unavailable`: not found, but a catalog file could not be read, so it may be
      there: report nothing either.

    `unknown`, `version_unknown`, `unversioned` and `ambiguous` are reported by the
    types pass as `code` (TASK_OPERATION_UNKNOWN), with `message()` and `hint()`.
    """

    ref: str
    id: str
    pin: str | None
    reason: str
    operation: Operation | None = None
    versions: tuple[str, ...] = ()
    suggestions: tuple[str, ...] = ()
    empty_catalog: bool = False

    @property
    def ok(self) -> bool:
        return self.reason == "ok"

    @property
    def code(self) -> str | None:
        """The diagnostic the plan gets: TASK_OPERATION_UNKNOWN, or None (ok, broken, unavailable)."""
        if self.reason in ("unknown", "version_unknown", "unversioned", "ambiguous"):
            return "TASK_OPERATION_UNKNOWN"
        return None

    def message(self) -> str:
        if self.reason == "unknown":
            return f"unknown operation `{self.ref}`"
        if self.reason == "version_unknown":
            return f"operation `{self.id}` has no version `{self.pin}`"
        if self.reason == "unversioned":
            return f"operation `{self.id}` declares no version, so it cannot be pinned as `{self.ref}`"
        if self.reason == "ambiguous":
            return f"operation `{self.id}` is ambiguous: the catalog declares versions {_and(self.versions)}"
        return ""

    def hint(self) -> str | None:
        if self.reason == "unknown":
            if self.suggestions:
                return f"did you mean {_or([f'`{s}`' for s in self.suggestions])}?"
            if self.empty_catalog:
                return "no catalog was given: pass --catalog FILE, or list catalogs in [tool.taskplan] of pyproject.toml"
            return "`taskplan catalog search WORDS` finds operations by what they do"
        if self.reason == "version_unknown":
            return f"available versions: {', '.join(self.versions)}; pin one, e.g. `{self.id}@{self.versions[-1]}`"
        if self.reason == "unversioned":
            return f"write `{self.id}` without a version"
        if self.reason == "ambiguous":
            return f"pin one version: {_or([f'`{self.id}@{v}`' for v in self.versions])}"
        return None


def _or(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _and(items: Sequence[str]) -> str:
    items = list(items)
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def split_ref(ref: str) -> tuple[str, str | None]:
    """`github.get@3` -> (`github.get`, `3`); `github.get` -> (`github.get`, None)."""
    at = ref.find("@")
    if at < 0:
        return ref, None
    return ref[:at], ref[at + 1:]


# ---------------------------------------------------------------------- catalog

_RESOLVED_MAX = 4096
"""The most resolutions one catalog remembers (then it starts again)."""


class Catalog:
    """The operations of one or several catalog files, sorted by (ID, version)."""

    def __init__(
        self,
        operations: Iterable[Operation] = (),
        *,
        documents: Mapping[str, "SourceDocument"] | None = None,
        broken: Mapping[str, Iterable[str | None]] | None = None,
        complete: bool = True,
        input_errors: Sequence[tuple[str, str]] = (),
    ):
        self.operations: tuple[Operation, ...] = tuple(
            sorted(operations, key=lambda o: (o.id, version_key(o.version)))
        )
        self.documents: dict[str, SourceDocument] = dict(documents or {})
        """Every catalog document read, by display path (for related locations)."""
        self.broken: dict[str, frozenset[str | None]] = {k: frozenset(v) for k, v in (broken or {}).items()}
        """Operation ID -> versions whose declaration has an error (None: unversioned)."""
        self.complete = complete
        """False when a catalog file could not be read or parsed as a whole."""
        self.input_errors: list[tuple[str, str]] = list(input_errors)
        """(display path, reason) for files that could not be read at all."""
        self._by_id: dict[str, list[Operation]] = {}
        for op in self.operations:
            self._by_id.setdefault(op.id, []).append(op)
        self._index: Any = None
        self._resolved: dict[str, Resolution] = {}
        self._suggestions: dict[str, tuple[str, ...]] = {}
        self._reporters: dict[str, Reporter] = {}

    def __len__(self) -> int:
        return len(self.operations)

    def __iter__(self):
        return iter(self.operations)

    def ids(self) -> list[str]:
        """Every operation ID, sorted, once."""
        return list(self._by_id)

    def versions(self, op_id: str) -> tuple[str, ...]:
        return tuple(o.version for o in self._by_id.get(op_id, ()) if o.version is not None)

    def get(self, op_id: str, version: str | None = None) -> Operation | None:
        """The operation `op_id` (with `version`, or the only declaration when None)."""
        ops = self._by_id.get(op_id)
        if not ops:
            return None
        if version is None:
            return ops[0] if len(ops) == 1 else None
        for op in ops:
            if op.version == version:
                return op
        return None

    def resolve(self, ref: str) -> Resolution:
        """Resolve an operation reference `ID` or `ID@version` (see `Resolution`), memoised:
        the catalog does not change once loaded, and every plan checked against it
        (`taskplan check` of many files) calls mostly the same operations."""
        found = self._resolved.get(ref)
        if found is None:
            found = self._resolve(ref)
            if len(self._resolved) >= _RESOLVED_MAX:
                self._resolved.clear()  # bounded: references nothing resolves are endless
            self._resolved[ref] = found
        return found

    def _resolve(self, ref: str) -> Resolution:
        op_id, pin = split_ref(ref)
        ops = self._by_id.get(op_id, [])
        bad = self.broken.get(op_id, frozenset())
        if not ops and not bad:
            if not self.complete:
                return Resolution(ref, op_id, pin, "unavailable")
            return Resolution(
                ref, op_id, pin, "unknown", suggestions=self.suggest(op_id), empty_catalog=not self.operations
            )
        versions = tuple(
            sorted(
                {o.version for o in ops if o.version is not None}
                | {v for v in bad if v is not None and v != UNKNOWN_VERSION},
                key=version_key,
            )
        )
        if pin is None:
            if len(ops) + len(bad) == 1:
                return Resolution(ref, op_id, pin, "ok", ops[0]) if ops else Resolution(ref, op_id, pin, "broken")
            if UNKNOWN_VERSION in bad or None in bad or any(o.version is None for o in ops):
                # the catalog itself is in conflict here (already reported): say nothing more
                return Resolution(ref, op_id, pin, "broken")
            return Resolution(ref, op_id, pin, "ambiguous", versions=versions)
        for op in ops:
            if op.version == pin:
                return Resolution(ref, op_id, pin, "ok", op)
        if pin in bad or UNKNOWN_VERSION in bad:
            return Resolution(ref, op_id, pin, "broken")
        if not versions:
            return Resolution(ref, op_id, pin, "unversioned")
        return Resolution(ref, op_id, pin, "version_unknown", versions=versions)

    # ------------------------------------------------------------ search

    def search(self, query: str) -> list[Any]:
        """Every operation matching `query`, best first (see `taskplan.catalog.search`)."""
        from taskplan.catalog.search import search

        return search(self, query)

    def suggest(self, unknown_id: str, k: int = 3) -> tuple[str, ...]:
        """The closest operation IDs to `unknown_id` ("did you mean"), memoised."""
        key = f"{k}\x00{unknown_id}"
        cached = self._suggestions.get(key)
        if cached is None:
            from taskplan.catalog.search import suggest

            cached = tuple(suggest(self, unknown_id, k))
            self._suggestions[key] = cached
        return cached

    # ------------------------------------------------------------ locations

    def locate(self, slot: Slot, *, key: bool = False) -> Location | None:
        """The exact location of a slot in a catalog document (None when the slot is
        not in a catalog document, e.g. it points into the plan)."""
        reporter = self._reporter(slot.file)
        if reporter is None:
            return None
        return reporter.locate(slot.pointer, key=key)

    def related(self, slot: Slot | None, message: str) -> Related | None:
        """A related location for a diagnostic about a plan: `message` at `slot`."""
        if slot is None:
            return None
        location = self.locate(slot)
        return Related(message, location) if location is not None else None

    def _reporter(self, file: str) -> Reporter | None:
        reporter = self._reporters.get(file)
        if reporter is None:
            document = self.documents.get(file)
            if document is None:
                return None
            reporter = Reporter(document, Diagnostics())
            self._reporters[file] = reporter
        return reporter


# ------------------------------------------------------------------------ load


def read_catalog_file(path: str, limits: Limits) -> tuple[bytes | None, str | None]:
    """The bytes of a catalog file (at most one past the size limit), or the reason it
    cannot be read at all."""
    from taskplan.source.read import nonblocking_opener

    try:
        with open(path, "rb", opener=nonblocking_opener) as handle:  # a named pipe never blocks
            return handle.read(limits.max_bytes + 1), None
    except FileNotFoundError:
        return None, "no such file"
    except IsADirectoryError:
        return None, "is a directory, not a file"
    except PermissionError:
        return None, "permission denied"
    except OSError as exc:
        return None, (exc.strerror or type(exc).__name__).lower()
    except ValueError as exc:  # an embedded NUL in the path
        return None, str(exc)


def load_catalogs(
    paths: Iterable[PathLike],
    sink: Diagnostics,
    limits: Limits = DEFAULT_LIMITS,
    *,
    texts: Mapping[str, bytes] | None = None,
) -> Catalog:
    """Load the catalog files at `paths` (display paths, as given) into one Catalog,
    reporting every catalog diagnostic into `sink`. Never raises on user input.

    `texts` optionally gives the bytes of some paths (tests, editors)."""
    loader = _Loader(sink, limits)
    displays: dict[str, str] = {}
    for path in paths:
        display = os.fspath(path)
        identity = os.path.normcase(os.path.abspath(display)) if texts is None or display not in texts else display
        displays.setdefault(identity, display)
    for display in sorted(set(displays.values())):
        if texts is not None and display in texts:
            data: bytes | None = texts[display]
            reason = None
        else:
            data, reason = read_catalog_file(display, limits)
        if data is None:
            loader.input_errors.append((display, reason or "cannot be read"))
            loader.complete = False
            continue
        loader.load(display, data)
    return loader.finish()


def load_catalog_text(text: str | bytes, path: str, sink: Diagnostics, limits: Limits = DEFAULT_LIMITS) -> Catalog:
    """Load one catalog from its text (shown as `path`)."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    return load_catalogs([path], sink, limits, texts={path: data})


class _Loader:
    def __init__(self, sink: Diagnostics, limits: Limits):
        self.sink = sink
        self.limits = limits
        self.operations: list[Operation] = []
        self.documents: dict[str, SourceDocument] = {}
        self.broken: dict[str, set[str | None]] = {}
        self.complete = True
        self.input_errors: list[tuple[str, str]] = []
        # (id, version) -> (reporter, pointer of the first declaration's id)
        self.seen: dict[tuple[str, str | None], tuple[Reporter, str]] = {}
        self.seen_ids: dict[str, list[tuple[str | None, Reporter, str]]] = {}

    def finish(self) -> Catalog:
        return Catalog(
            self.operations,
            documents=self.documents,
            broken=self.broken,
            complete=self.complete,
            input_errors=self.input_errors,
        )

    # ------------------------------------------------------------ a file

    def load(self, path: str, data: bytes) -> None:
        from taskplan.source.read import CATALOG_CODES, read_document

        document = read_document(data, path, self.sink, codes=CATALOG_CODES, limits=self.limits)
        self.documents[path] = document
        if not document.ok:
            self.complete = False
            return
        reporter = Reporter(document, self.sink)
        tree = document.tree
        if not isinstance(tree, dict):
            reporter.report(
                "CATALOG_SYNTAX", "", "a catalog is a mapping with `version: 1` and `sources`",
                hint="start the file with `version: 1` and a `sources:` list",
            )
            self.complete = False
            return
        for key in tree:  # unknown top-level fields are reported; the sources still load
            if key not in ("version", "sources"):
                _unknown_field(reporter, "", key, ("version", "sources"))
        if "version" not in tree:
            reporter.report("CATALOG_SYNTAX", "", "the catalog has no `version`", hint="add `version: 1`")
            self.complete = False
            return
        version = tree["version"]
        if version != 1 or isinstance(version, bool):
            reporter.report(
                "CATALOG_SYNTAX", "/version", f"catalog version must be 1, not {_show(version)}",
                hint="this compiler reads catalog format version 1",
            )
            self.complete = False
            return
        sources = tree.get("sources", [])
        if not isinstance(sources, list):
            reporter.report("CATALOG_SYNTAX", "/sources", f"`sources` must be a list, not {_kind(sources)}")
            self.complete = False
            return
        for i, source in enumerate(sources):
            self._source(reporter, f"/sources/{i}", source)

    def _source(self, reporter: Reporter, pointer: str, raw: Any) -> None:
        from pydantic import ValidationError

        from taskplan.model.catalog import SourceSpec

        if not isinstance(raw, dict):
            reporter.report("CATALOG_SYNTAX", pointer, f"a source must be a mapping, not {_kind(raw)}")
            self.complete = False
            return
        operations = raw.get("operations", [])
        head = {k: v for k, v in raw.items() if k != "operations"}
        try:
            spec = SourceSpec.model_validate(head)
        except ValidationError as exc:
            _report_model_errors(reporter, pointer, head, exc, SourceSpec)
            spec = None
        if not isinstance(operations, list):
            reporter.report(
                "CATALOG_SYNTAX", pointer + "/operations", f"`operations` must be a list, not {_kind(operations)}"
            )
            self.complete = False
            return
        if spec is None:
            # the source's own fields are wrong: its operations are not loaded, but
            # remembered as broken so that plans calling them get no cascade
            for op in operations:
                self._mark_broken(op)
            if not any(isinstance(op, dict) and isinstance(op.get("id"), str) for op in operations):
                self.complete = self.complete and not operations
            return
        for j, op in enumerate(operations):
            self._operation(reporter, f"{pointer}/operations/{j}", op, spec.id)

    def _mark_broken(self, raw: Any) -> None:
        op_id = raw.get("id") if isinstance(raw, dict) else None
        if not isinstance(op_id, str) or not _ID_RE.match(op_id):
            self.complete = False
            return
        version = raw.get("version")
        if version is None:
            v: str | None = None
        elif isinstance(version, str):
            v = version
        elif isinstance(version, int) and not isinstance(version, bool):
            v = str(version)
        else:
            v = UNKNOWN_VERSION
        self.broken.setdefault(op_id, set()).add(v)

    # ------------------------------------------------------------ an operation

    def _operation(self, reporter: Reporter, pointer: str, raw: Any, source: str) -> None:
        from pydantic import ValidationError

        from taskplan.model.catalog import OperationSpec

        if not isinstance(raw, dict):
            reporter.report("CATALOG_SYNTAX", pointer, f"an operation must be a mapping, not {_kind(raw)}")
            self.complete = False
            return
        normalised = dict(raw)
        if isinstance(normalised.get("executor"), str):
            normalised["executor"] = {"type": normalised["executor"]}
        output = normalised.pop("output", None)
        errors = False
        try:
            spec = OperationSpec.model_validate(normalised)
        except ValidationError as exc:
            _report_model_errors(reporter, pointer, normalised, exc, OperationSpec)
            spec = None
            errors = True
        if output is not None and not isinstance(output, (dict, bool)):
            reporter.report(
                "CATALOG_SYNTAX", pointer + "/output",
                f"`output` must be a JSON Schema (a mapping), not {_kind(output)}",
                hint="leave `output` out for an opaque result",
            )
            errors = True
        version: str | None = None
        if spec is not None and spec.version is not None:
            version = str(spec.version)
            if not _VERSION_RE.match(version):
                reporter.report(
                    "CATALOG_SYNTAX", pointer + "/version",
                    f"{_show(spec.version)} is not a valid version",
                    hint="a version is 1-64 letters, digits, `.`, `_`, `+` or `-`, starting with a letter or digit",
                )
                errors = True
        if spec is not None and not self._check_executor_type(reporter, pointer, raw, spec.executor.type):
            errors = True
        if spec is None or errors:
            self._mark_broken(raw)
            return

        # the schemas and the declarations that refer to them
        input_schema = spec.input
        ok = self._check_schema(reporter, pointer + "/input", input_schema, input_=True)
        if output is not None:
            ok = self._check_schema(reporter, pointer + "/output", output, input_=False) and ok
        from taskplan.catalog.jsonschema_types import shallow_type

        file = reporter.document.path
        input_type = shallow_type(input_schema, file, pointer + "/input") if ok else None
        output_type = shallow_type(output, file, pointer + "/output") if (ok and output is not None) else None
        if ok and input_type is not None:
            ok = self._check_declarations(reporter, pointer, spec, input_type, output_type, output)
            ok = self._check_reserved_names(reporter, pointer, spec, input_type) and ok
        if not ok or input_type is None:
            self._mark_broken(raw)
            self._duplicate(reporter, pointer, spec.id, version, keep=False)
            return
        if not self._duplicate(reporter, pointer, spec.id, version, keep=True):
            return
        executor = spec.executor
        self.operations.append(
            Operation(
                id=spec.id,
                version=version,
                source=source,
                title=spec.title,
                description=spec.description,
                executor=executor.type,
                executor_config=dict(executor.config),
                input_schema=input_schema,
                output_schema=output,
                fixed=dict(spec.fixed),
                produces={a.port: a.kind for a in spec.artifacts.produces},
                consumes={a.port: a.kind for a in spec.artifacts.consumes},
                effect=spec.effect,
                file=file,
                pointer=pointer,
                shallow_input=input_type,
                shallow_output=output_type,
            )
        )

    def _check_executor_type(self, reporter: Reporter, pointer: str, raw: Mapping[str, Any], type_: str) -> bool:
        """The executor type becomes the type of the call's workflow step, so it must be
        what the dialect reads as a catalog executor (`dialect.step_kind`): a built-in
        step type, or a type in a built-in namespace, is CATALOG_NAME_RESERVED; any other
        type outside the executor-type syntax is CATALOG_SYNTAX. At the bare string or
        at `type`. True when the type is an executor type."""
        kind = dialect.step_kind(type_)
        if kind == dialect.EXECUTOR:
            return True
        at = pointer + "/executor" + ("" if isinstance(raw.get("executor"), str) else "/type")
        hint = (
            "an executor type is neither a built-in step type nor in a built-in namespace ("
            + ", ".join(f"`{n}.`" for n in dialect.RESERVED_NAMESPACES)
            + "): name the executor as its host does, e.g. `mcp.call`"
        )
        if kind is not None:
            reporter.report(
                "CATALOG_NAME_RESERVED", at,
                f"executor type `{type_}` is a built-in workflow step type, not a catalog executor", hint=hint,
            )
        elif dialect.RESERVED_TYPE_RE.match(type_):
            namespace = type_.split(".", 1)[0]
            reporter.report(
                "CATALOG_NAME_RESERVED", at,
                f"executor type `{type_}` is in the built-in namespace `{namespace}.`: "
                "the workflow dialect reads it as an unknown built-in step type", hint=hint,
            )
        else:
            lower = type_.lower()
            reporter.report(
                "CATALOG_SYNTAX", at, f"{_show(type_)} is not a valid executor type",
                hint=(f"did you mean `{lower}`? " if dialect.step_kind(lower) == dialect.EXECUTOR else "")
                + "an executor type is two or more dot-separated lower-case segments "
                "(letters, digits, `_`; the first starts with a letter), e.g. `http.call`",
            )
        return False

    def _check_schema(self, reporter: Reporter, pointer: str, schema: Any, *, input_: bool) -> bool:
        problems = check_schema_at(reporter, pointer, schema, input_=input_, limits=self.limits)
        return not problems

    def _check_declarations(
        self,
        reporter: Reporter,
        pointer: str,
        spec: Any,
        input_type: BType,
        output_type: BType | None,
        output: Any,
    ) -> bool:
        from taskplan.catalog.jsonschema_types import property_pointer
        from taskplan.catalog.schemas import validate_instance

        ok = True
        code = "CATALOG_OPERATION_INVALID"
        ports = [f.name for f in input_type.fields]
        for name, value in spec.fixed.items():
            fp = jp.join(pointer, "fixed", name)
            port = input_type.get_field(name)
            if port is None:
                reporter.report(
                    code, fp, f"fixed input `{name}` is not a port of the input schema", key=True,
                    hint=_did_you_mean(name, ports) or "declare it under `input.properties`",
                )
                ok = False
                continue
            sub = _property_schema(spec.input, name)
            if sub is not None:
                problems = validate_instance({**_defs_of(spec.input), **sub} if isinstance(sub, dict) else sub, value)
                if problems:
                    where, message = problems[0]
                    reporter.report(
                        code, fp + where, f"fixed value of `{name}` does not fit its port: {message}",
                        related=[reporter.related(
                            property_pointer(spec.input, pointer + "/input", name), "the port is declared here"
                        )],
                    )
                    ok = False
        for i, art in enumerate(spec.artifacts.produces):
            ap = f"{pointer}/artifacts/produces/{i}/port"
            if output_type is None or output_type.get_field(art.port) is None:
                outs = [f.name for f in output_type.fields] if output_type is not None else []
                reporter.report(
                    code, ap,
                    f"artifact port `{art.port}` is not a port of the output schema"
                    + ("" if output is not None else " (the operation has no output schema)"),
                    hint=_did_you_mean(art.port, outs) or "a produced artifact is an output property",
                )
                ok = False
        for i, art in enumerate(spec.artifacts.consumes):
            ap = f"{pointer}/artifacts/consumes/{i}/port"
            if input_type.get_field(art.port) is None:
                reporter.report(
                    code, ap, f"artifact port `{art.port}` is not a port of the input schema",
                    hint=_did_you_mean(art.port, ports) or "a consumed artifact is an input property",
                )
                ok = False
            elif art.port in spec.fixed:
                reporter.report(
                    code, ap, f"artifact port `{art.port}` is fixed by the catalog, so no plan can bind it",
                    related=[reporter.related(jp.join(pointer, "fixed", art.port), "fixed here", key=True)],
                )
                ok = False
        for listed in ("produces", "consumes"):
            seen: dict[str, int] = {}
            for i, art in enumerate(getattr(spec.artifacts, listed)):
                if art.port in seen:
                    reporter.report(
                        code, f"{pointer}/artifacts/{listed}/{i}/port",
                        f"port `{art.port}` is listed twice under `{listed}`",
                        related=[reporter.related(f"{pointer}/artifacts/{listed}/{seen[art.port]}/port", "first listed here")],
                    )
                    ok = False
                else:
                    seen[art.port] = i
        return ok

    def _check_reserved_names(self, reporter: Reporter, pointer: str, spec: Any, input_type: BType) -> bool:
        """CATALOG_NAME_RESERVED: names the workflow step of a call cannot carry. The
        step's `input` holds the executor's configuration and `request`, the request
        envelope whose members are the input ports; in a workflow data tree a key
        starting with `$` is reserved (`{$literal: ...}` marks data never evaluated),
        so a port named so could not carry a value read at run time (and `$literal`
        would turn it into text), and a configuration key `request` would be replaced
        by the envelope."""
        ok = True
        for name in spec.executor.config:
            if name == REQUEST:
                why = "the compiler puts the request envelope there"
            elif name.startswith(RESERVED_KEY_PREFIX):
                why = "keys starting with `$` are reserved in workflow data"
            else:
                continue
            reporter.report(
                "CATALOG_NAME_RESERVED", jp.join(pointer, "executor", "config", name),
                f"executor configuration key `{name}` cannot be emitted: {why}", key=True,
                hint="rename the key in the executor's configuration (and in the executor that reads it)",
            )
            ok = False
        return report_reserved_ports(reporter, spec.input, pointer + "/input", input_type) and ok

    def _duplicate(self, reporter: Reporter, pointer: str, op_id: str, version: str | None, *, keep: bool) -> bool:
        """Register a declaration; report it when it clashes with an earlier one. True
        when it is the first (and should be kept)."""
        id_pointer = pointer + "/id"
        key = (op_id, version)
        first = self.seen.get(key)
        ref = f"{op_id}@{version}" if version is not None else op_id
        if first is not None:
            first_reporter, first_pointer = first
            reporter.report(
                "CATALOG_DUPLICATE_OPERATION", id_pointer,
                f"operation `{ref}` is declared twice",
                related=[first_reporter.related(first_pointer, "first declared here")],
                hint="give each declaration its own ID, or a distinct `version`",
            )
            return False
        others = self.seen_ids.get(op_id, [])
        clash = next(((v, r, p) for v, r, p in others if (v is None) != (version is None)), None)
        if clash is not None:
            other_version, first_reporter, first_pointer = clash
            if version is None:
                message = f"operation `{op_id}` is declared without a version, but also as `{op_id}@{other_version}`"
            else:
                message = f"operation `{op_id}@{version}` is declared, but `{op_id}` is also declared without a version"
            reporter.report(
                "CATALOG_DUPLICATE_OPERATION", id_pointer, message,
                related=[first_reporter.related(first_pointer, "the other declaration")],
                hint="when an ID has several declarations, give each a distinct `version`",
            )
            self.broken.setdefault(op_id, set()).add(version)
            return False
        self.seen[key] = (reporter, id_pointer)
        self.seen_ids.setdefault(op_id, []).append((version, reporter, id_pointer))
        return keep


def report_reserved_ports(reporter: Reporter, schema: Any, pointer: str, input_type: BType) -> bool:
    """CATALOG_NAME_RESERVED for each input port of `schema` (written at `pointer`, its
    shallow type `input_type`) whose name starts with `$`, at the property's name (see
    `_Loader._check_reserved_names`; the MCP importer reports the same). True when none."""
    from taskplan.catalog.jsonschema_types import property_pointer

    ok = True
    for f in input_type.fields:
        if f.name.startswith(RESERVED_KEY_PREFIX):
            reporter.report(
                "CATALOG_NAME_RESERVED", property_pointer(schema, pointer, f.name),
                f"input port `{f.name}` cannot be carried in a workflow request: "
                "keys starting with `$` are reserved in workflow data",
                key=True,
                hint="rename the property in the input schema (the tool's adapter maps it back)",
            )
            ok = False
    return ok


def check_schema_at(
    reporter: Reporter, pointer: str, schema: Any, *, input_: bool, limits: Limits = DEFAULT_LIMITS
) -> bool:
    """Check one embedded schema written at `pointer`; report CATALOG_SCHEMA_INVALID for
    each problem. Returns True when there were problems."""
    from taskplan.catalog.schemas import check_schema, is_object_schema

    problems = check_schema(schema, limits.max_schema_depth)
    for problem in problems:
        reporter.report("CATALOG_SCHEMA_INVALID", pointer + problem.pointer, problem.message, hint=problem.hint)
    if problems:
        return True
    if input_ and not is_object_schema(schema):
        at = pointer + "/type" if isinstance(schema, dict) and "type" in schema else pointer
        reporter.report(
            "CATALOG_SCHEMA_INVALID", at,
            "an input schema must be an object schema (`type: object`): its properties are the input ports",
            hint="wrap the value in an object property, e.g. `{type: object, properties: {value: ...}}`",
        )
        return True
    return False


# ------------------------------------------------------------------- helpers


def _property_schema(schema: Any, name: str) -> Any:
    from taskplan.catalog.jsonschema_types import resolve_ref

    node = schema
    for _ in range(64):
        props = node.get("properties") if isinstance(node, dict) else None
        if isinstance(props, dict) and name in props:
            return props[name]  # declared here, beside any `$ref` (2019-09 and later read both)
        if isinstance(node, dict) and isinstance(node.get("$ref"), str):
            target = resolve_ref(schema, node["$ref"])
            if target is None:
                return None
            node = target[0]
            continue
        break
    props = node.get("properties") if isinstance(node, dict) else None
    return props.get(name) if isinstance(props, dict) else None


def _defs_of(schema: Any) -> dict[str, Any]:
    """The keys a subschema needs to resolve the root's local references and keep its draft."""
    if not isinstance(schema, dict):
        return {}
    return {k: schema[k] for k in ("$schema", "$defs", "definitions") if k in schema}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def _show(value: Any) -> str:
    import json

    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 40 else text[:37] + "..."


def _did_you_mean(name: str, known: Sequence[str]) -> str | None:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"did you mean `{close[0]}`?" if close else None


def _unknown_field(reporter: Reporter, pointer: str, key: str, known: Sequence[str]) -> None:
    reporter.report(
        "CATALOG_SYNTAX", jp.join(pointer, key), f"unknown field `{key}`", key=True,
        hint=_did_you_mean(key, known) or f"known fields: {', '.join(known)}",
    )


_EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "bool_type": "a boolean",
    "dict_type": "a mapping",
    "list_type": "a list",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "float_type": "a number",
}


def _report_model_errors(reporter: Reporter, base: str, raw: Any, exc: Any, model: Any) -> None:
    """Report a pydantic ValidationError as CATALOG_SYNTAX diagnostics at exact pointers:
    one per place, in the error order (deterministic)."""
    seen: set[str] = set()
    for error in exc.errors(include_url=False):
        loc = list(error.get("loc", ()))
        etype = error.get("type", "")
        node = raw
        tokens: list[str | int] = []
        owner_model = model
        for token in loc:
            if isinstance(node, dict) and isinstance(token, str) and token in node:
                node = node[token]
                tokens.append(token)
            elif isinstance(node, list) and isinstance(token, int) and 0 <= token < len(node):
                node = node[token]
                tokens.append(token)
            elif etype in ("missing", "extra_forbidden") and token is loc[-1]:
                tokens.append(token)
            # else: a union member's tag, not a place in the document
        pointer = base + jp.from_path(tokens)
        if pointer in seen:
            continue
        seen.add(pointer)
        name = str(tokens[-1]) if tokens else ""
        if etype == "extra_forbidden":
            parent_raw = _walk(raw, tokens[:-1])
            known = _known_fields(owner_model, tokens[:-1])
            reporter.report(
                "CATALOG_SYNTAX", pointer, f"unknown field `{name}`", key=True,
                hint=(_did_you_mean(name, known) or (f"known fields: {', '.join(known)}" if known else None))
                if isinstance(parent_raw, dict) else None,
            )
        elif etype == "missing":
            reporter.report("CATALOG_SYNTAX", pointer, f"missing required field `{name}`")
        elif etype == "string_pattern_mismatch" and name == "version":
            reporter.report(
                "CATALOG_SYNTAX", pointer, f"{_show(node)} is not a valid version",
                hint="a version is 1-64 letters, digits, `.`, `_`, `+` or `-`, starting with a letter or digit",
            )
        elif etype == "string_pattern_mismatch":
            what = "source ID" if (len(tokens) == 1 and model.__name__ == "SourceSpec") else "operation ID"
            reporter.report(
                "CATALOG_SYNTAX", pointer, f"{_show(node)} is not a valid {what}",
                hint="an ID is 1-128 letters, digits, `_`, `.`, `:`, `/` or `-`, starting with a letter or digit",
            )
        elif etype == "literal_error":
            expected = error.get("ctx", {}).get("expected", "")
            reporter.report("CATALOG_SYNTAX", pointer, f"`{name}` must be {expected}, not {_show(node)}")
        elif etype == "string_too_short":
            reporter.report("CATALOG_SYNTAX", pointer, f"`{name}` must not be empty")
        elif etype in _EXPECTED:
            reporter.report("CATALOG_SYNTAX", pointer, f"`{name}` must be {_EXPECTED[etype]}, not {_kind(node)}")
        else:
            reporter.report("CATALOG_SYNTAX", pointer, f"`{name}`: {error.get('msg', 'invalid value')}")


def _walk(raw: Any, tokens: Sequence[str | int]) -> Any:
    node = raw
    for t in tokens:
        try:
            node = node[t]
        except (KeyError, IndexError, TypeError):
            return None
    return node


def _known_fields(model: Any, tokens: Sequence[str | int]) -> list[str]:
    """The field names of the model that the object at `tokens` (below `model`) is shaped by."""
    from taskplan.model.catalog import Artifacts, ArtifactPort, ExecutorSpec, OperationSpec, SourceSpec

    current = model
    for t in tokens:
        if isinstance(t, int):
            continue
        nested = {
            (OperationSpec, "executor"): ExecutorSpec,
            (OperationSpec, "artifacts"): Artifacts,
            (Artifacts, "produces"): ArtifactPort,
            (Artifacts, "consumes"): ArtifactPort,
            (SourceSpec, "operations"): OperationSpec,
        }.get((current, t))
        if nested is None:
            return []
        current = nested
    return list(current.model_fields)
