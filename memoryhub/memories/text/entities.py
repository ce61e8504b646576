"""Entity extraction: what a memory names — people, places, organisations, projects and products in plain
words, beside identifiers, acronyms, files, URLs, @mentions, 《titles》 and known tech terms (Mnemon A8).

English names are capitalised words with context rules: mid-sentence a capitalised run is a name ("moved
the billing service to PostgreSQL", "lunch with Alice"); at the start of a sentence, where every word is
capitalised, only a word that is no common English word and is followed by what people do ("Alice moved …",
"Alice's team"), or a run of two ("Olivia Brandt said"). Speaker labels ("User:", "Caroline:") are not
mentions. Chinese names come from word segmentation (segment.py): the dictionary's person, place and
organisation tags, with a person only where the word looks like a name (a surname, not 老公) and is not a
clause of its own (明白，…), 老周 and 小王, a name before 小学 or 博物馆 one organisation, and the name after 名叫,
叫我 or "女儿叫" ("我女儿叫朵朵"; after a bare 叫 only a word shaped like a name: 叫 also means "to cry out"). A
Latin word after Chinese text is mid-sentence (代号 Tidewater). Each mention has a kind; the entity edges carry it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memoryhub.memories.text import segment

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
# Words that open sentences (or are capitalised for other reasons) without naming anything.
COMMON = frozenset(
    """a about above after again against all also although always am an and another any anyone anything anyway
    are around as at back be because been before being below between both but by can cannot could did do does
    doing done down during each either else even ever every everyone everything few first for from further get
    gets getting give go going gone good got great had has have having he her here hers herself him himself his
    how however i if in into is it its itself just last later least less let lets like look made make many may
    maybe me might mine more most much must my myself near need never new next no nobody none nor not nothing
    now of off oh ok okay on once one only or other others our ours ourselves out over own perhaps please quite
    rather really right same see she should since so some someone something sometimes soon still such sure take
    than thank thanks that the their theirs them themselves then there these they thing things think this those
    though through thus to today together tomorrow tonight too under until up upon us very was we well were what
    whatever when where whether which while who whoever whom whose why will with within without would yes yet
    yesterday you your yours yourself hi hello hey dear great cool nice wow yeah yep nope sorry congrats
    congratulations welcome morning evening afternoon night week weekend month year day monday tuesday wednesday
    thursday friday saturday sunday january february march april june july august september october november
    december let's i'm i've i'd i'll it's that's there's what's here's don't can't won't didn't isn't
    add ask be build call change check create delete describe do explain find fix give help keep list make move
    note open plan put read remember remind remove rename run save say send set show start stop summarise
    summarize tell test translate try turn update use wait write both neither anyway actually also besides
    finally first second third last next then meanwhile otherwise still sure agreed exactly absolutely probably
    definitely honestly basically apparently unfortunately luckily hopefully anyway ah um uh hmm user assistant
    human system note todo""".split()
)
# Nationalities and languages are not things a conversation names as entities.
DEMONYMS = frozenset(
    """english chinese mandarin cantonese japanese korean french german spanish portuguese italian dutch russian
    polish swedish norwegian danish finnish greek turkish arabic hebrew hindi thai vietnamese indonesian american
    british scottish welsh irish canadian australian indian mexican brazilian european asian african""".split()
)
_PERSON_BEFORE = frozenset(
    """mr mrs ms miss dr prof professor sir madam uncle aunt auntie grandma grandpa sister brother wife husband son
    daughter mom mum dad father mother friend colleague coworker boss manager partner boyfriend girlfriend with
    ask asked tell told call called meet met thank thanks dear hi hello hey cousin neighbour neighbor""".split()
)
_PERSON_AFTER = frozenset(
    """said says told tells asked asks thinks thought wants wanted likes liked loves loved owns owned moved moves
    lives lived works worked agreed agrees suggested suggests wrote writes joined joins left leads led manages
    managed decided decides feels felt knows knew met called emailed texted replied mentioned""".split()
)
# What follows a name opening a sentence: something people do ("Alice moved", "Kenji is flying", "Tom and Jerry").
_DOES = re.compile(r"^(?:(?:" + "|".join(sorted(_PERSON_AFTER)) + r")\b|(?:is|was|will\s+be)\s+\w+ing\b)")
# …or what a thing does: "Tidewater passed load testing", "Orion will replace …" (not for "Sadly ended", "Finally got")
_ACTS = re.compile(r"^(?:\w{3,}ed|will|would|can|could|should|must|has|had|needs|uses|runs)\s+\w")
_NOT_A_SUBJECT = re.compile(r"(?:ly|ed|ing)$")
_PLACE_BEFORE = frozenset("in from to near around across visit visited visiting outside into toward towards via".split())
_ORG_WORDS = frozenset(
    """inc ltd llc corp corporation company co group bank university college institute labs lab foundation
    agency association airlines airways hospital school studios studio technologies systems ministry council
    club society press""".split()
)
_PROJECT_AFTER = frozenset("project app service platform library repo framework plugin extension tool sdk api".split())
_JOINERS = frozenset("of de van von der den du da del la le".split())

_CAMEL = re.compile(r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b|\b[a-z]+(?:[A-Z][a-z0-9]+)+\b")
_ACRONYM = re.compile(r"\b[A-Z]{2,6}\b")
_FILE = re.compile(r"(?<![\w/.-])(?:[\w.-]+/)*[\w-]+\.[A-Za-z][A-Za-z0-9]{0,9}\b")
_URL = re.compile(r"https?://[^\s<>\"'）)]+")
_MENTION = re.compile(r"(?<!\w)@[A-Za-z0-9_][\w.-]{1,38}")
_QUOTED = re.compile(r"《([^》]{1,60})》|「([^」]{1,60})」")
_ASCII_WORD = re.compile(r"[A-Za-z][A-Za-z0-9.+#-]*")
_NOT_FILES = frozenset({"e.g", "i.e", "etc", "vs"})
# A speaker label at the start of a line ("User:", "Caroline:", "张三："): who speaks, not what is said.
SPEAKER_LABEL = re.compile(r"^[ \t]*(?:[A-Z][\w'.-]{0,30}(?: [A-Z][\w'.-]{0,30}){0,2}|[\u4e00-\u9fff]{2,4})[ \t]*[:：][ \t]*",
                    re.M)
_SENTENCE = re.compile(r"[^.!?。！？\n]+[.!?。！？]*")
_POSSESSIVE = re.compile(r"['’]s?$")
_WORD = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ0-9'’-]*")
# 叫 is also a verb ("猫半夜叫可能是…"): what follows it counts only when it looks like a name (see _called_name)
_CALLED_ZH = re.compile(r"(?P<how>名叫|叫做|名字是|名字叫|叫我|叫你|叫)([\u4e00-\u9fff]{2,3}?)(?=[，,。.！!？?；;、\s]|$|是|在|今年|的|吧|了|呢|啊|呀|哦|就)")
_NICK_PREFIX = "小老阿"
# An organisation named by 叫: 我们公司叫星辰科技, 我在的学校叫育才中学
_NAMED_THING_ZH = re.compile(r"(?:公司|单位|学校|团队|工作室|店|厂|医院|集团)(?:的名字)?(?:叫做|名叫|叫|名字是)"
                             r"(?P<name>[一-鿿A-Za-z0-9]{2,10}?)(?=[，,。.！!？?；;、\s]|$|吧|了|呢|啊)")
# 老 or 小 and a surname, where a word ends (the segmenter splits 老陈 and 小刘 apart, or tags 老周 a time word)
_FAMILIAR_ZH = re.compile("(?<![老小大从])([老小][" + "".join(sorted(segment.ZH_SURNAMES)) + "]"
                          # 阿杰, 阿明: 阿 and a given name (not 阿姨, 阿婆, 阿里, 阿拉 …)
                          r"|阿[^姨婆公伯哥妹姐叔爸妈拉里弥嚏门\W\da-zA-Z])"
                          r"(?=[在说和跟与去来是的也都还又要会把给让被今明昨上下吃喝做写看想觉打发帮请找问告回走到推送买带约教陪借讲负管修改选提介联拉"
                          r"，,。.！!？?；;、：:\s]|$)")
# A proper name with one of these endings is a place, whatever the dictionary's guess (金鸡湖, 黄山, 鼓浪屿)
_PLACE_ENDINGS = tuple("湖山河江海岛屿湾峡谷港寺塔桥街巷镇村县市省州")
_CLAUSE_EDGE = frozenset("，,。.！!？?；;：:、\n")


@dataclass(frozen=True)
class Mention:
    name: str
    kind: str  # person, place, organisation, project, name, tech, file, url, identifier, acronym, handle, title


def capitalised_words(text: str) -> set[str]:
    """Plain capitalised words: entity candidates only if the index already knows them."""
    return {w for w in _ASCII_WORD.findall(_URL.sub(" ", text)) if w[:1].isupper() and len(w) > 1}


def mentions(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[Mention]:
    """Everything the text names, each once, with its kind (the first kind found wins)."""
    found: dict[str, Mention] = {}

    def add(value: str, kind: str) -> None:
        value = value.strip().rstrip(".,;:!?")
        if value and len(value) <= 200 and value not in found:
            found[value] = Mention(value, kind)

    for m in _URL.finditer(text):
        add(m.group(0), "url")
    stripped = _URL.sub(" ", text)
    for m in _FILE.finditer(stripped):
        value = m.group(0)
        if value.lower() in _NOT_FILES or re.fullmatch(r"[\d.]+", value):
            continue
        add(value, "file")
    for m in _CAMEL.finditer(stripped):
        add(m.group(0), "identifier")
    for m in _ACRONYM.finditer(stripped):
        if m.group(0) not in ACRONYM_STOP:
            add(m.group(0), "acronym")
    for m in _MENTION.finditer(stripped):
        add(m.group(0), "handle")
    for m in _QUOTED.finditer(stripped):
        add(m.group(1) or m.group(2), "title")
    for word in _ASCII_WORD.findall(stripped):
        word = word.rstrip(".")  # "… to PostgreSQL." ends a sentence, not the name
        if word in TECH_TERMS:
            add(word, "tech")
    unlabelled = SPEAKER_LABEL.sub("", stripped)
    for name, kind in english_names(unlabelled, known):
        add(full_name(name, known) if kind in ("person", "name") else name, kind)
    if segment.has_chinese(unlabelled):
        for name, kind in chinese_names(unlabelled):
            add(name, kind)
    return list(found.values())[:50]


def full_name(name: str, known: set[str] | frozenset[str]) -> str:
    """"Marco" where the space knows "Marco Rossi": that person, if no other known name starts so (two Marcos:
    which one is not said, and the short name stays as it is)."""
    if " " in name:
        return name
    longer = [k for k in known if k.startswith(name + " ") and k[len(name) + 1:][:1].isupper()]
    return longer[0] if len(longer) == 1 else name


def extract_entities(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[str]:
    """The names of everything the text mentions (see mentions); `known` names count wherever they stand."""
    return [m.name for m in mentions(text, known)]


def kinds(text: str) -> dict[str, str]:
    """Name → kind for the text's mentions (the kind an entity edge carries)."""
    return {m.name: m.kind for m in mentions(text)}


