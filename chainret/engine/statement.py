"""The support check as the hop engine imports it; its one home is ``chainret.catalog.statement``.

The check moved to the catalog tier so that ``chainret.catalog.defects.relation_defects`` (below the
engine) uses the same composition as every hop and ``trace verify``, instead of a second one.
"""

from chainret.catalog.statement import EntityLookup, Statement, states

__all__ = ["EntityLookup", "Statement", "states"]
