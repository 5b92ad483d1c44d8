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


# ------------------------------------------------- output-dir, workflow-name, ignore, limits


@pytest.fixture
def warning_code(monkeypatch):
    """A registered warning, DEMO_WARNING (a stand-in; TASK_OUTPUT_UNUSED is a real one)."""
    from taskplan.diagnostics import Severity
    from taskplan.diagnostics.registry import REGISTRY, CodeInfo

    info = CodeInfo("DEMO_WARNING", "scope", "scope", "A demo warning", "Only for tests.", severity=Severity.WARNING)
    monkeypatch.setitem(REGISTRY, "DEMO_WARNING", info)
    return "DEMO_WARNING"


def test_every_setting_valid(tmp_path, warning_code):
    from taskplan.config import Limits

    config, problems = _problems(
        tmp_path,
        '[tool.taskplan]\noutput-dir = "build/workflows"\nworkflow-name = "{stem}.yml"\n'
        'ignore = ["DEMO_WARNING", "DEMO_WARNING"]\n\n[tool.taskplan.limits]\nmax-tasks = 3\nmax-workflow-bytes = 1024\n',
    )
    assert problems == []
    assert config.output_dir == tmp_path / "build" / "workflows"
    assert config.workflow_name == "{stem}.yml"
    assert config.ignore == ["DEMO_WARNING"]
    assert config.limits == Limits(max_tasks=3, max_workflow_bytes=1024)


def test_defaults(tmp_path):
    from taskplan.config import DEFAULT_LIMITS

    config, problems = _problems(tmp_path, '[tool.taskplan]\n')
    assert problems == []
    assert (config.output_dir, config.workflow_name, config.ignore, config.limits) == (
        None, "{stem}.workflow.yaml", [], DEFAULT_LIMITS,
    )


@pytest.mark.parametrize(
    "text",
    [
        '[tool.taskplan]\nlimits = {max-tasks = 3, max-depth = 10}\n',
        '[tool.taskplan]\nlimits.max-tasks = 3\nlimits.max-depth = 10\n',
        '[tool]\ntaskplan.limits.max-tasks = 3\ntaskplan.limits.max-depth = 10\n',
        '[tool.taskplan.limits]\nmax-tasks = 3\n"max-depth" = 10\n',
    ],
)
def test_limits_in_every_toml_form(tmp_path, text):
    config, problems = _problems(tmp_path, text)
    assert problems == []
    assert (config.limits.max_tasks, config.limits.max_depth) == (3, 10)


def test_every_limit_has_a_kebab_case_key():
    import dataclasses

    from taskplan.config import Limits
    from taskplan.project import LIMIT_KEYS

    assert sorted(LIMIT_KEYS.values()) == sorted(f.name for f in dataclasses.fields(Limits))
    assert "max-workflow-bytes" in LIMIT_KEYS and "max-tasks" in LIMIT_KEYS


