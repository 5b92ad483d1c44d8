"""The scope family."""

from taskplan.diagnostics.diagnostic import Severity
from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="TASK_REFERENCE_UNKNOWN",
        family="scope",
        owner="scope",
        title="A reference names nothing",
        explanation=(
            "An `output` or `present` value names a task ID, or an `input` value names an input, that "
            "exists nowhere in the plan (inside a group body: among the group's inputs). The diagnostic"
            " points at `source`; the hint suggests the closest ID or name, or the right value kind "
            "when the name is a choice, group or input. The reference creates no dependency, so nothing"
            " else follows from it."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: summary\n"
            "      kind: value\n"
            "      objective: Write the summary\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: All good}}\n"
            "    - id: notice\n"
            "      kind: value\n"
            "      objective: Prepare the notice\n"
            "      outputs:\n"
            "        - {name: body, value: {kind: output, source: sumary, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: summary\n"
            "      kind: value\n"
            "      objective: Write the summary\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: All good}}\n"
            "    - id: notice\n"
            "      kind: value\n"
            "      objective: Prepare the notice\n"
            "      outputs:\n"
            "        - {name: body, value: {kind: output, source: summary, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_REFERENCE_SCOPE",
        family="scope",
        owner="scope",
        title="A reference names something that is not visible here",
        explanation=(
            "A value may read the workflow's inputs, the other tasks of its own scope, what the "
            "compound task owning its scope can see, and (in a foreach body) the current item. A task's"
            " ports never leave its scope except through the scope's `outputs`, which become ports of "
            "the compound task. Also not visible: a cleanup task in `always` (nothing may read its "
            "ports), and inside a group body anything but the group's inputs (no workflow inputs, no "
            "outside tasks). `dependsOn` naming a task of another scope is this error too. The hint "
            "names the export chain that would make the task visible, where one exists."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: review\n"
            "      kind: sequence\n"
            "      objective: Review the change\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Summarise the review\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Looks good}}\n"
            "    - id: post\n"
            "      kind: value\n"
            "      objective: Prepare the comment\n"
            "      outputs:\n"
            "        - {name: body, value: {kind: output, source: summary, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: review\n"
            "      kind: sequence\n"
            "      objective: Review the change\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Summarise the review\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Looks good}}\n"
            "        outputs:\n"
            "          - {name: text, value: {kind: output, source: summary, port: text}}\n"
            "    - id: post\n"
            "      kind: value\n"
            "      objective: Prepare the comment\n"
            "      outputs:\n"
            "        - {name: body, value: {kind: output, source: review, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_REFERENCE_SIBLING",
        family="scope",
        owner="scope",
        title="A parallel branch reads another branch",
        explanation=(
            "The branches of a `parallel` run concurrently, so no branch can read what another branch "
            "produces. Export the value from its branch (the branch's `outputs` become ports of the "
            "parallel task) and read it from a task that runs after the parallel task."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: gather\n"
            "      kind: parallel\n"
            "      objective: Gather both halves of the report\n"
            "      branches:\n"
            "        - tasks:\n"
            "            - id: left\n"
            "              kind: value\n"
            "              objective: Produce the first half\n"
            "              outputs:\n"
            "                - {name: text, value: {kind: string, text: first}}\n"
            "        - tasks:\n"
            "            - id: right\n"
            "              kind: value\n"
            "              objective: Produce the second half\n"
            "              outputs:\n"
            "                - {name: text, value: {kind: output, source: left, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: gather\n"
            "      kind: parallel\n"
            "      objective: Gather both halves of the report\n"
            "      branches:\n"
            "        - tasks:\n"
            "            - id: left\n"
            "              kind: value\n"
            "              objective: Produce the first half\n"
            "              outputs:\n"
            "                - {name: text, value: {kind: string, text: first}}\n"
            "          outputs:\n"
            "            - {name: first, value: {kind: output, source: left, port: text}}\n"
            "        - tasks:\n"
            "            - id: right\n"
            "              kind: value\n"
            "              objective: Produce the second half\n"
            "              outputs:\n"
            "                - {name: text, value: {kind: string, text: second}}\n"
            "          outputs:\n"
            "            - {name: second, value: {kind: output, source: right, port: text}}\n"
            "    - id: join\n"
            "      kind: value\n"
            "      objective: Put the halves together\n"
            "      outputs:\n"
            "        - {name: parts, value: {kind: array, items: [{kind: output, source: gather, port: first}, {kind: output, source: gather, port: second}]}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_ITEM_SCOPE",
        family="scope",
        owner="scope",
        title="item or index outside a foreach body",
        explanation=(
            "`{kind: item}` and `{kind: index}` read the current iteration of the nearest enclosing "
            "`foreach` body. Outside any foreach body they mean nothing; so also in a foreach's own "
            "`items` (evaluated before the body runs) and in a group body (a group does not see its "
            "caller's iteration: pass the item as a group input)."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: files, type: {kind: array, items: {kind: string}}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: label\n"
            "      kind: value\n"
            "      objective: Label the current file\n"
            "      outputs:\n"
            "        - {name: path, value: {kind: item}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: files, type: {kind: array, items: {kind: string}}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: each_file\n"
            "      kind: foreach\n"
            "      objective: Label every file\n"
            "      items: {kind: input, source: files}\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: label\n"
            "            kind: value\n"
            "            objective: Label the current file\n"
            "            outputs:\n"
            "              - {name: path, value: {kind: item}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEPENDENCY_UNKNOWN",
        family="scope",
        owner="scope",
        title="dependsOn names a task that exists nowhere",
        explanation=(
            "A `dependsOn` entry must name a task of the same scope. An ID that no task has (or that "
            "names a group or a choice) is this error, at the entry, with the closest task ID as a "
            "suggestion; an ID of a task in another scope is TASK_REFERENCE_SCOPE."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: prepare\n"
            "      kind: value\n"
            "      objective: Prepare the release notes\n"
            "      outputs:\n"
            "        - {name: notes, value: {kind: string, text: v1}}\n"
            "    - id: announce\n"
            "      kind: value\n"
            "      objective: Announce the release\n"
            "      dependsOn: [prepair]\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Released}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: prepare\n"
            "      kind: value\n"
            "      objective: Prepare the release notes\n"
            "      outputs:\n"
            "        - {name: notes, value: {kind: string, text: v1}}\n"
            "    - id: announce\n"
            "      kind: value\n"
            "      objective: Announce the release\n"
            "      dependsOn: [prepare]\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: Released}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_DEPENDENCY_CYCLE",
        family="scope",
        owner="scope",
        title="Tasks depend on each other in a cycle",
        explanation=(
            "The tasks of a scope run in a topological order of their dependencies: `dependsOn` entries"
            " and reads (`output`, `present`), including reads made from inside a task's child scopes. "
            "A cycle can never start. It is reported once, naming every task on it, at the `dependsOn` "
            "entry or value by which the first-written task on the cycle depends on the next; the other"
            " steps are related locations. A task reading its own ports (directly, or from inside its "
            "own body) depends on itself."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: draft\n"
            "      kind: value\n"
            "      objective: Draft the answer\n"
            "      dependsOn: [check]\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: draft}}\n"
            "    - id: check\n"
            "      kind: value\n"
            "      objective: Check the draft\n"
            "      outputs:\n"
            "        - {name: verdict, value: {kind: output, source: draft, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: draft\n"
            "      kind: value\n"
            "      objective: Draft the answer\n"
            "      outputs:\n"
            "        - {name: text, value: {kind: string, text: draft}}\n"
            "    - id: check\n"
            "      kind: value\n"
            "      objective: Check the draft\n"
            "      outputs:\n"
            "        - {name: verdict, value: {kind: output, source: draft, port: text}}\n"
        ),
    )
)

register(
    CodeInfo(
        code="TASK_OUTPUT_UNUSED",
        family="scope",
        owner="usage",
        severity=Severity.WARNING,
        title="An exported value that nothing reads",
        explanation=(
            "A warning. An entry of a scope's `outputs` (the body of a `sequence`, `conditional` or "
            "`foreach`, a branch of a `parallel`, a group body) becomes a port of the task that owns the "
            "scope (of every `call` of the group), and an entry of a `value` task's `outputs` is a port "
            "of that task; nothing reads this one: no `{kind: output, source: <task>, port: <name>}`, "
            "no whole read (`port: null`), and no enclosing scope's `outputs` re-exports it (a re-export"
            " is a read; the outer export is then judged itself). The root scope's `outputs` are the "
            "plan's results and are never unused; the ports of `operation` and `transform` tasks are not"
            " exports (a result may be ignored on purpose) and are not judged. Nothing is reported about"
            " a task or group in error, a group nothing calls, or where an error of the plan (an "
            "unknown reference, a value in error) may hide a reader. The diagnostic points at the "
            "output's `name`; the related location is the task or group that owns it. Silence it with "
            "`ignore = [\"TASK_OUTPUT_UNUSED\"]` in `[tool.taskplan]` or `--ignore TASK_OUTPUT_UNUSED`."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: review\n"
            "      kind: sequence\n"
            "      objective: Review the change\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Summarise the review\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Looks good}}\n"
            "              - {name: verdict, value: {kind: string, text: approve}}\n"
            "        outputs:\n"
            "          - {name: text, value: {kind: output, source: summary, port: text}}\n"
            "          - {name: verdict, value: {kind: output, source: summary, port: verdict}}\n"
            "  outputs:\n"
            "    - {name: comment, value: {kind: output, source: review, port: text}}\n"
        ),
        right=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: review\n"
            "      kind: sequence\n"
            "      objective: Review the change\n"
            "      body:\n"
            "        tasks:\n"
            "          - id: summary\n"
            "            kind: value\n"
            "            objective: Summarise the review\n"
            "            outputs:\n"
            "              - {name: text, value: {kind: string, text: Looks good}}\n"
            "              - {name: verdict, value: {kind: string, text: approve}}\n"
            "        outputs:\n"
            "          - {name: text, value: {kind: output, source: summary, port: text}}\n"
            "          - {name: verdict, value: {kind: output, source: summary, port: verdict}}\n"
            "  outputs:\n"
            "    - {name: comment, value: {kind: output, source: review, port: text}}\n"
            "    - {name: verdict, value: {kind: output, source: review, port: verdict}}\n"
        ),
    )
)
