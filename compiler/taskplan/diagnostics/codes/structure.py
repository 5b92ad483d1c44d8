"""The structure family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_KIND_INVALID",
        family="structure",
        owner="shape",
        title="Unknown task kind",
        explanation=(
            "A task's `kind` must be one of operation, transform, value, call, sequence, conditional, parallel, foreach. A task of unknown kind is not checked further."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_KIND_FIELD",
        family="structure",
        owner="shape",
        title="A field that belongs to another task or value kind",
        explanation=(
            "A field of another kind must be absent or empty (null, [], false or its default), as the strict wire form writes it."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_OBJECTIVE_REQUIRED",
        family="structure",
        owner="shape",
        title="A task or group has no objective",
        explanation=(
            "Every task and group states its objective as a non-blank sentence."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_PARALLEL_INVALID",
        family="structure",
        owner="shape",
        title="A parallel task with fewer than two branches",
        explanation=(
            "A `parallel` task runs at least two branches; with one, use `sequence`."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ITERATION_BOUND",
        family="structure",
        owner="shape",
        title="An iteration or concurrency bound is out of range",
        explanation=(
            "`maxItems` is 1-10000 and `maxConcurrency` is 1-100."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ITEMS_INVALID",
        family="structure",
        owner="shape",
        title="A foreach iterates over something that is not an array",
        explanation=(
            "A `foreach`'s `items` must produce an array."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_BRANCH_OUTPUTS",
        family="structure",
        owner="shape",
        title="Branch outputs do not match",
        explanation=(
            "The two sides of a `conditional` must declare the same outputs with matching types; the branches of a `parallel` must not declare the same output twice."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_VALUE_INVALID",
        family="structure",
        owner="shape",
        title="A value is malformed",
        explanation=(
            "An unknown value kind, a `field` or `json` value without exactly one item, a number out of range, or values nested more than 64 deep."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_TYPE_INVALID",
        family="structure",
        owner="shape",
        title="A type is malformed",
        explanation=(
            "A TaskType of unknown kind, an `enum` on a non-string or with duplicate or too many (1-256) strings, an array type without `items`, or `items`/`fields` on a kind that has none."
        ),
    )
)
