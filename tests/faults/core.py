"""Operators, injections, and running one injected case through the compiler.

An operator takes a seed (a valid document) and returns an `Injection`: the mutated
document and the one diagnostic it must produce (code, pointer, and for faults in
the text, line and column), or None when the seed offers no place for the fault.
Running the case gives every diagnostic the compiler reports; the case is detected
when that is exactly the expected one.
"""

from __future__ import annotations

import functools
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .seeds import ROOT, ConfigSeed, DocSeed, PlanSeed, catalog_seeds, config_seeds, plan_seeds, workflow_seeds
from .serialize import dump


@dataclass(frozen=True)
class Injection:
    data: bytes
    pointer: str
    line: int | None = None
    column: int | None = None
    compile: bool = False
    """Run compile_plan (without auto) instead of check_plan (CHOICE_REQUIRED)."""
    note: str = ""


@dataclass(frozen=True)
class Operator:
    code: str
    name: str
    target: str  # plan | catalog | workflow | config
    fn: Callable[[Any], Any]
    doc: str

    @property
    def id(self) -> str:
        return f"{self.code}:{self.name}"

    def inject(self, seed: Any) -> Injection | None:
        """The fault injected into `seed`, or None when it does not apply there."""
        out = self.fn(Ctx(seed))
        if out is None:
            return None
        if isinstance(out, Injection):
            return out
        tree, pointer = out[0], out[1]
        extra = out[2] if len(out) > 2 else {}
        return Injection(dump(tree, seed.fmt), pointer, **extra)


class Ctx:
    """What an operator gets: a fresh copy of the seed's tree, its format, the seed."""

    def __init__(self, seed: Any):
        self.seed = seed
        self.fmt = getattr(seed, "fmt", "toml")
        self.tree = seed.tree() if hasattr(seed, "tree") else None

    def dump(self, tree: Any = None) -> bytes:
        return dump(self.tree if tree is None else tree, self.fmt)

    def catalogs(self) -> list[Any]:
        return self.seed.catalog_trees() if isinstance(self.seed, PlanSeed) else []


OPERATORS: list[Operator] = []


def operator(code: str, target: str = "plan", name: str | None = None) -> Callable:
    """Register `fn(ctx) -> (tree, pointer[, extra]) | Injection | None` as an operator."""

    def register(fn: Callable) -> Callable:
        op = Operator(code, name or fn.__name__.strip("_"), target, fn, (fn.__doc__ or "").strip())
        if any(o.id == op.id for o in OPERATORS):
            raise ValueError(f"operator registered twice: {op.id}")
        OPERATORS.append(op)
        return fn

    return register


def seeds_for(target: str) -> tuple:
    return {"plan": plan_seeds, "catalog": catalog_seeds, "workflow": workflow_seeds, "config": config_seeds}[target]()


@functools.lru_cache(maxsize=None)
def catalog_set(paths: tuple[str, ...]):
    from taskplan.api import load_catalog_set

    return load_catalog_set(list(paths))


@dataclass
class Outcome:
    """What the compiler reported for one injected case."""

    diagnostics: list
    expected_file: str
    texts: dict[str, str] = field(default_factory=dict)
    exit_code: int | None = None

    def problems(self, code: str, injection: Injection) -> list[str]:
        """Why the case is not detected exactly (empty: detected)."""
        out = []
        found = [(d.code, d.location.file, d.location.pointer) for d in self.diagnostics]
        want = (code, self.expected_file, injection.pointer)
        if found != [want]:
            out.append(f"expected exactly {want}, got {found}: " + "; ".join(d.message for d in self.diagnostics))
            return out
        d = self.diagnostics[0]
        if injection.line is not None and (d.location.line, d.location.column) != (injection.line, injection.column):
            out.append(f"expected {injection.line}:{injection.column}, got {d.location.line}:{d.location.column}")
        out.extend(location_problems(self.diagnostics, self.texts))
        return out


