"""Loading a 500-operation catalog (every schema distinct, so no cache helps) stays
fast and linear: a generous bound that only a quadratic blow-up or a slow validator
would cross. Typical figures are in docs/decisions.md (Catalog)."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

from ruamel.yaml import YAML

from taskplan.catalog import load_catalogs
from taskplan.catalog.schemas import _VERDICTS
from taskplan.diagnostics import Diagnostics

ROOT = Path(__file__).resolve().parents[1]
CATALOGS = ROOT / "fixtures" / "catalogs"


def big_catalog(n: int) -> bytes:
    """`n` operations copied from the fixture catalogs, IDs and schemas made distinct."""
    yaml = YAML(typ="safe")
    ops = []
    for path in sorted(CATALOGS.glob("mcp/*.catalog.yaml")) + [CATALOGS / "review.catalog.yaml"]:
        for source in yaml.load(path.read_text(encoding="utf-8"))["sources"]:
            for op in source["operations"]:  # the review catalog reuses some GitHub names
                ops.append({**op, "id": op["id"] if "mcp" in path.parts else f"review.{op['id']}"})
    out = []
    copy_no = 0
    while len(out) < n:
        for op in ops:
            if len(out) == n:
                break
            o = copy.deepcopy(op)
            o["id"] = f"big.{o['id']}_{copy_no}" + (f"_v{o['version']}" if "version" in o else "")
            for prop in (o["input"].get("properties") or {}).values():
                if isinstance(prop, dict):
                    prop["description"] = f"copy {copy_no}: {prop.get('description', '')}"
            out.append(o)
        copy_no += 1
    return json.dumps({"version": 1, "sources": [{"id": "big", "operations": out}]}).encode()


def _load(data: bytes) -> tuple[float, int, int]:
    _VERDICTS.clear()
    sink = Diagnostics()
    start = time.perf_counter()
    catalog = load_catalogs(["big.catalog.json"], sink, texts={"big.catalog.json": data})
    elapsed = time.perf_counter() - start
    return elapsed, len(catalog), len(sink.sorted())


def test_500_operations_load_fast():
    data = big_catalog(500)
    _load(data)  # warm imports
    elapsed, count, problems = _load(data)
    assert count == 500 and problems == 0
    assert elapsed < 5.0, f"loading 500 operations took {elapsed:.2f}s"


def test_search_and_types_of_500_operations():
    data = big_catalog(500)
    sink = Diagnostics()
    catalog = load_catalogs(["big.catalog.json"], sink, texts={"big.catalog.json": data})
    start = time.perf_counter()
    hits = catalog.search("read file contents")
    suggestions = catalog.suggest("big.filesystem.read_fil_0")
    for op in catalog:
        op.input_type, op.output_type
    elapsed = time.perf_counter() - start
    assert hits and suggestions[0] == "big.filesystem.read_file_0"
    assert elapsed < 10.0, f"search, suggest and converting every type took {elapsed:.2f}s"