# --- English names ----------------------------------------------------------------------------

def english_names(text: str, known: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, str]]:
    """(name, kind) of the capitalised runs that name someone or something (module docstring)."""
    found: list[tuple[str, str]] = []
    for sentence in _SENTENCE.findall(text):
        words = [(_POSSESSIVE.sub("", m.group(0)), m.start()) for m in _WORD.finditer(sentence)]
        lower = [w.lower() for w, _ in words]
        i = 0
        while i < len(words):
            if not _capitalised(words[i][0]):
                i += 1
                continue
            j = i + 1  # a run goes on over capitalised words (and "of", "van" …) with nothing but spaces between
            while j < len(words) and sentence[words[j - 1][1] + len(words[j - 1][0]):words[j][1]].isspace() and (
                    _capitalised(words[j][0]) or (lower[j] in _JOINERS and j + 1 < len(words)
                                                  and _capitalised(words[j + 1][0]))):
                j += 1
            # Chinese has no capitals: a Latin word after Chinese text is mid-sentence (代号 Tidewater)
            at_start = i == 0 and not segment.has_chinese(sentence[:words[0][1]])
            start, name = _clean_run([w for w, _ in words[i:j]], at_start=at_start, known=known,
                                     after=" ".join(w for w, _ in words[j:j + 2]),
                                     possessive=sentence[words[j - 1][1] + len(words[j - 1][0]):][:2] in ("'s", "’s"))
            if name:
                at = i + start
                found.append((name, _kind(name, lower[at - 1] if at else "", lower[j] if j < len(words) else "",
                                          lower[at - 2] if at > 1 else "")))
            i = j
    return found


