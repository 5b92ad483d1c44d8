"""Project configuration: `[tool.taskplan]` in the nearest pyproject.toml.

```toml
[tool.taskplan]
catalogs = ["catalogs/*.catalog.yaml", "vendor/github.catalog.yaml"]
output-dir = "workflows"
workflow-name = "{stem}.workflow.yaml"
ignore = []

[tool.taskplan.limits]
max-tasks = 10000
```

- **Where.** The search starts at a directory (the CLI passes the common parent
  directory of the plans it was given, or the current directory when it was
  given none) and walks up to the file-system root; the first pyproject.toml
  that has a `[tool.taskplan]` table is the project's configuration. A
  pyproject.toml without one is skipped (a nested package's pyproject does not
  hide the repository's); one that is not valid TOML stops the search with
  CONFIG_INVALID (it may be the one meant).
- **Keys.** The table is closed: an unknown key is CONFIG_INVALID (with a
  "did you mean"), so that a typo never silently drops a setting.
  - `catalogs`: a list of paths or glob patterns (`*`, `?`, `[..]`, `**`),
    relative to the directory of the pyproject.toml; each must match at least
    one file.
  - `output-dir`: a directory, relative to the pyproject.toml's and inside it,
    where `taskplan compile PLAN` (without `-o`) writes the workflow and where
    `taskplan gate` looks for (and with `--write` writes) the committed one.
    Created when missing; nothing is written outside it. Default: beside the plan.
  - `workflow-name`: the name of a compiled workflow, a pattern with `{stem}`,
    the plan's name without `.taskplan.yaml` (`.yml`, `.json`); it ends in
    `.yaml` or `.yml` and has no path separator. Default `{stem}.workflow.yaml`.
    `workflow_path` (and its inverse `plan_for_workflow`) below own the rule.
  - `ignore`: warning codes to silence: each a registered code (a "did you
    mean" otherwise) whose severity is not error (errors cannot be silenced).
    Silenced diagnostics are dropped from the output of check, compile,
    validate and gate, in every format.
  - `limits`: a table of `taskplan.config.Limits` fields in kebab-case
    (`max-tasks`, `max-bytes`, `max-workflow-bytes`, ...), positive integers;
    the Limits the API is run with.
- **Flags win.** `--catalog` given on the command line replaces the configured
  catalogs (they are not merged); `-o` replaces `output-dir`; `--ignore CODE`
  adds to `ignore`. The configuration is still read and checked, because its
  other settings still apply.

Every problem is a CONFIG_INVALID diagnostic located in the pyproject.toml
(line and column of the key, of the list item or of the limit; TOML syntax
errors at the parser's position).
"""

from __future__ import annotations

import dataclasses
import glob
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskplan.config import DEFAULT_LIMITS, Limits
from taskplan.diagnostics import Diagnostic, Diagnostics, Location, Severity

PYPROJECT = "pyproject.toml"
TABLE = ("tool", "taskplan")
KNOWN_KEYS = ("catalogs", "output-dir", "workflow-name", "ignore", "limits")
CODE = "CONFIG_INVALID"

PLAN_SUFFIXES = (".taskplan.yaml", ".taskplan.yml", ".taskplan.json")
"""How a plan's name ends; the rest is its stem."""
DEFAULT_WORKFLOW_NAME = "{stem}.workflow.yaml"
STEM = "{stem}"

LIMIT_KEYS = {f.name.replace("_", "-"): f.name for f in dataclasses.fields(Limits)}
"""`limits` keys (kebab-case) -> Limits fields."""


