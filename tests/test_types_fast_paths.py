"""The types pass's fast path for operation tasks agrees with the general path it
stands in for: a call binding names that `_Typer._clean_call` found clean for its
operation (all known, none fixed or consumed, every required port bound) only has its
values typed and fitted to their ports, instead of `_operation_general`'s checks.

Each plan (the fixture plans against the fixture catalogs, mutants of the valid ones,
generated plans with operations) is checked twice, by the pass and by the pass with the
fast path off; the diagnostics, every value's type, every task's ports and operation,
and the recorded artifact bindings must be the same."""

from __future__ import annotations

import json
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


def test_shared_whole_results_are_what_each_task_would_build(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """`_Typer._whole` gives one type object to every task whose ports are the same
    objects: on every plan, the diagnostics, value types and each task's ports and whole
    result (repr: slots and descriptions included) are what a new `_object(ports)` per task
    gives, and sharing did happen."""
    shared = 0
    original = types_pass._Typer._whole

    def counting(self: Any, ports: dict[str, Any]) -> Any:
        nonlocal shared
        before = len(self._wholes)
        found = original(self, ports)
        shared += found is not None and len(self._wholes) == before
        return found

    benchmarks = str(ROOT / "benchmarks")
    if benchmarks not in sys.path:
        sys.path.insert(0, benchmarks)
    from generate import catalog as generated_catalog
    from generate import plan as generated_plan

    catalog = tmp_path / "generated.catalog.json"
    catalog.write_text(json.dumps(generated_catalog(5)))
    generated_plans = [  # (the sides of each conditional read one port of one of 5 operations: shared wholes)
        (json.dumps(generated_plan(n, 5)).encode(), f"generated-{n}.taskplan.json", load_catalog_set([str(catalog)])) for n in (40, 400)
    ]
    checked = 0
    for data, path, catalogs in _plans() + generated_plans:
        with monkeypatch.context() as m:
            m.setattr(types_pass._Typer, "_whole", counting)
            fast = _dump(check_plan(path, catalogs=catalogs, text=data))
        with monkeypatch.context() as m:
            m.setattr(types_pass._Typer, "_whole", lambda self, ports: types_pass._object(ports))
            assert fast == _dump(check_plan(path, catalogs=catalogs, text=data)), path
        checked += 1
    assert checked > 100
    assert shared > 20  # wholes were shared


def test_a_whole_is_shared_only_by_tasks_whose_ports_are_the_same_objects() -> None:
    """Equal port types written at different places (their slots differ) do not share a
    whole: a shared whole carries its ports' own objects, slots and descriptions."""
    from taskplan.model import btype as bt
    from taskplan.model.btype import Slot

    typer = types_pass._Typer.__new__(types_pass._Typer)
    typer._wholes = {}
    here = bt.make("string", enum=["a", "b"], origin=Slot("p", "/tasks/0"), enum_slot=Slot("p", "/tasks/0/enum"), description="d")
    there = bt.make("string", enum=["a", "b"], origin=Slot("p", "/tasks/1"), enum_slot=Slot("p", "/tasks/1/enum"), description="d")
    nested = bt.object_of([bt.new_field("x", bt.array_of(here), False, Slot("p", "/x"))], closed=False, nullable=True, null_slot=Slot("p", "/n"))
    assert here == there and repr(here) != repr(there)
    for ports in ({"a": here}, {"a": here, "b": nested}, {"b": nested, "a": here}, {"a": bt.NULL}):
        whole = typer._whole(dict(ports))
        assert repr(whole) == repr(types_pass._object(ports))
        assert typer._whole(dict(ports)) is whole  # the same objects: one whole
        assert all(f.type is t for f, t in zip(whole.fields, ports.values(), strict=True))  # its ports themselves
    assert typer._whole({"a": there}) is not typer._whole({"a": here})
    assert repr(typer._whole({"a": there}).fields[0].type) == repr(there)
    assert typer._whole({"b": here}) is not typer._whole({"a": here})  # names count, and their order
    assert typer._whole({"a": here, "b": nested}) is not typer._whole({"b": nested, "a": here})
    assert typer._whole({"a": here, "b": None}) is None and typer._whole({"a": None}) is None
