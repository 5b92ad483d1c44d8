"""Cross-pass properties (tests/faults/fuzz.py), with a modest budget here; the long run
is benchmarks/fuzz_long.py (docs/robustness.md).

Not repeated from elsewhere: tests/test_cli_fuzz.py checks exit codes and determinism of
`check` on arbitrary documents and mutated plans without catalogs; tests/test_shape_fuzz.py
the shape and structure passes alone. Here mutations are structure-aware (drop, swap,
retype, rename, duplicate, deep-nest a field, a value or a task), the plans are checked
against their catalogs, every location (and related location) must lie inside its file,
and whatever checks clean must compile, validate and compile to the same bytes again; the
same holds for random plans that are valid by construction."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent)) if str(Path(__file__).resolve().parent) not in sys.path else None
from faults.fuzz import check_properties  # noqa: E402

# ------------------------------------------------------------------ regressions


CLEANUP_READS = {
    "foreach-port": """
        - id: each
          kind: foreach
          objective: Loop
          items: {kind: array, items: [{kind: string, text: a}]}
          body:
            tasks:
              - {id: v, kind: value, objective: V, outputs: [{name: o, value: {kind: item}}]}
            outputs:
              - {name: x, value: {kind: output, source: v, port: o}}
              - {name: y, value: {kind: index}}
      always:
        - {id: cleanup, kind: value, objective: C, outputs: [{name: d, value: {kind: output, source: each, port: x}}]}
    """,
    "foreach-whole-result-and-capture": """
        - id: each
          kind: foreach
          objective: Loop
          items: {kind: array, items: [{kind: string, text: a}]}
          body:
            tasks:
              - {id: v, kind: value, objective: V, outputs: [{name: o, value: {kind: item}}]}
            outputs:
              - {name: x, value: {kind: output, source: v, port: o}}
      always:
        - {id: whole, kind: value, objective: W, outputs: [{name: d, value: {kind: output, source: each, port: null}}]}
        - id: nested
          kind: sequence
          objective: N
          body:
            tasks:
              - {id: inner, kind: value, objective: I, outputs: [{name: d, value: {kind: output, source: each, port: x}}]}
    """,
    "conditional-port": """
        - id: pick
          kind: conditional
          objective: Pick
          condition: {kind: boolean, boolean: true}
          body:
            tasks:
              - {id: v, kind: value, objective: V, outputs: [{name: o, value: {kind: string, text: yes}}]}
            outputs:
              - {name: x, value: {kind: output, source: v, port: o}}
          otherwise:
            outputs:
              - {name: x, value: {kind: string, text: no}}
      always:
        - {id: cleanup, kind: value, objective: C, outputs: [{name: d, value: {kind: output, source: pick, port: x}}]}
    """,
}


@pytest.mark.parametrize("name", sorted(CLEANUP_READS))
def test_cleanup_reading_a_foreach_or_conditional_port_compiles(name):
    """Found by the generated plans: a cleanup task reading a port of a foreach (or a
    conditional) was guarded by the task's own step only, while the port is read from
    its `collect` (`merge`) step: the compiler's own output failed validation
    (COMPILER_INTERNAL). The guard now names every step the cleanup reads."""
    text = "version: 1\nroot:\n  tasks:\n" + textwrap.indent(textwrap.dedent(CLEANUP_READS[name]).strip("\n"), "  ") + "\n"
    verdict = check_properties(text.encode(), f"{name}.taskplan.yaml")
    assert verdict.clean and verdict.compiled, verdict.problems
    assert verdict.problems == []
