"""Reading memory back: search across spaces (native and third-party) and the budgeted context block."""

from __future__ import annotations

import logging
import re
from collections.abc import Collection, Iterable

from memoryhub.memories.recall import block, references
from memoryhub.memories.recall.remote_reads import Asked, Missing, read_deadline
from memoryhub.memories.recall.hits import Card, entry_card
from memoryhub.memories.search import policies, ranking
from memoryhub.memories.write import access_counts
from memoryhub.memories.search import fulltext as fts
from memoryhub.memories.models import AUTOMATIC_SKIP, Entry
from memoryhub.memories.notebooks import hot
from memoryhub.memories.text.tokens import token_set
from memoryhub.spaces import space_settings
from memoryhub.spaces.models import MemorySpace
from providers.base import ProviderError
from providers.registry import get_provider_class

log = logging.getLogger(__name__)


ORDER_RANK_SHARE = 0.85  # native hits are listed by this share of rank and the rest of coverage (see below)


def native_relevance(hit: ranking.Ranked, top: float, words: bool = True, rank_share: float = 0.5) -> float:
    """A 0–1 relevance: half the rank against the best hit, half the share of query words the entry holds (for a
    memory remembered along the way, the share of what found it, lent by the way it came), or, when embeddings
    are on and that is more, how close it comes to the query in meaning.

    Native hits are *listed* by the same mix at ORDER_RANK_SHARE rank (chosen by leave-one-conversation-out on
    the LoCoMo dev split, docs/benchmarks.md): half of it being the word share let a weak match holding most of
    the words pass a turn that ranked well. The relevance itself (the tier, a card's room) keeps half and half,
    which the recall policy's cut-offs are set for."""
    if not words:
        return round(min(1.0, hit.rank / top), 4)
    coverage = max(hit.coverage, fts.meaning(hit.similarity))
    return round(min(1.0, rank_share * hit.rank / top + (1 - rank_share) * coverage), 4)


def recall_policy(spaces: list[MemorySpace], home: MemorySpace | None = None) -> dict:
    """The settings a read goes by: a read of one space uses that space's, a read of several the home space's
    (where the call's writes would go), else the global defaults."""
    return space_settings.effective(spaces[0] if len(spaces) == 1 else home)


def search(spaces: list[MemorySpace], query: str, *, limit: int = 8, origin: str | None = None,
           recallable_only: bool = False, extend: bool = True, errors: list[Missing] | None = None,
           policy: dict | None = None, strict: bool = False, skip_tags: Iterable[str] = (),
           home: MemorySpace | None = None, referred: references.Referents | None = None) -> list[Card]:
    """Cards from every space, best first, each with a relevance tier.

    Tiers follow the recall policy settings (`policy`, else `recall_policy(spaces, home)`); when the spaces span
    several providers (whose scores mean different things), the policy (strict-v1 by default) also fetches extra
    candidates and filters by tier. `referred` (expand_references) adds what a query that points back means.
    Third-party spaces are asked at once, before the native search runs, under one deadline for the
    call (remote_reads.py); the ones that failed or were late go into `errors` (remote_reads.Missing),
    never raised, unless `strict` and every space failed: an explicit search then deserves a clear
    error (502/504) rather than silence.
    """
    failures: list[ProviderError] = []
    config = policy or recall_policy(spaces, home)
    mixed = len({s.provider for s in spaces}) > 1
    wanted = policies.candidate_limit(limit, config["recallMultiplier"]) if mixed else limit
    remote_spaces = [s for s in spaces if not s.is_native]
    asked = Asked(remote_spaces, query, wanted, deadline=read_deadline() if len(spaces) > 1 else None) \
        if remote_spaces else None
    cards: list[Card] = []
    native = [s for s in spaces if s.is_native]
    if native:
        by_id = {s.pk: s for s in native}
        ranked = dict(limit=wanted, origin=origin, recallable_only=recallable_only, extend=extend, skip_tags=skip_tags)
        hits = ranking.rank(list(by_id), query, **ranked)
        if referred is not None:
            hits = references.blend(hits, ranking.rank(list(by_id), referred.words, **ranked), referred, wanted)
        entries = Entry.objects.in_bulk([h.entry_id for h in hits])
        top = hits[0].rank if hits else 1.0
        words = bool(token_set(query))
        for h in hits:
            entry = entries.get(h.entry_id)
            if entry:
                card = entry_card(entry, native_relevance(h, top, words), by_id[entry.space_id])
                card.via, card.order = h.via, native_relevance(h, top, words, ORDER_RANK_SHARE)
                cards.append(card)
    if asked is not None:
        cards += asked.cards(origin, skip_tags, errors, failures)
    if strict and failures and len(failures) == len(spaces):
        raise failures[0]
    for card in cards:
        card.tier = policies.tier(card.score, get_provider_class(card.provider).score_semantics, config)
    if mixed:
        return policies.apply(cards, limit, config)
    cards.sort(key=lambda c: c.order if c.order is not None else c.score or 0.0, reverse=True)
    return cards[:limit]