def _capitalised(word: str) -> bool:
    return len(word) > 1 and word[0].isupper() and not word.isupper() and word.lower() not in ("i", "i'm")


def _clean_run(run: list[str], *, at_start: bool, after: str, possessive: bool, known) -> tuple[int, str]:
    """(where the name starts in the run, the name) or (0, ''): common words and nationalities at its edges go,
    and a single word opening a sentence needs a sign that it names someone."""
    start = 0
    while start < len(run) and (run[start].lower() in COMMON or run[start].lower() in DEMONYMS
                                or run[start] in TECH_TERMS or run[start].lower() in _JOINERS):
        at_start = at_start and run[start].lower() not in COMMON
        start += 1
    end = len(run)
    while end > start and (run[end - 1].lower() in COMMON or run[end - 1].lower() in DEMONYMS
                           or run[end - 1] in TECH_TERMS):
        end -= 1
    kept = run[start:end]
    if not kept:
        return 0, ""
    name = " ".join(kept)
    after = " ".join([*run[end:], after]).strip()  # "Mostly Python and …": what follows "Mostly" is Python
    if at_start and start == 0 and len(kept) == 1 and name not in known and not possessive \
            and not (_DOES.match(after.lower()) or re.match(r"(?:and|&)\s+[A-Z]", after)
                     or (_ACTS.match(after.lower()) and not _NOT_A_SUBJECT.search(name.lower()))):
        return 0, ""
    return start, name