@dataclass(slots=True)
class ProjectConfig:
    """The `[tool.taskplan]` settings of one project (defaults when there is none)."""

    path: Path | None = None
    """The pyproject.toml the settings come from; None when no project configures taskplan."""
    catalogs: list[Path] = field(default_factory=list)
    """Catalog files, patterns expanded, in the order written (each pattern's matches sorted)."""
    output_dir: Path | None = None
    """Where compiled workflows go (absolute); None: beside their plans."""
    workflow_name: str = DEFAULT_WORKFLOW_NAME
    """The name of a compiled workflow: a pattern with `{stem}`."""
    ignore: list[str] = field(default_factory=list)
    """Warning codes to silence (registered, not errors), in the order written."""
    limits: Limits = DEFAULT_LIMITS
    """The limits to run with: the defaults, with the configured ones in place."""

    @property
    def root(self) -> Path | None:
        return self.path.parent if self.path is not None else None

    def catalog_paths(self, cli_paths: Iterable[str | os.PathLike[str]] = ()) -> list[Path]:
        """`cli_paths` when any were given (flags win), else the configured catalogs
        (shown relative to the current directory when below it, else absolute)."""
        given = [Path(os.fspath(p)) for p in cli_paths]
        if given:
            return given
        return [_display(p) for p in self.catalogs]

    def output_directory(self) -> str | None:
        """`output-dir` as shown and written to (relative to the current directory when
        below it, else absolute), or None when compiled workflows go beside their plans."""
        return os.fspath(_display(self.output_dir)) if self.output_dir is not None else None

    def silenced(self, cli_codes: Iterable[str] = ()) -> frozenset[str]:
        """The codes to drop from the output: the configured ones and `cli_codes` (flags add)."""
        return frozenset(self.ignore) | frozenset(cli_codes)


class ProjectConfigError(Exception):
    """The configuration is invalid (raised only when no sink was given to collect the
    diagnostics, which it carries)."""

    def __init__(self, diagnostics: list[Diagnostic]):
        super().__init__("; ".join(d.message for d in diagnostics) or "invalid configuration")
        self.diagnostics = diagnostics


