"""Smart provider selection: hard rules decide first; only among several eligible providers may an LLM choose.

Pure Python on the provider declarations (no database, no configs): the selector prompt is built from
class-level routing descriptions, so connection credentials can never reach it. Whatever the LLM
answers is checked against the eligible set; anything else falls back to the deterministic tie-break.

Tie-break (no LLM, or a rejected answer): `local-first` puts local providers first, `shared-first`
puts remote ones first, `balanced` neither; then the registry's fixed kind order (native first).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

from memoryhub.spaces.models import MemorySpace
from providers import registry
from providers.base import Capabilities

BOUNDARIES = ("any", "local-only")
PREFERENCES = ("balanced", "local-first", "shared-first")
REQUIREMENTS = ("graph", "entities", "related", "exact-write", "link", "forget")
CONFIDENCES = ("high", "medium", "low")
POLICY_CHARS = 4000

class SelectionError(ValueError):
    """No provider is left after the hard rules."""

    def __init__(self, message: str, applied_rules: list[str]):
        super().__init__(message)
        self.applied_rules = applied_rules


@dataclass
class Decision:
    provider: str
    source: str  # rules | llm
    reason: str
    confidence: str  # high | medium | low
    candidates: list[str]
    eligible: list[str]
    applied_rules: list[str] = field(default_factory=list)
    decided_at: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Profile:
    """What the selector may know about a kind: its routing declaration, never its settings."""

    kind: str
    label: str
    locality: str
    description: str
    capabilities: Capabilities

    def has(self, requirement: str) -> bool:
        if requirement == "exact-write":
            return self.capabilities.write_mode == "exact"
        return bool(getattr(self.capabilities, requirement))

    def routing(self) -> dict[str, Any]:
        caps = self.capabilities.as_dict()
        return {"kind": self.kind, "label": self.label, "locality": self.locality, "description": self.description,
                "capabilities": sorted(k for k, v in caps.items() if v is True),
                "write_mode": caps["write_mode"], "deletion_mode": caps["deletion_mode"]}


def profile(kind: str) -> Profile:
    """The declaration of `kind` from the registry (KeyError for unknown kinds)."""
    cls = registry.get_provider_class(kind)
    return Profile(kind, cls.label or kind, cls.locality, cls.description, cls.capabilities)


def _order(profiles: list[Profile], preference: str) -> list[Profile]:
    fixed = list(registry.PROVIDERS)
    first = {"local-first": "local", "shared-first": "remote"}.get(preference)
    return sorted(profiles, key=lambda p: (first is not None and p.locality != first, fixed.index(p.kind)))


def build_prompt(eligible: list[Profile], preference: str, policy_prompt: str, required: set[str], boundary: str) -> str:
    """The selector prompt: routing descriptions, the soft preference and the user's policy, nothing else."""
    return "\n".join([
        "Choose the memory provider for a new memory space. Every option below already satisfies the hard rules "
        f"(data boundary: {boundary}; required capabilities: {', '.join(sorted(required)) or 'none'}).",
        f"Soft preference: {preference}.",
        "Options (JSON):",
        json.dumps([p.routing() for p in eligible], indent=1),
        "User policy:",
        (policy_prompt or "(none)")[:POLICY_CHARS],
        'Answer with JSON only: {"provider": "<kind from the options>", "reason": "<one sentence>", '
        '"confidence": "high|medium|low"}',
    ])


def parse_answer(answer: str) -> dict[str, str]:
    """Read the LLM's choice tolerantly: fenced or embedded JSON, a bare `"provider": "x"`, or just a kind."""
    text = (answer or "").strip()
    start, end = text.find("{"), text.rfind("}")
    if start != -1 and end > start:
        try:
            data = json.loads(text[start:end + 1])
            if isinstance(data, dict):
                return {k: str(v).strip() for k, v in data.items() if k in ("provider", "reason", "confidence")}
        except ValueError:
            pass
    match = re.search(r"""["']?provider["']?\s*[:=]\s*["']?([\w-]+)""", text)
    if match:
        return {"provider": match.group(1)}
    bare = text.strip("`'\". \n").lower()
    return {"provider": bare} if re.fullmatch(r"[a-z0-9_-]+", bare) else {}


def select_provider(candidates: list[str], *, boundary: str = "any", required: set[str] | frozenset[str] = frozenset(),
                    preference: str = "balanced", policy_prompt: str = "", available: dict[str, bool] | None = None,
                    llm: Callable[[str], str] | None = None) -> Decision:
    """Pick one provider kind from the user's candidates; see the module docstring for the rules.

    `available[kind] is False` removes a kind (e.g. a missing CLI); kinds not in `available` count as
    available. Native joins the candidates whenever it is available. Raises SelectionError when no
    provider survives the hard rules, ValueError on an unknown boundary, preference or requirement.
    """
    if boundary not in BOUNDARIES:
        raise ValueError(f"boundary must be one of {BOUNDARIES}")
    if preference not in PREFERENCES:
        raise ValueError(f"preference must be one of {PREFERENCES}")
    unknown = set(required) - set(REQUIREMENTS)
    if unknown:
        raise ValueError(f"unknown required capabilities: {sorted(unknown)}")
    available = available or {}
    rules: list[str] = []
    kinds = list(dict.fromkeys(candidates))
    if MemorySpace.NATIVE not in kinds and available.get(MemorySpace.NATIVE, True):
        kinds.append(MemorySpace.NATIVE)
        rules.append("native added: it is always a local candidate when available")
    profiles = []
    for kind in kinds:
        try:
            profiles.append(profile(kind))
        except KeyError:
            rules.append(f"{kind} removed: unknown provider kind")
    for p in list(profiles):
        if available.get(p.kind, True) is False:
            profiles.remove(p)
            rules.append(f"{p.kind} removed: not available")
        elif boundary == "local-only" and p.locality != "local":
            profiles.remove(p)
            rules.append(f"{p.kind} removed: remote, and the boundary is local-only")
        elif missing := [r for r in sorted(required) if not p.has(r)]:
            profiles.remove(p)
            rules.append(f"{p.kind} removed: lacks {', '.join(missing)}")
    if not profiles:
        raise SelectionError("no candidate provider satisfies the hard rules", rules)
    ordered = _order(profiles, preference)
    eligible = [p.kind for p in ordered]
    decided = dict(candidates=kinds, eligible=eligible, applied_rules=rules,
                   decided_at=datetime.now(timezone.utc).isoformat(timespec="seconds"))
    if len(ordered) == 1:
        return Decision(eligible[0], "rules", "the only provider left after the hard rules", "high", **decided)
    tie_break = f"deterministic tie-break ({preference}, then fixed kind order)"
    if llm is None:
        return Decision(eligible[0], "rules", f"chosen by {tie_break}; no selector model configured", "medium", **decided)
    try:
        answer = parse_answer(llm(build_prompt(ordered, preference, policy_prompt, set(required), boundary)))
    except Exception as exc:  # the selector is optional help; its failure must not block space creation
        return Decision(eligible[0], "rules", f"selector failed ({type(exc).__name__}); chosen by {tie_break}",
                        "low", **decided)
    choice = answer.get("provider", "").lower()
    if choice not in eligible:
        rules.append(f"selector answer {choice or '(none)'!r} rejected: not in the eligible set")
        return Decision(eligible[0], "rules", f"selector answer rejected; chosen by {tie_break}", "low", **decided)
    confidence = answer.get("confidence", "").lower()
    return Decision(choice, "llm", answer.get("reason") or "chosen by the selector",
                    confidence if confidence in CONFIDENCES else "medium", **decided)
