"""A differential semantic oracle: a reference TaskPlan interpreter (from the
language spec) and a workflow executor (from the dialect's page), run against
the same deterministic stubs, so that a compiled workflow that validates but
does something other than its plan says is caught (tests/test_semantics.py), and
every request is checked against its operation's input schema (soundness.py). The
long run: benchmarks/semantics_long.py; docs/robustness.md, The semantic oracle.

Test-only code: nothing here is imported by the compiler, and the interpreter
does not use the compiler's lowering (it reads the plan's raw tree)."""