def find_pyproject(start_dir: str | os.PathLike[str]) -> Path | None:
    """The nearest pyproject.toml at or above `start_dir` that has `[tool.taskplan]`,
    or the nearest one that cannot be parsed (so that its error is reported)."""
    import tomllib

    current = Path(os.path.abspath(start_dir))
    if current.is_file():
        current = current.parent
    for directory in (current, *current.parents):
        candidate = directory / PYPROJECT
        if not candidate.is_file():
            continue
        try:
            data = tomllib.loads(candidate.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            return candidate
        tool = data.get("tool")
        if isinstance(tool, dict) and "taskplan" in tool:
            return candidate
    return None


def config_start_dir(plan_paths: Sequence[str | os.PathLike[str]]) -> Path:
    """Where to look for the configuration: the common parent directory of the plans
    given (so that `taskplan check ~/repo/plans/x.yaml` uses ~/repo's settings from
    anywhere), or the current directory when none was given."""
    dirs = [os.path.dirname(os.path.abspath(p)) for p in plan_paths]
    if not dirs:
        return Path.cwd()
    try:
        return Path(os.path.commonpath(dirs))
    except ValueError:  # different drives
        return Path(dirs[0])


def load_project_config(
    start_dir: str | os.PathLike[str], sink: Diagnostics | None = None
) -> ProjectConfig:
    """Read `[tool.taskplan]` of the nearest pyproject.toml (see the module docstring).
    Problems go to `sink`; without a sink they raise ProjectConfigError."""
    own = Diagnostics() if sink is None else sink
    before = len(own)
    path = find_pyproject(start_dir)
    config = ProjectConfig()
    if path is not None:
        config = _read(path, own)
    if sink is None and len(own) > before:
        raise ProjectConfigError(own.sorted())
    return config


def resolve_catalog_paths(
    cli_paths: Iterable[str | os.PathLike[str]],
    start_dir: str | os.PathLike[str],
    sink: Diagnostics | None = None,
) -> list[Path]:
    """The catalog files to load: `cli_paths` when any were given (flags win), else the
    `catalogs` of the nearest `[tool.taskplan]` from `start_dir` upward (empty when
    none). The configuration is read and checked either way: CONFIG_INVALID goes to
    `sink` (then the configured catalogs are not used), or raises ProjectConfigError
    when no sink is given. Configured paths are shown relative to the current
    directory when they lie below it, else absolute."""
    return load_project_config(start_dir, sink).catalog_paths(cli_paths)


def _display(path: Path) -> Path:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return Path(relative) if not relative.startswith("..") else path


# ------------------------------------------------------------------ naming rule


def plan_stem(plan: str | os.PathLike[str]) -> str:
    """The plan's name without `.taskplan.yaml` (`.yml`, `.json`); for any other name,
    without its extension."""
    name = os.path.basename(os.fspath(plan))
    for suffix in PLAN_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return os.path.splitext(name)[0] or name


def is_plan_name(path: str | os.PathLike[str]) -> bool:
    return os.path.basename(os.fspath(path)).endswith(PLAN_SUFFIXES)


def workflow_path(plan: str | os.PathLike[str], config: ProjectConfig | None = None) -> str:
    """The compiled workflow of `plan`, the one naming rule (compile, gate, pre-commit):
    `workflow-name` with the plan's stem (default `<stem>.workflow.yaml`), in
    `output-dir` when configured, else beside the plan."""
    name = (config.workflow_name if config is not None else DEFAULT_WORKFLOW_NAME).replace(STEM, plan_stem(plan))
    directory = config.output_directory() if config is not None else None
    if directory is None:
        directory = os.path.dirname(os.fspath(plan))
    return os.path.join(directory, name)


def _workflow_stem(name: str, pattern: str) -> str | None:
    """The stem a workflow named `name` was compiled from under `pattern` (either of
    `.yaml` and `.yml` accepted), or None when the name does not follow the pattern."""
    prefix, _, suffix = pattern.partition(STEM)
    variants = {suffix}
    for a, b in ((".yaml", ".yml"), (".yml", ".yaml")):
        if suffix.endswith(a):
            variants.add(suffix[: -len(a)] + b)
    for end in sorted(variants):
        if name.startswith(prefix) and name.endswith(end) and len(name) > len(prefix) + len(end):
            return name[len(prefix) : len(name) - len(end)]
    return None


def is_workflow(path: str | os.PathLike[str], config: ProjectConfig | None = None) -> bool:
    """Whether `path` is named as a compiled workflow (a plan's name never is)."""
    name = os.path.basename(os.fspath(path))
    pattern = config.workflow_name if config is not None else DEFAULT_WORKFLOW_NAME
    return not is_plan_name(name) and _workflow_stem(name, pattern) is not None


def plan_for_workflow(workflow: str | os.PathLike[str], config: ProjectConfig | None = None) -> str | None:
    """The plan a compiled workflow comes from, or None for a workflow written by hand:
    the first of `<stem>.taskplan.yaml`, `.yml`, `.json` beside it; for a workflow in
    `output-dir`, the plan it records (`source.plan`, relative to the project or the
    current directory) when that plan compiles to this very file."""
    path = os.fspath(workflow)
    directory, name = os.path.split(path)
    pattern = config.workflow_name if config is not None else DEFAULT_WORKFLOW_NAME
    stem = None if is_plan_name(name) else _workflow_stem(name, pattern)
    if stem is None:
        return None
    for suffix in PLAN_SUFFIXES:
        candidate = os.path.join(directory, stem + suffix)
        if os.path.isfile(candidate):
            return candidate
    if config is None or config.output_dir is None:
        return None
    if os.path.abspath(directory or ".") != os.path.abspath(config.output_dir):
        return None
    recorded = _recorded_plan(path)
    if recorded is None:
        return None
    bases = [Path(recorded)] if os.path.isabs(recorded) else [Path(recorded)] + (
        [config.root / recorded] if config.root is not None else []
    )
    for candidate in bases:
        if candidate.is_file() and plan_stem(candidate) == stem:
            shown = os.fspath(_display(Path(os.path.abspath(candidate))))
            if os.path.abspath(workflow_path(shown, config)) == os.path.abspath(path):
                return shown
    return None


_SOURCE_PLAN = re.compile(r"^source:[ \t]*\n(?:[ ]+.*\n)*?[ ]+plan:[ ]*(.+?)[ \t]*$", re.M)


def _recorded_plan(workflow: str) -> str | None:
    """`source.plan` of a compiled workflow, read from its head without parsing the
    whole file (it comes before the workflows), or None."""
    from taskplan.source.read import nonblocking_opener

    try:
        with open(workflow, encoding="utf-8", errors="replace", opener=nonblocking_opener) as handle:
            head = handle.read(64 * 1024)
    except (OSError, ValueError):
        return None
    match = _SOURCE_PLAN.search(head)
    if match is None:
        return None
    value = match.group(1)
    if value[:1] in "'\"":
        try:
            from ruamel.yaml import YAML

            value = YAML(typ="safe", pure=True).load(value)
        except Exception:  # noqa: BLE001 - a broken record is no record
            return None
    return value if isinstance(value, str) and value else None


# ------------------------------------------------------------------- silencing


def ignore_problem(code: str) -> tuple[str, str | None] | None:
    """Why `code` cannot be silenced (message, hint), or None when it can: it must be a
    registered code whose severity is not error."""
    from taskplan.diagnostics.registry import REGISTRY

    info = REGISTRY.get(code)
    if info is None:
        import difflib

        close = difflib.get_close_matches(code.upper(), list(REGISTRY), n=1, cutoff=0.6)
        hint = f"did you mean `{close[0]}`?" if close else "`taskplan explain --list` lists the codes"
        return f"unknown diagnostic code `{code}`", hint
    if info.severity is Severity.ERROR:
        return (
            f"`{code}` is an error: errors cannot be silenced",
            "only warnings can be ignored; fix the error instead",
        )
    return None


def silence(diagnostics: Iterable[Diagnostic], codes: Iterable[str]) -> list[Diagnostic]:
    """`diagnostics` without the silenced ones: those whose code is in `codes`, never an
    error (whatever its code)."""
    drop = frozenset(codes)
    if not drop:
        return list(diagnostics)
    return [d for d in diagnostics if d.severity is Severity.ERROR or d.code not in drop]


# ----------------------------------------------------------------------- reading


def _read(path: Path, sink: Diagnostics) -> ProjectConfig:
    import tomllib

    display = _display(path).as_posix()
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        _report(sink, display, "", Location(display, "", 1, 1, 1, 2), f"pyproject.toml is not UTF-8: {exc.reason}")
        return ProjectConfig(path)
    except OSError as exc:
        _report(sink, display, "", Location(display, "", 1, 1, 1, 2),
                f"cannot read pyproject.toml: {(exc.strerror or type(exc).__name__).lower()}")
        return ProjectConfig(path)
    locator = _Locator(text, display)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line, column = _toml_position(str(exc), text)
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)\s*$", "", str(exc))
        _report(sink, display, "", Location(display, "", line, column, line, column + 1),
                f"pyproject.toml is not valid TOML: {message}")
        return ProjectConfig(path)
    table = data.get("tool", {}).get("taskplan") if isinstance(data.get("tool"), dict) else None
    config = ProjectConfig(path)
    if table is None:
        return config
    base = "/tool/taskplan"
    if not isinstance(table, dict):
        _report(sink, display, base, locator.locate(base), "`tool.taskplan` must be a table")
        return config
    for key in table:
        if key not in KNOWN_KEYS:
            import difflib

            close = difflib.get_close_matches(key, KNOWN_KEYS, n=1, cutoff=0.6)
            _report(
                sink, display, f"{base}/{key}", locator.locate(f"{base}/{key}"),
                f"unknown setting `{key}` in [tool.taskplan]",
                hint=f"did you mean `{close[0]}`?" if close else f"known settings: {', '.join(KNOWN_KEYS)}",
            )
    if "catalogs" in table:
        config.catalogs = _catalogs(table["catalogs"], path.parent, sink, display, locator)
    if "output-dir" in table:
        config.output_dir = _output_dir(table["output-dir"], path.parent, sink, display, locator)
    if "workflow-name" in table:
        config.workflow_name = _workflow_name(table["workflow-name"], sink, display, locator)
    if "ignore" in table:
        config.ignore = _ignore(table["ignore"], sink, display, locator)
    if "limits" in table:
        config.limits = _limits(table["limits"], sink, display, locator)
    return config


