"""Operators for the project configuration ([tool.taskplan] in pyproject.toml)."""

from __future__ import annotations

from .core import Injection, operator


@operator("CONFIG_INVALID", "config")
def setting_unknown(ctx):
    """An unknown setting (`catalog`, singular) in [tool.taskplan]."""
    text = ctx.seed.text + 'catalog = "catalogs/review.catalog.yaml"\n'
    return Injection(text.encode(), "/tool/taskplan/catalog", text.count("\n"), 1)


@operator("CONFIG_INVALID", "config")
def catalogs_as_a_string(ctx):
    """`catalogs` written as one string instead of a list."""
    text = ctx.seed.text.replace('catalogs = ["catalogs/review.catalog.yaml"]', 'catalogs = "catalogs/review.catalog.yaml"')
    return Injection(text.encode(), "/tool/taskplan/catalogs")


@operator("CONFIG_INVALID", "config")
def catalog_missing(ctx):
    """A catalog path that matches no file."""
    text = ctx.seed.text.replace('"catalogs/review.catalog.yaml"', '"catalogs/review.catalog.yaml", "catalogs/none.yaml"')
    return Injection(text.encode(), "/tool/taskplan/catalogs/1")


@operator("CONFIG_INVALID", "config")
def not_toml(ctx):
    """A line that is not TOML: at the parser's position."""
    text = ctx.seed.text + "catalogs_extra = [unquoted]\n"
    return Injection(text.encode(), "", text.count("\n"), 19)
