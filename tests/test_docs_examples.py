"""Every example in docs/language.md is exercised.

Each fenced ```yaml or ```json block in the page must be preceded by an HTML
comment that says what it is (the comment does not show when rendered):

- `<!-- example: plan [name=NAME] [catalog=PATH] -->`: a complete plan that
  checks clean (with the catalog, relative to the repository), and, when named,
  compiles clean (`--auto`);
- `<!-- example: plan same-as=NAME -->`: a complete plan that compiles to the
  same bytes as the plan NAME (the wire form);
- `<!-- example: error CODE [catalog=PATH] -->`: a complete plan whose
  diagnostics are all CODE (at least one);
- `<!-- example: compiled from=NAME -->`: an excerpt of the workflow that plan
  NAME compiles to; every mapping in it is a subset of the real one, steps are
  matched by `id` (and appear in the same order), other lists match item by item;
- `<!-- example: fragment -->`: a piece of syntax, not a whole plan: it must be
  valid YAML.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from taskplan import api

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "docs" / "language.md"]

_BLOCK = re.compile(
    r"(?:<!--\s*example:\s*(?P<tag>[^>]*?)\s*-->\s*\n)?```(?P<lang>yaml|json)[^\n]*\n(?P<body>.*?)^```",
    re.S | re.M,
)


@dataclass
class Example:
    page: str
    line: int
    lang: str
    body: str
    kind: str
    attrs: dict[str, str] = field(default_factory=dict)
    codes: list[str] = field(default_factory=list)

    @property
    def ident(self) -> str:
        return f"{self.page}:{self.line}:{self.kind}" + (f":{self.attrs['name']}" if "name" in self.attrs else "")


def _parse_tag(tag: str) -> tuple[str, dict[str, str], list[str]]:
    words = tag.split()
    kind, rest = words[0], words[1:]
    attrs = dict(w.split("=", 1) for w in rest if "=" in w)
    codes = [w for w in rest if "=" not in w]
    return kind, attrs, codes


def _examples() -> list[Example]:
    out: list[Example] = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for m in _BLOCK.finditer(text):
            line = text.count("\n", 0, m.start("body"))
            tag = m.group("tag")
            if tag is None:
                out.append(Example(page.name, line, m.group("lang"), m.group("body"), "untagged"))
                continue
            kind, attrs, codes = _parse_tag(tag)
            out.append(Example(page.name, line, m.group("lang"), m.group("body"), kind, attrs, codes))
    return out


EXAMPLES = _examples()
NAMED = {e.attrs["name"]: e for e in EXAMPLES if e.kind == "plan" and "name" in e.attrs}


def _by_kind(*kinds: str) -> list:
    return [pytest.param(e, id=e.ident) for e in EXAMPLES if e.kind in kinds]


def _path(example: Example) -> str:
    return f"example.taskplan.{'json' if example.lang == 'json' else 'yaml'}"


def _catalogs(example: Example) -> list[str]:
    return [str(ROOT / example.attrs["catalog"])] if "catalog" in example.attrs else []


def _show(result) -> list[tuple[str, str, str]]:
    return [(d.code, d.location.pointer, d.message) for d in result.diagnostics]


@lru_cache(maxsize=None)
def _compiled(name: str) -> api.CompileResult:
    example = NAMED[name]
    return api.compile_plan(
        _path(example), catalogs=_catalogs(example), auto=True, text=example.body.encode("utf-8")
    )


def test_the_page_has_examples_of_every_kind():
    kinds = {e.kind for e in EXAMPLES}
    assert {"plan", "error", "compiled", "fragment"} <= kinds
    assert len(EXAMPLES) >= 40


def test_every_block_says_what_it_is():
    untagged = [e.ident for e in EXAMPLES if e.kind == "untagged"]
    assert not untagged, f"fenced yaml/json blocks without an <!-- example: ... --> comment: {untagged}"
    unknown = [e.ident for e in EXAMPLES if e.kind not in ("plan", "error", "compiled", "fragment")]
    assert not unknown


def test_names_are_unique():
    names = [e.attrs["name"] for e in EXAMPLES if "name" in e.attrs]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("example", _by_kind("plan"))
def test_plan_examples_check_clean(example: Example):
    result = api.check_plan(_path(example), catalogs=_catalogs(example), text=example.body.encode("utf-8"))
    assert result.diagnostics == [] and result.ok, _show(result)
    if "name" in example.attrs:
        compiled = _compiled(example.attrs["name"])
        assert compiled.yaml is not None and compiled.exit_code == 0, _show(compiled)
    if "same-as" in example.attrs:
        other = _compiled(example.attrs["same-as"])
        mine = api.compile_plan(
            _path(NAMED[example.attrs["same-as"]]),  # the same display path: the same bytes expected
            catalogs=_catalogs(example), auto=True, text=example.body.encode("utf-8"),
        )
        assert mine.yaml is not None, _show(mine)
        # Only the source digest (of the bytes written) may differ.
        strip = lambda text: re.sub(r"digest: sha256:[0-9a-f]+", "digest: -", text)  # noqa: E731
        assert strip(mine.yaml) == strip(other.yaml)


@pytest.mark.parametrize("example", _by_kind("error"))
def test_error_examples_produce_their_code(example: Example):
    assert example.codes, f"{example.ident}: name the expected code"
    result = api.check_plan(_path(example), catalogs=_catalogs(example), text=example.body.encode("utf-8"))
    codes = sorted({d.code for d in result.diagnostics})
    assert codes == sorted(set(example.codes)), _show(result)


@pytest.mark.parametrize("example", _by_kind("fragment"))
def test_fragments_are_yaml(example: Example):
    YAML(typ="safe").load(example.body)


@pytest.mark.parametrize("example", _by_kind("compiled"))
def test_compiled_excerpts_match_the_compiler(example: Example):
    name = example.attrs.get("from")
    assert name in NAMED, f"{example.ident}: from= names no plan example"
    result = _compiled(name)
    assert result.yaml is not None, _show(result)
    actual = YAML(typ="safe").load(result.yaml)
    excerpt = YAML(typ="safe").load(example.body)
    problems: list[str] = []
    _subset(excerpt, actual, "", problems)
    assert not problems, "\n".join(problems[:10])


def _subset(part, whole, where: str, problems: list[str]) -> None:
    if isinstance(part, dict):
        if not isinstance(whole, dict):
            problems.append(f"{where or '/'}: expected a mapping, the compiler emits {json.dumps(whole)[:80]}")
            return
        for key, value in part.items():
            if key not in whole:
                problems.append(f"{where}/{key}: not in the compiled workflow")
            elif key in ("steps", "finally") and isinstance(value, list):
                _steps(value, whole[key], f"{where}/{key}", problems)
            else:
                _subset(value, whole[key], f"{where}/{key}", problems)
    elif isinstance(part, list):
        if not isinstance(whole, list) or len(part) != len(whole):
            problems.append(f"{where}: expected {json.dumps(part)[:80]}, the compiler emits {json.dumps(whole)[:80]}")
            return
        for i, (p, w) in enumerate(zip(part, whole)):
            _subset(p, w, f"{where}/{i}", problems)
    elif part != whole:
        problems.append(f"{where}: expected {part!r}, the compiler emits {whole!r}")


def _steps(part: list, whole: list, where: str, problems: list[str]) -> None:
    ids = [s.get("id") for s in whole]
    last = -1
    for step in part:
        sid = step.get("id")
        if sid not in ids:
            problems.append(f"{where}: no step `{sid}` (the compiler emits {ids})")
            continue
        at = ids.index(sid)
        if at < last:
            problems.append(f"{where}: step `{sid}` comes earlier in the compiled workflow")
        last = at
        _subset(step, whole[at], f"{where}/{sid}", problems)
