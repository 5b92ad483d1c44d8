"""[tool.taskplan] in the nearest pyproject.toml: discovery, catalogs, flags win,
CONFIG_INVALID located in pyproject.toml."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from taskplan.diagnostics import Diagnostics
from taskplan.project import (
    ProjectConfigError,
    config_start_dir,
    find_pyproject,
    load_project_config,
    resolve_catalog_paths,
)

ROOT = Path(__file__).resolve().parents[1]
CONFIG_FIXTURES = ROOT / "fixtures" / "errors" / "catalog" / "config"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def repo(tmp_path):
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.taskplan]\ncatalogs = ["catalogs/*.yaml", "extra/one.catalog.yaml"]\n')
    write(tmp_path / "catalogs" / "b.yaml", "version: 1\n")
    write(tmp_path / "catalogs" / "a.yaml", "version: 1\n")
    write(tmp_path / "extra" / "one.catalog.yaml", "version: 1\n")
    (tmp_path / "plans" / "nested").mkdir(parents=True)
    return tmp_path


def test_nearest_pyproject_with_the_table(repo):
    # a nested pyproject without [tool.taskplan] does not hide the repository's
    write(repo / "plans" / "pyproject.toml", '[project]\nname = "inner"\n')
    assert find_pyproject(repo / "plans" / "nested") == repo / "pyproject.toml"
    assert find_pyproject(repo.parent) is None or find_pyproject(repo.parent) != repo / "pyproject.toml"


def test_catalogs_relative_to_the_pyproject_globs_sorted(repo):
    sink = Diagnostics()
    config = load_project_config(repo / "plans" / "nested", sink)
    assert not sink.sorted()
    assert config.path == repo / "pyproject.toml" and config.root == repo
    assert [p.relative_to(repo).as_posix() for p in config.catalogs] == [
        "catalogs/a.yaml",
        "catalogs/b.yaml",
        "extra/one.catalog.yaml",
    ]


def test_resolve_catalog_paths_flags_win(repo, monkeypatch):
    monkeypatch.chdir(repo)
    sink = Diagnostics()
    assert resolve_catalog_paths([], repo / "plans", sink) == [
        Path("catalogs/a.yaml"), Path("catalogs/b.yaml"), Path("extra/one.catalog.yaml"),
    ]
    assert resolve_catalog_paths(["mine.yaml"], repo / "plans", sink) == [Path("mine.yaml")]
    assert not sink.sorted()


def test_paths_outside_the_cwd_are_absolute(repo, monkeypatch, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    monkeypatch.chdir(elsewhere)
    paths = resolve_catalog_paths([], repo, Diagnostics())
    assert paths[0] == repo / "catalogs" / "a.yaml" and paths[0].is_absolute()


def test_no_configuration(tmp_path):
    sink = Diagnostics()
    assert resolve_catalog_paths([], tmp_path, sink) == [] or find_pyproject(tmp_path) is not None
    assert not sink.sorted()


def test_config_start_dir(tmp_path):
    assert config_start_dir([]) == Path.cwd()
    assert config_start_dir([tmp_path / "a" / "x.yaml", tmp_path / "a" / "b" / "y.yaml"]) == tmp_path / "a"


def _problems(tmp_path, text: str):
    write(tmp_path / "pyproject.toml", text)
    sink = Diagnostics()
    config = load_project_config(tmp_path, sink)
    return config, sink.sorted()


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        ('[tool.taskplan]\ncatalog = ["a.yaml"]\n', 2, 1, "unknown setting `catalog`"),
        ('[tool.taskplan]\ncatalogs = "a.yaml"\n', 2, 1, "must be a list of paths, not a string"),
        ('[tool.taskplan]\ncatalogs = 3\n', 2, 1, "must be a list of paths"),
        ('[tool.taskplan]\ncatalogs = ["missing.yaml"]\n', 2, 13, "file does not exist"),
        ('[tool.taskplan]\ncatalogs = [\n  "x.yaml",\n  "nope/*.yaml",  # a comment\n]\n', 4, 3, "pattern matches no file"),
        ('[tool.taskplan]\ncatalogs = ["x.yaml", 3]\n', 2, 23, "non-empty path"),
        ('[tool]\ntaskplan.catalogs = ["missing.yaml"]\n', 2, 22, "file does not exist"),
        ('[tool.taskplan]\ncatalogs = ["x.yaml"\n', 2, 21, "not valid TOML"),
        ('tool.taskplan = 3\n', 1, 1, "must be a table"),
    ],
)
def test_config_invalid_is_located(tmp_path, text, line, column, message):
    write(tmp_path / "x.yaml", "version: 1\n")
    config, problems = _problems(tmp_path, text)
    assert [(d.code, d.location.line, d.location.column) for d in problems] == [("CONFIG_INVALID", line, column)], [
        d.message for d in problems
    ]
    assert message in problems[0].message
    assert problems[0].location.file.endswith("pyproject.toml")
    assert config.catalogs == []


def test_unknown_key_hint(tmp_path):
    _, problems = _problems(tmp_path, '[tool.taskplan]\ncatalog = []\n')
    assert problems[0].hint == "did you mean `catalogs`?"
    assert problems[0].location.pointer == "/tool/taskplan/catalog"


def test_without_a_sink_errors_raise(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.taskplan]\nwat = 1\n')
    with pytest.raises(ProjectConfigError) as info:
        resolve_catalog_paths([], tmp_path)
    assert info.value.diagnostics[0].code == "CONFIG_INVALID"


def test_invalid_config_is_reported_even_when_flags_are_given(tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.taskplan]\nwat = 1\n')
    sink = Diagnostics()
    assert resolve_catalog_paths(["a.yaml"], tmp_path, sink) == [Path("a.yaml")]
    assert [d.code for d in sink.sorted()] == ["CONFIG_INVALID"]


def test_registry_example(tmp_path):
    from taskplan.diagnostics.registry import REGISTRY

    info = REGISTRY["CONFIG_INVALID"]
    write(tmp_path / "catalogs" / "github.catalog.yaml", "version: 1\n")
    _, problems = _problems(tmp_path, info.wrong)
    assert [d.code for d in problems] == ["CONFIG_INVALID"]
    _, problems = _problems(tmp_path, info.right)
    assert problems == []


# ------------------------------------------------------------ fixture cases


def _fixture_cases():
    manifest = CONFIG_FIXTURES / "manifest.yaml"
    if not manifest.is_file():
        return []
    return YAML(typ="safe").load(manifest.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize("case", _fixture_cases(), ids=lambda c: c["pyproject"])
def test_config_fixtures(case):
    """fixtures/errors/catalog/config/manifest.yaml: each pyproject.toml produces exactly
    the CONFIG_INVALID diagnostics listed (file relative to the case's folder)."""
    path = CONFIG_FIXTURES / case["pyproject"]
    sink = Diagnostics()
    load_project_config(path.parent, sink)
    actual = [
        {"code": d.code, "pointer": d.location.pointer, "line": d.location.line, "column": d.location.column}
        for d in sink.sorted()
    ]
    assert all(Path(d.location.file).resolve() == path.resolve() for d in sink.sorted())
    expected = [{k: e[k] for k in ("code", "pointer", "line", "column")} for e in case["expect"]]
    assert actual == expected
