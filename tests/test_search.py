"""`taskplan catalog search` and "did you mean": catalog.md's ranking, exactly."""

from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from taskplan.catalog import load_catalog_text, load_catalogs, suggest
from taskplan.catalog.search import PAGE_SIZE, page, search, similarity, tokens
from taskplan.cli import main
from taskplan.diagnostics import Diagnostics

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "fixtures" / "catalogs"


def run(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("getPullRequest", ["get", "pull", "request"]),
        ("get_pull_request", ["get", "pull", "request"]),
        ("get-pull-request", ["get", "pull", "request"]),
        ("Get Pull Request", ["get", "pull", "request"]),
        ("github.get_pull_request", ["github", "get", "pull", "request"]),
        ("fs/read:file", ["fs", "read", "file"]),
        ("HTTPServerError", ["http", "server", "error"]),
        ("Crème Brûlée", ["creme", "brulee"]),
        ("ＦＵＬＬ width", ["full", "width"]),
        ("STRASSE straße", ["strasse", "strasse"]),
        ("v2Api", ["v2", "api"]),
        ("", []),
        (None, []),
    ],
)
def test_tokens(text, expected):
    assert tokens(text) == expected


CATALOG = """\
version: 1
sources:
  - id: s
    operations:
      - id: s.get_issue
        title: Get an issue
        description: Fetch one issue by number.
        input: {type: object, properties: {number: {type: integer}}}
        output: {type: object, properties: {title: {type: string}, pull_request: {type: boolean}}}
      - id: s.get_pull_request
        description: Fetch one pull request.
        input: {type: object, properties: {number: {type: integer}}}
      - id: s.list_comments
        description: List the comments of an issue or a pull request.
        input: {type: object, properties: {issueNumber: {type: integer}}}
      - id: s.zzz
        description: Nothing in common.
        input: {type: object}
"""


def _catalog(text: str = CATALOG):
    sink = Diagnostics()
    catalog = load_catalog_text(textwrap.dedent(text), "c.yaml", sink)
    assert not sink.sorted(), [d.message for d in sink.sorted()]
    return catalog


def test_ranking_is_exactly_idf_times_weights():
    catalog = _catalog()
    n = 4
    idf = lambda df: math.log(1 + n / df)  # noqa: E731
    hits = {h.operation.id: h for h in search(catalog, "issue")}
    # `issue`: get_issue (name x3, description x1), list_comments (description x1; `issueNumber` field x2)
    df = 2
    assert hits["s.get_issue"].score == pytest.approx(idf(df) * (3 + 1))
    assert hits["s.list_comments"].score == pytest.approx(idf(df) * (2 + 1))
    assert list(hits) == ["s.get_issue", "s.list_comments"]
    # `pull`: get_pull_request (name x3, description x1), get_issue (field `pull_request` x2), list_comments (description)
    hits = search(catalog, "pull")
    assert [h.operation.id for h in hits] == ["s.get_pull_request", "s.get_issue", "s.list_comments"]
    assert hits[0].score == pytest.approx(idf(3) * 4)


def test_query_tokens_count_once_and_unknown_tokens_are_ignored():
    catalog = _catalog()
    a = [(h.operation.id, h.score) for h in search(catalog, "issue")]
    b = [(h.operation.id, h.score) for h in search(catalog, "Issue issue ISSUES-nowhere xyzzy")]
    assert [x for x, _ in a] == [x for x, _ in b][: len(a)]
    assert search(catalog, "xyzzy") == []


def test_ties_are_broken_by_id():
    text = "version: 1\nsources:\n  - id: s\n    operations:\n" + "".join(
        f"      - {{id: s.op{c}, description: same words, input: {{type: object}}}}\n" for c in "dbca"
    )
    hits = search(_catalog(text), "same")
    assert [h.operation.id for h in hits] == ["s.opa", "s.opb", "s.opc", "s.opd"]
    assert len({h.score for h in hits}) == 1


def test_pages_of_eight():
    text = "version: 1\nsources:\n  - id: s\n    operations:\n" + "".join(
        f"      - {{id: s.op{i:02d}, description: word, input: {{type: object}}}}\n" for i in range(19)
    )
    hits = search(_catalog(text), "word")
    assert PAGE_SIZE == 8
    assert [len(page(hits, n)) for n in (1, 2, 3, 4)] == [8, 8, 3, 0]
    assert page(hits, 2)[0].operation.id == "s.op08"