def _catalogs(value: Any, root: Path, sink: Diagnostics, display: str, locator: "_Locator") -> list[Path]:
    pointer = "/tool/taskplan/catalogs"
    if isinstance(value, str):
        _report(sink, display, pointer, locator.locate(pointer), "`catalogs` must be a list of paths, not a string",
                hint=f'write catalogs = ["{value}"]')
        return []
    if not isinstance(value, list):
        _report(sink, display, pointer, locator.locate(pointer), "`catalogs` must be a list of paths")
        return []
    out: list[Path] = []
    seen: set[Path] = set()
    ok = True
    for i, entry in enumerate(value):
        item = f"{pointer}/{i}"
        if not isinstance(entry, str) or not entry.strip():
            _report(sink, display, item, locator.locate(item), "each entry of `catalogs` must be a non-empty path")
            ok = False
            continue
        matches = _expand(root, entry)
        if not matches:
            what = "pattern matches no file" if glob.has_magic(entry) else "file does not exist"
            _report(sink, display, item, locator.locate(item), f"catalog {entry!r}: {what}",
                    hint=f"paths in [tool.taskplan] are relative to {display}")
            ok = False
            continue
        for match in matches:
            if match not in seen:
                seen.add(match)
                out.append(match)
    return out if ok else []


def _output_dir(value: Any, root: Path, sink: Diagnostics, display: str, locator: "_Locator") -> Path | None:
    pointer = "/tool/taskplan/output-dir"
    where = locator.locate(pointer)
    if not isinstance(value, str) or not value.strip():
        _report(sink, display, pointer, where, "`output-dir` must be a non-empty path (a string)",
                hint='for example output-dir = "workflows"')
        return None
    if "\0" in value:
        _report(sink, display, pointer, where, "`output-dir` must not contain a NUL character")
        return None
    relative = os.path.normpath(value.replace("\\", "/"))
    if os.path.isabs(value) or os.path.isabs(relative) or relative == ".." or relative.startswith(".." + os.sep) \
            or relative.startswith("../"):
        _report(sink, display, pointer, where, f"`output-dir` {value!r} leads out of the project",
                hint=f"it is relative to {display} and must stay below its directory")
        return None
    directory = Path(os.path.normpath(os.path.join(root, relative)))
    if os.path.lexists(directory) and not directory.is_dir():
        _report(sink, display, pointer, where, f"`output-dir` {value!r} exists and is not a directory")
        return None
    return directory