def remote_cards(space: MemorySpace, query: str, limit: int, origin: str | None,
                 errors: list[Missing] | None, failures: list[ProviderError] | None = None,
                 skip_tags: Iterable[str] = ()) -> list[Card]:
    """One third-party space's cards, waiting for its provider's own timeout (a read of that space alone)."""
    return Asked([space], query, limit, deadline=None).cards(origin, skip_tags, errors, failures)


CANDIDATES_PER_CARD = 4
# The most of a query search reads: a user's message may be a pasted file with the question before or after it,
# so a longer one is read by the lines that read as prose, from its beginning and its end.
QUERY_CHARS = 4000
_CODE_MARKS = re.compile(r"[(){}\[\]=;<>|\\/_#$*`]")


def _prose(line: str) -> bool:
    """A line a person wrote, not one of a pasted file: several words (or a run of Chinese), few code marks."""
    han = sum("\u4e00" <= c <= "\u9fff" for c in line)
    words = len(line.split())
    return (words >= 3 or han >= 6) and len(_CODE_MARKS.findall(line)) <= 1 and sum(c.isdigit() for c in line) * 4 < len(line)


def searched_query(query: str) -> str:
    """The query as search reads it: whole up to QUERY_CHARS; else its prose lines, from the first and from the
    last, up to half of that each (its first and last characters when no line reads as prose)."""
    if len(query) <= QUERY_CHARS:
        return query
    half = QUERY_CHARS // 2
    prose = [line.strip() for line in query.splitlines() if _prose(line)]
    head = _lines_within(prose, half)
    tail = _lines_within(prose[len(head):][::-1], half)[::-1]
    if not head and not tail:
        return f"{query[:half]} … {query[-half:]}"
    return " … ".join(" ".join(part) for part in (head, tail) if part)


def _lines_within(lines: list[str], room: int) -> list[str]:
    """The lines from the first on while their characters fit in `room`."""
    taken, used = [], 0
    for line in lines:
        if used + len(line) > room:
            break
        taken.append(line)
        used += len(line)
    return taken


def expand_references(query: str, spaces: list[MemorySpace], session_id: str,
                      origin: str | None) -> references.Referents | None:
    """"That thing last time" names nothing searchable: what this session (else the space) said last, for
    `search(referred=…)` (references.py: searched beside the query, never outweighing it)."""
    return references.referents(query, spaces, session_id, origin)


def note_recall(cards: list[Card], query: str, actor: str) -> None:
    """Agent recall bumps access counts and is logged per space."""
    per_space: dict[MemorySpace, list[Entry]] = {}
    for card in cards:
        if card.entry is not None:
            per_space.setdefault(card.entry.space, []).append(card.entry)
    access_counts.record_recall(per_space, query, actor)


