"""`taskplan graph`: golden drawings of the bundled example (Mermaid and dot), the
structure of every drawing (each step a node, each data reference an edge, each
call an edge into the called cluster, cleanup edges dashed with their guard),
escaping of hostile labels, the command, and the picture in the docs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from ruamel.yaml import YAML
from syrupy.extensions.single_file import SingleFileSnapshotExtension, WriteMode

from taskplan import api
from taskplan.cli import main
from taskplan.ir.graph import Expr, PlanningGraph
from taskplan.render import graph as draw
from taskplan.workflow import expr as expr_lang

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = "examples/pr-review.taskplan.yaml"
CATALOG = "examples/catalog.yaml"
IMAGE = ROOT / "docs" / "images" / "pr-review.graph.svg"


class MermaidSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "mmd"


class DotSnapshot(SingleFileSnapshotExtension):
    _write_mode = WriteMode.TEXT
    file_extension = "dot"


@pytest.fixture(autouse=True)
def _in_root(monkeypatch):
    monkeypatch.chdir(ROOT)


def _cases() -> list[tuple[str, str, list[str], dict]]:
    cases = [("pr-review-example", EXAMPLE, [CATALOG], {})]
    manifest = ROOT / "fixtures" / "valid" / "manifest.yaml"
    if manifest.exists():
        data = YAML(typ="safe").load(manifest.read_text(encoding="utf-8")) or {}
        for case in data.get("cases") or []:
            plan = f"fixtures/valid/{case['plan']}"
            catalogs = [f"fixtures/catalogs/{c}" for c in case.get("catalogs") or []]
            cases.append((Path(case["plan"]).name.split(".")[0], plan, catalogs, dict(case.get("choose") or {})))
    return cases


CASES = _cases()


@lru_cache(maxsize=None)
def _graph(name: str) -> PlanningGraph:
    _, plan, catalogs, choose = next(c for c in CASES if c[0] == name)
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = api.compile_plan(plan, catalogs=catalogs, choose=choose, auto=True)
    finally:
        os.chdir(cwd)
    assert result.graph is not None, [(d.code, d.message) for d in result.diagnostics]
    assert result.graph.check() == []  # compile leaves it to the tests
    return result.graph


# ------------------------------------------------------------------- golden


def test_example_mermaid_matches_golden(snapshot):
    assert draw.render(_graph("pr-review-example"), "mermaid") == snapshot.use_extension(MermaidSnapshot)


def test_example_dot_matches_golden(snapshot):
    assert draw.render(_graph("pr-review-example"), "dot") == snapshot.use_extension(DotSnapshot)


# ---------------------------------------------------------------- structure


def _walk(value):
    if isinstance(value, Expr):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_every_step_is_a_node_and_every_reference_an_edge(name):
    graph = _graph(name)
    pic = draw.picture(graph)
    keys = pic.node_keys()
    assert len(keys) == len(set(keys)), "node keys are unique"
    nodes = {n.key: n for c in pic.clusters for n in c.nodes}
    assert [c.workflow for c in pic.clusters] == list(graph.workflows)
    edges = {(e.source, e.target): e for e in pic.edges if e.kind != draw.CALL}
    calls = {(e.source, e.cluster): e for e in pic.edges if e.kind == draw.CALL}
    expected_edges: set[tuple[str, str]] = set()

    for wf in graph.workflows.values():
        entry = draw.inputs_key(wf.name)
        assert nodes[entry].kind == draw.INPUTS

        def producer(ref):
            if ref.root == "steps":
                return draw.step_key(wf.name, ref.name)
            return entry  # inputs, item, index: what the workflow is given

        readers = [(s, "finally" if s in wf.finally_ else "steps") for s in wf.steps + wf.finally_]
        for step, section in readers:
            key = draw.step_key(wf.name, step.id)
            node = nodes[key]
            assert node.section == section
            assert node.kind == (draw.HELPER if step.id.startswith("__") else draw.BUSINESS)
            assert node.lines == [step.id, step.type]
            exprs = list(_walk(step.fields)) + ([step.when] if step.when is not None else [])
            for e in exprs:
                parsed = expr_lang.parse(e.text)
                assert parsed.ok, e.text
                for ref in parsed.refs:
                    edge = edges.get((producer(ref), key))
                    assert edge is not None, f"{wf.name}: {e.text} read by {step.id} has no edge"
                    expected_edges.add((producer(ref), key))
                    assert edge.kind == (draw.CLEANUP if section == "finally" else draw.DATA)
                    if ref.root == "steps" and not ref.in_present:
                        path = draw._segments(ref.segments)
                        assert path in edge.reads
            if section == "finally" and step.when is not None:
                for ref in expr_lang.parse(step.when.text).refs:
                    if ref.in_present:
                        guard = f"present({draw._segments(ref.segments)})" if ref.segments else "present"
                        assert guard in edges[(producer(ref), key)].guards
            for target, _ in draw._calls(step):
                assert (key, target) in calls, f"{step.id} calls {target}: no edge"
                assert calls[(key, target)].target == draw.inputs_key(target)
        for out in wf.outputs.values():
            for ref in expr_lang.parse(out.expr.text).refs:
                assert (producer(ref), draw.outputs_key(wf.name)) in edges
                expected_edges.add((producer(ref), draw.outputs_key(wf.name)))
    # ... and no data edge that no reference explains.
    assert set(edges) == expected_edges

    # The renderings carry every node and every edge.
    dot = draw.to_dot(pic)
    for key in keys:
        assert draw.dot_string(key) + " [label=" in dot
    assert dot.count(" -> ") == len(pic.edges) + len(pic.layout_links())
    assert dot.count("[style=invis]") == len(pic.layout_links())
    mermaid = draw.to_mermaid(pic)
    assert len(re.findall(r"^\s+w\d+n\d+[\[(]", mermaid, re.M)) == len(keys)
    assert len(re.findall(r" (?:-->|-\.->|==>)", mermaid)) == len(pic.edges)


def test_the_example_shows_its_constructs():
    pic = draw.picture(_graph("pr-review-example"))
    edges = {(e.source, e.target): e for e in pic.edges}
    # data edges carry the paths they read
    assert edges[("main/fetch_pr", "main/__review_files.validate")].reads == ["result.files"]
    assert edges[("main/@inputs", "main/fetch_pr")].reads == ["owner", "repo", "pull_number"]
    # the loop calls its body; the switch its two branches
    assert edges[("main/review_files", "review_files.body/@inputs")].label == "each item, parallel (max 8)"
    assert edges[("main/post_review", "post_review.body/@inputs")].label == "when true"
    assert edges[("main/post_review", "post_review.otherwise/@inputs")].label == "otherwise"
    # the cleanup edge is dashed and guarded
    cleanup = edges[("main/scratch", "main/drop_scratch")]
    assert cleanup.kind == draw.CLEANUP and cleanup.lines() == ["result.handle", "when present"]
    assert 'style=dashed' in draw.to_dot(pic).split('"main/scratch" -> "main/drop_scratch"')[1].split("\n")[0]
    assert "w1n2 -.->" in draw.to_mermaid(pic)
    # the foreach body reads the item
    assert edges[("review_files.body/@inputs", "review_files.body/__review_file.in.path.project")].reads == ["item"]


def test_output_is_deterministic_across_hash_seeds():
    outputs = set()
    for seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        run = subprocess.run(
            [sys.executable, "-m", "taskplan", "graph", EXAMPLE, "--catalog", CATALOG, "--auto", "--format", "dot"],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )
        assert run.returncode == 0, run.stderr
        outputs.add(run.stdout)
    assert len(outputs) == 1


# ----------------------------------------------------------------- escaping

HOSTILE = ['say "hi" | #1 <b>&amp;', "back\\slash\\l", "new\nline", "pct %% `tick` {x} [y]", "é ü 漢"]


def _hostile_catalog() -> dict:
    props = {name: {"type": "string"} for name in HOSTILE}
    return {
        "version": 1,
        "sources": [
            {
                "id": "odd",
                "operations": [
                    {
                        "id": "odd.read",
                        "title": "Read odd names",
                        "description": "Returns fields with hostile names.",
                        "executor": "operation.call",
                        "effect": "read",
                        "input": {"type": "object", "properties": {}},
                        "output": {"type": "object", "properties": props, "required": list(props)},
                    }
                ],
            }
        ],
    }


def _hostile_plan() -> dict:
    return {
        "version": 1,
        "name": "odd",
        "root": {
            "tasks": [
                {"id": "r", "objective": "Read", "operation": "odd.read"},
                {
                    "id": "v",
                    "kind": "value",
                    "objective": "Copy",
                    "outputs": [
                        {"name": f"o{i}", "value": {"kind": "output", "source": "r", "port": n}}
                        for i, n in enumerate(HOSTILE)
                    ],
                },
            ]
        },
    }


@pytest.fixture
def hostile(tmp_path) -> PlanningGraph:
    (tmp_path / "odd.catalog.json").write_text(json.dumps(_hostile_catalog()), encoding="utf-8")
    (tmp_path / "odd.taskplan.json").write_text(json.dumps(_hostile_plan()), encoding="utf-8")
    result = api.compile_plan(tmp_path / "odd.taskplan.json", catalogs=[tmp_path / "odd.catalog.json"])
    assert result.graph is not None, [(d.code, d.message) for d in result.diagnostics]
    return result.graph


_DOT_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"', re.S)


def _dot_unescape(body: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), body)


def test_dot_labels_are_escaped(hostile):
    dot = draw.render(hostile, "dot")
    # Outside the quoted strings there is only the syntax the renderer writes.
    outside = _DOT_STRING.sub('""', dot)
    assert '"' not in outside.replace('""', "")
    assert set(outside) <= set('digraph{}[]=;,->. \n_0123456789#"()' + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    labels = "\n".join(_dot_unescape(m) for m in _DOT_STRING.findall(dot))
    for name in HOSTILE:
        assert f"[{expr_lang.string_literal(name)}]" in labels, name


def test_mermaid_labels_are_escaped(hostile):
    mermaid = draw.render(hostile, "mermaid")
    decoded = []
    for line in mermaid.splitlines():
        assert line.count('"') % 2 == 0, line  # a label never swallows the rest of a line
        for label in re.findall(r'"([^"]*)"', line):
            raw = label.replace("<br/>", "")
            assert not set(raw) & set("<>|`\\{}[]%"), label
            assert "#" not in re.sub(r"#\d+;", "", raw), label
            decoded.append(re.sub(r"#(\d+);", lambda m: chr(int(m.group(1))), raw))
    text = "\n".join(decoded)
    for name in HOSTILE:
        assert f"[{expr_lang.string_literal(name)}]" in text, name


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_graphviz_accepts_the_drawings(hostile):
    for graph in (_graph("pr-review-example"), hostile):
        run = subprocess.run(["dot", "-Tsvg"], input=draw.render(graph, "dot"), capture_output=True, text=True)
        assert run.returncode == 0 and not run.stderr, run.stderr


def test_escaping_functions():
    assert draw.dot_string('a"b\\c\nd') == '"a\\"b\\\\c\\\\x0ad"'
    assert draw.mermaid_text('a"b|c#d<e>`f\ng') == "a#34;b#124;c#35;d#60;e#62;#96;f#10;g"
    assert draw.mermaid_text("plain_name-1.x é漢") == "plain_name-1.x é漢"


# ------------------------------------------------------------------ command


def test_graph_command_writes_mermaid_by_default():
    result = CliRunner().invoke(main, ["graph", EXAMPLE, "--catalog", CATALOG, "--auto"])
    assert result.exit_code == 0, result.output
    assert result.stdout == draw.render(_graph("pr-review-example"), "mermaid")


def test_graph_command_writes_a_file(tmp_path):
    out = tmp_path / "g.dot"
    result = CliRunner().invoke(main, ["graph", EXAMPLE, "--catalog", CATALOG, "--choose", "tone=friendly",
                                       "--format", "dot", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert out.read_text(encoding="utf-8") == draw.render(_graph("pr-review-example"), "dot")
    assert f"ok: drew {out}" in result.stdout


def test_graph_of_a_broken_plan_reports_and_draws_nothing(tmp_path):
    plan = tmp_path / "broken.taskplan.yaml"
    plan.write_text(
        (ROOT / EXAMPLE).read_text(encoding="utf-8").replace("operation: workspace.create", "operation: nope"),
        encoding="utf-8",
    )
    out = tmp_path / "g.mmd"
    result = CliRunner().invoke(main, ["graph", str(plan), "--catalog", CATALOG, "--auto", "-o", str(out)])
    assert result.exit_code == 1
    assert "error[TASK_OPERATION_UNKNOWN]" in result.stderr
    assert "Traceback" not in result.output
    assert not out.exists()


def test_graph_needs_a_choice_or_auto():
    result = CliRunner().invoke(main, ["graph", EXAMPLE, "--catalog", CATALOG])
    assert result.exit_code == 1
    assert "CHOICE_REQUIRED" in result.stderr


@pytest.mark.parametrize(
    "args, code",
    [
        (["--format", "png"], 2),
        (["--choose", "tone"], 2),
        (["--choose", "tone=loud"], 2),
        (["--choose", "colour=red"], 2),
    ],
)
def test_graph_usage_errors(args, code):
    result = CliRunner().invoke(main, ["graph", EXAMPLE, "--catalog", CATALOG, *args])
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output


def test_graph_of_a_missing_plan():
    result = CliRunner().invoke(main, ["graph", "no/such.taskplan.yaml", "--catalog", CATALOG])
    assert result.exit_code == 2
    assert "cannot read no/such.taskplan.yaml" in result.stderr


# --------------------------------------------------------------------- docs


def test_the_picture_in_the_docs_shows_the_current_graph():
    """docs/images/pr-review.graph.svg is `dot -Tsvg` of the example's drawing: every
    node and every edge of today's picture is in it (regenerate it as the docs say)."""
    svg = IMAGE.read_text(encoding="utf-8")
    titles = set(re.findall(r"<title>(.*?)</title>", svg))
    import html

    titles = {html.unescape(t) for t in titles}
    pic = draw.picture(_graph("pr-review-example"))
    for key in pic.node_keys():
        assert key in titles, key
    for edge in pic.edges:
        assert f"{edge.source}&#45;&gt;{edge.target}" in svg or f"{edge.source}->{edge.target}" in titles
