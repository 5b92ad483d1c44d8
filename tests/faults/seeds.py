"""The valid documents the operators mutate: the valid plans (with the catalogs their
manifest lists), the catalogs those plans use, compiled workflows (the tracked workflow
fixtures and the compile snapshots), and one project configuration."""

from __future__ import annotations

import functools
import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
CATALOGS = FIXTURES / "catalogs"
SNAPSHOTS = ROOT / "tests" / "__snapshots__" / "test_snapshots"


def read_tree(path: Path, *, workflow: bool = False, catalog: bool = False) -> Any:
    """The tree taskplan's own reader reads from `path` (which must read clean)."""
    from taskplan.diagnostics import Diagnostics
    from taskplan.source.read import CATALOG_CODES, PLAN_CODES, WORKFLOW_CODES, read_document

    sink = Diagnostics()
    codes = WORKFLOW_CODES if workflow else CATALOG_CODES if catalog else PLAN_CODES
    document = read_document(path.read_bytes(), str(path), sink, codes=codes)
    if not document.ok or sink.sorted():
        raise ValueError(f"seed {path} does not read clean: {[d.message for d in sink.sorted()]}")
    return document.tree


def _copy(tree: Any) -> Any:
    """A deep copy of a plain tree (pickle: several times faster than copy.deepcopy)."""
    return pickle.loads(pickle.dumps(tree, pickle.HIGHEST_PROTOCOL))


@dataclass
class PlanSeed:
    name: str
    path: Path
    fmt: str
    catalogs: list[Path]
    _tree: Any = None
    _catalog_trees: dict[str, Any] | None = None

    @property
    def display(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    def tree(self) -> Any:
        """A fresh deep copy of the plan's tree (operators mutate it)."""
        if self._tree is None:
            self._tree = read_tree(self.path)
        return _copy(self._tree)

    def catalog_trees(self) -> list[Any]:
        """The catalogs' trees (read only: operators must not mutate them)."""
        if self._catalog_trees is None:
            self._catalog_trees = {str(p): read_tree(p, catalog=True) for p in self.catalogs}
        return list(self._catalog_trees.values())


@dataclass
class DocSeed:
    """A catalog or a workflow."""

    name: str
    path: Path
    kind: str  # "catalog" | "workflow"
    _tree: Any = None

    @property
    def display(self) -> str:
        return self.path.relative_to(ROOT).as_posix()

    @property
    def fmt(self) -> str:
        return "json" if self.path.suffix == ".json" else "yaml"

    def tree(self) -> Any:
        if self._tree is None:
            self._tree = read_tree(self.path, workflow=self.kind == "workflow", catalog=self.kind == "catalog")
        return _copy(self._tree)


@functools.cache
def plan_seeds() -> tuple[PlanSeed, ...]:
    from ruamel.yaml import YAML

    manifest = YAML(typ="safe").load((FIXTURES / "valid" / "manifest.yaml").read_text(encoding="utf-8"))
    out = []
    for case in manifest["cases"]:
        path = FIXTURES / "valid" / case["plan"]
        out.append(
            PlanSeed(
                name=case["plan"].split(".")[0],
                path=path,
                fmt="json" if path.suffix == ".json" else "yaml",
                catalogs=[CATALOGS / c for c in case.get("catalogs", [])],
            )
        )
    return tuple(out)


@functools.cache
def catalog_seeds() -> tuple[DocSeed, ...]:
    paths = sorted(CATALOGS.glob("*.catalog.yaml")) + sorted((CATALOGS / "mcp").glob("*.catalog.yaml"))
    return tuple(DocSeed(p.relative_to(CATALOGS).as_posix().replace(".catalog.yaml", ""), p, "catalog") for p in paths)


@functools.cache
def workflow_seeds() -> tuple[DocSeed, ...]:
    """The tracked valid workflows and the compile snapshots (which validate clean:
    tests/test_snapshots.py and tests/test_fault_injection.py check it)."""
    paths = sorted((FIXTURES / "workflows" / "valid").glob("*.workflow.yaml")) + sorted(SNAPSHOTS.glob("*.yaml"))
    out = []
    for p in paths:
        name = p.name.split("[", 1)[-1].split("]", 1)[0] if "[" in p.name else p.name.split(".")[0]
        out.append(DocSeed(f"{'snapshot' if '[' in p.name else 'workflow'}:{name}", p, "workflow"))
    return tuple(out)


PYPROJECT = """\
[project]
name = "demo"

[tool.taskplan]
catalogs = ["catalogs/review.catalog.yaml"]
"""


@dataclass
class ConfigSeed:
    """A project directory: pyproject.toml with [tool.taskplan] and the catalog it names."""

    name: str = "pyproject"
    text: str = PYPROJECT
    files: dict[str, str] = field(default_factory=lambda: {"catalogs/review.catalog.yaml": "version: 1\n"})

    display = "pyproject.toml"


def config_seeds() -> tuple[ConfigSeed, ...]:
    return (ConfigSeed(),)