def test_search_real_catalogs():
    sink = Diagnostics()
    catalog = load_catalogs(sorted(CATALOGS.glob("mcp/*.catalog.yaml")) + [CATALOGS / "review.catalog.yaml"], sink)
    top = lambda q: [h.operation.ref for h in search(catalog, q)[:3]]  # noqa: E731
    assert top("read text file")[0] == "filesystem.read_text_file"
    assert top("add issue comment")[0] == "github.add_issue_comment"
    assert "analysis.run_linters" in top("linters findings")
    assert "github.get_pull_request" in top("getPullRequest")


# ----------------------------------------------------------------- suggest


@pytest.mark.parametrize(
    "unknown, first",
    [
        ("s.get_isue", "s.get_issue"),
        ("s.getIssue", "s.get_issue"),
        ("s.get-pull-request", "s.get_pull_request"),
        ("s.get_pull_request@3", "s.get_pull_request"),
        ("issue", "s.get_issue"),
        ("s.list_comment", "s.list_comments"),
    ],
)
def test_suggest(unknown, first):
    assert suggest(_catalog(), unknown)[0] == first


def test_suggest_nothing_close():
    assert suggest(_catalog(), "completely.unrelated_thing") == []


def test_suggest_on_real_catalogs():
    sink = Diagnostics()
    catalog = load_catalogs(sorted(CATALOGS.glob("mcp/*.catalog.yaml")), sink)
    assert suggest(catalog, "filesystem.read_fil")[0] == "filesystem.read_file"
    assert suggest(catalog, "fs.read_text_file")[0] == "filesystem.read_text_file"
    assert suggest(catalog, "github.list_pull_request")[0] == "github.list_pull_requests"
    assert suggest(catalog, "github.create_issue_comment")[0] == "github.add_issue_comment"
    assert len(suggest(catalog, "memory.create_entity", k=5)) <= 5


def test_similarity_bounds():
    assert similarity("a.b", "a.b") == 1.0
    assert 0.0 <= similarity("x", "completely.different") < 0.5


# --------------------------------------------------------------------- CLI


def test_cli_text(tmp_path):
    result = run("catalog", "search", "pull", "request", "metadata", "--catalog", str(CATALOGS / "review.catalog.yaml"))
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("1. github.get_pull_request  [read]  score ")
    assert lines[1] == "   Get a pull request"
    assert lines[-1].startswith("page 1 of ")


def test_cli_json_and_pages():
    args = ["catalog", "search", "github", "--catalog", str(CATALOGS / "review.catalog.yaml"), "--format", "json"]
    first = json.loads(run(*args).stdout)
    second = json.loads(run(*args, "--page", "2").stdout)
    assert first["pageSize"] == 8 and first["page"] == 1 and first["total"] == 11 and first["pages"] == 2
    assert [r["rank"] for r in second["results"]] == [9, 10, 11]
    ids = [r["ref"] for r in first["results"] + second["results"]]
    assert len(set(ids)) == 11
    assert first["results"][0]["file"].endswith("review.catalog.yaml")


def test_cli_no_match_and_page_past_the_end():
    cat = str(CATALOGS / "review.catalog.yaml")
    result = run("catalog", "search", "xyzzy", "--catalog", cat)
    assert result.exit_code == 0 and result.stdout == "no operation matches `xyzzy`\n"
    result = run("catalog", "search", "github", "--catalog", cat, "--page", "9")
    assert result.exit_code == 0 and "no results" in result.stdout


def test_cli_uses_project_configuration(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[tool.taskplan]\ncatalogs = ["c.yaml"]\n', encoding="utf-8")
    (tmp_path / "c.yaml").write_text(textwrap.dedent(CATALOG), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    result = run("catalog", "search", "issue", "--format", "json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["results"][0]["id"] == "s.get_issue"


def test_cli_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text("[tool.other]\n", encoding="utf-8")
    result = run("catalog", "search", "x")
    assert result.exit_code == 2 and "no catalog" in result.stderr
    result = run("catalog", "search", "x", "--catalog", str(tmp_path / "missing.yaml"))
    assert result.exit_code == 2 and "cannot read" in result.stderr
    (tmp_path / "bad.yaml").write_text("version: 1\nsources:\n  - id: s\n    operations:\n      - {id: s.x, input: {type: strin}}\n      - {id: s.y, input: {type: object}}\n", encoding="utf-8")
    result = run("catalog", "search", "y", "--catalog", str(tmp_path / "bad.yaml"), "--color", "never")
    assert result.exit_code == 1
    assert "CATALOG_SCHEMA_INVALID" in result.stderr and "s.y" in result.stdout
    (tmp_path / "pyproject.toml").write_text("[tool.taskplan]\ncatalgs = []\n", encoding="utf-8")
    result = run("catalog", "search", "x", "--catalog", str(tmp_path / "bad.yaml"), "--color", "never")
    assert result.exit_code == 1 and "CONFIG_INVALID" in result.stderr
