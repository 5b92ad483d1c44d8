"""The types pass's fast path for operation tasks agrees with the general path it
stands in for: a call binding names that `_Typer._clean_call` found clean for its
operation (all known, none fixed or consumed, every required port bound) only has its
values typed and fitted to their ports, instead of `_operation_general`'s checks.

Each plan (the fixture plans against the fixture catalogs, mutants of the valid ones,
generated plans with operations) is checked twice, by the pass and by the pass with the
fast path off; the diagnostics, every value's type, every task's ports and operation,
and the recorded artifact bindings must be the same."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import pytest

from taskplan.api import check_plan, load_catalog_set
from taskplan.passes import types as types_pass

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/faults, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
from faults.fuzz import generated, mutant  # noqa: E402
from faults.seeds import plan_seeds  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "fixtures").rglob("*.taskplan.*"))
CATALOGS = tuple(str(p) for p in sorted((ROOT / "fixtures" / "catalogs").glob("*.catalog.yaml")))


def _dump(result: Any) -> list[str]:
    out = [repr(d) for d in result.diagnostics]
    typed = result.typed
    if typed is None:
        return out
    out.append(typed.dump())
    out += [f"{p} {t!r}" for p, t in typed.values.items()]
    for node, tt in typed.tasks.items():
        op = tt.operation.ref if tt.operation is not None else None
        out.append(f"{node.pointer} {tt.ports!r} {tt.whole!r} {op} {sorted(tt.optional_ports)}")
    return out


def _check(data: bytes, path: str, catalogs: Any, general: bool, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    with monkeypatch.context() as m:
        if general:
            m.setattr(types_pass._Typer, "_clean_call", lambda self, ref, names: False)
        return _dump(check_plan(path, catalogs=catalogs, text=data))


def _plans() -> list[tuple[bytes, str, Any]]:
    fixture_catalogs = load_catalog_set(CATALOGS)
    plans: list[tuple[bytes, str, Any]] = [(p.read_bytes(), str(p.relative_to(ROOT)), fixture_catalogs) for p in FIXTURES]
    rng = random.Random(7)
    seeds = plan_seeds()
    loaded: dict[tuple[str, ...], Any] = {}
    for i in range(120):
        data, display, cats, _ = mutant(seeds[i % len(seeds)], rng)
        cats = tuple(str(ROOT / c) for c in cats)
        plans.append((data, display, loaded.setdefault(cats, load_catalog_set(cats))))
    for i in range(40):
        data, display, cats = generated(random.Random(i), "yaml", operations=True)
        cats = tuple(str(ROOT / c) if not Path(c).is_absolute() else str(c) for c in cats)
        plans.append((data, display, loaded.setdefault(cats, load_catalog_set(cats))))
    return plans


def test_operation_fast_path_gives_what_the_general_path_gives(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_used = 0
    original = types_pass._Typer._clean_call

    def counting(self: Any, ref: str, names: tuple[str | None, ...]) -> Any:
        nonlocal fast_used
        found = original(self, ref, names)
        fast_used += found is not False
        return found

    checked = 0
    for data, path, catalogs in _plans():
        with monkeypatch.context() as m:
            m.setattr(types_pass._Typer, "_clean_call", counting)
            fast = _dump(check_plan(path, catalogs=catalogs, text=data))
        assert fast == _check(data, path, catalogs, True, monkeypatch), path
        checked += 1
    assert checked > 100
    assert fast_used > 50  # the fast path was taken


def test_the_whole_result_of_a_task_without_ports_is_the_general_one() -> None:
    """`_object` returns one shared type for every task without ports: the one it builds
    for any other port set, with no field."""
    from taskplan.model import btype as bt

    assert repr(types_pass._object({})) == repr(bt.object_of([], closed=True))
    assert types_pass._object({}) == bt.object_of([], closed=True)


def test_task_types_built_without_the_dataclass_call_have_every_field() -> None:
    """`_task_types` gives what `TaskTypes(ports, whole)` gives, field by field (a field
    added to the class must be added there too: an unset slot fails `getattr`)."""
    import dataclasses

    from taskplan.ir.typed import TaskTypes
    from taskplan.model import btype as bt

    for ports, whole in ((None, None), ({}, bt.ANY), ({"a": bt.STRING}, bt.object_of([bt.new_field("a", bt.STRING)]))):
        built, expected = types_pass._task_types(ports, whole), TaskTypes(ports, whole)
        assert type(built) is TaskTypes
        for f in dataclasses.fields(expected):
            assert getattr(built, f.name) == getattr(expected, f.name), f.name
        assert built.optional_ports is expected.optional_ports  # the class's own default object
