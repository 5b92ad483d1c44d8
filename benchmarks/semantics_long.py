"""The long run of the semantic oracle (tests/semantics/): plans that check clean, their
compiled workflows run by the executor, compared with the reference interpreter under
every stub scenario of harness.scenarios (nulls, omitted properties, edge values, each
enum value in turn, failing operations and model calls), every request validated
against its operation's input schema.

    python benchmarks/semantics_long.py --minutes 20            # one worker
    python benchmarks/semantics_long.py --replay rebind:1234 --seed 7   # one case again

Cases rotate over five kinds, each from its own `random.Random(f"{seed}:{kind}:{i}")`
(so any case can be replayed exactly):

- `generated`: tests/faults/fuzz.py `generate` over GENERATOR_CATALOGS;
- `mutant`: a valid fixture with 1-3 mutations (compared when it still checks clean);
- `mutant-of-generated`: a generated plan, mutated;
- `mcp`: `generate` over the catalogs imported from the MCP corpus
  (fixtures/catalogs/mcp/, from ../shared/corpus/mcp/);
- `rebind`: a generated plan (over the review, ops and oracle catalogs, or the MCP
  corpus catalogs) or a fixture whose operation bindings are rewritten at random: a
  port (optional and non-plain ones included) bound to another task's output port
  (often one of the same JSON type), whole result or field, an input, an item, or a
  literal made from the port's schema, sometimes off by one detail (a property missing
  or extra, a wrong kind, null). Most no longer check; the ones that do are the typing
  soundness probe: every request they make must fit its port.

Prints the number of cases per kind (how many checked clean and were compared, how many
scenarios) and each discrepancy with its reproducer. Exit code 1 when anything differed.
"""

from __future__ import annotations

import argparse
import copy
import os
import random
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from longrun import Hang, keep_failure, time_limit  # noqa: E402

KINDS = ("generated", "rebind", "mutant", "mcp", "mutant-of-generated", "rebind")
MCP_CATALOGS = tuple(sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "fixtures/catalogs/mcp").glob("*.catalog.yaml")))
ORACLE_CATALOG = "tests/semantics/oracle.catalog.yaml"


# ------------------------------------------------------------------ rebinding


def _literal_of(value):
    """A plan literal (TaskValue) of a JSON value."""
    if value is None:
        return {"kind": "null"}
    if isinstance(value, bool):
        return {"kind": "boolean", "boolean": value}
    if isinstance(value, (int, float)):
        return {"kind": "number", "number": value}
    if isinstance(value, str):
        return {"kind": "string", "text": value}
    if isinstance(value, list):
        return {"kind": "array", "items": [_literal_of(v) for v in value]}
    return {"kind": "object", "members": [{"name": k, "value": _literal_of(v)} for k, v in value.items()]}


def _perturb(value, rng):
    """The value, off by one detail (or as it is)."""
    roll = rng.random()
    if isinstance(value, dict) and value and roll < 0.3:
        out = dict(value)
        out.pop(rng.choice(sorted(out)))
        return out
    if isinstance(value, dict) and roll < 0.5:
        return {**value, "zz_junk": "x"}
    if isinstance(value, list) and value and roll < 0.4:
        return [_perturb(value[0], rng)] + value[1:]
    if roll < 0.6:
        return rng.choice([None, "text", 2.5, 3, True, [], {}])
    return value


