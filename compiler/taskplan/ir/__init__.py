"""The compiler's intermediate representations: the CheckedPlan (after identity and
scope), the typed plan (after types) and the PlanningGraph (after lower)."""
