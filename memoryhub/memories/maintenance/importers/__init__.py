"""History backfill: parse a file (or directory) into a Batch, then write it through the normal pipeline.

Every item carries an idempotency key derived from its source id or content, so importing
the same file twice adds nothing. No model is called: rule summaries make it findable.
"""

from memoryhub.memories.maintenance.importers.base import Batch, FactOp, Item, Link, run
from memoryhub.memories.maintenance.importers.formats import FORMATS, detect, load

__all__ = ["FORMATS", "Batch", "FactOp", "Item", "Link", "detect", "load", "run"]
