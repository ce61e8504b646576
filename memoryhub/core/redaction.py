"""Secret redaction applied to every write (API, MCP, dashboard, import, packs) before anything is stored.

Secrets become typed placeholders like `[REDACTED:api_key]`; the count goes back to the caller.
Version strings that look like IPv4 (`v1.2.3.4`, `version 1.2.3.4`) are kept.

The shapes are ours, not a detector library's: Yelp's detect-secrets (evaluated for #21) reports
secret *values* line by line rather than spans to replace, misses `sk-proj-`/`sk-ant-` keys,
`DB_PASSWORD=` names and unquoted passwords outside source files, and cuts JWTs and GitHub
tokens short; its keyword and token regexes informed the table below (README, "Redaction").

Identifiers that group things (session ids, idempotency keys) are not replaced by a placeholder,
which would merge different ones: `opaque_id` swaps a secret-bearing id for a stable digest.
`mask_near` masks a known credential a provider echoed back in an error, even upper-cased or cut.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

_OCTET = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
# A key name is one of these words, alone or as the last part of a longer name (DB_PASSWORD, STRIPE_SECRET_KEY,
# client.secret, X-Api-Key, smtp_pass), or glued to a prefix (PGPASSWORD, AccessKeySecret, csrftoken: only the
# words no ordinary word ends with; "monkey" or "bypass" are not keys); the value after `=`/`:` (quoted, or up
# to a space, quote, `,`, `;` or `&`) goes, unless it is code or a placeholder (_looks_like_a_value).
_KEY_WORDS = (
    r"api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|account[_-]?key|shared[_-]?access[_-]?key|"
    r"secret(?:[_-]?(?:key|access[_-]?key))?|client[_-]?secret|private[_-]?key|auth[_-]?token|access[_-]?token|"
    r"refresh[_-]?token|session[_-]?token|(?:php|j)?sess(?:ion)?id|token|password|passwd|passphrase|pwd|pw|"
    r"credentials?"
)
_GLUED = r"password|passwd|pwd|secret|token"  # words a longer name may end with, glued (PGPASSWORD, csrftoken)
_KEY = (rf"(?:(?:[A-Za-z0-9]{{1,40}}[_.-]){{0,6}}(?:{_KEY_WORDS})|[A-Za-z0-9]{{1,30}}(?:{_GLUED})"
        rf"|(?:[A-Za-z0-9]{{1,40}}[_.-]){{1,6}}pass|(?-i:[A-Z0-9]{{1,30}}PASS))")
_VALUE = r"(?P<value>\"[^\"\n]{1,300}\"|'[^'\n]{1,300}'|[^\s\"',;&，。；、）\u3000]{3,})"
# A value said in prose ("my password is hunter2"): quoted, or a word that does not end in punctuation.
_SAID = r"(?P<value>\"[^\"\n]{1,300}\"|'[^'\n]{1,300}'|[^\s\"'，。；、）\u3000]{3,}[^\s\"'，。；、）\u3000.,;:!?)])"
_HEX = "0123456789abcdef"


def _luhn(digits: str) -> bool:
    """The check digit of payment card numbers (ISO/IEC 7812)."""
    total = 0
    for n, char in enumerate(reversed(digits)):
        d = int(char) * (2 if n % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


# Issuer prefixes and lengths of the card networks people paste (Visa, Mastercard, Amex, Diners, Discover, JCB,
# UnionPay): a Luhn-valid number without one is an order number or an id, not a card.
_CARD_PREFIX = re.compile(r"^(?:4\d{12}(?:\d{3}){0,2}|(?:5[1-5]\d{2}|2(?:2[2-9]\d|[3-6]\d\d|7[01]\d|720))\d{12}|"
                          r"3[47]\d{13}|3(?:0[0-5]|[68]\d)\d{11}|(?:6011|65\d\d|64[4-9]\d)\d{12,15}|"
                          r"35(?:2[89]|[3-8]\d)\d{12,15}|62\d{14,17})$")
_CARD_GROUPS = re.compile(r"^(?:\d{4}([ -])\d{4}\1\d{4}\1\d{4}(?:\1\d{1,3})?|\d{4}([ -])\d{6}\2\d{4,5})$")


def _card(match: re.Match[str]) -> bool:
    """A card number: a known issuer's prefix and length, the Luhn check, and its digits in one run or in the
    groups printed on cards (4-4-4-4, 4-6-5), not a run of phone-like pieces."""
    text = match.group(0)
    digits = re.sub(r"[ -]", "", text)
    return bool(_CARD_PREFIX.match(digits)) and _luhn(digits) and (digits == text or bool(_CARD_GROUPS.match(text)))


_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)


def _resident_id(match: re.Match[str]) -> bool:
    """A Chinese resident identity number (GB 11643): its last character checks the other 17 (ISO 7064 MOD 11-2)."""
    number = match.group(0).upper()
    return "10X98765432"[sum(int(d) * w for d, w in zip(number, _ID_WEIGHTS)) % 11] == number[17]


def _mixed_token(match: re.Match[str]) -> bool:
    """A bare token of exactly 40 characters is a secret (AWS's are) when it mixes upper case, lower case and
    digits: hashes and git commits are lower-case hex, words have no digits; a longer run is some other blob."""
    token = match.group(0)
    return len(token) == 40 and any(c.isupper() for c in token) and any(c.islower() for c in token) and any(c.isdigit() for c in token)


def _secret_like(match: re.Match[str]) -> bool:
    """A value said in prose or glued to 密码 is taken as a secret when it is quoted or looks like one: a digit, a
    symbol or an inner capital ("hunter2", "Tr0ub4dor&3", "CoffeeShop"), not a plain word ("wrong", "reset")."""
    value = match.group("value")
    if value[:1] in "\"'":
        return True
    value = re.sub(r"(?<=[a-z])-(?=[a-z])", "", value)  # "case-sensitive" is words, not symbols
    return (any(c.isdigit() for c in value) or any(not c.isalnum() for c in value)
            or any(c.isupper() for c in value[1:]))


# What a password "is" when it is not the password: "the password is wrong / stored in the vault / too short".
_NOT_PASSWORDS = frozenset("""wrong correct right incorrect invalid valid required optional stored saved set changed reset
expired weak strong short long simple complex secure insecure fine good bad same different empty blank missing
unknown hidden encrypted hashed known public private visible unchanged new old default temporary shared compromised
leaked sent ready needed necessary mandatory sensitive case-sensitive there here mine yours ours his hers theirs
working broken locked blocked gone lost forgotten useless important enabled disabled protected obvious easy hard
complicated fixed updated rotated attached included below above ok okay this that what too not still also now
changing expiring""".split())
_CLAUSE_END = re.compile(r"[ \t]*(?:$|[.,;!?)\n，。；！？]|(?:and|but|so|though)\b)", re.I)
_PASSWORD_WORD = re.compile(r"(?i)\bpass(?:word|wd|phrase|code)?\b|\bpwd\b|\bpw\b")


def _said_secret(match: re.Match[str]) -> bool:
    """A value said in prose is a secret when it looks like one (_secret_like), or, after a password's name, when
    it is a plain word that ends what is said ("my password is swordfish."), not a word about the password."""
    if _secret_like(match):
        return True
    value = match.group("value").lower()
    return (bool(_PASSWORD_WORD.search(match.group("keep"))) and len(value) >= 4 and value not in _NOT_PASSWORDS
            and bool(_CLAUSE_END.match(match.string, match.end())))


_CODE_VALUE = re.compile(r"^(?:[$%]|\{\{|<[^>]*>$|[A-Za-z_][\w.]*[(\[])")
_NOT_VALUES = frozenset("""none null nil true false undefined new await raise return self this str int bool bytes
string number any object optional required empty missing""".split())


def _looks_like_a_value(match: re.Match[str]) -> bool:
    """An assignment's value, not code: `password = os.environ["X"]`, `token: str`, `${API_KEY}` and `$(cat f)`
    name where a secret comes from; the secret itself is not there."""
    value = match.group("value").strip("\"'")
    return not _CODE_VALUE.match(value) and value.rstrip(")]};:,").lower() not in _NOT_VALUES


# Order matters: whole blocks and specific token shapes before generic assignments. Each pattern runs only when
# one of its hints (lower-case) is in the text, or its quick pattern finds something: most turns hold none, and
# 40 full scans would cost more than the write. Patterns start with a character class where they can (the regex
# engine then skips ahead to it). A pattern's check, when it has one, decides on each match (a checksum, a value
# that is only code).
_KEY_HINTS = ("key", "token", "secret", "pass", "pwd", "pw", "credential", "sessid", "sessionid")


def _long_chunk(text: str) -> bool:
    """A run of 40 characters without a space somewhere: what a bare key needs (split is far quicker than a scan)."""
    return any(len(chunk) >= 40 for chunk in text.split())


Hints = tuple[str, ...] | re.Pattern[str] | Callable[[str], bool]
PATTERNS: list[tuple[str, Hints, re.Pattern[str], Callable[[re.Match[str]], bool] | None]] = [
    ("private_key", ("private key",), re.compile(
        r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----.*?"
        r"(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S), None),
    ("private_key", ("putty-user-key-file",), re.compile(
        r"PuTTY-User-Key-File-\d+:.*?(?:Private-MAC:[ \t]*[0-9a-fA-F]+|\Z)", re.S), None),
    # The password is everything up to the last `@` before the host: a password may hold `@` itself.
    ("url_credentials", ("://",), re.compile(
        r"(?i)(?P<keep>\b[a-z][a-z0-9+.-]{1,20}://[^\s:/@\"'<>]*:)(?P<value>[^\s/\"'<>]+)@(?=[^\s@/\"'<>]+)"), None),
    ("webhook", ("hooks.slack.com",), re.compile(
        r"(?i)(?P<keep>\bhooks\.slack\.com/(?:services|workflows|triggers)/)(?P<value>[A-Za-z0-9+/_-]{20,})"), None),
    ("webhook", ("discord",), re.compile(
        r"(?i)(?P<keep>\bdiscord(?:app)?\.com/api/webhooks/\d+/)(?P<value>[A-Za-z0-9_-]{20,})"), None),
    ("signature", ("sig=",), re.compile(r"(?P<keep>[?&]sig=)(?P<value>[A-Za-z0-9%+/=_-]{10,})"), None),
    ("bearer_token", ("bearer",), re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}", re.A), None),
    ("basic_auth", ("basic",), re.compile(
        r"(?i)(?P<keep>\bauthorization[\"']?\s*[:=]\s*[\"']?basic\s+)(?P<value>[A-Za-z0-9+/=]{8,})", re.A), None),
    ("auth_token", ("authorization",), re.compile(
        r"(?i)(?P<keep>\bauthorization[\"']?\s*[:=]\s*[\"']?(?:token|digest|apikey|api-key|key|sso-key)\s+)"
        r"(?P<value>[A-Za-z0-9+/=._~:-]{8,})", re.A), None),
    ("cookie", ("cookie",), re.compile(r"(?i)(?P<keep>\b(?:set-)?cookie\s*:\s*)(?P<value>[^\r\n]*[^\s\r\n])", re.A), None),
    ("github_token", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b"), None),
    ("gitlab_token", ("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), None),
    ("slack_token", ("xox",), re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), None),
    ("stripe_key", ("_live_", "_test_", "whsec_"), re.compile(
        r"\b(?:(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9+/=]{24,})"), None),
    ("google_api_key", ("aiza",), re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), None),
    ("huggingface_token", ("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{30,}"), None),
    ("npm_token", ("npm_",), re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), None),
    ("pypi_token", ("pypi-",), re.compile(r"\bpypi-[A-Za-z0-9_-]{50,}"), None),
    ("sendgrid_key", ("sg.",), re.compile(r"\bSG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"), None),
    ("twilio_key", ("sk",), re.compile(r"\bSK[0-9a-fA-F]{32}\b"), None),
    ("telegram_token", (":aa",), re.compile(r"\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b"), None),
    ("jwt", ("eyj",), re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), None),
    # Discord bot tokens: the bot's id in base64, a timestamp and an HMAC, dot-separated.
    ("discord_token", (".",), re.compile(
        r"[MNO](?<![\w.-][MNO])[A-Za-z0-9_-]{23,27}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}\b"), None),
    ("azure_client_secret", ("q~",), re.compile(r"(?<![\w~.])[A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![\w~.-])"),
     None),
    # OpenAI, Anthropic and friends: sk-, sk-proj-, sk-ant-api03-… whose body mixes - and _ freely. A digit, an
    # underscore or a long run of letters tells a key from hyphenated words ("sk-learn-is-great").
    ("api_key", ("sk-",), re.compile(r"\bsk-(?=[A-Za-z0-9_-]*(?:\d|_|[A-Za-z]{16}))[A-Za-z0-9_-]{20,}"), None),
    ("aws_access_key", ("akia", "asia", "agpa", "aida", "aroa"),
     re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"), None),
    ("secret", _long_chunk, re.compile(r"(?<![A-Za-z0-9/+])[A-Za-z0-9/+]{40,}=*"), _mixed_token),
    # Numbers stand alone when no ASCII letter, digit or dash touches them (Chinese text may: "卡号是6228…").
    ("card_number", re.compile(r"\d{4}[ -]?\d{4}"), re.compile(r"\d(?<![A-Za-z0-9_-]\d)(?:[ -]?\d){11,18}(?![A-Za-z0-9_-])"), _card),
    ("id_number", re.compile(r"\d{17}"), re.compile(
        r"[1-8](?<![A-Za-z0-9_][1-8])\d{5}(?:18|19|20)\d{2}(?:0[1-9]|1[0-2])(?:0[1-9]|[12]\d|3[01])\d{3}[\dXx]"
        r"(?![A-Za-z0-9_])"), _resident_id),
    # Command lines that carry a password: mysql's glued -p<password>, sshpass -p, curl -u user:password, .netrc.
    ("secret", ("mysql",), re.compile(
        r"(?i)(?P<keep>\bmysql(?:dump|admin|sh|import|check|slap)?\b[^\n]*?\s-p)(?P<value>[^\s-][^\s]*)"), None),
    ("secret", ("sshpass",), re.compile(r"(?P<keep>\bsshpass\s+-p\s*)(?P<value>\"[^\"\n]+\"|'[^'\n]+'|\S+)"), None),
    ("secret", ("curl",), re.compile(
        r"(?P<keep>\bcurl\b[^\n]*?\s(?:-u|--user)\s+[\"']?[^\s:\"']+:)(?P<value>[^\s\"']+)"), None),
    ("secret", ("password",), re.compile(r"(?P<keep>\blogin\s+\S+\s+password\s+)(?P<value>\S+)"), None),
    ("pin", ("pin", "code"), re.compile(
        r"(?i)(?P<keep>\b(?:PIN(?:[ \t]*(?:code|number|no\.?))?|(?:door|gate|alarm|safe|lock|garage|entry|building|"
        r"access|entrance)[ \t]+code)[ \t]*(?:is|was|[:=：]|是)[ \t]*)(?P<value>\d{4,8})\b", re.A), None),
    ("ssn", ("ssn", "social security"), re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])"), None),
    ("secret", _KEY_HINTS, re.compile(rf"(?i)(?P<keep>\b{_KEY}\b[\"']?\s*(?:=>|[:=：])\s*){_VALUE}", re.A),
     _looks_like_a_value),
    # Said in prose: "my password is hunter2", "the pw was 'x'", "my api key: …" (a name in two words, whose
    # colon may as well start a sentence about it: its value must look like a secret).
    ("secret", ("pass", "pw", "secret", "key", "token"), re.compile(
        r"(?i)(?P<keep>(?:\b(?:password|passwd|passphrase|passcode|pwd|pw|secret|api[ _-]?key|token)"
        r"(?:[ \t]+(?:for|of|to|on)(?:[ \t]+the)?(?:[ \t]+[\w.@'-]+){1,3}?)?[ \t]+(?:is|was)[ \t]*[:：]?|\b(?:api|access|secret|private|auth)[ \t]+(?:key|token)[ \t]*[:：=])[ \t]*)"
        rf"{_SAID}", re.A), _said_secret),
    # A long token right after the word that names it ("twilio auth token 4c3b…", "the key AbC123…").
    ("secret", ("token", "key", "secret"), re.compile(
        r"(?i)(?P<keep>\b(?:token|key|secret)[ \t]+)"
        r"(?P<value>(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,})\b", re.A), None),
    # 密码 and its kin, then a value in ASCII: after 是, 为 or a colon, or straight after it when it looks like one.
    ("secret", ("密", "令", "钥", "pin码"), re.compile(
        r"(?P<keep>(?:密码|口令|密钥|令牌|秘钥|(?i:pin)码)[ \t]*(?P<said>[:=：]|是|为)?[ \t]*)"
        r"(?P<value>\"[^\"\n]{1,300}\"|'[^'\n]{1,300}'|(?=[\u4e00-\u9fff!-~]*[A-Za-z0-9])[\u4e00-\u9fff!-~]{3,40}|[!-~]{3,})"),
     lambda m: bool(m.group("said")) or _secret_like(m)),
    ("ipv4", re.compile(r"\d\.\d"), re.compile(rf"(?<![\w.])(?<!v)(?:{_OCTET}\.){{3}}{_OCTET}(?![\w.])"), None),
]
_VERSION_BEFORE = re.compile(r"(?i)(?:\bversion|\bver\.?|\brelease|\bv|版本号?)[\s:=：\"']*$")
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
    for kind, hints, pattern, check in PATTERNS:
        if _hinted(hints, text, lower):
            result.text = pattern.sub(lambda m, k=kind, c=check: _replace(m, k, c, result), result.text)
    return result


def _hinted(hints, text: str, lower: str) -> bool:
    if isinstance(hints, tuple):
        return any(hint in lower for hint in hints)
    return bool(hints.search(text)) if isinstance(hints, re.Pattern) else hints(text)


def _replace(match: re.Match[str], kind: str, check, result: Redacted) -> str:
    if kind == "ipv4" and _VERSION_BEFORE.search(match.string[max(0, match.start() - 12) : match.start()]):
        return match.group(0)
    if PLACEHOLDER in match.group(0) and "value" not in match.groupdict():
        return match.group(0)
    keep = match.groupdict().get("keep")
    if keep is not None and match.group("value").strip("\"'").startswith(PLACEHOLDER):
        return match.group(0)
    if check is not None and not check(match):
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


def redact_all(*texts: str) -> tuple[list[str], int]:
    """Redact several fields of one write; returns the new texts and the total count."""
    out, total = [], 0
    for text in texts:
        r = redact(text)
        out.append(r.text)
        total += r.count
    return out, total


def redact_value(value: Any) -> Any:
    """Every string inside a JSON-like value redacted (job results, audit details): dict keys stay."""
    if isinstance(value, str):
        return redact(value).text
    if isinstance(value, dict):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact_value(v) for v in value]
    return value


def opaque_id(value: str) -> str:
    """The id itself, or, when it carries a secret, a stable digest of it: still one id, no longer the secret."""
    if not value or not redact(value).count:
        return value
    return "redacted-" + hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:32]


NEAR = 8  # characters of a known secret that count as an echo of it


def mask_near(text: str, secrets: list[str] | set[str]) -> str:
    """Mask every run of NEAR or more characters that is a case-insensitive piece of a known secret.

    A provider's error may quote the key it refused upper-cased or cut ("invalid key SK-PROJ-ABC12…"),
    which exact replacement misses."""
    grams: set[str] = set()
    for secret in secrets:
        folded = _fold(str(secret))
        if len(folded) >= NEAR:
            grams.update(folded[i:i + NEAR] for i in range(len(folded) - NEAR + 1))
    if not grams or len(text) < NEAR:
        return text
    folded = _fold(text)
    hit = [False] * len(text)
    for i in range(len(text) - NEAR + 1):
        if folded[i:i + NEAR] in grams:
            for j in range(i, i + NEAR):
                hit[j] = True
    if not any(hit):
        return text
    out, i = [], 0
    while i < len(text):
        if hit[i]:
            while i < len(text) and hit[i]:
                i += 1
            out.append("***")
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _fold(text: str) -> str:
    """Case-folded one character for one (a fold that would change the length keeps the character)."""
    return "".join(c.casefold() if len(c.casefold()) == 1 else c for c in text)
