"""Small plans that several CLI test files share (no tests here)."""

WEEKLY = """\
version: 1
name: weekly-title
root:
  tasks:
    - id: title
      kind: value
      objective: Choose the weekly report's title
      outputs:
        - {name: text, value: {kind: string, text: Weekly report}}
  outputs:
    - {name: title, value: {kind: output, source: title, port: text}}
"""
"""A plan that needs no catalog: one value task, one output."""
