"""README.md: it links every file in docs/ and every relative link resolves; its
pytest-plugin example runs as written (pytester: first run fails for want of a
snapshot, --snapshot-update writes it where the comment says, then it passes)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _relative_links() -> list[str]:
    return [target for target in LINK.findall(README) if not re.match(r"^[a-z]+:", target)]


def test_every_file_in_docs_is_linked():
    linked = {Path(target).as_posix() for target in _relative_links()}
    missing = [
        path.relative_to(ROOT).as_posix()
        for path in sorted((ROOT / "docs").rglob("*"))
        if path.is_file() and path.relative_to(ROOT).as_posix() not in linked
    ]
    assert missing == []


def test_every_relative_link_resolves():
    for target in _relative_links():
        assert (ROOT / target).exists(), target


def _plugin_example() -> str:
    section = README.split("## Compiled workflows under review in your tests", 1)[1].split("\n## ", 1)[0]
    (block,) = re.findall(r"```python\n(.*?)```", section, re.S)
    return block


def test_the_plugin_example_is_five_lines_and_names_the_fixture():
    example = _plugin_example()
    assert len(example.splitlines()) == 5
    assert "taskplan_workflow" in example and "snapshot-gate.md" in README.split("## Documentation")[0]


def test_the_plugin_example_runs(pytester: pytest.Pytester):
    example = _plugin_example()
    pytester.makefile(".toml", pyproject='[tool.taskplan]\ncatalogs = ["catalogs/*.catalog.yaml"]\n')
    (pytester.path / "catalogs").mkdir()
    (pytester.path / "catalogs" / "review.catalog.yaml").write_text(
        (ROOT / "examples" / "catalog.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (pytester.path / "plans").mkdir()
    (pytester.path / "plans" / "pr-review.taskplan.yaml").write_text(
        (ROOT / "examples" / "pr-review.taskplan.yaml").read_text(encoding="utf-8"), encoding="utf-8"
    )
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_workflows.py").write_text(example, encoding="utf-8")
    (snapshot,) = re.findall(r"compare with (\S+\.yaml)", example)

    def run(*args: str):
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "tests/test_workflows.py", *args)

    run().assert_outcomes(failed=1)
    run("--snapshot-update").assert_outcomes(passed=1)
    assert (pytester.path / snapshot).is_file()
    assert (pytester.path / snapshot).read_text(encoding="utf-8").startswith("version: 1\nname: pr-review\n")
    run().assert_outcomes(passed=1)
