"""The published pre-commit hooks (.pre-commit-hooks.yaml) in a scratch git repository.

A scratch repository with two plans, a catalog, `[tool.taskplan]` in its
pyproject.toml and a `.pre-commit-config.yaml` that uses taskplan's hooks (a
snapshot of this source tree, committed in its own git repository) runs them
through `git commit` (after `pre-commit install`) and through `pre-commit
try-repo`: a clean commit passes, a broken plan blocks the commit with a
located message, a stale or hand-edited workflow blocks it too.

pre-commit builds the hooks' environment with `pip install .` of the snapshot.
So that the test needs no network and stays fast (a few seconds instead of a
minute of index look-ups), the dependencies come from a local wheelhouse
repacked from this test environment's own installed distributions (the same
versions the rest of the suite runs against), and pip sees no index and no
machine configuration.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from packaging.requirements import Requirement

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from docblocks import fenced_block, fenced_blocks  # noqa: E402  (tests/ is on sys.path)
from sample_plans import WEEKLY  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


CI_DOC = ROOT / "docs" / "ci.md"
EXAMPLE_URL = "https://git.example.com/your-org/taskplan"
"""docs/ci.md's example address of the taskplan repository (the tests use the snapshot)."""


def doc_blocks(language: str) -> list[str]:
    return fenced_blocks(CI_DOC, language)


def doc_block(language: str, containing: str) -> str:
    return fenced_block(CI_DOC, language, containing)


PYPROJECT = '[project]\nname = "scratch"\nversion = "0"\n\n' + doc_block("toml", "[tool.taskplan]")


# ------------------------------------------------------------------ the hooks repository


def _closure(root: str) -> dict[str, metadata.Distribution]:
    """The installed distributions `root` needs at run time (no extras), by normalized name."""
    found: dict[str, metadata.Distribution] = {}
    todo = [root]
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in found:
            continue
        dist = metadata.distribution(name)
        found[key] = dist
        for spec in dist.requires or []:
            requirement = Requirement(spec)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(requirement.name)
    return found


def _repack(dist: metadata.Distribution, directory: Path) -> Path:
    """A wheel of an installed distribution: its files under site-packages and its
    dist-info, with a fresh RECORD (scripts and byte code are left out)."""
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    tags = [line.split(":", 1)[1].strip() for line in (dist.read_text("WHEEL") or "").splitlines() if line.startswith("Tag:")]
    wheel = directory / f"{name}-{dist.version}-{tags[0] if tags else 'py3-none-any'}.whl"
    info = None
    records = []
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_STORED) as archive:
        for file in dist.files or []:
            posix = file.as_posix()
            if posix.startswith("..") or "__pycache__" in file.parts or posix.endswith(".pyc"):
                continue
            if file.parts[0].endswith(".dist-info"):
                info = file.parts[0]
                if file.name in ("RECORD", "INSTALLER", "REQUESTED", "direct_url.json"):
                    continue
            path = Path(dist.locate_file(file))
            if not path.is_file():
                continue
            data = path.read_bytes()
            archive.writestr(posix, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{posix},sha256={digest},{len(data)}")
        assert info is not None, f"{dist.metadata['Name']} has no dist-info"
        records.append(f"{info}/RECORD,,")
        archive.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return wheel


def _run(args, cwd, env, check=False):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"{args} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done


def _git(cwd, env, *args):
    return _run(["git", *args], cwd, env, check=True).stdout.strip()


@pytest.fixture(scope="module")
def hooks(tmp_path_factory):
    """The hooks repository (a committed snapshot of this source tree) and the
    environment every pre-commit and git command runs with."""
    base = tmp_path_factory.mktemp("precommit")
    wheels = base / "wheels"
    wheels.mkdir()
    for key, dist in sorted(_closure("taskplan").items()):
        if key != "taskplan":
            _repack(dist, wheels)

    gitconfig = base / "gitconfig"
    gitconfig.write_text(
        "[user]\n\tname = Scratch\n\temail = scratch@example.com\n"
        "[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n",
        encoding="utf-8",
    )
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PIP_", "GIT_", "PRE_COMMIT", "VIRTUALENV_", "PYTHON"))
    }
    env.update(
        GIT_CONFIG_GLOBAL=str(gitconfig),
        GIT_CONFIG_NOSYSTEM="1",
        PRE_COMMIT_HOME=str(base / "cache"),
        PRE_COMMIT_COLOR="never",
        NO_COLOR="1",
        # The hook environment: dependencies from the wheelhouse only.
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheels),
        PIP_NO_BUILD_ISOLATION="0",  # pip reads "0" as --no-build-isolation: the env's setuptools builds
        VIRTUALENV_SETUPTOOLS="bundle",  # seed setuptools on Python 3.12+ too
        PIP_NO_COMPILE="0",  # likewise: --no-compile
        PIP_DISABLE_PIP_VERSION_CHECK="1",
    )

    repo = base / "taskplan-hooks"
    repo.mkdir()
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(ROOT / name, repo / name)
    shutil.copytree(
        ROOT / "compiler", repo / "compiler", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.pyc")
    )
    _git(repo, env, "init", "-q")
    _git(repo, env, "add", "-A")
    _git(repo, env, "commit", "-q", "-m", "snapshot")
    return SimpleNamespace(repo=repo, rev=_git(repo, env, "rev-parse", "HEAD"), env=env)


