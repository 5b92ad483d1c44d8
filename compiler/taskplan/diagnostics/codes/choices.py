"""The choices family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="CHOICE_INVALID",
        family="choices",
        owner="scope",
        title="A planning choice is malformed",
        explanation=(
            "A choice has a non-blank question, at least two alternatives with unique IDs, each a literal that fits the choice's type; `recommended` and `selected` name an alternative."
        ),
    )
)

register(
    CodeInfo(
        code="CHOICE_UNKNOWN",
        family="choices",
        owner="scope",
        title="A value reads a choice that does not exist",
        explanation=(
            "`{kind: choice, source: ...}` must name a declared choice."
        ),
    )
)

register(
    CodeInfo(
        code="CHOICE_REQUIRED",
        family="choices",
        owner="scope",
        title="Compiling needs a selection for a choice",
        explanation=(
            "A compile needs every choice read by the plan to be selected, or auto mode (--auto) to take its recommendation."
        ),
    )
)
