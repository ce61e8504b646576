"""Entity extraction (Mnemon A8): identifiers, acronyms, files, URLs, @mentions, 《titles》 and known names."""

from __future__ import annotations

import re

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
