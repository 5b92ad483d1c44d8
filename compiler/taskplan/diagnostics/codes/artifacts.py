"""The artifacts family."""

from taskplan.diagnostics.registry import CodeInfo, register

_FILES = (
    "version: 1\n"
    "sources:\n"
    "  - id: files\n"
    "    operations:\n"
    "      - id: files.upload\n"
    "        effect: write\n"
    "        input:\n"
    "          type: object\n"
    "          properties:\n"
    "            name: {type: string}\n"
    "            content: {type: string}\n"
    "          required: [name, content]\n"
    "        output:\n"
    "          type: object\n"
    "          properties:\n"
    "            file_id: {type: string}\n"
    "          required: [file_id]\n"
    "        artifacts:\n"
    "          produces: [{port: file_id, kind: upload}]\n"
    "      - id: files.share\n"
    "        effect: write\n"
    "        input:\n"
    "          type: object\n"
    "          properties:\n"
    "            file_id: {type: string}\n"
    "            with: {type: string}\n"
    "          required: [file_id, with]\n"
    "        artifacts:\n"
    "          consumes: [{port: file_id, kind: upload}]\n"
)
"""Uploads produce an `upload` artifact that sharing consumes."""


register(
    CodeInfo(
        code="TASK_ARTIFACT_BINDING",
        family="artifacts",
        owner="types",
        title="An artifact port is bound to a value of another origin",
        explanation=(
            "The catalog says this input port consumes an artifact kind (a file the host uploaded, a sandbox, "
            "a patch): it must be bound to a value that comes from a port that produces that kind, followed "
            "through value tasks, exports, captures, group inputs (every call must pass one), `field`, "
            "foreach items and collections, and conditional merges (both sides must carry it). A literal, a "
            "workflow input, a transform's result, or a new object, array or JSON text made from the artifact "
            "carries no origin: an equal string or a matching type is not enough. The diagnostic points at "
            "the value; it is the one finding for the slot (no type error besides). When no task produces the "
            "kind at all, the finding is TASK_ARTIFACT_PREREQUISITE_MISSING."
        ),
        wrong=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: notes, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: upload\n"
            "      objective: Upload the meeting notes\n"
            "      operation: files.upload\n"
            "      inputs:\n"
            "        - {name: name, value: {kind: string, text: notes.md}}\n"
            "        - {name: content, value: {kind: input, source: notes}}\n"
            "    - id: share\n"
            "      objective: Share the notes with the team\n"
            "      operation: files.share\n"
            "      inputs:\n"
            "        - {name: file_id, value: {kind: string, text: notes.md}}\n"
            "        - {name: with, value: {kind: string, text: team@example.com}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: notes, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: upload\n"
            "      objective: Upload the meeting notes\n"
            "      operation: files.upload\n"
            "      inputs:\n"
            "        - {name: name, value: {kind: string, text: notes.md}}\n"
            "        - {name: content, value: {kind: input, source: notes}}\n"
            "    - id: share\n"
            "      objective: Share the notes with the team\n"
            "      operation: files.share\n"
            "      inputs:\n"
            "        - {name: file_id, value: {kind: output, source: upload, port: file_id}}\n"
            "        - {name: with, value: {kind: string, text: team@example.com}}\n"
        ),
        catalog=_FILES,
    )
)

register(
    CodeInfo(
        code="TASK_ARTIFACT_PREREQUISITE_MISSING",
        family="artifacts",
        owner="types",
        title="No task produces the artifact kind a port needs",
        explanation=(
            "The port consumes an artifact kind, and no task of the plan produces that kind at all: the plan "
            "lacks a step (upload the file, create the sandbox) before this one. Reported at the binding's "
            "value (at `inputs` when the port is left unbound), instead of any binding, type or missing-input "
            "diagnostic for that slot. A task whose own contract is unknown (an unknown operation) may "
            "produce any kind, so it silences this check. Add a task calling an operation that produces the "
            "kind (`taskplan catalog search KIND`) and bind its output."
        ),
        wrong=(
            "version: 1\n"
            "root:\n"
            "  tasks:\n"
            "    - id: share\n"
            "      objective: Share the meeting notes with the team\n"
            "      operation: files.share\n"
            "      inputs:\n"
            "        - {name: file_id, value: {kind: string, text: notes.md}}\n"
            "        - {name: with, value: {kind: string, text: team@example.com}}\n"
        ),
        right=(
            "version: 1\n"
            "inputs:\n"
            "  - {name: notes, type: {kind: string}}\n"
            "root:\n"
            "  tasks:\n"
            "    - id: upload\n"
            "      objective: Upload the meeting notes\n"
            "      operation: files.upload\n"
            "      inputs:\n"
            "        - {name: name, value: {kind: string, text: notes.md}}\n"
            "        - {name: content, value: {kind: input, source: notes}}\n"
            "    - id: share\n"
            "      objective: Share the notes with the team\n"
            "      operation: files.share\n"
            "      inputs:\n"
            "        - {name: file_id, value: {kind: output, source: upload, port: file_id}}\n"
            "        - {name: with, value: {kind: string, text: team@example.com}}\n"
        ),
        catalog=_FILES,
    )
)