def _kind(name: str, before: str, after: str, two_before: str) -> str:
    words = {w.lower() for w in name.split()}
    if words & _ORG_WORDS or (before in ("at", "for") and two_before in ("work", "works", "worked", "working")) \
            or before in ("joined", "joins"):
        return "organisation"
    if after in _PROJECT_AFTER:
        return "project"
    if before in _PERSON_BEFORE or after in _PERSON_AFTER or (before in ("is", "named", "called")
                                                                and two_before in _PERSON_BEFORE) \
            or (before == "to" and two_before in ("married", "engaged")):
        return "person"  # "my wife is Lin Yue", "a friend named Ola"
    if before in _PLACE_BEFORE:
        return "place"
    return "name"


# --- Chinese names ----------------------------------------------------------------------------

def chinese_names(text: str) -> list[tuple[str, str]]:
    """(name, kind) of the Chinese proper names: the dictionary's tags (a person only where the word looks like
    a name; a name someone works at is an organisation), 老周 and 小王, and the names 叫 introduces."""
    found: list[tuple[str, str]] = []
    for match in _CALLED_ZH.finditer(text):
        if _called_name(match.group(2), text[max(0, match.start() - 2):match.start()], match.group("how")):
            found.append((match.group(2), "person"))
    for match in _RELATION_ZH.finditer(text):
        name = segment.given_name_at(text[match.end():])
        if name:
            found.append((name, "person"))  # 我女儿思琪, 我朋友阿杰, 我老婆是小丽: a given name, introduced
    for match in _FAMILIAR_ZH.finditer(text):
        if match.group(1) not in segment.NOT_NAMES:
            found.append((match.group(1), "person"))  # 老周, 小王: how colleagues and friends are called
    for match in _NAMED_THING_ZH.finditer(text):
        found.append((match.group("name"), "organisation"))  # 我们公司叫星辰科技
    tagged = segment.tagged(text)
    for n, (word, tag) in enumerate(tagged):
        kind = segment.PROPER_TAGS.get(tag)
        if (kind is None or kind == "name" or len(word) < 2 or word in segment.NOT_NAMES
                or word in segment.GENERIC_NOUNS  # 吃东西: the dictionary tags 东西 (things) a place
                or not segment.has_chinese(word)
                or (kind == "person" and word[0] in segment.NOT_A_NAME_START)):  # 叫琳琳 is tagged one name
            continue  # nz (other proper nouns) are mostly common terms in jieba's dictionary (嵌入式, 中文)
        before = tagged[n - 1][0] if n else "\n"
        following = tagged[n + 1][0] if n + 1 < len(tagged) else "\n"
        if following in _INSTITUTIONS:
            found.append((word + following, "organisation"))  # 星海 + 小学, 苏州 + 博物馆: one name
            continue
        if kind == "person" and len(word) >= 3 and word.endswith(_PLACE_ENDINGS):
            kind = "place"  # 金鸡湖 is tagged nr
        elif kind == "person" and len(word) >= 3 and word.endswith("人"):
            continue  # 江西人, 上海人: where someone is from, not a name
        elif kind == "person" and following in _WORKS_ZH:
            kind = "organisation"  # 我在华为上班
        elif kind == "person" and before in ("老", "小", "阿"):
            continue  # 老|刘说: the segmenter glued the verb to the surname; 老刘 was found above
        elif kind == "person" and len(word) == 2 and word[0] in "老小" and word[1] in segment.ZH_SURNAMES:
            pass  # 老王 as one word: how colleagues are called, whatever follows it (老王推荐…)
        elif kind == "person" and (_alone(before, following) or following in _ASPECT_ZH
                                   or not segment.looks_like_person(word, tag)):
            continue  # 明白，…: a word that is a clause of its own is an answer or a greeting, not a mention
        found.append((word, kind))
    return found


