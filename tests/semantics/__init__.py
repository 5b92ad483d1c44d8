"""A differential semantic oracle: a reference TaskPlan interpreter (from the
language spec) and a workflow executor (from the dialect's page), run against
the same deterministic stubs, so that a compiled workflow that validates but
does something other than its plan says is caught (tests/test_semantics.py).

Test-only code: nothing here is imported by the compiler, and the interpreter
does not use the compiler's lowering (it reads the plan's raw tree)."""
