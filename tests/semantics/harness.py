"""The comparison: a plan run by the interpreter, its compiled workflow run by the
executor, on the same inputs and the same stub configuration; their observable
traces must agree."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from .common import OracleBug, canonical_json, digest, equal, load_text
from .executor import execute
from .interpreter import Outcome, interpret
from .stubs import CatalogIndex, StubConfig, Stubs

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Case:
    name: str
    text: bytes
    display: str                    # ends in .json or .yaml: how the text is read
    catalogs: tuple[str, ...] = ()  # relative to ROOT
    inputs: dict | None = None      # given inputs (else generated from the plan's types)


@dataclass
class Compiled:
    case: Case
    plan: dict
    workflow: dict
    catalog: CatalogIndex
    yaml: str


def compile_case(case: Case) -> Compiled:
    from taskplan.api import compile_plan

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = compile_plan(case.display, catalogs=list(case.catalogs), text=case.text, auto=True)
    finally:
        os.chdir(cwd)
    if result.yaml is None:
        raise OracleBug(f"{case.name} does not compile: "
                        + "; ".join(f"{d.code} {d.location.pointer}: {d.message}" for d in result.diagnostics))
    plan = load_text(case.text, json_text=case.display.endswith(".json"))
    return Compiled(case, plan, load_text(result.yaml), CatalogIndex.from_paths([ROOT / c for c in case.catalogs]),
                    result.yaml)


# ------------------------------------------------------------------ inputs


_LONG_INPUT = "an \"input\" ${data.inputs.x} {{ objective }} line\nbreak caf\u00e9 "


def value_of_type(t: dict, seed: Any, sparse: bool, edge: str = "none") -> Any:
    """A value of a TaskType: full (every optional field, nothing null) or sparse
    (nullable slots null, optional object fields left out by hash); at an edge, `low`
    (empty strings and arrays, 0, false, the first enum value) or `high` (long strings
    with quotes, `${`, `{{ }}` and line breaks, 2^53-1, 5 items, the last enum value)."""
    kind = t.get("kind") or "any"
    h = digest(seed, sparse)
    if t.get("nullable") and sparse:
        return None
    if kind == "string":
        if t.get("enum"):
            if edge != "none":
                return t["enum"][0 if edge == "low" else -1]
            return t["enum"][h % len(t["enum"])]
        if edge == "low":
            return ""
        if edge == "high":
            return _LONG_INPUT * 3
        return f"in-{h % 16**6:06x}"
    if kind == "integer":
        return {"low": 0, "high": 2**53 - 1}.get(edge, h % 50)
    if kind == "number":
        return {"low": 0, "high": 1.5e300}.get(edge, (h % 400) / 8)
    if kind == "boolean":
        return {"low": False, "high": True}.get(edge, bool(h % 2))
    if kind == "array":
        n = {"low": 0, "high": 5}.get(edge, (h % 4) if sparse else 2)
        return [value_of_type(t["items"], [seed, i], sparse, edge) for i in range(n)]
    if kind == "object":
        out = {}
        for f in t.get("fields") or []:
            if sparse and f.get("required") is False and digest(seed, f["name"]) % 2:
                continue
            out[f["name"]] = value_of_type(f["type"], [seed, f["name"]], sparse, edge)
        return out
    return {"opaque": f"in-{h % 16**6:06x}"}


def plan_inputs(plan: dict, sparse: bool, salt: str, edge: str = "none") -> dict:
    out = {}
    for decl in plan.get("inputs") or []:
        optional = decl.get("required") is False
        if sparse and optional:
            continue  # its default applies
        out[decl["name"]] = value_of_type(decl["type"], [salt, decl["name"]], sparse, edge)
    return out


# ------------------------------------------------------------------ comparing


def _mappings(tree: Any) -> Iterator[dict]:
    """Every mapping in a JSON tree (any order)."""
    stack = [tree]
    while stack:
        n = stack.pop()
        if isinstance(n, dict):
            yield n
            stack.extend(n.values())
        elif isinstance(n, list):
            stack.extend(n)


def concurrent(plan: dict) -> bool:
    """Whether the plan has a construct whose order the spec leaves open."""
    return any((n.get("kind") == "parallel" and "branches" in n) or (n.get("kind") == "foreach" and n.get("parallel") is True)
               for n in _mappings(plan))


def differences(plan_side: Outcome, wf_side: Outcome, ordered: bool, tolerate: frozenset = frozenset()) -> list[str]:
    out = []
    for side, outcome in (("plan", plan_side), ("workflow", wf_side)):
        problems = [p for p in outcome.unsound if not any(f"[{known}]" in p for known in tolerate)]
        for problem in problems[:2]:
            out.append(f"typing ({side}'s run): a request that does not fit its port: {problem}")
    if plan_side.ok != wf_side.ok:
        out.append(f"success: plan {plan_side.ok} ({plan_side.error}), workflow {wf_side.ok} ({wf_side.error})")
    elif plan_side.ok and not equal(plan_side.outputs, wf_side.outputs):
        out.append(f"outputs: plan {canonical_json(plan_side.outputs)}\n   workflow {canonical_json(wf_side.outputs)}")
    for what, a, b in (("calls", plan_side.calls, wf_side.calls), ("cleanup", plan_side.cleanups, wf_side.cleanups)):
        if Counter(a) != Counter(b):
            extra_plan = list((Counter(a) - Counter(b)).elements())
            extra_wf = list((Counter(b) - Counter(a)).elements())
            out.append(f"{what}: only in the plan's run {extra_plan[:4]}, only in the workflow's {extra_wf[:4]}")
        elif ordered and a != b:
            first = next(i for i, (x, y) in enumerate(zip(a, b)) if x != y)
            out.append(f"{what} order: at #{first} the plan's run has {a[first]}, the workflow's {b[first]}")
    return out


@dataclass
class Scenario:
    config: StubConfig
    sparse: bool = False
    inputs_edge: str = "none"
    """The generated inputs at an edge (value_of_type): `none`, `low`, `high`."""

    def label(self) -> str:
        return (self.config.label() + (",sparse-inputs" if self.sparse else "")
                + (f",inputs={self.inputs_edge}" if self.inputs_edge != "none" else ""))


@dataclass
class Report:
    case: str
    scenario: str
    diffs: list[str]
    plan_side: Outcome | None = None
    wf_side: Outcome | None = None


KNOWN: frozenset[str] = frozenset()
"""The open findings (tests/test_semantics.py, each pinned by an xfail test) on which the
broad comparisons take the compiler's reading: each would otherwise fail them all again.
None is open (the four found are fixed); a problem tagged with a fixed finding's name
(soundness.OPEN_INTO_CLOSED) is then a regression, reported like any other."""


def run_pair(compiled: Compiled, scenario: Scenario, workflow: dict | None = None, tolerate: frozenset = KNOWN) -> Report:
    case = compiled.case
    inputs = case.inputs if case.inputs is not None else plan_inputs(compiled.plan, scenario.sparse, scenario.config.salt,
                                                                               scenario.inputs_edge)
    a = interpret(compiled.plan, compiled.catalog, Stubs(compiled.catalog, scenario.config), inputs, tolerate)
    b = execute(workflow or compiled.workflow, compiled.catalog, Stubs(compiled.catalog, scenario.config), inputs,
                compiled.plan)
    return Report(case.name, scenario.label(), differences(a, b, not concurrent(compiled.plan), tolerate), a, b)


def scenarios(compiled: Compiled, max_failures: int = 8, max_picks: int = 3) -> list[Scenario]:
    base = [
        Scenario(StubConfig(salt="a")),
        Scenario(StubConfig(salt="b", nulls="mixed", omit_optional="mixed"), sparse=True),
        Scenario(StubConfig(salt="c", nulls="all", omit_optional="all"), sparse=True),
        Scenario(StubConfig(salt="d", nulls="all"), sparse=False),
        Scenario(StubConfig(salt="e"), sparse=True),
    ]
    probe = interpret(compiled.plan, compiled.catalog, Stubs(compiled.catalog, StubConfig(salt="a")),
                      compiled.case.inputs if compiled.case.inputs is not None
                      else plan_inputs(compiled.plan, False, "a"), KNOWN)
    counts = Counter(c[1] for c in probe.calls if c[0] == "op")
    failing = []
    for key, n in counts.items():
        failing.append(Scenario(StubConfig(salt="a", fail_op=key, fail_at=1)))
        if n > 1:
            failing.append(Scenario(StubConfig(salt="a", fail_op=key, fail_at=n)))
    llm = sum(1 for c in probe.calls if c[0] == "llm")
    if llm:
        failing.append(Scenario(StubConfig(salt="a", fail_llm_at=1)))
        failing.append(Scenario(StubConfig(salt="a", invalid_llm_at=llm)))
    return base + edge_scenarios(compiled, counts, max_picks) + failing[:max_failures]


def widest_choice(schemas: list[Any]) -> int:
    """The most values of one enum (or branches of one anyOf/oneOf, or kinds of one type
    list) in some schemas: how many `pick` scenarios show each of them in turn."""
    return max([1] + [len([v for v in n[key] if v is not None and v != "null" and v != {"type": "null"}])
                      for n in _mappings(schemas) for key in ("enum", "anyOf", "oneOf", "type")
                      if isinstance(n.get(key), list)])


def edge_scenarios(compiled: Compiled, counts: Counter, max_picks: int = 3) -> list[Scenario]:
    """Answers at the edges of the output schemas (stubs.StubConfig): everything at its
    low edge (empty arrays and strings, minimums, optional properties left out), at its
    high edge (maxItems, long strings, maximums, an extra property where allowed), and
    every enum value (anyOf branch) in turn, with integers where `number` is declared."""
    out = [
        Scenario(StubConfig(salt="f", edge="low", omit_optional="all"), sparse=True, inputs_edge="low"),
        Scenario(StubConfig(salt="g", edge="high"), inputs_edge="high"),
        Scenario(StubConfig(salt="h", edge="low", nulls="all")),
    ]
    schemas = [compiled.catalog.ops[k].output for k in counts if k in compiled.catalog.ops]

    def result_types(n: Any) -> None:
        if isinstance(n, dict):
            if n.get("kind") == "transform" and isinstance(n.get("resultType"), dict):
                schemas.append(n["resultType"].get("fields"))
            for v in n.values():
                result_types(v)
        elif isinstance(n, list):
            for v in n:
                result_types(v)

    result_types(compiled.plan)
    widest = widest_choice(schemas)
    out += [Scenario(StubConfig(salt="p", pick=k, integral=True)) for k in range(min(widest, max_picks))]
    return out


def compare_case(case: Case, extra: Callable[[Compiled], list[Scenario]] | None = None) -> list[Report]:
    compiled = compile_case(case)
    return [run_pair(compiled, s) for s in scenarios(compiled) + (extra(compiled) if extra else [])]


# ------------------------------------------------------------------ the inputs of the suite


def fixture_cases() -> list[Case]:
    manifest = load_text((ROOT / "fixtures/valid/manifest.yaml").read_bytes())
    out = []
    for entry in manifest["cases"]:
        path = f"fixtures/valid/{entry['plan']}"
        out.append(Case(entry["plan"].split(".")[0], (ROOT / path).read_bytes(), path,
                        tuple(f"fixtures/catalogs/{c}" for c in entry.get("catalogs", []))))
    return out


def example_cases() -> list[Case]:
    return [Case("examples-pr-review", (ROOT / "examples/pr-review.taskplan.yaml").read_bytes(),
                 "examples/pr-review.taskplan.yaml", ("examples/catalog.yaml",))]


ORACLE_CATALOG = "tests/semantics/oracle.catalog.yaml"


def targeted_cases() -> list[Case]:
    """The oracle's own plans (tests/semantics/plans/), over its own catalog."""
    out = []
    for path in sorted((ROOT / "tests/semantics/plans").glob("*.taskplan.yaml")):
        display = path.relative_to(ROOT).as_posix()
        out.append(Case(path.name.split(".")[0], path.read_bytes(), display, (ORACLE_CATALOG,)))
    return out


def compare_if_clean(text: bytes, display: str, catalogs: tuple[str, ...], *, max_failures: int = 3) -> list[Report] | None:
    """The comparison of a plan that checks and compiles clean (None otherwise: a mutant
    that no longer checks, or a choice without a recommendation)."""
    from taskplan.api import compile_plan

    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        result = compile_plan(display, catalogs=list(catalogs), text=text, auto=True)
    finally:
        os.chdir(cwd)
    if result.yaml is None:
        return None
    case = Case("generated", text, display, catalogs)
    compiled = compile_case(case)
    return [run_pair(compiled, s) for s in scenarios(compiled, max_failures=max_failures)]