_PLACEHOLDER = re.compile(r"\{[^{}]*\}|[{}]")


def _workflow_name(value: Any, sink: Diagnostics, display: str, locator: "_Locator") -> str:
    pointer = "/tool/taskplan/workflow-name"
    where = locator.locate(pointer)
    problem = None
    hint = f'for example workflow-name = "{DEFAULT_WORKFLOW_NAME}"'
    if not isinstance(value, str) or not value:
        problem = "`workflow-name` must be a file-name pattern (a string) with `{stem}`"
    elif "/" in value or "\\" in value or "\0" in value:
        problem = f"`workflow-name` {value!r} must be a file name, without a path separator"
        hint = "put the directory in `output-dir`"
    elif STEM not in value:
        problem = f"`workflow-name` {value!r} must contain `{{stem}}` (the plan's name without .taskplan.yaml)"
    elif any(m.group(0) != STEM for m in _PLACEHOLDER.finditer(value)):
        other = next(m.group(0) for m in _PLACEHOLDER.finditer(value) if m.group(0) != STEM)
        problem = f"`workflow-name` {value!r} has `{other}`: the only placeholder is `{{stem}}`"
    elif not value.endswith((".yaml", ".yml")):
        problem = f"`workflow-name` {value!r} must end in .yaml or .yml (a workflow is YAML)"
    elif value.endswith(PLAN_SUFFIXES):
        problem = f"`workflow-name` {value!r} names a plan, not a workflow"
        hint = "a compiled workflow must never take a plan's name (it would overwrite the plan)"
    if problem is None:
        return value
    _report(sink, display, pointer, where, problem, hint=hint)
    return DEFAULT_WORKFLOW_NAME


