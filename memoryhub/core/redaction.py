"""Secret redaction applied to every write (API, dashboard, import) before anything is stored.

Secrets become typed placeholders like `[REDACTED:api_key]`; the count goes back to the
caller. Version strings that look like IPv4 (`v1.2.3.4`, `version 1.2.3.4`) are kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_ASSIGNMENT_KEYS = (
    r"api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret(?:[_-]?key)?|client[_-]?secret|"
    r"aws[_-]?secret[_-]?access[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|token|"
    r"password|passwd|pwd"
)

# Order matters: whole blocks and specific token shapes before generic assignments.
PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    ("private_key", re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----.*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|\Z)", re.S)),
    ("bearer_token", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")),
    ("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b")),
    ("api_key", re.compile(r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{16,}\b")),
    ("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("secret", re.compile(
        rf"(?i)(?P<key>\b(?:{_ASSIGNMENT_KEYS})\b[\"']?\s*[:=]\s*)(?P<q>[\"']?)(?P<value>[^\s\"',;]{{4,}})(?P=q)")),
    ("ipv4", re.compile(rf"(?<![\w.])(?<!v)(?:{_OCTET}\.){{3}}{_OCTET}(?![\w.])")),
]
_VERSION_BEFORE = re.compile(r"(?i)(?:\bversion|\bver\.?|\brelease|\bv)\s*$")


@dataclass
class Redacted:
    text: str
    count: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


def redact(text: str) -> Redacted:
    """Replace every secret in `text` with a typed placeholder."""
    result = Redacted(text)
    for kind, pattern in PATTERNS:
        result.text = pattern.sub(lambda m, k=kind: _replace(m, k, result), result.text)
    return result


def _replace(match: re.Match[str], kind: str, result: Redacted) -> str:
    if kind == "ipv4" and _VERSION_BEFORE.search(match.string[max(0, match.start() - 12) : match.start()]):
        return match.group(0)
    if kind == "secret" and match.group("value").startswith("[REDACTED:"):
        return match.group(0)
    result.count += 1
    result.kinds[kind] = result.kinds.get(kind, 0) + 1
    if kind == "secret":
        return f"{match.group('key')}[REDACTED:secret]"
    if kind == "bearer_token":
        return "Bearer [REDACTED:bearer_token]"
    return f"[REDACTED:{kind}]"


def redact_all(*texts: str) -> tuple[list[str], int]:
    """Redact several fields of one write; returns the new texts and the total count."""
    out, total = [], 0
    for text in texts:
        r = redact(text)
        out.append(r.text)
        total += r.count
    return out, total
