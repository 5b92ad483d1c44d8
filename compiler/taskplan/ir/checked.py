"""The checked plan: what the identity and scope passes establish, consumed by the
types and lower passes. (To be filled in by the identity/scope work.)"""

from __future__ import annotations


class IdentityTable:
    pass


class CheckedPlan:
    pass
