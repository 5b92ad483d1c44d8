"""The collector policy (taskplan/gcpause.py): pipelines run with the cyclic collector
paused, yet a process that runs many of them does not grow without bound."""

from __future__ import annotations

import gc
import json
from pathlib import Path

from taskplan import api, gcpause
from taskplan.diagnostics import Diagnostics
from taskplan.source.read import read_document

ROOT = Path(__file__).resolve().parents[1]
PLAN = ROOT / "examples/pr-review.taskplan.yaml"
CATALOG = ROOT / "examples/catalog.yaml"


def _cyclic_garbage(action) -> list[object]:
    action()
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        action()
        gc.collect()
        return list(gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def test_a_json_document_and_its_lazy_source_map_are_freed_without_the_collector():
    text = json.dumps({"version": 1, "name": "p", "tasks": [{"id": f"t{i}", "op": "x"} for i in range(50)]})

    def read() -> None:
        document = read_document(text.encode(), "p.json", Diagnostics())
        assert document.ok and document.map.resolve("/tasks/3/id").exact

    assert _cyclic_garbage(read) == []


def test_many_pipelines_in_one_process_collect_what_they_leave(monkeypatch):
    monkeypatch.setattr(gcpause, "COLLECT_FLOOR", 5_000)
    monkeypatch.setattr(gcpause, "_pending", 0)
    monkeypatch.setattr(gcpause, "_survivors", 0)
    catalogs = api.load_catalog_set([CATALOG])
    gc.collect()
    collections = []
    for _ in range(30):
        before = gc.get_stats()[2]["collections"]
        assert api.compile_plan(PLAN, catalogs=catalogs, auto=True).ok
        collections.append(gc.get_stats()[2]["collections"] - before)
    assert sum(collections) >= 1, "the policy never ran a full collection"
    # Bounded: what is tracked now is about what one pipeline's garbage and the live heap
    # come to, not thirty pipelines' worth.
    tracked = len(gc.get_objects())
    gc.collect()
    assert tracked - len(gc.get_objects()) <= 2 * max(gcpause.COLLECT_FLOOR, gcpause._survivors)


def test_a_single_pipeline_never_pays_for_a_full_collection(monkeypatch):
    monkeypatch.setattr(gcpause, "_pending", 0)
    monkeypatch.setattr(gcpause, "_survivors", 0)
    before = gc.get_stats()[2]["collections"]
    assert api.compile_plan(PLAN, catalogs=[CATALOG], auto=True).ok
    assert gc.get_stats()[2]["collections"] == before


def test_a_full_collection_run_elsewhere_resets_the_count(monkeypatch):
    monkeypatch.setattr(gcpause, "_pending", 10**9)
    gc.collect()
    assert gcpause._pending == 0