def _ignore(value: Any, sink: Diagnostics, display: str, locator: "_Locator") -> list[str]:
    pointer = "/tool/taskplan/ignore"
    if isinstance(value, str):
        _report(sink, display, pointer, locator.locate(pointer), "`ignore` must be a list of codes, not a string",
                hint=f'write ignore = ["{value}"]')
        return []
    if not isinstance(value, list):
        _report(sink, display, pointer, locator.locate(pointer), "`ignore` must be a list of diagnostic codes")
        return []
    out: list[str] = []
    for i, entry in enumerate(value):
        item = f"{pointer}/{i}"
        if not isinstance(entry, str) or not entry:
            _report(sink, display, item, locator.locate(item), "each entry of `ignore` must be a diagnostic code (a string)")
            continue
        problem = ignore_problem(entry)
        if problem is not None:
            _report(sink, display, item, locator.locate(item), problem[0], hint=problem[1])
            continue
        if entry not in out:
            out.append(entry)
    return out


def _limit_maximum(key: str) -> int | None:
    """The largest value a limit can take, when Python itself bounds it."""
    if key == "max-number-digits":
        digits = sys.get_int_max_str_digits() if hasattr(sys, "get_int_max_str_digits") else 4300
        return digits or None
    return None


def _limits(value: Any, sink: Diagnostics, display: str, locator: "_Locator") -> Limits:
    pointer = "/tool/taskplan/limits"
    if not isinstance(value, dict):
        _report(sink, display, pointer, locator.locate(pointer), "`limits` must be a table of limits",
                hint="write them under [tool.taskplan.limits], e.g. max-tasks = 10000")
        return DEFAULT_LIMITS
    import difflib

    values: dict[str, int] = {}
    for key, number in value.items():
        item = f"{pointer}/{key}"
        field_name = LIMIT_KEYS.get(key)
        if field_name is None:
            close = difflib.get_close_matches(key.replace("_", "-"), list(LIMIT_KEYS), n=1, cutoff=0.6)
            _report(sink, display, item, locator.locate(item), f"unknown limit `{key}` in [tool.taskplan.limits]",
                    hint=f"did you mean `{close[0]}`?" if close else f"known limits: {', '.join(LIMIT_KEYS)}")
            continue
        if type(number) is not int or number <= 0:
            _report(sink, display, item, locator.locate(item),
                    f"limit `{key}` must be a positive integer, not {_toml_repr(number)}")
            continue
        maximum = _limit_maximum(key)
        if maximum is not None and number > maximum:
            _report(sink, display, item, locator.locate(item),
                    f"limit `{key}` can be at most {maximum} (Python reads no longer integers)")
            continue
        values[field_name] = number
    return dataclasses.replace(DEFAULT_LIMITS, **values) if values else DEFAULT_LIMITS