def _nodes(tree):
    """Every dict below (and at) the root."""
    out, stack = [], [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return out


def _json_type(schema, root):
    """The JSON type a schema names (through local $refs), if one."""
    from semantics.stubs import _resolve

    try:
        schema = _resolve(schema, root)
    except Exception:  # noqa: BLE001
        return None
    if not isinstance(schema, dict):
        return None
    t = schema.get("type")
    if isinstance(t, list):
        t = tuple(sorted(t))
    return t


def _operation_tasks(tree):
    return [n for n in _nodes(tree) if isinstance(n.get("operation"), str) and isinstance(n.get("id"), str)]


def rebind(tree: dict, catalogs: tuple[str, ...], rng: random.Random) -> tuple[dict, list[str]]:
    """`tree` with 1-3 operation bindings rewritten (see the module's docstring)."""
    from semantics.common import OracleBug
    from semantics.stubs import CatalogIndex, Generator, StubConfig

    tree = copy.deepcopy(tree)
    index = CatalogIndex.from_paths([ROOT / c for c in catalogs])
    ops = _operation_tasks(tree)
    log: list[str] = []
    if not ops:
        return tree, ["no operation to rebind"]
    typed: list[tuple[str, dict]] = []  # (JSON type of an output port, a read of it)
    reads = [copy.deepcopy(n) for n in _nodes(tree) if n.get("kind") in ("input", "output", "item", "index", "field", "choice")]
    for task in ops:  # every other operation's output ports, whole result and fields
        try:
            op = index.resolve(task["operation"])
        except Exception:  # noqa: BLE001 - a mutated reference: nothing to read from it
            continue
        reads.append({"kind": "output", "source": task["id"], "port": None})
        out = op.output if isinstance(op.output, dict) else {}
        for name, prop in (out.get("properties") or {}).items():
            port = {"kind": "output", "source": task["id"], "port": name}
            reads.append(port)
            typed.append((_json_type(prop, out), port))
            for sub in ((prop or {}).get("properties") or {}) if isinstance(prop, dict) else {}:
                reads.append({"kind": "field", "items": [copy.deepcopy(port)], "port": sub})
    for _ in range(rng.randint(1, 3)):
        task = rng.choice(ops)
        try:
            op = index.resolve(task["operation"])
        except Exception:  # noqa: BLE001
            continue
        ports = sorted(set((op.input.get("properties") or {})) - set(op.fixed))
        if not ports:
            continue
        port = rng.choice(ports)
        value = None
        if rng.random() >= 0.5 or not reads:
            schema = op.input["properties"][port]
            try:
                generated = Generator(StubConfig(salt=str(rng.random()), edge=rng.choice(["none", "low", "high"]),
                                                 omit_optional=rng.choice(["none", "mixed"]),
                                                 nulls=rng.choice(["none", "mixed"]))).value(schema, op.input, port)
                value = _literal_of(_perturb(generated, rng))
                how = "a literal"
            except OracleBug:  # a pattern the generator has no string for: a read instead
                value = None
        if value is None:
            if not reads:
                continue
            want = _json_type(op.input["properties"][port], op.input)
            alike = [r for t, r in typed if t == want and want is not None]
            value = copy.deepcopy(rng.choice(alike if alike and rng.random() < 0.7 else reads))
            how = f"a read ({value.get('kind')} {value.get('source', '')}.{value.get('port', '')})"
        bindings = task.setdefault("inputs", [])
        if not isinstance(bindings, list):
            continue
        for b in bindings:
            if isinstance(b, dict) and b.get("name") == port:
                b["value"] = value
                break
        else:
            bindings.append({"name": port, "value": value})
        log.append(f"{task['id']}.{port} <- {how}")
    return tree, log


# ------------------------------------------------------------------ cases


def make_case(seed: str, kind: str, i: int):
    """(bytes, display path, catalogs, description) of case `i` of `kind`: the kinds of
    fuzz_long.py are its very cases (same seed, same plan); `mcp` and `rebind` are ours."""
    if kind not in ("mcp", "rebind"):
        from fuzz_long import make_case as property_case

        return property_case(seed, kind, i)
    from tests.faults.fuzz import GENERATOR_CATALOGS, generate
    from tests.faults.seeds import plan_seeds
    from tests.faults.serialize import dump

    rng = random.Random(f"{seed}:{kind}:{i}")
    fmt = rng.choice(["yaml", "json"])
    if kind == "mcp":
        tree = generate(rng, operations=True, catalogs=MCP_CATALOGS)
        return dump(tree, fmt), f"generated.taskplan.{fmt}", MCP_CATALOGS, "a generated plan over the MCP catalogs"
    if rng.random() < 0.3:
        plan = rng.choice([p for p in plan_seeds() if p.catalogs])
        catalogs = tuple(str(p.relative_to(ROOT)) for p in plan.catalogs)
        tree, log = rebind(plan.tree(), catalogs, rng)
        return dump(tree, fmt), f"fixtures/valid/{plan.name}.taskplan.{fmt}", catalogs, \
            f"{plan.name} rebound: " + "; ".join(log)
    catalogs = GENERATOR_CATALOGS + (ORACLE_CATALOG,) if rng.random() < 0.6 else MCP_CATALOGS
    tree = generate(rng, operations=True, catalogs=catalogs)
    tree, log = rebind(tree, catalogs, rng)
    return dump(tree, fmt), f"generated.taskplan.{fmt}", catalogs, "generated, rebound: " + "; ".join(log)


def run_case(seed: str, kind: str, i: int, hang: int) -> dict:
    from semantics.common import OracleBug
    from semantics.harness import KNOWN, compare_if_clean

    out = {"kind": kind, "i": i, "what": "(could not be made)", "display": "case.yaml", "problems": [],
           "clean": False, "scenarios": 0, "known": False, "data": b""}
    started = time.perf_counter()
    try:
        with time_limit(hang):
            data, display, catalogs, what = make_case(seed, kind, i)
            out.update(what=what, display=display, data=data)
            reports = compare_if_clean(data, display, catalogs, max_failures=3)
        if reports is not None:
            out["clean"] = True
            out["scenarios"] = len(reports)
            for r in reports:
                out["problems"] += [f"[{r.scenario}] {d}" for d in r.diffs]
                sides = [o for o in (r.plan_side, r.wf_side) if o is not None]
                if any(f"[{known}]" in p for o in sides for p in o.unsound for known in KNOWN):
                    out["known"] = True  # a known finding met again (tolerated: harness.KNOWN)
        elif kind in ("generated", "mcp"):
            out["problems"].append("a generated (valid by construction) plan does not compile")
    except Hang:
        out["problems"].append(f"did not finish within {hang} s")
    except OracleBug as exc:
        out["problems"].append(f"oracle: {exc}")
    except Exception:  # noqa: BLE001 - the harness must not stop the run
        out["problems"].append("raised: " + traceback.format_exc(limit=8))
    out["seconds"] = time.perf_counter() - started
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--minutes", type=float, default=10.0, help="how long to run (default 10)")
    parser.add_argument("--seed", default=str(int(time.time())), help="base seed (default: the time)")
    parser.add_argument("--hang", type=int, default=120, help="seconds after which one case is a hang (default 120)")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "taskplan-semantics-failures"),
                        help="where the plans of discrepancies are written")
    parser.add_argument("--replay", metavar="KIND:I", help="run one case again and print it")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20_000))

    if args.replay:
        kind, _, i = args.replay.partition(":")
        result = run_case(args.seed, kind, int(i), args.hang)
        print(f"# {kind}:{i} (seed {args.seed}): {result['what']}\n# {result['display']}")
        print(result["data"].decode("utf-8", "replace"))
        print(f"checked clean: {result['clean']}, {result['scenarios']} scenarios")
        print("\n".join(result["problems"]) or "ok: the workflow does what the plan says")
        return 1 if result["problems"] else 0

    deadline = time.time() + args.minutes * 60
    started = time.time()
    counts, clean, scenarios, known = Counter(), Counter(), Counter(), Counter()
    failures: list[dict] = []
    slowest = (0.0, "")
    last_report = started
    i = 0
    print(f"semantic oracle for {args.minutes:g} min, seed {args.seed}", flush=True)
    while time.time() < deadline:
        kind = KINDS[i % len(KINDS)]
        item = run_case(args.seed, kind, i, args.hang)
        i += 1
        counts[kind] += 1
        clean[kind] += item["clean"]
        scenarios[kind] += item["scenarios"]
        known[kind] += item["known"]
        if item["seconds"] > slowest[0]:
            slowest = (item["seconds"], f"{kind}:{item['i']}")
        if item["problems"]:
            failures.append(item)
            keep_failure(item, args.out, "semantics_long.py", args.seed, "DIFF", 600)
        if time.time() - last_report > 60:
            last_report = time.time()
            print(f"  {sum(counts.values())} cases, {sum(clean.values())} compared, {len(failures)} with "
                  f"discrepancies, {time.time() - started:.0f} s", flush=True)
    elapsed = time.time() - started
    total = sum(counts.values())
    print(f"\n{total} cases in {elapsed:.0f} s ({total / max(elapsed, 1e-9):.2f}/s), seed {args.seed}")
    print(f"{'kind':22} {'cases':>7} {'compared':>9} {'scenarios':>10} {'known':>6}")
    for kind in dict.fromkeys(KINDS):
        print(f"{kind:22} {counts[kind]:7} {clean[kind]:9} {scenarios[kind]:10} {known[kind]:6}")
    print("known: cases that met a known finding again (harness.KNOWN, tolerated)")
    print(f"slowest case: {slowest[1]} {slowest[0]:.2f} s")
    signatures = Counter(f["problems"][0].split("] ", 1)[-1][:70] for f in failures)
    print(f"cases with discrepancies: {len(failures)}" + "".join(f"\n  {n} x {sig}" for sig, n in signatures.most_common()))
    return 1 if failures else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