@pytest.mark.parametrize(
    "text, line, column, message",
    [
        # output-dir
        ('[tool.taskplan]\noutput-dir = 3\n', 2, 1, "`output-dir` must be a non-empty path"),
        ('[tool.taskplan]\noutput-dir = ""\n', 2, 1, "`output-dir` must be a non-empty path"),
        ('[tool.taskplan]\noutput-dir = "../elsewhere"\n', 2, 1, "leads out of the project"),
        ('[tool.taskplan]\noutput-dir = "a/../../b"\n', 2, 1, "leads out of the project"),
        ('[tool.taskplan]\noutput-dir = "/tmp/workflows"\n', 2, 1, "leads out of the project"),
        ('[tool.taskplan]\noutput-dir = "x.yaml"\n', 2, 1, "exists and is not a directory"),
        ('[tool]\ntaskplan.output-dir = 3\n', 2, 10, "`output-dir` must be a non-empty path"),
        # workflow-name
        ('[tool.taskplan]\nworkflow-name = 3\n', 2, 1, "must be a file-name pattern"),
        ('[tool.taskplan]\nworkflow-name = "workflow.yaml"\n', 2, 1, "must contain `{stem}`"),
        ('[tool.taskplan]\nworkflow-name = "{stem}.json"\n', 2, 1, "must end in .yaml or .yml"),
        ('[tool.taskplan]\nworkflow-name = "out/{stem}.yaml"\n', 2, 1, "without a path separator"),
        ('[tool.taskplan]\nworkflow-name = "out\\\\{stem}.yaml"\n', 2, 1, "without a path separator"),
        ('[tool.taskplan]\nworkflow-name = "{stem}.{kind}.yaml"\n', 2, 1, "the only placeholder is `{stem}`"),
        ('[tool.taskplan]\nworkflow-name = "{stem}.taskplan.yaml"\n', 2, 1, "names a plan, not a workflow"),
        # ignore
        ('[tool.taskplan]\nignore = "DEMO_WARNING"\n', 2, 1, "must be a list of codes, not a string"),
        ('[tool.taskplan]\nignore = 3\n', 2, 1, "must be a list of diagnostic codes"),
        ('[tool.taskplan]\nignore = ["DEMO_WARNING", 3]\n', 2, 27, "must be a diagnostic code"),
        ('[tool.taskplan]\nignore = ["DEMO_WARNNG"]\n', 2, 11, "unknown diagnostic code `DEMO_WARNNG`"),
        ('[tool.taskplan]\nignore = [\n  "DEMO_WARNING",\n  "TASK_ID_INVALID",\n]\n', 4, 3, "errors cannot be silenced"),
        # limits
        ('[tool.taskplan]\nlimits = 3\n', 2, 1, "`limits` must be a table"),
        ('[tool.taskplan.limits]\nmax-taks = 3\n', 2, 1, "unknown limit `max-taks`"),
        ('[tool.taskplan.limits]\nmax-tasks = 0\n', 2, 1, "must be a positive integer, not 0"),
        ('[tool.taskplan.limits]\n# a comment\n  max-bytes = -1\n', 3, 3, "must be a positive integer, not -1"),
        ('[tool.taskplan]\nlimits = {max-depth = 8, max-tasks = true}\n', 2, 26, "must be a positive integer, not true"),
        ('[tool.taskplan]\nlimits.max-tasks = "3"\n', 2, 8, "must be a positive integer, not the string '3'"),
        ('[tool.taskplan]\nlimits.max-tasks = 2.5\n', 2, 8, "must be a positive integer, not 2.5"),
        ('[tool]\ntaskplan.limits.max-tasks = []\n', 2, 17, "must be a positive integer, not an array"),
        ('[tool.taskplan.limits]\nmax-number-digits = 100000\n', 2, 1, "can be at most"),
    ],
)
def test_new_settings_invalid_are_located(tmp_path, warning_code, text, line, column, message):
    write(tmp_path / "x.yaml", "version: 1\n")
    _, problems = _problems(tmp_path, text)
    assert [(d.code, d.location.line, d.location.column) for d in problems] == [("CONFIG_INVALID", line, column)], [
        (d.location.line, d.location.column, d.message) for d in problems
    ]
    assert message in problems[0].message
    assert problems[0].location.file.endswith("pyproject.toml")


def test_new_settings_hints(tmp_path, warning_code):
    _, problems = _problems(tmp_path, '[tool.taskplan]\nignore = ["DEMO_WARNNG"]\n')
    assert problems[0].hint == "did you mean `DEMO_WARNING`?" and problems[0].location.pointer == "/tool/taskplan/ignore/0"
    _, problems = _problems(tmp_path, '[tool.taskplan]\nignore = ["PLAN_LIMIT"]\n')
    assert problems[0].message == "`PLAN_LIMIT` is an error: errors cannot be silenced"
    _, problems = _problems(tmp_path, '[tool.taskplan.limits]\nmax_tasks = 3\n')
    assert problems[0].hint == "did you mean `max-tasks`?"
    assert problems[0].location.pointer == "/tool/taskplan/limits/max_tasks"
    assert (problems[0].location.line, problems[0].location.column, problems[0].location.end_column) == (2, 1, 10)
    _, problems = _problems(tmp_path, '[tool.taskplan]\nworkflow-nam = "{stem}.yaml"\n')
    assert problems[0].hint == "did you mean `workflow-name`?"
    _, problems = _problems(tmp_path, '[tool.taskplan.limit]\nmax-tasks = 3\n')
    assert problems[0].hint == "did you mean `limits`?"
    assert (problems[0].location.line, problems[0].location.column) == (1, 16)


def test_invalid_settings_keep_their_defaults(tmp_path):
    from taskplan.config import DEFAULT_LIMITS

    config, problems = _problems(
        tmp_path,
        '[tool.taskplan]\noutput-dir = "../x"\nworkflow-name = "x.yaml"\nignore = ["NOPE"]\n'
        '[tool.taskplan.limits]\nmax-tasks = 0\nmax-depth = 9\n',
    )
    assert len(problems) == 4
    assert config.output_dir is None and config.workflow_name == "{stem}.workflow.yaml" and config.ignore == []
    assert config.limits == dataclasses_replace(DEFAULT_LIMITS, max_depth=9)  # the valid limit still applies


