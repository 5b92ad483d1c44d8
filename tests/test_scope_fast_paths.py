"""The scope pass's fast paths agree with the general paths they stand in for:

- a leaf task without marks, of `tasks` or of `always`, is made inline
  (`_ScopePass.enter`), and a compound one by `make_compound`, rather than by `make_task`;
- a read of a task of the reader's own scope is resolved inline (`read_task`) rather
  than by `read_target`'s walk up the scope tree (an operation's binding even without
  the call of `read_task`);
- a task's own values are read without `task_value_slots`' generator (an operation's,
  transform's or call's bindings, a value task's outputs, a conditional's condition, a
  foreach's items; none for a sequence or a parallel);
- a scope of one task that does not depend on itself is ordered without `_topo`.

Each plan (the fixture plans, mutants of the valid ones, generated plans) is checked
twice, by the pass and by the pass with both fast paths off; the CheckedPlans (every
node, dependency, capture and resolution) and the diagnostics must be the same."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from taskplan.diagnostics import Diagnostics, Reporter
from taskplan.gcpause import gc_paused
from taskplan.passes import identity as identity_pass
from taskplan.passes import scope as scope_pass
from taskplan.passes.shape import shape
from taskplan.source.read import read_document

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/faults, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from faults.fuzz import generated, mutant  # noqa: E402
from faults.seeds import plan_seeds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "fixtures").rglob("*.taskplan.*"))


class _General(scope_pass._ScopePass):
    """The pass with every read of a task taking the general path."""

    fast_paths = False

    def read_task(self, kind: str, ptr: str, source: Any, port: Any, reader: Any, scope: Any) -> None:
        if not isinstance(source, str):
            return
        self.read_target(kind, ptr, source, port if isinstance(port, str) else None, reader, scope, self.by_id.get(source))


def _name(x: Any) -> str:
    return repr(x) if x is None or not hasattr(x, "pointer") else f"{type(x).__name__}@{x.pointer}"


def _dump(cp: Any, diagnostics: list[Any]) -> list[str]:
    out = [repr(d) for d in diagnostics] + [cp.dump()]
    for t in cp.tasks:
        out.append(f"{t.pointer} {t.id} {t.index} {t.in_always} {t.broken} {t.duplicate} {t.id_ok} {t.cyclic} "
                   f"{_name(t.group)} {t.ports} {[c.pointer for c in t.children]}")
        out += [f"  {_name(d)} {dep.pointers} {dep.explicit} {dep.reads}" for d, dep in t.deps.items()]
    for s in cp.scopes:
        out.append(f"{s.pointer} {s.role} {_name(s.owner)} {_name(s.parent)} {s.branch} {s.depth} {_name(s.group)} "
                   f"{_name(s.foreach)} {[t.pointer for t in s.order]} {[t.pointer for t in s.always_order]}")
        out += [f"  {k} {_name(c.target)} {c.pointers}" for k, c in s.captures.items()]
        out += [f"  {o.name} {o.pointer} {o.usable}" for o in s.outputs]
    for p, r in cp.resolutions.items():
        out.append(f"{p} {r.kind} {r.source} {_name(r.target)} {r.ok} {r.port} {_name(r.reader)} {_name(r.scope)}")
    out.append(repr({k: _name(v) for k, v in cp.by_id.items()}))
    out.append(repr(list(cp.by_pointer)))
    return out


def _check(data: bytes, path: str, general: bool, monkeypatch: pytest.MonkeyPatch) -> list[str] | None:
    sink = Diagnostics()
    doc = read_document(data, path, sink)
    if not doc.ok:
        return None
    reporter = Reporter(doc, sink)
    plan = shape(doc, reporter)
    if plan is None:
        return None
    table = identity_pass.run(plan, reporter)
    with monkeypatch.context() as m:
        if general:
            m.setattr(scope_pass, "_LEAF_TASKS", frozenset())  # every task through make_task
            m.setattr(scope_pass, "_COMPOUND_TASKS", frozenset())
        with gc_paused():
            cp = (_General if general else scope_pass._ScopePass)(plan, table, reporter).run()
    return _dump(cp, sink.sorted())


def _plans() -> list[tuple[bytes, str]]:
    plans = [(p.read_bytes(), str(p.relative_to(ROOT))) for p in FIXTURES]
    rng = random.Random(5)
    seeds = plan_seeds()
    for i in range(120):
        data, display, _, _ = mutant(seeds[i % len(seeds)], rng)
        plans.append((data, display))
    for i in range(40):
        data, display, _ = generated(random.Random(i), "yaml", operations=False)
        plans.append((data, display))
    return plans


def test_fast_paths_give_what_the_general_paths_give(monkeypatch: pytest.MonkeyPatch) -> None:
    checked = 0
    for data, path in _plans():
        fast = _check(data, path, False, monkeypatch)
        if fast is None:
            continue
        assert fast == _check(data, path, True, monkeypatch), path
        checked += 1
    assert checked > 100


def test_the_nodes_built_without_the_dataclass_call_have_every_field() -> None:
    """`_resolution`, `_dependency`, `_capture`, `_output_decl` and `_scope_node` give what
    their classes' constructors give, field by field (a field added to a class must be
    added there too: an unset slot fails `getattr`)."""
    import dataclasses

    from taskplan.ir.checked import Capture, Dependency, OutputDecl, Resolution, ScopeNode, ScopeRole

    a, b, c, d = object(), object(), object(), object()
    pairs = [
        (scope_pass._resolution("output", "/p", "s", a, False, "port", b, c), Resolution("output", "/p", "s", a, False, "port", b, c)),
        (scope_pass._dependency(a, ["/p"], True, False), Dependency(a, ["/p"], True, False)),
        (scope_pass._capture("output", "s", None, a), Capture("output", "s", None, a)),
        (scope_pass._output_decl("n", a, "/p", False), OutputDecl("n", a, "/p", False)),
        (
            scope_pass._scope_node("/p", a, ScopeRole.BODY, b, c, 1, 2, d, None),
            ScopeNode("/p", a, ScopeRole.BODY, b, c, 1, 2, d, None),
        ),
    ]
    for built, expected in pairs:
        assert type(built) is type(expected)
        for f in dataclasses.fields(expected):
            assert getattr(built, f.name) == getattr(expected, f.name), (type(expected).__name__, f.name)