# ------------------------------------------------------------------ a scratch repository

COMPILE = """\
import sys
from taskplan import api
from taskplan.workflow.emit import write_atomic

catalogs = api.load_catalog_set(["catalogs/review.catalog.yaml"])
for plan in sys.argv[1:]:
    result = api.compile_plan(plan, catalogs=catalogs, auto=True)
    assert result.yaml is not None, result.diagnostics
    write_atomic(plan.replace(".taskplan.yaml", ".workflow.yaml"), result.yaml)
"""


def _compile(root: Path, *plans: str) -> None:
    """Compile plans as `taskplan compile PLAN --auto -o <stem>.workflow.yaml` does,
    in one process."""
    done = subprocess.run(
        [sys.executable, "-c", COMPILE, *plans], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr


def _commit(repo: SimpleNamespace, message: str):
    _git(repo.root, repo.env, "add", "-A")
    done = _run(["git", "commit", "-m", message], repo.root, repo.env)
    return done.returncode, done.stdout + done.stderr


def _config(hooks, *, write: bool = False) -> str:
    """docs/ci.md's .pre-commit-config.yaml, pointed at the hooks snapshot (and with the
    documented `args: [--write]` for taskplan-compile when `write`)."""
    config = doc_block("yaml", "rev: v0.1.0")
    assert config.count(EXAMPLE_URL) == 1 and config.count("rev: v0.1.0") == 1
    config = config.replace(EXAMPLE_URL, hooks.repo.as_posix()).replace("v0.1.0", hooks.rev)
    if write:
        args = doc_block("yaml", "args: [--write]")
        assert args.startswith("      - id: taskplan-compile\n")
        config = config.replace("      - id: taskplan-compile\n", args)
        assert "args: [--write]" in config
    return config


@pytest.fixture(scope="module")
def repository(tmp_path_factory, hooks):
    """A repository with plans, their compiled workflows, a catalog, [tool.taskplan]
    and taskplan's hooks installed, its first commit made (through the hooks)."""
    root = tmp_path_factory.mktemp("scratch")
    (root / "plans").mkdir(parents=True)
    (root / "catalogs").mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    shutil.copy2(EXAMPLES / "catalog.yaml", root / "catalogs" / "review.catalog.yaml")
    shutil.copy2(EXAMPLES / "pr-review.taskplan.yaml", root / "plans" / "pr-review.taskplan.yaml")
    (root / "plans" / "weekly.taskplan.yaml").write_text(WEEKLY, encoding="utf-8")
    _compile(root, "plans/pr-review.taskplan.yaml", "plans/weekly.taskplan.yaml")
    (root / ".pre-commit-config.yaml").write_text(_config(hooks), encoding="utf-8")
    _git(root, hooks.env, "init", "-q")
    _run([sys.executable, "-m", "pre_commit", "install"], root, hooks.env, check=True)
    repo = SimpleNamespace(root=root, env=hooks.env, hooks=hooks)
    repo.first = _commit(repo, "plans and their workflows")
    return repo


@pytest.fixture
def scratch(repository):
    """The scratch repository, its working tree reset to its last commit."""
    _git(repository.root, repository.env, "reset", "-q", "--hard")
    _git(repository.root, repository.env, "clean", "-q", "-f", "-d")
    return repository


def _head(repo) -> str:
    return _git(repo.root, repo.env, "rev-parse", "HEAD")


# ------------------------------------------------------------------ the tests


def test_a_clean_commit_passes(scratch):
    code, output = scratch.first
    assert code == 0, output
    for name in ("taskplan check", "taskplan validate", r"taskplan compile \(stale workflows\)"):
        assert re.search(name + r"\.+Passed", output), output
    assert _git(scratch.root, scratch.env, "status", "--porcelain") == ""


def test_a_broken_plan_blocks_the_commit_with_a_located_message(scratch):
    head = _head(scratch)
    plan = scratch.root / "plans" / "weekly.taskplan.yaml"
    plan.write_text(WEEKLY.replace("source: title,", "source: titel,"), encoding="utf-8")
    code, output = _commit(scratch, "a typo")
    assert code != 0, output
    assert _head(scratch) == head  # blocked
    assert re.search(r"taskplan check\.+Failed", output), output
    assert "error[TASK_REFERENCE_UNKNOWN]: " in output, output
    assert "--> plans/weekly.taskplan.yaml:11:51" in output, output
    # docs/ci.md shows this very output
    assert doc_block("", "taskplan check....") in output, output


def test_a_stale_workflow_blocks_the_commit_until_it_is_recompiled(scratch):
    head = _head(scratch)
    plan = scratch.root / "plans" / "weekly.taskplan.yaml"
    plan.write_text(WEEKLY.replace("text: Weekly report", "text: Weekly summary"), encoding="utf-8")
    code, output = _commit(scratch, "a new title, workflow not recompiled")
    assert code == 1, output
    assert _head(scratch) == head
    assert re.search(r"taskplan check\.+Passed", output), output
    assert re.search(r"taskplan compile \(stale workflows\)\.+Failed", output), output
    assert "-        text: Weekly report" in output and "+        text: Weekly summary" in output, output
    assert (
        "error: plans/weekly.workflow.yaml is stale: recompile it with "
        "`taskplan compile plans/weekly.taskplan.yaml -o plans/weekly.workflow.yaml` and review the change"
    ) in output, output

    # docs/ci.md shows this output (its diff elided)
    shown = doc_block("", "is stale: recompile it with").splitlines()
    assert "..." in shown
    for line in shown:
        assert line == "..." or line in output.splitlines(), line

    # The documented `args: [--write]`: the hook recompiles the workflow and still fails.
    config = scratch.root / ".pre-commit-config.yaml"
    config.write_text(_config(scratch.hooks, write=True), encoding="utf-8")
    code, output = _commit(scratch, "a new title, workflow not recompiled")
    assert code == 1, output
    assert "fixed: recompiled plans/weekly.workflow.yaml from plans/weekly.taskplan.yaml" in output, output
    assert "Weekly summary" in (scratch.root / "plans" / "weekly.workflow.yaml").read_text(encoding="utf-8")
    assert _head(scratch) == head
    config.write_text(_config(scratch.hooks), encoding="utf-8")
    code, output = _commit(scratch, "a new title")
    assert code == 0, output
    assert _head(scratch) != head


def test_a_hand_edited_workflow_blocks_the_commit(scratch):
    workflow = scratch.root / "plans" / "pr-review.workflow.yaml"
    text = workflow.read_text(encoding="utf-8")
    workflow.write_text(text.replace("entrypoint: main", "entrypoint: mian"), encoding="utf-8")
    code, output = _commit(scratch, "edit the compiled workflow by hand")
    assert code == 1, output
    assert re.search(r"taskplan validate\.+Failed", output), output
    assert "--> plans/pr-review.workflow.yaml:3:" in output, output
    # The workflow stands for its plan: the gate recompiles the plan (with the recorded --auto).
    assert "error: plans/pr-review.workflow.yaml is stale: recompile it with `taskplan compile " in output
    assert "plans/pr-review.taskplan.yaml --auto -o plans/pr-review.workflow.yaml`" in output


def test_try_repo_runs_the_published_hooks(scratch, hooks):
    plan = scratch.root / "plans" / "weekly.taskplan.yaml"
    plan.write_text(WEEKLY.replace("kind: value", "kind: valeu"), encoding="utf-8")
    _git(scratch.root, scratch.env, "add", "-A")
    done = _run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hooks.repo), "--all-files"], scratch.root, scratch.env
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    for hook in ("taskplan-check", "taskplan-compile", "taskplan-validate"):
        assert f"id: {hook}" in output, output  # try-repo lists every published hook
    assert re.search(r"taskplan check\.+Failed", output), output
    assert re.search(r"taskplan validate\.+Passed", output), output
    assert "--> plans/weekly.taskplan.yaml:6:" in output, output


