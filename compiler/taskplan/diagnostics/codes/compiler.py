"""The compiler family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="COMPILER_INTERNAL",
        family="compiler",
        owner="compiler",
        title="The compiler produced something invalid",
        explanation=(
            "A failure of the compiler's own generated plumbing: the emitted workflow does not validate although the plan did, or an unexpected exception. It is a bug of the compiler, never blamed on the plan; please report it."
        ),
    )
)
