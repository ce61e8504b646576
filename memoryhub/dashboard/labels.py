"""What the dashboard calls the hub's enumerated values in the reader's language: categories, entry kinds, link
types, op-log operations, fact methods and predicates, vault criteria, settings and selection choices (import formats carry their
own names: memories/maintenance/importers/formats.py).

The values themselves have one declaration each (memories/models.py, spaces/selection.py, ...); this module only
names them for people. `label(family, value)` (the `label` template filter) answers a value it does not know as
itself, and tests/test_dashboard_labels.py fails until every declared value has a name here.
"""

from __future__ import annotations

from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from providers.registry import get_provider_class

CATEGORY = {
    "progress": pgettext_lazy("category", "progress"), "pitfall": pgettext_lazy("category", "pitfall"),
    "decision": pgettext_lazy("category", "decision"), "structure": pgettext_lazy("category", "structure"),
    "experience": pgettext_lazy("category", "experience"), "companion": pgettext_lazy("category", "companion"),
    "preference": pgettext_lazy("category", "preference"), "fact": pgettext_lazy("category", "fact"),
    "insight": pgettext_lazy("category", "insight"), "context": pgettext_lazy("category", "context"),
    "general": pgettext_lazy("category", "general"),
}
KIND = {  # how an entry came to be (memories.models.Kind)
    "turn": pgettext_lazy("entry kind", "turn"), "note": pgettext_lazy("entry kind", "note"),
    "save": pgettext_lazy("entry kind", "save"), "digest": pgettext_lazy("entry kind", "digest"),
    "import": pgettext_lazy("entry kind", "import"),
}
LINK = {  # an edge between two memories (memories.models.EdgeType), as the graph's legend names it
    "entity": _("Same names"), "semantic": _("Linked"), "causal": _("Cause and effect"),
    "supersedes": _("Replaces"), "temporal": _("Close in time"),
}
OPERATION = {  # a row of a space's op log (memories/write/oplog.py and its callers)
    "remember": pgettext_lazy("operation", "written"), "recall": pgettext_lazy("operation", "recalled"),
    "update": pgettext_lazy("operation", "edited"), "forget": pgettext_lazy("operation", "forgotten"),
    "link": pgettext_lazy("operation", "linked"), "retag": pgettext_lazy("operation", "re-tagged"),
    "archive": pgettext_lazy("operation", "archived"), "unarchive": pgettext_lazy("operation", "unarchived"),
    "prune": pgettext_lazy("operation", "archived over the cap"), "merge": pgettext_lazy("operation", "merged"),
    "unmerge": pgettext_lazy("operation", "unmerged"), "digest": pgettext_lazy("operation", "digested"),
    "undigest": pgettext_lazy("operation", "digest undone"), "diff-skip": pgettext_lazy("operation", "duplicate skipped"),
    "gc": pgettext_lazy("operation", "weak memories listed"), "gc_keep": pgettext_lazy("operation", "kept"),
    "consolidate": pgettext_lazy("operation", "consolidated"),
    "consolidate-undo": pgettext_lazy("operation", "consolidation undone"),
    "fact": pgettext_lazy("operation", "fact changed"), "profile": pgettext_lazy("operation", "profile set"),
}
METHOD = {  # how a fact or a digest was made (memories.models.Method)
    "rule": pgettext_lazy("method", "rule"), "llm": pgettext_lazy("method", "model"),
    "manual": pgettext_lazy("method", "by hand"),
}
ORIGIN = {"local": pgettext_lazy("origin", "local")}  # other origins are names a token was given (qq, telegram…)
SUBJECT = {"user": pgettext_lazy("fact subject", "the user")}  # other subjects are the names people said
ITEM = {  # what a line of the recall preview's block is (recall/block.py items)
    "entry": pgettext_lazy("recall item", "memory"), "fact": pgettext_lazy("recall item", "fact"),
    "topic": pgettext_lazy("recall item", "topic"), "persona": pgettext_lazy("recall item", "persona"),
    "notebook": pgettext_lazy("recall item", "notebook"), "remote": pgettext_lazy("recall item", "provider hit"),
}
CRITERION = {  # the criteria of an agent's vault request (tools/vault.memory_request)
    "project": pgettext_lazy("vault criterion", "project"), "space": pgettext_lazy("vault criterion", "space"),
    "category": pgettext_lazy("vault criterion", "category"), "from": pgettext_lazy("vault criterion", "from"),
    "to": pgettext_lazy("vault criterion", "to"), "query": pgettext_lazy("vault criterion", "words"),
    "limit": pgettext_lazy("vault criterion", "at most"),
}
WRITE_STATE = {  # a remote write's receipt (memories.models.RemoteWrite.State)
    "committed": pgettext_lazy("write state", "committed"), "accepted": pgettext_lazy("write state", "accepted"),
    "pending_verification": pgettext_lazy("write state", "pending check"),
    "unknown": pgettext_lazy("write state", "unknown"), "failed": pgettext_lazy("write state", "failed"),
}
BOUNDARY = {"any": _("any provider"), "local-only": _("local only")}  # spaces/selection.py
PREFERENCE = {"balanced": _("balanced"), "local-first": _("local first"), "shared-first": _("shared first")}
REQUIREMENT = {
    "graph": _("graph"), "entities": _("entities"), "related": _("related memories"),
    "exact-write": _("exact writes"), "link": _("links"), "forget": _("forget"),
}
RECALL_POLICY = {  # spaces/space_settings.POLICIES
    "strict-v1": _("strict"), "balanced-v1": _("balanced"), "exhaustive-v1": _("exhaustive"),
}
FIELD_OPTION = {  # the choices of providers' select fields (providers/*.py)
    "platform": _("Platform (the vendor's cloud)"), "self-hosted": _("self-hosted"),
    "low": _("low"), "mid": _("medium"), "high": _("high"),
    "hybrid": _("hybrid"), "memories": _("memories only"), "documents": _("documents only"),
}
SETTING = {  # spaces/space_settings.RULES, by key; the key itself is shown beside its name
    "inject": _("Inject into prompts"), "maxInjectChars": _("Injection budget (characters)"),
    "maxRecall": _("Cards per injection"), "autoSummarize": _("Summarise turns with a model"),
    "summarizeProvider": _("Summary model endpoint"), "summaryModel": _("Summary model"),
    "summaryTimeout": _("Summary time limit (seconds)"), "autoPersona": _("Rebuild the persona automatically"),
    "personaEvery": _("Entries between persona rebuilds"), "autoConsolidate": _("Consolidate daily"),
    "consolidateMinAgeDays": _("Archive after (days)"), "consolidateDigestAgeDays": _("Digest topics after (days)"),
    "mergeSimilarity": _("Merge similarity"), "maxEntries": _("Entry cap"),
    "recordSubagents": _("Record sub-agents' turns"), "recallPolicy": _("Recall policy"),
    "recallLow": _("Low score below"), "recallHigh": _("High score from"),
    "recallMultiplier": _("Candidates per result"), "recallMaxMedium": _("Medium results at most"),
    "recallMaxUnknown": _("Unscored results at most"),
}
SPACE_NAME = {"Default": pgettext_lazy("space name", "Default")}  # spaces/workspaces.DEFAULT_NAME, as shown
PREDICATE = {  # a fact's predicate (memories/facts/slots.PREDICATES) as a person reads it; agents keep the names
    "nickname": pgettext_lazy("fact predicate", "called"), "name": pgettext_lazy("fact predicate", "name"),
    "calledBy": pgettext_lazy("fact predicate", "calls the assistant"),
    "persona": pgettext_lazy("fact predicate", "assistant's persona"), "role": pgettext_lazy("fact predicate", "role"),
    "model": pgettext_lazy("fact predicate", "model"), "language": pgettext_lazy("fact predicate", "language"),
    "location": pgettext_lazy("fact predicate", "lives in"), "hometown": pgettext_lazy("fact predicate", "from"),
    "job": pgettext_lazy("fact predicate", "occupation"), "employer": pgettext_lazy("fact predicate", "works at"),
    "spouse": pgettext_lazy("fact predicate", "spouse"), "partner": pgettext_lazy("fact predicate", "partner"),
    "birthday": pgettext_lazy("fact predicate", "birthday"), "age": pgettext_lazy("fact predicate", "age"),
    "preference": pgettext_lazy("fact predicate", "likes"),
    "personality": pgettext_lazy("fact predicate", "personality"), "path": pgettext_lazy("fact predicate", "path"),
    "tag": pgettext_lazy("fact predicate", "tag"), "skill": pgettext_lazy("fact predicate", "skill"),
    "habit": pgettext_lazy("fact predicate", "habit"), "education": pgettext_lazy("fact predicate", "studied at"),
    "child": pgettext_lazy("fact predicate", "child"), "parent": pgettext_lazy("fact predicate", "parent"),
    "sibling": pgettext_lazy("fact predicate", "sibling"), "pet": pgettext_lazy("fact predicate", "pet"),
    "allergy": pgettext_lazy("fact predicate", "allergic to"), "diet": pgettext_lazy("fact predicate", "diet"),
    "health": pgettext_lazy("fact predicate", "health"), "goal": pgettext_lazy("fact predicate", "goal"),
    "owns": pgettext_lazy("fact predicate", "owns"), "trait": pgettext_lazy("fact predicate", "trait"),
    "dislike": pgettext_lazy("fact predicate", "dislikes"),
    "relation": pgettext_lazy("fact predicate", "is the user's"),
}
FAMILIES = {
    "category": CATEGORY, "kind": KIND, "link": LINK, "operation": OPERATION, "method": METHOD, "origin": ORIGIN,
    "subject": SUBJECT, "item": ITEM, "criterion": CRITERION,
    "write_state": WRITE_STATE, "boundary": BOUNDARY, "preference": PREFERENCE, "requirement": REQUIREMENT,
    "recall_policy": RECALL_POLICY, "field_option": FIELD_OPTION, "setting": SETTING, "space_name": SPACE_NAME,
    "predicate": PREDICATE,
}


def label(family: str, value) -> str:
    """The value's name in the reader's language; a value this module does not know is shown as itself."""
    return str(FAMILIES[family].get(str(value), value))


def provider(kind: str) -> str:
    """A provider's name: the vendors' as they spell them, the built-in store's in the reader's language."""
    return gettext(get_provider_class(kind).label)


def choices(family: str, values) -> list[tuple[str, str]]:
    """(value, name) pairs for a form's select, in the declaration's order."""
    return [(v, FAMILIES[family].get(v, v)) for v in values]
