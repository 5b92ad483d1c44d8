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
        owner="structure",
        title="A predicate is unknown or has the wrong number of operands",
        explanation=(
            "The predicates are `not` (one operand) and `and`, `or`, `equal`, `not_equal`, `less`, "
            "`less_equal`, `greater`, `greater_equal` (two operands each). An unknown name is reported at "
            "`predicate` with the closest one; a wrong number of operands at `items`. The operands' types are"
            " checked by the types pass (TASK_PREDICATE_TYPE)."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: count, type: {kind: integer}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: check\n"
            "      kind: value\n"
            "      objective: Tell whether there is anything to review\n"
            "      outputs:\n"
            "        - name: empty\n"
            "          value:\n"
            "            kind: predicate\n"
            "            predicate: equals\n"
            "            items: [{kind: input, source: count}, {kind: number, number: 0}]\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: count, type: {kind: integer}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: check\n"
            "      kind: value\n"
            "      objective: Tell whether there is anything to review\n"
            "      outputs:\n"
            "        - name: empty\n"
            "          value:\n"
            "            kind: predicate\n"
            "            predicate: equal\n"
            "            items: [{kind: input, source: count}, {kind: number, number: 0}]\n"
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
        owner="structure",
        title="A transform's resultType is not a strict closed object",
        explanation=(
            "A transform's result is produced by a model under strict structured output, so its `resultType` "
            "is a non-empty object whose fields are all fully typed (no `any`, at any depth), required or "
            "explicitly `nullable: true`, and without defaults; nested objects follow the same rules. The "
            "diagnostic points at the offending field (its `kind`, its `default`, or the field itself when it"
            " is optional but not nullable). The transform's ports are then unknown."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: triage\n"
            "      kind: transform\n"
            "      objective: Classify the ticket by urgency\n"
            "      inputs:\n"
            "        - {name: ticket, value: {kind: input, source: ticket}}\n"
            "      resultType:\n"
            "        kind: object\n"
            "        fields:\n"
            "          - {name: urgency, type: {kind: string, enum: [low, high]}}\n"
            "          - {name: reason, type: {kind: any}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: ticket, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: triage\n"
            "      kind: transform\n"
            "      objective: Classify the ticket by urgency\n"
            "      inputs:\n"
            "        - {name: ticket, value: {kind: input, source: ticket}}\n"
            "      resultType:\n"
            "        kind: object\n"
            "        fields:\n"
            "          - {name: urgency, type: {kind: string, enum: [low, high]}}\n"
            "          - {name: reason, type: {kind: string}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEFAULT_REQUIRED",
        family="ports and types",
        owner="structure",
        title="An optional input has no default",
        explanation=(
            "A workflow or group input with `required: false` may be left out by the caller, so it needs a "
            "literal `default` that stands in for it (that the default fits the type is "
            "TASK_DEFAULT_INVALID). The diagnostic points at the input. The input is still typed as declared."
            " Optional fields inside an object type need no default."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: limit, type: {kind: integer}, required: false}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the limit on\n"
            "      outputs:\n"
            "        - {name: limit, value: {kind: input, source: limit}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: limit, type: {kind: integer}, required: false, default: {kind: number, number: 20}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the limit on\n"
            "      outputs:\n"
            "        - {name: limit, value: {kind: input, source: limit}}\n"
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