def test_the_documented_local_hooks_are_the_published_ones(scratch):
    """docs/ci.md's `repo: local` form: the published hooks with `language: system`,
    run by `pre-commit run` with the taskplan of this environment on PATH."""
    published = {hook["id"]: hook for hook in _yaml_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))}
    text = doc_block("yaml", "repo: local")
    (repo,) = _yaml_load(text)["repos"]
    assert repo["repo"] == "local" and "rev" not in repo
    assert [hook["id"] for hook in repo["hooks"]] == list(published)
    for hook in repo["hooks"]:
        assert hook["language"] == "system", hook
        for key in ("name", "entry", "files", "require_serial"):
            assert hook[key] == published[hook["id"]][key], (hook["id"], key)

    (scratch.root / ".pre-commit-config.yaml").write_text(text, encoding="utf-8")
    env = dict(scratch.env, PATH=os.pathsep.join([str(Path(sys.executable).parent), scratch.env.get("PATH", "")]))
    done = _run([sys.executable, "-m", "pre_commit", "run", "--all-files"], scratch.root, env)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    for name in ("taskplan check", "taskplan validate", r"taskplan compile \(stale workflows\)"):
        assert re.search(name + r"\.+Passed", output), output

    plan = scratch.root / "plans" / "weekly.taskplan.yaml"
    plan.write_text(WEEKLY.replace("source: title,", "source: titel,"), encoding="utf-8")
    done = _run([sys.executable, "-m", "pre_commit", "run", "--all-files"], scratch.root, env)
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert re.search(r"taskplan check\.+Failed", output), output
    assert "--> plans/weekly.taskplan.yaml:11:51" in output, output


def _yaml_load(text: str):
    from ruamel.yaml import YAML

    return YAML(typ="safe", pure=False).load(text)
