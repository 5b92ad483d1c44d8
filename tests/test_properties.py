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

if str(Path(__file__).resolve().parent) not in sys.path:  # tests/faults, whatever pytest's import mode
    sys.path.insert(0, str(Path(__file__).resolve().parent))
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


def test_a_group_nobody_calls_compiles_to_nothing_its_nested_scopes_included():
    """Found by the generated plans: the body of a foreach inside a group nobody calls was
    still emitted, a workflow no loop runs that reads `data.item` (COMPILER_INTERNAL)."""
    text = textwrap.dedent("""\
        version: 1
        root:
          tasks:
            - {id: a, kind: value, objective: A, outputs: [{name: o, value: {kind: string, text: x}}]}
        groups:
          - id: g
            objective: Never called
            body:
              tasks:
                - id: each
                  kind: foreach
                  objective: Loop
                  items: {kind: array, items: [{kind: string, text: a}]}
                  body:
                    tasks:
                      - {id: v, kind: value, objective: V, outputs: [{name: o, value: {kind: item}}]}
        """)
    verdict = check_properties(text.encode(), "uncalled.taskplan.yaml")
    assert verdict.clean and verdict.compiled and verdict.problems == []


# ------------------------------------------------------------------ properties

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from faults.fuzz import DrawRng, generated, mutant  # noqa: E402
from faults.seeds import plan_seeds  # noqa: E402

MODEST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@MODEST
@given(st.data(), st.sampled_from(plan_seeds()), st.sampled_from(["yaml", "json"]))
def test_structure_aware_mutations_never_break_the_properties(data, seed, fmt):
    """Mutated valid plans, checked against their catalogs: never an exception or
    COMPILER_INTERNAL, exit 0 or 1, every location inside its file, sorted and unique;
    when the mutant still checks clean, it compiles, validates and compiles the same."""
    text, display, catalogs, log = mutant(seed, DrawRng(data), fmt)
    verdict = check_properties(text, display, catalogs)
    assert not verdict.problems, (log, verdict.problems)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data(), st.sampled_from(["yaml", "json"]))
def test_generated_valid_plans_check_clean_compile_validate_and_are_deterministic(data, fmt):
    text, display, catalogs = generated(DrawRng(data), fmt)
    verdict = check_properties(text, display, catalogs)
    assert verdict.clean, (verdict.codes, text.decode())
    assert verdict.compiled and not verdict.problems, (verdict.problems, text.decode())


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_generated_plans_without_their_catalog_check_clean_and_compile_refuses_their_calls_once(data):
    """check without a catalog leaves operation contracts unknown; compile then refuses the
    calls with one diagnostic at the first (check_properties), never COMPILER_INTERNAL."""
    text, display, _ = generated(DrawRng(data), "yaml")
    verdict = check_properties(text, display, ())
    assert verdict.problems == [] and verdict.clean
