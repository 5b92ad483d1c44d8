"""The config family: project configuration ([tool.taskplan] in pyproject.toml)."""

from taskplan.diagnostics.registry import CodeInfo, register


register(
    CodeInfo(
        code="CONFIG_INVALID",
        family="config",
        owner="config",
        title="The project configuration is invalid",
        explanation=(
            "The `[tool.taskplan]` table of the nearest pyproject.toml that has one is wrong: the file is not valid TOML, a setting or a limit is unknown (the table is closed, so that a typo never silently drops a setting), a value has the wrong type, a configured catalog path or pattern matches no file, `output-dir` leads out of the project, `workflow-name` lacks `{stem}`, has a path separator or does not end in .yaml/.yml, an `ignore` entry is not a registered code or is an error's code (errors cannot be silenced), or a limit is not a positive integer. Paths are relative to the pyproject.toml. The diagnostic points into pyproject.toml; command-line flags (`--catalog`, `-o`, `--ignore`) take precedence over the settings but do not silence this error."
        ),
        wrong=(
            "[tool.taskplan]\n"
            "catalog = \"catalogs/github.catalog.yaml\"\n"
        ),
        right=(
            "[tool.taskplan]\n"
            "catalogs = [\"catalogs/github.catalog.yaml\"]\n"
        ),
    )
)