def _toml_repr(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"the string {value!r}"
    if isinstance(value, (int, float)):
        return str(value)
    return {"list": "an array", "dict": "a table"}.get(type(value).__name__, type(value).__name__)


def _expand(root: Path, entry: str) -> list[Path]:
    pattern = entry if os.path.isabs(entry) else os.path.join(root, entry)
    if glob.has_magic(entry):
        found = sorted(glob.glob(pattern, recursive=True))
        return [Path(f) for f in found if os.path.isfile(f)]
    return [Path(pattern)] if os.path.isfile(pattern) else []


def _report(sink: Diagnostics, display: str, pointer: str, location: Location, message: str,
            hint: str | None = None) -> None:
    sink.add(
        Diagnostic(
            code=CODE,
            severity=Severity.ERROR,
            message=message,
            location=Location(display, pointer, location.line, location.column, location.end_line,
                              location.end_column),
            hint=hint,
        )
    )


def _toml_position(message: str, text: str) -> tuple[int, int]:
    """tomllib's position from its message: `at line L, column C`, or the end of the last
    written line for `at end of document`."""
    match = re.search(r"at line (\d+), column (\d+)", message)
    if match:
        return int(match.group(1)), int(match.group(2))
    if "end of document" in message:
        lines = text.rstrip("\n").split("\n")
        return len(lines), len(lines[-1]) + 1
    return 1, 1


class _Locator:
    """Best-effort positions of keys and list items of `[tool.taskplan]` in TOML text
    (tomllib gives none): the key's line and column, or the n-th string of its array.
    Falls back to the table header, then to line 1."""

    _HEADER = re.compile(r"^\s*\[\s*tool\s*\.\s*taskplan\s*\]\s*(#.*)?$")
    _ANY_HEADER = re.compile(r"^\s*\[\[?\s*[A-Za-z0-9_.\"' -]+\]\]?\s*(#.*)?$")

    def __init__(self, text: str, display: str):
        self.lines = text.splitlines()
        self.display = display

    def locate(self, pointer: str) -> Location:
        parts = pointer.strip("/").split("/")  # tool, taskplan, key?, index or sub-key?
        key = parts[2] if len(parts) > 2 else None
        index = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else None
        sub = parts[3] if len(parts) > 3 and index is None else None
        header = self._header()
        if key is None:
            return self._at(header, 0, len(self.lines[header]) if header is not None else 1)
        if sub is not None:
            found_sub = self._sub_key(key, sub, header)
            if found_sub is not None:
                return self._at(found_sub[0], found_sub[1], len(sub))
        found = self._key(key, header)
        if found is None:
            return self._at(header, 0, len(self.lines[header]) if header is not None else 1)
        line, column = found
        if index is None:
            return self._at(line, column, len(key))
        item = self._item(line, column + len(key), index)
        return self._at(*item) if item is not None else self._at(line, column, len(key))

    def _at(self, line: int | None, column: int, length: int) -> Location:
        if line is None:
            return Location(self.display, "", 1, 1, 1, 2)
        return Location(self.display, "", line + 1, column + 1, line + 1, column + 1 + max(length, 1))

    def _header(self) -> int | None:
        for i, line in enumerate(self.lines):
            if self._HEADER.match(line):
                return i
        return None

    def _section(self, header: int | None) -> range:
        """The lines of the `[tool.taskplan]` table (after its header, up to the next)."""
        if header is None:
            return range(0)
        end = header + 1
        while end < len(self.lines) and not self._ANY_HEADER.match(self.lines[end]):
            end += 1
        return range(header + 1, end)

    def _key(self, key: str, header: int | None) -> tuple[int, int] | None:
        pattern = re.compile(r"^(\s*)(\"?)" + re.escape(key) + r"\2\s*[=.]")
        for i in self._section(header):
            m = pattern.match(self.lines[i])
            if m:
                return i, len(m.group(1)) + len(m.group(2))
        dotted = re.compile(r"^(\s*)(tool\s*\.\s*)?taskplan\s*\.\s*(\"?)" + re.escape(key) + r"\3\s*[=.]")
        for i, line in enumerate(self.lines):
            m = dotted.match(line)
            if m:
                return i, line.index(key, len(m.group(1)))
        found = self._sub_header(key)
        if found is not None:
            return found, self.lines[found].index(key, self.lines[found].index("taskplan") + len("taskplan"))
        return None

    def _sub_header(self, key: str) -> int | None:
        """The line of a `[tool.taskplan.KEY]` header."""
        pattern = re.compile(r"^\s*\[\s*tool\s*\.\s*taskplan\s*\.\s*(\"?)" + re.escape(key) + r"\1\s*\]\s*(#.*)?$")
        for i, line in enumerate(self.lines):
            if pattern.match(line):
                return i
        return None

    def _sub_key(self, key: str, sub: str, header: int | None) -> tuple[int, int] | None:
        """Where `sub` of the sub-table `key` is written: under a `[tool.taskplan.KEY]`
        header, as a dotted key (`KEY.sub =` under [tool.taskplan], or
        `taskplan.KEY.sub =`), or in an inline table `KEY = {sub = ...}`."""
        name = r"(?P<q>\"?)" + re.escape(sub) + r"(?P=q)\s*="
        table = self._sub_header(key)
        if table is not None:
            plain = re.compile(r"^(\s*)" + name)
            for i in range(table + 1, len(self.lines)):
                if self._ANY_HEADER.match(self.lines[i]):
                    break
                m = plain.match(self.lines[i])
                if m:
                    return i, m.start("q") + len(m.group("q"))
        prefix = r"^(\s*)((?:tool\s*\.\s*)?taskplan\s*\.\s*)?(\"?)" + re.escape(key) + r"\3\s*\.\s*"
        dotted = re.compile(prefix + r"(\"?)" + re.escape(sub) + r"\4\s*=")
        section = self._section(header)
        for i, line in enumerate(self.lines):
            m = dotted.match(line)
            if m and (m.group(2) or i in section):
                return i, m.start(4) + len(m.group(4))
        found = self._key(key, header)
        if found is None:
            return None
        inline = re.compile(r"(?:\{|,)\s*" + name)
        line, column = found
        for i in range(line, min(line + 50, len(self.lines))):
            text = self.lines[i].split("#", 1)[0] if i > line else self.lines[i]
            m = inline.search(text, column + len(key) if i == line else 0)
            if m:
                return i, m.start("q") + len(m.group("q"))
            if "}" in text[column if i == line else 0:]:
                break
        return None

    def _item(self, line: int, column: int, index: int) -> tuple[int, int, int] | None:
        """The `index`-th top-level item of the array that follows `=` after (line, column)."""
        depth = 0
        count = -1
        i, j = line, column
        started = False
        while i < len(self.lines):
            text = self.lines[i]
            while j < len(text):
                c = text[j]
                if c == "#":
                    break
                if not started:
                    if c == "[":
                        started, depth = True, 1
                    j += 1
                    continue
                if c in "\"'":
                    end = self._string_end(text, j)
                    if depth == 1:
                        count += 1
                        if count == index:
                            return i, j, end - j
                    j = end
                    continue
                if c == "[":
                    depth += 1
                    if depth == 2:
                        count += 1
                        if count == index:
                            return i, j, 1
                elif c == "]":
                    depth -= 1
                    if depth == 0:
                        return None
                elif depth == 1 and not c.isspace() and c != ",":
                    end = j
                    while end < len(text) and text[end] not in ",]# \t":
                        end += 1
                    count += 1
                    if count == index:
                        return i, j, end - j
                    j = end
                    continue
                j += 1
            i, j = i + 1, 0
        return None

    @staticmethod
    def _string_end(text: str, start: int) -> int:
        quote = text[start]
        if text.startswith(quote * 3, start):
            end = text.find(quote * 3, start + 3)
            return len(text) if end < 0 else end + 3
        j = start + 1
        while j < len(text):
            if quote == '"' and text[j] == "\\":
                j += 2
                continue
            if text[j] == quote:
                return j + 1
            j += 1
        return len(text)
