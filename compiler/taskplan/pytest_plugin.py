"""The snapshot gate for users: a pytest plugin (entry point `pytest11`, name `taskplan`).

A project keeps its TaskPlans under version control and wants its CI to fail
when a plan's compiled workflow changes without review. The `taskplan_workflow`
fixture compiles a plan and compares the workflow YAML with a stored snapshot,
one reviewable `.yaml` file per plan, through syrupy:

```python
import pytest

@pytest.mark.parametrize("plan", ["plans/triage.taskplan.yaml"], ids=["triage"])  # plain IDs: no `/`
def test_workflow(taskplan_workflow, plan):
    taskplan_workflow(plan)
```

The snapshot is `__snapshots__/<test module>/<test name>.yaml` beside the test
module; `pytest --snapshot-update` writes it (review it, commit it). A plan that
does not compile fails the test with its diagnostics (the text rendering).

See docs/snapshot-gate.md. The plugin is loaded by pytest in every project whose
environment has taskplan installed, so this module imports nothing but pytest:
the compiler and syrupy are imported when a test uses the fixture.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

import pytest

if TYPE_CHECKING:
    from taskplan.api import CatalogSet, CompileResult

PathLike = Union[str, "os.PathLike[str]"]

__all__ = ["TaskplanWorkflow", "taskplan_workflow"]


class TaskplanWorkflow:
    """The callable behind the `taskplan_workflow` fixture (one per test)."""

    def __init__(self, request: pytest.FixtureRequest, catalog_cache: dict[tuple[str, ...], "CatalogSet"]):
        self._request = request
        self._cache = catalog_cache
        self._snapshot: Any = None
        self.root = Path(request.config.rootpath)
        """Relative plan and catalog paths are resolved against pytest's rootdir."""

    def __call__(
        self,
        plan: PathLike,
        *,
        catalogs: Sequence[PathLike] | None = None,
        choose: Mapping[str, str] | None = None,
        auto: bool = False,
        name: str | None = None,
    ) -> "CompileResult":
        """Compile `plan` and assert that its workflow YAML equals the stored snapshot.

        - `catalogs`: catalog files; default: `catalogs` of `[tool.taskplan]` in the
          nearest pyproject.toml above the plan (none when there is none).
        - `choose`: choice ID -> alternative ID; `auto`: a choice without a selection
          takes its recommendation (as `taskplan compile --auto`).
        - `name`: tells apart several plans compiled in one test (the snapshot becomes
          `<test name>[<name>].yaml`); by default the first plan of a test is
          `<test name>.yaml`, the next ones `<test name>.1.yaml`, ...

        Returns the CompileResult (its `.yaml` and `.graph`) when the snapshot matches
        (or was just written by `--snapshot-update`); fails the test otherwise."""
        __tracebackhide__ = True
        from taskplan import api

        plan_path = self._resolve(plan)
        display = self._display(plan_path)
        catalog_set = self._catalogs(plan_path, catalogs)
        if isinstance(catalog_set, str):
            pytest.fail(catalog_set, pytrace=False)
        try:
            text = api.read_input(plan_path)
        except api.UnreadableInput as exc:
            pytest.fail(f"taskplan: cannot read {display}: {exc.reason}", pytrace=False)
        result = api.compile_plan(display, catalogs=catalog_set, choose=dict(choose or {}), auto=auto, text=text)
        snapshot = self._snapshot_assertion()
        if name:
            snapshot = snapshot(name=name)
        if result.yaml is None or result.exit_code != api.EXIT_OK:
            # Record a failed comparison, so that syrupy neither takes the snapshot for
            # unused (and deletes it under --snapshot-update) nor overwrites it.
            snapshot == _CompileFailed()  # noqa: B015
            pytest.fail(_failure_text(result, display), pytrace=False)
        if not (snapshot == result.yaml):
            pytest.fail(_diff_text(snapshot, result.yaml, display), pytrace=False)
        return result

    # ------------------------------------------------------------------ helpers

    def _resolve(self, path: PathLike) -> Path:
        p = Path(os.fspath(path))
        return p if p.is_absolute() else self.root / p

    def _display(self, path: Path) -> str:
        """The plan's path as the workflow records it (`source.plan`): relative to the
        rootdir, with forward slashes, so the snapshot is the same on every checkout."""
        try:
            return Path(os.path.normpath(path)).relative_to(self.root).as_posix()
        except ValueError:
            return Path(os.path.normpath(path)).as_posix()

    def _catalogs(self, plan_path: Path, catalogs: Sequence[PathLike] | None) -> "CatalogSet | str":
        from taskplan import api
        from taskplan.diagnostics import Diagnostics
        from taskplan.project import resolve_catalog_paths

        sink = Diagnostics()
        given = [self._resolve(c) for c in catalogs or ()]
        paths = resolve_catalog_paths(given, plan_path.parent, sink)
        if sink.has_errors:
            return _render(sink.sorted(), {}, "taskplan: the [tool.taskplan] configuration is invalid")
        key = tuple(os.fspath(p) for p in paths)
        if key not in self._cache:
            self._cache[key] = api.load_catalog_set(list(key))
        return self._cache[key]

    def _snapshot_assertion(self) -> Any:
        if self._snapshot is None:
            try:
                base = self._request.getfixturevalue("snapshot")
            except pytest.FixtureLookupError:
                pytest.fail(
                    "taskplan_workflow needs syrupy: install it (`pip install syrupy`) in the test environment",
                    pytrace=False,
                )
            self._snapshot = base.use_extension(_extension_class())
        return self._snapshot