def location_problems(diagnostics, texts: dict[str, str]) -> list[str]:
    """Every location (and related location) lies inside its file: 1-based, the start
    not after the end, no line past the last, no column past the end of its line + 1."""
    out = []
    for d in diagnostics:
        locations = [d.location] + [r.location for r in d.related]
        for loc in locations:
            text = texts.get(loc.file)
            if text is None:
                continue
            lines = text.splitlines() or [""]
            bad = None
            if loc.line < 1 or loc.column < 1 or loc.end_line < loc.line:
                bad = "not 1-based or ends before it starts"
            elif loc.end_line == loc.line and loc.end_column < loc.column:
                bad = "ends before it starts"
            elif loc.end_line > len(lines):
                bad = f"past the last line ({len(lines)})"
            elif loc.column > len(lines[loc.line - 1]) + 1 or loc.end_column > len(lines[loc.end_line - 1]) + 1:
                bad = "past the end of its line"
            if bad:
                out.append(f"{d.code} at {loc.file}:{loc.line}:{loc.column}-{loc.end_line}:{loc.end_column}: {bad}")
    return out


def run(op: Operator, seed: Any, injection: Injection) -> Outcome:
    """Run the compiler on the injected document, the way its target is used."""
    if op.target == "plan":
        from taskplan.api import check_plan, compile_plan

        display = seed.display
        catalogs = catalog_set(tuple(str(p.relative_to(ROOT)) for p in seed.catalogs))
        cwd = os.getcwd()
        os.chdir(ROOT)
        try:
            if injection.compile:
                result = compile_plan(display, catalogs=catalogs, text=injection.data)
            else:
                result = check_plan(display, catalogs=catalogs, text=injection.data)
        finally:
            os.chdir(cwd)
        texts = {path: doc.text for path, doc in result.documents.items()}
        return Outcome(result.diagnostics, display, texts, result.exit_code)
    if op.target == "catalog":
        from taskplan.catalog.load import load_catalog_text
        from taskplan.diagnostics import Diagnostics

        sink = Diagnostics()
        catalog = load_catalog_text(injection.data, seed.display, sink)
        texts = {path: doc.text for path, doc in catalog.documents.items()}
        return Outcome(sink.sorted(), seed.display, texts)
    if op.target == "workflow":
        from taskplan.passes.validate import validate_text

        result = validate_text(injection.data, seed.display)
        return Outcome(result.diagnostics, seed.display, {seed.display: result.document.text})
    if op.target == "config":
        from taskplan.diagnostics import Diagnostics
        from taskplan.project import load_project_config

        with tempfile.TemporaryDirectory() as tmp:
            base = Path(tmp)
            for name, text in seed.files.items():
                (base / name).parent.mkdir(parents=True, exist_ok=True)
                (base / name).write_text(text, encoding="utf-8")
            (base / "pyproject.toml").write_bytes(injection.data)
            sink = Diagnostics()
            cwd = os.getcwd()
            os.chdir(base)
            try:
                load_project_config(base, sink)
            except Exception as exc:  # ProjectConfigError carries the diagnostics
                if not hasattr(exc, "diagnostics"):
                    raise
            finally:
                os.chdir(cwd)
            diagnostics = sink.sorted()
            diagnostics = [_relative(d, base) for d in diagnostics]
            return Outcome(diagnostics, "pyproject.toml", {"pyproject.toml": injection.data.decode("utf-8", "replace")})
    raise ValueError(op.target)


def _relative(d, base: Path):
    import dataclasses

    file = d.location.file
    try:
        file = Path(file).resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        file = Path(file).name
    return dataclasses.replace(d, location=dataclasses.replace(d.location, file=file))


def cases(op: Operator, limit: int | None = None, *, start: int = 0) -> list[tuple[Any, Injection]]:
    """(seed, injection) for the seeds the operator applies to, starting at seed
    `start` (rotating) and at most `limit` of them."""
    seeds = list(seeds_for(op.target))
    if seeds:
        k = start % len(seeds)
        seeds = seeds[k:] + seeds[:k]
    out = []
    for seed in seeds:
        injection = op.inject(seed)
        if injection is not None:
            out.append((seed, injection))
            if limit is not None and len(out) >= limit:
                break
    return out


MARK = "\u2063FAULT\u2063"
"""A scalar text no seed contains: an operator writes Raw(MARK) where the fault goes,
and `splice` replaces it in the serialized bytes."""


def splice(data: bytes, replacement: bytes, marker: str = MARK) -> tuple[bytes, int, int]:
    """Replace the (first) marker in `data` by `replacement`: the new bytes, and the
    1-based line and code-point column where the replacement starts."""
    token = marker.encode("utf-8")
    at = data.index(token)
    line_start = data.rfind(b"\n", 0, at) + 1
    line = data.count(b"\n", 0, at) + 1
    column = len(data[line_start:at].decode("utf-8")) + 1
    return data[:at] + replacement + data[at + len(token):], line, column
