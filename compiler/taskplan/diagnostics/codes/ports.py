"""The ports and types family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_OPERATION_UNKNOWN",
        family="ports and types",
        owner="types",
        title="The operation is not in the catalog",
        explanation=(
            "An operation task names an operation ID (or a version pin) that the catalog does not have. The hint lists the closest catalog IDs."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_UNKNOWN",
        family="ports and types",
        owner="types",
        title="A binding names an input port the operation does not have",
        explanation=(
            "An operation's input ports are the top-level properties of its input schema."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_REQUIRED",
        family="ports and types",
        owner="types",
        title="A required input port is unbound",
        explanation=(
            "The operation's input schema requires this port; bind it."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_TYPE",
        family="ports and types",
        owner="types",
        title="A bound value does not fit the input port",
        explanation=(
            "The value's type must fit the port's type: kinds match (integer fits number), nullability, enums, object fields and array items."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_INPUT_CATALOG_OWNED",
        family="ports and types",
        owner="types",
        title="A plan binds a port that the catalog fixes",
        explanation=(
            "Host-owned inputs are injected by the compiler from the catalog; the plan may not bind them, even to an equal value."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_OUTPUT_UNKNOWN",
        family="ports and types",
        owner="types",
        title="A value reads a port the task does not have",
        explanation=(
            "The ports of a task are fixed by its kind: the operation's output schema, a transform's resultType, a value task's outputs, a group's or a scope's outputs."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_FIELD_UNKNOWN",
        family="ports and types",
        owner="types",
        title="A field value selects a field the object does not declare",
        explanation=(
            "`{kind: field}` selects a declared field by its exact name."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_FIELD_TYPE",
        family="ports and types",
        owner="types",
        title="A field value selects from an opaque or non-object value",
        explanation=(
            "`{kind: field}` needs an object with declared fields; an opaque (any) value grants no field access."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_PREDICATE_INVALID",
        family="ports and types",
        owner="types",
        title="A predicate is unknown or has the wrong number of operands",
        explanation=(
            "`not` takes one operand; and, or, equal, not_equal, less, less_equal, greater, greater_equal take two."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_PREDICATE_TYPE",
        family="ports and types",
        owner="types",
        title="A predicate's operands have the wrong types",
        explanation=(
            "`and`/`or`/`not` need booleans; orderings need two numbers or two strings; equality needs comparable types."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_CONDITION_TYPE",
        family="ports and types",
        owner="types",
        title="A conditional's condition is not boolean",
        explanation=(
            "The `condition` of a `conditional` must produce a boolean."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_TRANSFORM_TYPE",
        family="ports and types",
        owner="types",
        title="A transform's resultType is not a strict closed object",
        explanation=(
            "A transform's `resultType` is a non-empty closed object whose fields are all fully typed (no `any`), required or explicitly nullable, with no defaults."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEFAULT_REQUIRED",
        family="ports and types",
        owner="types",
        title="An optional input has no default",
        explanation=(
            "An input with `required: false` needs a literal `default`."
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEFAULT_INVALID",
        family="ports and types",
        owner="types",
        title="A default does not fit its input",
        explanation=(
            "An input's `default` must be a literal that fits the input's type."
        ),
    )
)
