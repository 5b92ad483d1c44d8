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
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Note: assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: \"Note: assemble the greeting\"\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
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
            "The document is larger, deeper or has more tasks than the configured limits allow (by default 16 MiB, nesting 256 deep, 50,000 tasks), or, when compiling, the plan compiles to a workflow larger than the workflow size limit (64 MiB by default, the size up to which `taskplan validate` reads workflows: compile never writes a workflow that validate would refuse). Limits protect every later pass; they are settings, not constants (`[tool.taskplan.limits]`)."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - name: nested\n"
            "          value: " + "[" * 251 + "]" * 251 + "\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - name: nested\n"
            "          value: {kind: array, items: [{kind: array, items: []}]}\n"
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
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      objective: Assemble a friendly greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble a friendly greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_VERSION",
        family="reading",
        owner="shape",
        title="The document's version is not 1",
        explanation=(
            "A TaskPlan declares `version: 1`, the integer (not `\"1\"`, not `1.0`). A document with another "
            "version, or none, gets this one diagnostic and nothing else: its rules are unknown, so checking "
            "it further would only produce noise. The diagnostic points at `version` (at the document when it"
            " is missing)."
        ),
        wrong=(
            "version: 2\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_FIELD_UNKNOWN",
        family="reading",
        owner="shape",
        title="A field that the object does not have",
        explanation=(
            "Every TaskPlan object is closed: a field that is not part of the language is an error, usually a"
            " typo or a field name from another tool. Field names are exact and case-sensitive (camelCase, as"
            " on the wire). The diagnostic points at the key; the hint names the closest field of that "
            "object. A field that belongs to another task or value kind is TASK_KIND_FIELD instead. The "
            "object is still checked for everything else, but what the misspelt field would have said (a "
            "dependency, an objective) is not assumed."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: title\n"
            "      kind: value\n"
            "      objective: Assemble the report title\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Weekly report}}\n"
            "    - id: summary\n"
            "      kind: value\n"
            "      objective: Assemble the report summary\n"
            "      dependson: [title]\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: All checks passed}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: title\n"
            "      kind: value\n"
            "      objective: Assemble the report title\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Weekly report}}\n"
            "    - id: summary\n"
            "      kind: value\n"
            "      objective: Assemble the report summary\n"
            "      dependsOn: [title]\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: All checks passed}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_FIELD_REQUIRED",
        family="reading",
        owner="shape",
        title="A required field is missing",
        explanation=(
            "The object lacks a field that the language requires: a task's `id`, an operation's `operation`, "
            "an input's `type`, a named value's `value`, a value's `kind`, the document's `root`. `null` "
            "means absent, so a required field written as null is missing too. The diagnostic points at the "
            "object that lacks the field (at the key when it is written as null). When a misspelt key next to"
            " it is reported as PLAN_FIELD_UNKNOWN, the missing field is not reported again."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - name: repo\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the repository name on\n"
            "      outputs:\n"
            "        - {name: repo, value: {kind: input, source: repo}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - name: repo\n"
            "    type: {kind: string}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: echo\n"
            "      kind: value\n"
            "      objective: Pass the repository name on\n"
            "      outputs:\n"
            "        - {name: repo, value: {kind: input, source: repo}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_FIELD_TYPE",
        family="reading",
        owner="shape",
        title="A field holds the wrong JSON type",
        explanation=(
            "A field holds a value of the wrong JSON type: text where a number is expected (`maxItems: "
            "\"50\"`), a mapping where a list is expected, a float or a boolean where an integer is expected, a"
            " number that is not finite, or a bare scalar where a tagged value object is expected (`value: "
            "Hello` instead of `value: {kind: string, text: Hello}`). It is reported before any other rule "
            "looks at the field, and points at the value itself. A value written as a bare scalar has an "
            "unknown type: nothing that reads it is checked further."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: Hello}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="PLAN_NAME_INVALID",
        family="reading",
        owner="shape",
        title="The plan name is not a valid name",
        explanation=(
            "The document's `name` must match ^[a-z0-9][a-z0-9-]{0,62}$: lower-case letters, digits and "
            "hyphens, starting with a letter or digit, at most 63 characters; it names the workflow. A "
            "written name is never normalised. Without a `name`, the plan is named after its file (up to the "
            "first dot), lower-cased with other characters made hyphens."
        ),
        wrong=(
            "version: 1\n"
            "name: Greeting Plan\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
        right=(
            "version: 1\n"
            "name: greeting-plan\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Assemble the greeting\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Hello}}\n"
        ),
    )
)