def dataclasses_replace(obj, **changes):
    import dataclasses

    return dataclasses.replace(obj, **changes)


# ------------------------------------------------------------------ the naming rule


def test_the_naming_rule_with_settings(tmp_path, monkeypatch):
    from taskplan.project import ProjectConfig, is_workflow, plan_for_workflow, workflow_path

    monkeypatch.chdir(tmp_path)
    named = ProjectConfig(tmp_path / "pyproject.toml", workflow_name="wf-{stem}.yml")
    assert workflow_path("plans/a.taskplan.json", named) == os.path.join("plans", "wf-a.yml")
    placed = ProjectConfig(tmp_path / "pyproject.toml", output_dir=tmp_path / "out")
    assert workflow_path("plans/a.taskplan.yaml", placed) == os.path.join("out", "a.workflow.yaml")
    assert is_workflow("plans/wf-a.yml", named) and is_workflow("plans/wf-a.yaml", named)
    assert not is_workflow("plans/a.workflow.yaml", named)
    plain = ProjectConfig(tmp_path / "pyproject.toml", workflow_name="{stem}.yaml")
    assert not is_workflow("plans/a.taskplan.yaml", plain)  # a plan's name is never a workflow's
    write(tmp_path / "plans" / "a.taskplan.json", "{}")
    assert plan_for_workflow("plans/wf-a.yml", named) == os.path.join("plans", "a.taskplan.json")
    assert plan_for_workflow("plans/a.workflow.yaml", named) is None


def test_a_workflow_in_output_dir_stands_for_the_plan_it_records(tmp_path, monkeypatch):
    from taskplan.project import ProjectConfig, plan_for_workflow

    monkeypatch.chdir(tmp_path)
    config = ProjectConfig(tmp_path / "pyproject.toml", output_dir=tmp_path / "out")
    write(tmp_path / "plans" / "a.taskplan.yaml", "version: 1\n")
    write(tmp_path / "out" / "a.workflow.yaml", "version: 1\nname: a\nsource:\n  plan: plans/a.taskplan.yaml\n  digest: x\n")
    write(tmp_path / "out" / "b.workflow.yaml", "version: 1\nname: b\nsource:\n  plan: 'plans/a.taskplan.yaml'\n")
    write(tmp_path / "out" / "hand.workflow.yaml", "version: 1\nname: hand\n")
    assert plan_for_workflow("out/a.workflow.yaml", config) == os.path.join("plans", "a.taskplan.yaml")
    assert plan_for_workflow("out/b.workflow.yaml", config) is None  # plan a compiles to out/a.workflow.yaml
    assert plan_for_workflow("out/hand.workflow.yaml", config) is None
    assert plan_for_workflow("elsewhere/a.workflow.yaml", config) is None  # not in output-dir, no plan beside it


# ------------------------------------------------------------ documented examples


def _toml_blocks(text: str) -> list[str]:
    import re

    return re.findall(r"^```toml\n(.*?)^```", text, re.S | re.M)


def _documented_tomls() -> list:
    import taskplan.project

    pages = {"docs/catalog.md": (ROOT / "docs" / "catalog.md").read_text(encoding="utf-8"),
             "taskplan/project.py": taskplan.project.__doc__ or ""}
    return [pytest.param(block, id=f"{page}#{i}") for page, text in pages.items() for i, block in enumerate(_toml_blocks(text))]


DOCUMENTED = _documented_tomls()


def test_the_docs_have_toml_examples():
    assert len(DOCUMENTED) >= 3


@pytest.mark.parametrize("block", DOCUMENTED)
def test_documented_toml_examples_are_valid(tmp_path, block):
    """Every ```toml block of docs/catalog.md and of taskplan.project's docstring is a
    valid configuration (with a file for each catalog path or pattern it names)."""
    import tomllib

    table = tomllib.loads(block)["tool"]["taskplan"]
    for entry in table.get("catalogs", []):
        write(tmp_path / entry.replace("**/", "").replace("*", "x"), "version: 1\n")
    config, problems = _problems(tmp_path, block)
    assert problems == [], [d.message for d in problems]
    assert len(config.catalogs) == len(table.get("catalogs", []))
    if "output-dir" in table:
        assert config.output_dir == tmp_path / table["output-dir"]
    for key, value in table.get("limits", {}).items():
        assert getattr(config.limits, key.replace("-", "_")) == value
