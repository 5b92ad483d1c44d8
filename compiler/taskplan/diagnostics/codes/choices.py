"""The choices family."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="CHOICE_INVALID",
        family="choices",
        owner="structure",
        title="A planning choice is malformed",
        explanation=(
            "A choice has a non-blank `question`, at least two alternatives with IDs unique within the "
            "choice, each a literal (null, string, number, boolean, or an object or array of literals, "
            "recursively: a choice is decided before anything runs); `recommended` and `selected` name one of"
            " its alternatives. The diagnostic points at the offending field (the second of two equal "
            "alternative IDs). That each alternative fits the choice's `type` is checked by the types pass. A"
            " choice in error is not checked further."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Greet the customer in the chosen tone\n"
            "      outputs:\n"
            "        - {name: tone, value: {kind: choice, source: tone}}\n"
            "choices:\n"
            "  - id: tone\n"
            "    question: Which tone should the greeting use?\n"
            "    type: {kind: string, enum: [formal, friendly]}\n"
            "    alternatives:\n"
            "      - {id: formal, value: {kind: string, text: formal}}\n"
            "      - {id: friendly, value: {kind: string, text: friendly}}\n"
            "    recommended: casual\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Greet the customer in the chosen tone\n"
            "      outputs:\n"
            "        - {name: tone, value: {kind: choice, source: tone}}\n"
            "choices:\n"
            "  - id: tone\n"
            "    question: Which tone should the greeting use?\n"
            "    type: {kind: string, enum: [formal, friendly]}\n"
            "    alternatives:\n"
            "      - {id: formal, value: {kind: string, text: formal}}\n"
            "      - {id: friendly, value: {kind: string, text: friendly}}\n"
            "    recommended: friendly\n"
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
            "`{kind: choice, source: ...}` must name a choice declared in `choices` (choices are "
            "plan-wide: any scope, group bodies included, may read them). The diagnostic points at "
            "`source`, with the closest choice ID, or the right value kind when the name is a task or "
            "an input."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Greet the customer in the chosen tone\n"
            "      outputs:\n"
            "        - {name: tone, value: {kind: choice, source: tnoe}}\n"
            "choices:\n"
            "  - id: tone\n"
            "    question: Which tone should the greeting use?\n"
            "    type: {kind: string, enum: [formal, friendly]}\n"
            "    alternatives:\n"
            "      - {id: formal, value: {kind: string, text: formal}}\n"
            "      - {id: friendly, value: {kind: string, text: friendly}}\n"
            "    recommended: friendly\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: greeting\n"
            "      kind: value\n"
            "      objective: Greet the customer in the chosen tone\n"
            "      outputs:\n"
            "        - {name: tone, value: {kind: choice, source: tone}}\n"
            "choices:\n"
            "  - id: tone\n"
            "    question: Which tone should the greeting use?\n"
            "    type: {kind: string, enum: [formal, friendly]}\n"
            "    alternatives:\n"
            "      - {id: formal, value: {kind: string, text: formal}}\n"
            "      - {id: friendly, value: {kind: string, text: friendly}}\n"
            "    recommended: friendly\n"
        ),
    )
)

register(
    CodeInfo(
        code="CHOICE_REQUIRED",
        family="choices",
        owner="lower",
        title="Compiling needs a selection for a choice",
        explanation=(
            "A planning choice leaves one business value to the host. `taskplan check` checks the plan with "
            "every alternative and needs no selection, but a compile produces one workflow: every choice the "
            "plan reads must be selected, by the plan's host-owned `selected`, by `--choose CHOICE=ALT`, or by "
            "auto mode (`--auto`), which takes `recommended` and records that in the output's `choices`. "
            "Reported by `taskplan compile` at the choice; the model is never asked to decide it."
        ),
        wrong="""version: 1
root:
  tasks:
    - id: greet
      kind: value
      objective: Say hello in the chosen tone
      outputs:
        - {name: text, value: {kind: choice, source: tone}}
choices:
  - id: tone
    question: Which tone should the greeting use?
    type: {kind: string}
    alternatives:
      - {id: formal, value: {kind: string, text: Good morning}}
      - {id: casual, value: {kind: string, text: Hi}}
    recommended: casual
""",
        right="""version: 1
root:
  tasks:
    - id: greet
      kind: value
      objective: Say hello in the chosen tone
      outputs:
        - {name: text, value: {kind: choice, source: tone}}
choices:
  - id: tone
    question: Which tone should the greeting use?
    type: {kind: string}
    alternatives:
      - {id: formal, value: {kind: string, text: Good morning}}
      - {id: casual, value: {kind: string, text: Hi}}
    recommended: casual
    selected: casual
""",
    )
)