def inject(spaces: list[MemorySpace], query: str, *, origin: str | None, session_id: str = "",
           max_chars: int | None = None, home: MemorySpace | None = None,
           skip_tags: Iterable[str] = AUTOMATIC_SKIP, missing: list[Missing] | None = None,
           known: Collection[str] = ()) -> tuple[block.Context, list[Card]]:
    """Exactly what /api/v1/context injects (the dashboard's recall preview calls this too): the block
    (block.py) and the cards it shows, which the caller counts as recalled.

    Spaces whose `inject` setting is off are left out; the budget and card count default to the
    home space's settings (the space writes go to), else the global defaults. The block chooses
    among CANDIDATES_PER_CARD search hits per card it may show. Test and archived entries stay out
    unless `skip_tags` (the agent's skipTags) leaves them in, and so do entries whose text is in `known`
    (the notebook entries the reader already has). Third-party spaces that failed or were late are added to
    `missing`.
    """
    config = space_settings.effective(home)
    budget = config["maxInjectChars"] if max_chars is None else max_chars
    injected = [s for s in spaces if space_settings.effective(s)["inject"]]
    referred = expand_references(query, injected, session_id, origin) if query.strip() else None
    cards = (search(injected, query, limit=config["maxRecall"] * CANDIDATES_PER_CARD, origin=origin,
                    skip_tags=skip_tags, errors=missing, home=home, referred=referred)
             if query.strip() and injected else [])
    if known:
        cards = [c for c in cards if c.entry is None or c.entry.body.strip() not in known]
    shown_for = f"{query} {referred.words}" if referred else query  # the referents' words choose sentences too
    ctx = block.build(injected, cards, shown_for, max_chars=budget, origin=origin, max_cards=config["maxRecall"],
                      skip_tags=skip_tags, known=known or frozenset())
    return ctx, [c for c in [*cards, *ctx.neighbours] if c.id in ctx.why]


def context_block(books: list[dict], spaces: list[MemorySpace], query: str, *, origin: str | None,
                  session_id: str = "", max_chars: int | None = None, home: MemorySpace | None = None,
                  skip_tags: Iterable[str] = AUTOMATIC_SKIP, missing: list[Missing] | None = None,
                  notebooks: bool = True) -> tuple[block.Context, list[Card]]:
    """The whole of what /api/v1/context answers, and what the dashboard's recall preview shows: the pinned
    notebooks first (`books`, as notebooks.hot.freeze or .current give them), then the block (`inject`);
    `missing` gets the third-party spaces it had to do without.

    The notebooks may first take at most hot.PINNED_SHARE of the budget, so full ones never crowd out the cards
    of the query; whatever recall leaves unused then goes back to them (a query without hits gets notebooks
    nearly up to the whole budget). `notebooks=False` is for a client that injects its own notebooks (the
    Hermes provider mirrors them) or had them at its session's start (the hooks): the block alone, within the
    whole budget. Either way no card repeats a notebook entry the reader has (the entries mirrored into the
    spaces would otherwise come back as cards of a query that shares their words)."""
    budget = space_settings.effective(home)["maxInjectChars"] if max_chars is None else max_chars
    query = searched_query(query)
    pinned_here = books if notebooks else []
    first, first_items = hot.render_snapshot(pinned_here, budget // hot.PINNED_SHARE)
    # what the reader has: the session's notebooks when it pins its own, else the entries pinned here (the final
    # render below shows at least these, having at least as much room)
    known = hot.entry_texts(books, first_items if notebooks else None)
    ctx, cards = inject(spaces, query, origin=origin, session_id=session_id,
                        max_chars=max(0, budget - len(first) - (1 if first else 0)), home=home, skip_tags=skip_tags,
                        missing=missing, known=known)
    pinned, pinned_items = hot.render_snapshot(pinned_here, max(0, budget - len(ctx.text) - (1 if ctx.text else 0)))
    ctx.text = "\n".join(t for t in (pinned, ctx.text) if t)
    ctx.items = pinned_items + ctx.items
    ctx.why.update({item["id"]: {"code": "notebook", "entries": item["entries"], "shown": item["shown"]}
                    for item in pinned_items})
    return ctx, cards