class _CompileFailed:
    """Compared with the snapshot when the plan does not compile: serializing it fails,
    so the comparison is recorded as failed and nothing is written."""


_EXTENSION: type | None = None


def _extension_class() -> type:
    """syrupy's single-file extension, writing text with a .yaml suffix (built on first
    use, so that importing the plugin never imports syrupy)."""
    global _EXTENSION
    if _EXTENSION is None:
        from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

        class TaskplanYAMLSnapshot(SingleFileSnapshotExtension):
            _write_mode = WriteMode.TEXT
            file_extension = "yaml"

            def serialize(self, data: Any, **kwargs: Any) -> Any:
                if isinstance(data, _CompileFailed):
                    raise ValueError("the plan did not compile")
                return super().serialize(data, **kwargs)

        _EXTENSION = TaskplanYAMLSnapshot
    return _EXTENSION


def _render(diagnostics: list, documents: Mapping, headline: str) -> str:
    from taskplan.diagnostics.render_text import render

    body = render(diagnostics, documents=documents, files=1, color=False, noun="plan")
    return f"{headline}\n\n{body}".rstrip("\n")


def _failure_text(result: "CompileResult", display: str) -> str:
    lines = [f"taskplan: {display} does not compile"]
    lines.extend(f"error: cannot read {e.path}: {e.reason}" for e in result.input_errors)
    lines.extend(f"error: {message}" for message in result.usage_errors)
    if result.diagnostics:
        return _render(result.diagnostics, result.documents, "\n".join(lines))
    return "\n".join(lines)


def _diff_text(snapshot: Any, received: str, display: str) -> str:
    """A unified diff from the stored snapshot to the workflow compiled now."""
    import difflib

    execution = _last_execution(snapshot)
    stored = getattr(execution, "recalled_data", None)
    location = getattr(execution, "snapshot_location", None) or "the snapshot"
    where = _relative(location)
    if stored is None:
        return (
            f"taskplan: no snapshot of the workflow compiled from {display} yet ({where});\n"
            "run pytest with --snapshot-update to write it, then review and commit it"
        )
    diff = difflib.unified_diff(
        str(stored).splitlines(keepends=True),
        received.splitlines(keepends=True),
        fromfile=f"{where} (reviewed)",
        tofile=f"compiled from {display}",
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in diff)
    return (
        f"taskplan: the workflow compiled from {display} differs from its snapshot\n"
        f"{text}"
        "If the change is intended, run pytest with --snapshot-update, review the diff and commit it."
    )


def _last_execution(snapshot: Any) -> Any:
    executions = getattr(snapshot, "executions", None) or {}
    return executions[max(executions)] if executions else None


def _relative(location: str) -> str:
    try:
        return os.path.relpath(location)
    except ValueError:
        return location


@pytest.fixture(scope="session")
def _taskplan_catalog_cache() -> dict[tuple[str, ...], Any]:
    """Catalogs loaded once per test session (per list of files)."""
    return {}


@pytest.fixture
def taskplan_workflow(request: pytest.FixtureRequest, _taskplan_catalog_cache: dict) -> TaskplanWorkflow:
    """Compile a TaskPlan and compare its workflow YAML with a stored, reviewed snapshot:
    `taskplan_workflow("plans/x.taskplan.yaml", catalogs=[...], choose={...}, auto=False)`."""
    return TaskplanWorkflow(request, _taskplan_catalog_cache)
