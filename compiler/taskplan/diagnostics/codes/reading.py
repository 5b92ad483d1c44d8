"""The reading family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="PLAN_SYNTAX",
        family="reading",
        owner="read",
        title="The file is not well-formed YAML or JSON",
        explanation=(
            "The text could not be parsed, or uses a YAML feature the compiler refuses (anchors, aliases, tags, non-scalar keys, more than one document), or is not valid UTF-8. The location is the parser's position."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_LIMIT",
        family="reading",
        owner="read",
        title="The document exceeds a reading limit",
        explanation=(
            "The document is larger, deeper or has more tasks than the configured limits allow (by default 16 MiB, nesting 256 deep, 50,000 tasks). Limits protect every later pass; they are settings, not constants."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_DUPLICATE_KEY",
        family="reading",
        owner="read",
        title="A key appears twice in one mapping",
        explanation=(
            "A mapping names the same key twice. YAML and JSON readers disagree on which one wins, so the compiler refuses both. The diagnostic points at the second key; the first is the related location."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_VERSION",
        family="reading",
        owner="read",
        title="The document's version is not 1",
        explanation=(
            "A TaskPlan must declare `version: 1` (the integer). A document with another or no version is not checked further: its rules are unknown."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_FIELD_UNKNOWN",
        family="reading",
        owner="read",
        title="A field that the object does not have",
        explanation=(
            "Every TaskPlan object is closed: a field that is not part of the language is an error, usually a typo. The hint suggests the closest known field."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_FIELD_REQUIRED",
        family="reading",
        owner="read",
        title="A required field is missing",
        explanation=(
            "The object lacks a field that the language requires. The diagnostic points at the object that lacks it."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_FIELD_TYPE",
        family="reading",
        owner="read",
        title="A field holds the wrong JSON type",
        explanation=(
            "A field holds a value of the wrong JSON type: text where a number is expected, a mapping where a list is expected, a bare scalar where a tagged value object is expected. It is reported before any other rule looks at the field."
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_NAME_INVALID",
        family="reading",
        owner="read",
        title="The plan name is not a valid name",
        explanation=(
            "The document's `name` must match ^[a-z0-9][a-z0-9-]{0,62}$: lower-case letters, digits and hyphens, starting with a letter or digit, at most 63 characters."
        ),
    )
)
