"""The benchmark's generated plans are what the harness says they are: realistic plans
that compile with no diagnostic at all (not even a warning), with the task count asked for."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from taskplan import api

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

from generate import catalog, count_tasks, plan  # noqa: E402


@pytest.mark.parametrize("n", [1, 14, 15, 16, 30, 44, 200])
def test_a_generated_plan_compiles_without_any_diagnostic(tmp_path, n):
    doc = plan(n, 100)
    assert count_tasks(doc) == n + 1  # the group body's task counts too
    plan_path = tmp_path / "plan.json"
    plan_path.write_text(json.dumps(doc))
    catalog_path = tmp_path / "catalog.json"
    catalog_path.write_text(json.dumps(catalog(100)))
    result = api.compile_plan(plan_path, catalogs=[catalog_path], auto=True)
    assert [(d.code, d.location.pointer) for d in result.diagnostics] == []
    assert result.ok and result.yaml
    assert result.graph is not None and result.graph.check() == []  # compile leaves it to the tests


def test_instructions_reads_what_callgrind_and_cachegrind_print():
    """benchmarks/instructions.py takes its counts from valgrind's summaries (its own runs
    take minutes under valgrind, so the parsing is tested on the tools' text)."""
    from instructions import parse_counts

    callgrind = b"==1== Events    : Ir\n==1== Collected : 5795047269\n==1==\n==1== I   refs:      5,795,047,269\n"
    assert parse_counts(callgrind, cache=False) == {"instructions": 5_795_047_269}
    cachegrind = b"""==2== I   refs:      5,795,047,269
==2== I1  misses:       24,996,438
==2== LLi misses:           43,122
==2== D   refs:      2,612,712,575  (1,783,042,721 rd   + 829,669,854 wr)
==2== D1  misses:       69,676,613  (   62,010,205 rd   +   7,666,408 wr)
==2== LLd misses:        8,692,912  (    6,521,583 rd   +   2,171,329 wr)
==2== LL refs:          94,673,051  (   87,006,643 rd   +   7,666,408 wr)
==2== LL misses:         8,736,034  (    6,564,705 rd   +   2,171,329 wr)
"""
    assert parse_counts(cachegrind, cache=True) == {
        "instructions": 5_795_047_269, "I1 misses": 24_996_438, "D1 misses": 69_676_613, "LL misses": 8_736_034,
    }
    assert parse_counts(b"valgrind: no such file", cache=False) is None