def _alone(before: str, following: str) -> bool:
    return before.strip() in _CLAUSE_EDGE | {""} and following.strip() in _CLAUSE_EDGE | {""}


def _called_name(word: str, before: str, how: str) -> bool:
    """What follows 名叫, 叫我 or "女儿叫" names someone; after a bare 叫 (also "to cry out") only a word shaped like a
    name does: a surname and a given name, a 小/老/阿 form, a doubled 朵朵, or one the dictionary tags a person."""
    if word in segment.NOT_NAMES:
        return False
    if how in ("叫我", "叫你") and segment.tagged(word)[0][1].startswith(("d", "v", "p", "t", "m", "r", "c")):
        return False  # 朋友叫我早点睡: 叫 as "tell to", what follows is what to do
    if how != "叫" or any(before.endswith(w) for w in segment.RELATIVE_AND_PET_WORDS):
        return True
    if (word[0] in _NICK_PREFIX and len(word) == 2) or word[:1] * 2 == word or segment.looks_like_person(word):
        return True
    tags = segment.tagged(word)
    return len(tags) == 1 and tags[0][1] in ("nr", "nrfg", "nrt")


_ASPECT_ZH = frozenset("了 过 着".split())  # 明白了: a verb, whatever the dictionary's tag
# One of the user's people named right after the word for them (是 between allowed): 我女儿思琪, 我老婆是小丽
_RELATION_ZH = re.compile("(?:" + "|".join(sorted(segment.PEOPLE_WORDS, key=len, reverse=True)) + ")(?:是)?")
_WORKS_ZH = frozenset("上班 工作 任职 实习 公司 集团 打工 入职".split())
# The nouns that make a proper name before them one institution's name
_INSTITUTIONS = frozenset("""小学 中学 大学 学院 学校 幼儿园 医院 银行 博物馆 美术馆 图书馆 研究所 研究院 公司 集团 体育馆
    科技 电视台 出版社 音乐学院 剧院""".split())
