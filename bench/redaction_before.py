"""The redaction table as it was before #31 (memoryhub/core/redaction.py at 482abdc), frozen for bench/redaction.py:
the "before" column of the same run. Not used by the hub."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
# A key name is one of these words, alone or as the last part of a longer name (DB_PASSWORD, STRIPE_SECRET_KEY,
# client.secret, X-Api-Key); the value after `=`/`:` (quoted, or up to a space, quote, `,`, `;` or `&`) goes.
_KEY_WORDS = (
    r"api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|account[_-]?key|secret(?:[_-]?(?:key|access[_-]?key))?|"
    r"client[_-]?secret|private[_-]?key|auth[_-]?token|access[_-]?token|refresh[_-]?token|session[_-]?token|"
    r"token|password|passwd|passphrase|pwd|credentials?"
)
_KEY = rf"(?:[A-Za-z0-9]{{1,40}}[_.-]){{0,6}}(?:{_KEY_WORDS})"
_VALUE = r"(?P<value>\"[^\"\n]{1,300}\"|'[^'\n]{1,300}'|[^\s\"',;&，。；、）]{3,})"

# Order matters: whole blocks and specific token shapes before generic assignments. Each pattern runs only when
# one of its hints (lower-case) is in the text: most turns hold none, and 20 full scans would triple the cost.
_KEY_HINTS = ("key", "token", "secret", "pass", "pwd", "credential")
PATTERNS: list[tuple[str, tuple[str, ...], re.Pattern[str]]] = [
    ("private_key", ("private key",), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)),
    ("url_credentials", ("://",), re.compile(
        r"(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'<>]*:)(?P<value>[^\s@/\"'<>]+)@")),
    ("bearer_token", ("bearer",), re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")),
    ("basic_auth", ("basic",), re.compile(
        r"(?i)(?P<keep>\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+)(?P<value>[A-Za-z0-9+/=]{8,})")),
    ("github_token", ("gh",), re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b")),
    ("gitlab_token", ("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}")),
    ("slack_token", ("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}")),
    ("stripe_key", ("_live_", "_test_"), re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    ("google_api_key", ("aiza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}")),
    ("huggingface_token", ("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    ("npm_token", ("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    ("pypi_token", ("pypi-",), re.compile(r"\bpypi-[A-Za-z0-9_-]{50,}")),
    ("sendgrid_key", ("sg.",), re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}")),
    ("twilio_key", ("sk",), re.compile(r"\bSK[0-9a-f]{32}\b")),
    ("telegram_token", (":aa",), re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b")),
    ("jwt", ("eyj",), re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    # OpenAI, Anthropic and friends: sk-, sk-proj-, sk-ant-api03-… whose body mixes - and _ freely. A digit, an
    # underscore or a long run of letters tells a key from hyphenated words ("sk-learn-is-great").
    ("api_key", ("sk-",), re.compile(r"\bsk-(?=[A-Za-z0-9_-]*(?:\d|_|[A-Za-z]{16}))[A-Za-z0-9_-]{20,}")),
    ("aws_access_key", ("akia", "asia", "agpa", "aida", "aroa"),
     re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b")),
    ("secret", _KEY_HINTS, re.compile(rf"(?i)(?P<keep>\b{_KEY}\b[\"']?\s*(?:=>|[:=：])\s*){_VALUE}")),
    ("secret", ("密", "令", "钥"), re.compile(rf"(?P<keep>(?:密码|口令|密钥|令牌|秘钥)\s*(?:[:=：]|是|为)\s*){_VALUE}")),
    ("ipv4", (".",), re.compile(rf"(?<![\w.])(?<!v)(?:{_OCTET}\.){{3}}{_OCTET}(?![\w.])")),
]
_VERSION_BEFORE = re.compile(r"(?i)(?:\bversion|\bver\.?|\brelease|\bv)\s*$")
PLACEHOLDER = "[REDACTED:"


@dataclass
class Redacted:
    text: str
    count: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


def redact(text: str) -> Redacted:
    """Replace every secret in `text` with a typed placeholder."""
    result = Redacted(text)
    lower = text.lower()
    for kind, hints, pattern in PATTERNS:
        if any(hint in lower for hint in hints):
            result.text = pattern.sub(lambda m, k=kind: _replace(m, k, result), result.text)
    return result


def _replace(match: re.Match[str], kind: str, result: Redacted) -> str:
    if kind == "ipv4" and _VERSION_BEFORE.search(match.string[max(0, match.start() - 12) : match.start()]):
        return match.group(0)
    keep = match.groupdict().get("keep")
    if keep is not None and match.group("value").strip("\"'").startswith(PLACEHOLDER):
        return match.group(0)
    result.count += 1
    result.kinds[kind] = result.kinds.get(kind, 0) + 1
    if kind == "url_credentials":
        return f"{keep}{PLACEHOLDER}password]@"
    if keep is not None:
        return f"{keep}{PLACEHOLDER}{kind}]"
    if kind == "bearer_token":
        return f"Bearer {PLACEHOLDER}bearer_token]"
    return f"{PLACEHOLDER}{kind}]"


