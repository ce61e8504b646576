"""Tokenizer, entity extraction and rule summaries shared by search, the graph and facts.

Follows Mnemon's tokenizer: lower-cased words, Chinese as overlapping character bigrams,
English stopwords removed, so one index serves English and 中文 queries alike.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    """a an the and or but if then else of to in on at by for with from into onto about as is are was were
    be been being am do does did done have has had having i me my mine you your yours he him his she her hers
    it its we us our ours they them their theirs this that these those there here what which who whom whose
    when where why how all any each some more most very just too also not no nor so than can could will would
    shall should may might must up down out over under again further once only own same such both few other
    s t don doesn didn isn aren wasn weren ll re ve d m o y let lets""".split()
)
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_WORD = re.compile(r"[0-9a-z\u00c0-\u024f]+")
_SPLIT = re.compile(r"([\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+)")


def tokenize(text: str) -> list[str]:
    """Words and CJK bigrams, in order, stopwords removed (duplicates kept for BM25)."""
    tokens: list[str] = []
    for part in _SPLIT.split(text.lower()):
        if not part:
            continue
        if _HAN.match(part):
            if len(part) == 1:
                tokens.append(part)
            else:
                tokens.extend(part[i : i + 2] for i in range(len(part) - 1))
        else:
            tokens.extend(w for w in _WORD.findall(part) if w not in STOPWORDS)
    return tokens


def token_set(text: str) -> set[str]:
    return set(tokenize(text))


def jaccard(a: set[str], b: set[str]) -> float:
    if not a or not b:
        return 0.0
    return len(a & b) / len(a | b)


def overlap(a: set[str], b: set[str]) -> float:
    """Content similarity as Mnemon defines it: the larger of the two one-sided overlaps."""
    if not a or not b:
        return 0.0
    common = len(a & b)
    return max(common / len(a), common / len(b))


# --- entities ------------------------------------------------------------------------
TECH_TERMS = frozenset(
    """Python JavaScript TypeScript Go Rust Java Kotlin Swift Ruby PHP Perl Scala Haskell Elixir Erlang Lua Bash
    React Vue Angular Svelte Next.js Node.js Deno Bun Vite Webpack npm pnpm yarn Django Flask FastAPI Rails Spring
    Laravel Express htmx Tailwind Bootstrap PostgreSQL MySQL SQLite MongoDB Redis Elasticsearch OpenSearch
    Cassandra DynamoDB ClickHouse Kafka RabbitMQ Qdrant Weaviate Pinecone Milvus Chroma pgvector FAISS Docker
    Kubernetes Helm Terraform Ansible Nginx Caddy Linux Debian Ubuntu macOS Windows AWS GCP Azure Cloudflare Vercel
    GitHub GitLab Git OpenAI Anthropic Claude GPT DeepSeek Llama Mistral Gemini Ollama PyTorch TensorFlow JAX
    NumPy pandas Jupyter LangChain LlamaIndex HTTP HTTPS gRPC GraphQL REST JSON YAML TOML Markdown WebSocket
    OAuth JWT SSH TLS MCP Playwright Selenium pytest""".split()
)
ACRONYM_STOP = frozenset(
    "IN ON AT TO OF OR IS IT BE AS BY AN IF NO SO UP DO GO WE US MY ME HE OK THE AND FOR NOT YOU ALL GET USE "
    "ARE BUT CAN HAS HAD WAS ONE TWO NEW NOW OUT SEE ANY MAY WHO WHY HOW".split()
)
_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")
_ACRONYM = re.compile(r"\b[A-Z]{2,6}\b")
_FILE = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,9}\b")
_URL = re.compile(r"https?://[^\s<>\"'）)]+")
_MENTION = re.compile(r"(?<!\w)@[A-Za-z0-9_][\w.-]{1,38}")
_QUOTED = re.compile(r"《([^》]{1,60})》|「([^」]{1,60})」")
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*")
_DOMAIN_TLDS = ("com", "org", "net", "io", "dev", "ai", "cn", "app", "co")
_NOT_FILES = frozenset({"e.g", "i.e", "etc", "vs"})


def capitalised_words(text: str) -> set[str]:
    """Plain capitalised words: entity candidates only if the index already knows them."""
    return {w for w in _ASCII_WORD.findall(_URL.sub(" ", text)) if w[:1].isupper() and len(w) > 1}


def extract_entities(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """Regex + dictionary entities (Mnemon A8): identifiers, acronyms, files, URLs, @mentions, 《titles》.

    `known` admits plain capitalised words only when they are already an entity elsewhere
    (the entity index filters, it never generates; see capitalised_words).
    """
    found: list[str] = []

    def add(value: str) -> None:
        value = value.strip().rstrip(".,;:!?")
        if value and len(value) <= 200 and value not in found:
            found.append(value)

    for m in _URL.finditer(text):
        add(m.group(0))
    stripped = _URL.sub(" ", text)
    for m in _FILE.finditer(stripped):
        value = m.group(0)
        if value.lower() in _NOT_FILES or re.fullmatch(r"[\d.]+", value):
            continue
        add(value)
    for m in _CAMEL.finditer(stripped):
        add(m.group(0))
    for m in _ACRONYM.finditer(stripped):
        if m.group(0) not in ACRONYM_STOP:
            add(m.group(0))
    for m in _MENTION.finditer(stripped):
        add(m.group(0))
    for m in _QUOTED.finditer(stripped):
        add(m.group(1) or m.group(2))
    for word in _ASCII_WORD.findall(stripped):
        if word in TECH_TERMS or (known and word in known and word[:1].isupper()):
            add(word)
    return found[:50]


# --- summaries -----------------------------------------------------------------------
_SENTENCE = re.compile(r"(?<=[.!?。！？\n])\s*")


def first_sentence(text: str, limit: int = 160) -> str:
    """A rule summary: the first meaningful sentence, trimmed to `limit` characters."""
    for sentence in _SENTENCE.split(text.strip()):
        sentence = " ".join(sentence.split())
        if len(sentence) >= 2:
            return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"
    return ""


def clip(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --- event categories ------------------------------------------------------------------
_CATEGORY_CUES: list[tuple[str, re.Pattern[str]]] = [
    ("decision", re.compile(r"(?i)\b(decided|decision|we(?:'ll| will) (?:go with|use)|let'?s go with|chose|choose to)\b|决定|决策|就用|选定|敲定")),
    ("pitfall", re.compile(r"(?i)\b(bug|error|exception|traceback|failed|failing|broke|crash(?:ed)?|pitfall|gotcha|doesn'?t work)\b|踩坑|报错|失败|崩溃|坑")),
    ("structure", re.compile(r"(?i)\b(refactor(?:ed)?|architecture|directory layout|schema|module structure)\b|重构|架构|目录结构|结构")),
    ("progress", re.compile(r"(?i)\b(done|finished|completed|implemented|shipped|released|merged)\b|完成|搞定|实现了|上线")),
    ("experience", re.compile(r"(?i)\b(lesson|learned|tip|rule of thumb|next time)\b|经验|教训|下次")),
    ("companion", re.compile(r"(?i)\b(feel(?:ing)?|lonely|sad|happy|tired|miss you)\b|心情|难过|开心|累了|陪我")),
]


def classify(text: str) -> str:
    """A rule guess at an event's category; `context` when nothing stands out."""
    for category, pattern in _CATEGORY_CUES:
        if pattern.search(text):
            return category
    return "context"
