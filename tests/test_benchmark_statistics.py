"""The benchmark harness judges each target on the statistic docs/performance.md names:
ratios to the floor by the median of the rounds (each round's compile against the floor timed
right after it), time(20k) / time(10k) by the median of interleaved rounds in one process,
falling back to the best rounds for figures from an older harness."""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("taskplan_benchmark_run", BENCHMARKS / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_spread_gives_median_quartiles_and_extremes(run):
    assert run.spread([4.0, 1.0, 3.0, 2.0, 5.0]) == {"median": 3.0, "q1": 2.0, "q3": 4.0, "min": 1.0, "max": 5.0}
    # an even count interpolates between the middle two
    assert run.spread([1.0, 2.0, 3.0, 4.0])["median"] == 2.5
    assert run.spread([7.0]) == {"median": 7.0, "q1": 7.0, "q3": 7.0, "min": 7.0, "max": 7.0}


def test_paired_divides_round_by_round(run):
    # the best rounds' ratio would be 2 / 1 = 2.0; round by round the ratios are 3, 3, 3
    assert run.paired([3.0, 6.0, 9.0], [1.0, 2.0, 3.0])["median"] == 3.0


def _size(n: int, *, compile_best: float, floor_best: float, paired_median: float | None) -> dict:
    both = lambda x: {"cpu": x, "wall": x}  # noqa: E731
    r = {
        "n": n,
        "totals": {"compile": both(compile_best), "compile+validate": both(2 * compile_best), "check": both(0.1)},
        "floor": {"total": both(floor_best), "total_with_output_read": both(3 * floor_best)},
        "memory": {"compile_delta_mb": 100.0, "delta_mb": 110.0},
        "process": {"maxrss_mb": 220.0},
    }
    if paired_median is not None:
        ratio = {"median": paired_median, "q1": paired_median, "q3": paired_median, "min": 1.0, "max": 9.0}
        r["paired"] = {clock: {"compile/floor": ratio, "c+v/floor+read": ratio} for clock in ("cpu", "wall")}
    return r


def _verdicts(targets: list[dict], fragment: str) -> list[tuple[str, float, str]]:
    return [(t["target"], round(t["cpu"], 3), t["verdict"]) for t in targets if fragment in t["target"]]


def test_the_floor_ratio_is_judged_on_the_median_of_the_rounds(run):
    # best rounds: 0.9 / 0.3 = 3.0 (a pass at the bound); round by round: 3.2 (a miss)
    report = {"sizes": [_size(1_000, compile_best=0.9, floor_best=0.3, paired_median=3.2)]}
    [(name, value, verdict)] = _verdicts(run.judge(report), "compile 1,000 within 3x")
    assert (value, verdict) == (3.2, "MISS") and "median of the rounds" in name
    # figures from a harness without the rounds' ratios: the best rounds, said so
    report = {"sizes": [_size(1_000, compile_best=0.9, floor_best=0.36, paired_median=None)]}
    [(name, value, verdict)] = _verdicts(run.judge(report), "compile 1,000 within 3x")
    assert (value, verdict) == (2.5, "PASS") and "best rounds" in name


def test_scaling_is_judged_on_the_interleaved_rounds_when_measured(run):
    sizes = [_size(10_000, compile_best=1.0, floor_best=0.3, paired_median=2.8),
             _size(20_000, compile_best=2.5, floor_best=0.6, paired_median=2.8)]
    rows = _verdicts(run.judge({"sizes": sizes}), "compile time(20k)")
    assert rows == [("compile time(20k) / time(10k) <= 2.2 (the two sizes' rows)", 2.5, "MISS")]

    def clocks(median: float) -> dict:
        return {c: {"paired": {"median": median}, "best_ratio": 9.0} for c in ("cpu", "wall")}

    scaling = [{"sizes": [10_000, 20_000], "compile": clocks(2.1), "compile+validate": clocks(2.3)}]
    targets = run.judge({"sizes": sizes, "scaling": scaling})
    assert [(v, verdict) for _, v, verdict in _verdicts(targets, "time(20k) / time(10k)")] == [(2.1, "PASS"), (2.3, "MISS")]
    assert all("interleaved" in name for name, _, _ in _verdicts(targets, "time(20k) / time(10k)"))


def test_the_scaling_worker_interleaves_both_sizes_in_one_process(run, tmp_path):
    catalog = tmp_path / "catalog.json"
    catalog.write_text(json.dumps(run.generate_catalog(50)))
    plans = []
    for n in (15, 30):
        path = tmp_path / f"plan-{n}.json"
        path.write_text(json.dumps(run.exact_plan(n, 50)))
        plans.append(f"{n}={path}")
    args = argparse.Namespace(plans=",".join(plans), catalog=str(catalog), repeat=2, m=50)
    result = run.worker_scaling(args)
    assert result["sizes"] == [15, 30]
    assert [len(result["runs"][k]) for k in ("15", "30")] == [2, 2]
    for key in ("compile", "compile+validate"):
        cpu = result[key]["cpu"]
        assert cpu["best"]["30"] > 0 and cpu["best"]["15"] > 0
        assert cpu["paired"]["min"] <= cpu["paired"]["median"] <= cpu["paired"]["max"]
    json.dumps(result)  # it crosses a process boundary as JSON
