"""History backfill: read a file, folder or archive into a Batch of drafts, then write them through the write gateway.

Every draft carries an idempotency key derived from its source id or content, so importing
the same input twice adds nothing. No model is called (seed 003): imported entries have source
"import", which the gateway's subscribers take as a backfill; rule summaries make it findable.
"""

from memoryhub.memories.maintenance.importers.base import Batch, FactOp, Link, run
from memoryhub.memories.maintenance.importers.formats import FORMATS, agent_formats, choices, detect, load
from memoryhub.memories.maintenance.importers.reading import Unreadable

__all__ = ["FORMATS", "Batch", "FactOp", "Link", "Unreadable", "agent_formats", "choices", "detect", "load", "run"]
