"""Project configuration: `[tool.taskplan]` in the nearest pyproject.toml.

```toml
[tool.taskplan]
catalogs = ["catalogs/*.catalog.yaml", "vendor/github.catalog.yaml"]
```

- **Where.** The search starts at a directory (the CLI passes the common parent
  directory of the plans it was given, or the current directory when it was
  given none) and walks up to the file-system root; the first pyproject.toml
  that has a `[tool.taskplan]` table is the project's configuration. A
  pyproject.toml without one is skipped (a nested package's pyproject does not
  hide the repository's); one that is not valid TOML stops the search with
  CONFIG_INVALID (it may be the one meant).
- **Keys.** `catalogs`: a list of paths or glob patterns (`*`, `?`, `[..]`,
  `**`), relative to the directory of the pyproject.toml; each must match at
  least one file. The table is closed: an unknown key is CONFIG_INVALID (with a
  "did you mean"), so that a typo never silently drops a setting. Later keys
  (output directory, naming, silenced warnings, limits) are added to
  `KNOWN_KEYS` and `ProjectConfig`.
- **Flags win.** `--catalog` given on the command line replaces the configured
  catalogs (they are not merged). The configuration is still read and checked,
  because its other settings still apply.

Every problem is a CONFIG_INVALID diagnostic located in the pyproject.toml
(line and column of the key, or of the list item; TOML syntax errors at the
parser's position).
"""

from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from taskplan.diagnostics import Diagnostic, Diagnostics, Location, Severity

PYPROJECT = "pyproject.toml"
TABLE = ("tool", "taskplan")
KNOWN_KEYS = ("catalogs",)
CODE = "CONFIG_INVALID"


@dataclass(slots=True)
class ProjectConfig:
    """The `[tool.taskplan]` settings of one project (defaults when there is none)."""

    path: Path | None = None
    """The pyproject.toml the settings come from; None when no project configures taskplan."""
    catalogs: list[Path] = field(default_factory=list)
    """Catalog files, patterns expanded, in the order written (each pattern's matches sorted)."""

    @property
    def root(self) -> Path | None:
        return self.path.parent if self.path is not None else None


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
    config = load_project_config(start_dir, sink)
    given = [Path(os.fspath(p)) for p in cli_paths]
    if given:
        return given
    return [_display(p) for p in config.catalogs]


def _display(path: Path) -> Path:
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return path
    return Path(relative) if not relative.startswith("..") else path


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
        parts = pointer.strip("/").split("/")  # tool, taskplan, key?, index?
        key = parts[2] if len(parts) > 2 else None
        index = int(parts[3]) if len(parts) > 3 and parts[3].isdigit() else None
        header = self._header()
        if key is None:
            return self._at(header, 0, len(self.lines[header]) if header is not None else 1)
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

    def _key(self, key: str, header: int | None) -> tuple[int, int] | None:
        if header is not None:
            pattern = re.compile(r"^(\s*)(\"?)" + re.escape(key) + r"\2\s*=")
            for i in range(header + 1, len(self.lines)):
                if self._ANY_HEADER.match(self.lines[i]):
                    break
                m = pattern.match(self.lines[i])
                if m:
                    return i, len(m.group(1)) + len(m.group(2))
        dotted = re.compile(r"^(\s*)(tool\s*\.\s*)?taskplan\s*\.\s*" + re.escape(key) + r"\s*=")
        for i, line in enumerate(self.lines):
            m = dotted.match(line)
            if m:
                return i, line.index(key, len(m.group(1)))
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
