"""taskplan: compiles business-level TaskPlans to validated, executable workflow YAML.

Kept import-free so that `taskplan --version` stays fast; import `taskplan.api`
for the Python API.
"""

__version__ = "0.1.0"
