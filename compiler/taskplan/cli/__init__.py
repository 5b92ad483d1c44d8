"""The command line: parse flags, call the API, render. The only place that knows
about terminals. Subcommands live in their own modules and are imported lazily,
so `taskplan --version` stays fast."""

from __future__ import annotations

import importlib

import click

from taskplan import __version__

# name -> "module:attribute"; each module holds one click command (or group).
COMMANDS = {
    "check": "taskplan.cli.check:check",
    "compile": "taskplan.cli.compile:compile_",
    "gate": "taskplan.cli.gate:gate",
    "validate": "taskplan.cli.validate:validate",
    "explain": "taskplan.cli.explain:explain",
    "schema": "taskplan.cli.schema:schema",
    "catalog": "taskplan.cli.catalog:catalog",
    "graph": "taskplan.cli.graph:graph",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self._load(name) is not None)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        return self._load(name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attr = target.split(":")
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:  # not built yet
                return None
            raise
        return getattr(module, attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="taskplan")
def main() -> None:
    """taskplan: compile business-level TaskPlans to validated, executable workflow YAML."""
