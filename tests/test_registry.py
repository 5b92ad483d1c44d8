"""The code registry: complete entries, the spec's codes all registered, examples that
really produce their code, and docs/diagnostics.md in step with it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from taskplan.api import CHECK_PASSES, check_plan, compile_plan, load_catalog_set
from taskplan.diagnostics import Severity
from taskplan.diagnostics.docs import FAMILY_ORDER, OWNERS, generate
from taskplan.diagnostics.docs import main as docs_main
from taskplan.diagnostics.registry import REGISTRY
from taskplan.passes.validate import validate_text

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT.parent / "shared" / "spec" / "diagnostics.md"
CODE = re.compile(r"^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$")


def _spec_codes() -> dict[str, str]:
    """code -> family, from the spec's table of codes."""
    codes: dict[str, str] = {}
    for line in SPEC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 2 and "`" in cells[1]:
            for code in re.findall(r"`([A-Z0-9_]+)`", cells[1]):
                codes[code] = cells[0]
    return codes


@pytest.mark.parametrize("code", sorted(REGISTRY))
def test_every_code_is_complete(code):
    info = REGISTRY[code]
    assert info.code == code
    assert CODE.match(code), "codes are SCREAMING_SNAKE"
    assert info.title.strip(), "a title"
    assert info.explanation.strip(), "an explanation"
    assert info.owner in OWNERS, f"an owner among {sorted(OWNERS)}"
    assert info.family in FAMILY_ORDER, f"a family among {FAMILY_ORDER}"
    assert isinstance(info.severity, Severity)


def test_every_code_of_the_spec_is_registered():
    if not SPEC.is_file():
        pytest.skip(f"the shared spec is not beside this checkout ({SPEC})")
    spec = _spec_codes()
    assert len(spec) > 50, "the spec's code table was not found"
    missing = sorted(set(spec) - set(REGISTRY))
    assert not missing, f"codes in the spec but not registered: {missing}"
    wrong_family = sorted(c for c, family in spec.items() if REGISTRY[c].family != family)
    assert not wrong_family, f"codes registered under another family than the spec's: {wrong_family}"


EXAMPLE_RUNNERS = set(CHECK_PASSES) | {"catalog", "validate"}
"""Owners whose examples can be run: plans through check (and compile), catalogs through
the catalog loader, workflows through the validate pass. (config: its own test.)"""

COMPILE_ONLY = {"CHOICE_REQUIRED"}
"""Codes that only a compile reports (check checks every alternative of a choice)."""

WITH_EXAMPLES = sorted(c for c, i in REGISTRY.items() if i.owner in EXAMPLE_RUNNERS and i.wrong)


def _run_example(code: str, text: str, name: str, tmp_path: Path, *, right: bool = False) -> list:
    """The diagnostics of one example document of `code`; a right plan is compiled too."""
    info = REGISTRY[code]
    if info.owner == "catalog":
        path = tmp_path / f"{name}.catalog.yaml"
        path.write_text(text, encoding="utf-8")
        return load_catalog_set([path]).diagnostics
    if info.owner == "validate":
        return validate_text(text.encode("utf-8"), f"{name}.workflow.yaml").diagnostics
    catalogs = []
    if info.catalog:
        catalogs = [tmp_path / "example.catalog.yaml"]
        catalogs[0].write_text(info.catalog, encoding="utf-8")
    data = text.encode("utf-8")
    if right or code in COMPILE_ONLY:
        compiled = compile_plan(f"{name}.taskplan.yaml", text=data, catalogs=catalogs, auto=right)
        if right:
            assert compiled.yaml is not None or compiled.errors, "a clean plan compiles to a workflow"
        return compiled.diagnostics
    return check_plan(f"{name}.taskplan.yaml", text=data, catalogs=catalogs).diagnostics


@pytest.mark.parametrize("code", WITH_EXAMPLES)
def test_wrong_example_produces_its_code_and_right_one_is_clean(code, tmp_path):
    """For codes with an example whose pass exists: the wrong document produces the code;
    the right one has no error (a right plan compiles)."""
    info = REGISTRY[code]
    wrong = _run_example(code, info.wrong, "wrong", tmp_path)
    assert code in {d.code for d in wrong}, [f"{d.code}: {d.message}" for d in wrong]
    if info.right:
        right = _run_example(code, info.right, "right", tmp_path, right=True)
        assert not [d for d in right if d.is_error], [f"{d.code}: {d.message}" for d in right]


def test_docs_are_generated_from_the_registry():
    path = ROOT / "docs" / "diagnostics.md"
    committed = path.read_text(encoding="utf-8") if path.is_file() else ""
    assert committed == generate(), "docs/diagnostics.md is stale: run python -m taskplan.diagnostics.docs"


def test_docs_have_a_section_per_code():
    text = generate()
    for code, info in REGISTRY.items():
        assert f"\n### {code}\n" in text
        if info.wrong:
            assert info.wrong.strip() in text


def test_the_docs_command_writes_and_checks(tmp_path, capsys):
    target = tmp_path / "d.md"
    assert docs_main(["--check", "-o", str(target)]) == 1  # missing: stale
    assert docs_main(["-o", str(target)]) == 0
    assert target.read_text(encoding="utf-8") == generate()
    assert docs_main(["--check", "-o", str(target)]) == 0
    target.write_text(generate() + "edited\n", encoding="utf-8")
    assert docs_main(["--check", "-o", str(target)]) == 1
