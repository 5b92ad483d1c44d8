"""Diagnostics: the code registry, the Diagnostic type, the reporter and renderers.

This package imports no pass: passes import it.
"""

from taskplan.diagnostics.diagnostic import Diagnostic, Location, Related, Severity
from taskplan.diagnostics.reporter import Diagnostics, Reporter

__all__ = ["Diagnostic", "Diagnostics", "Location", "Related", "Reporter", "Severity"]
