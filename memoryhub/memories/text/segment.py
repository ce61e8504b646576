"""Chinese word segmentation with part-of-speech tags, for anything that needs words rather than bigrams.

The index keeps Chinese as character bigrams (tokens.py: recall needs no dictionary), but people read words
(topic keywords), facts need where a value ends (我住在北京已经五年了 → 北京), and entities need to know a person
(nr) from a place (ns) or an organisation (nt). rjieba binds jieba-rs: jieba's dictionary and tag set (ICTCLAS
style: n noun, nr person, ns place, nt organisation, nz other proper noun, v verb, vn verbal noun, …) in Rust,
about 0.4 s to load and 40 MB resident, tens of microseconds a sentence. It is loaded on first use, never
at start-up, so a hub that only ever sees English never pays for it.
"""

from __future__ import annotations

import re
import threading
from functools import lru_cache

_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LOCK = threading.Lock()
_SEGMENTER = None

# Tags of words that carry content: nouns of every kind, verbal nouns, English words inside Chinese, abbreviations.
CONTENT_TAGS = ("n", "nr", "nrfg", "nrt", "ns", "nt", "nz", "ng", "vn", "eng", "j", "l")
PROPER_TAGS = {"nr": "person", "nrfg": "person", "nrt": "person", "ns": "place", "nt": "organisation", "nz": "name"}
# Nouns that say nothing about a subject on their own.
GENERIC_NOUNS = frozenset(
    """东西 事情 事儿 问题 时候 情况 方面 地方 部分 内容 东东 样子 意思 办法 原因 结果 过程 方式 感觉 话 人 事 时间
    一下 这个 那个 哪个 什么 怎么 大家 自己 别人 用户 助手""".split()
)


# The common Chinese surnames (a person-name test where the dictionary has no tag for the name).
ZH_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟"
    "谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤常温康施文牛樊葛"
    "邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮纪梅童凌毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游"
    "辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应"
    "臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘池查麻苑迟邝")
ZH_COMPOUND_SURNAMES = frozenset("欧阳 司马 上官 诸葛 东方 慕容 令狐 皇甫 尉迟 公孙 长孙 宇文 夏侯 端木 独孤 南宫".split())
NOT_NAMES = frozenset(
    """老公 老婆 老爸 老妈 老家 老师 老板 老乡 老兄 哥哥 姐姐 弟弟 妹妹 爸爸 妈妈 儿子 女儿 朋友 同事 同学 爷爷 奶奶 外公 外婆
    叔叔 阿姨 舅舅 姑姑 宝宝 孩子 媳妇 丈夫 妻子 先生 太太 小姐 师傅 领导 过敏 小孩 大家 自己 谢谢 高兴 白天 黄昏
    方便 江湖 金钱 马上 石头 文件 温柔 程序 钱包 孔子 常见 常用 高手 高级 小时 小麦 小米 小康 小区 小吃 小伙 老乡 老年
    老师 老板 老公 老是 老于""".split())

# Who is named by "…叫朵朵": kin and pets (我女儿叫朵朵, 狗叫旺财)
RELATIVE_AND_PET_WORDS = frozenset(
    """老公 老婆 丈夫 妻子 爱人 媳妇 先生 太太 男朋友 女朋友 对象 儿子 女儿 孩子 宝宝 闺女 小孩 爸爸 妈妈 父亲 母亲 哥哥 姐姐
    弟弟 妹妹 朋友 同事 同学 室友 邻居 老板 猫 狗 猫咪 狗狗 小猫 小狗 宠物 兔子 仓鼠 鹦鹉""".split())
# The words for people among them, and a few more (闺蜜, 老伴): what may introduce a person by a given name alone
PEOPLE_WORDS = (RELATIVE_AND_PET_WORDS - frozenset("猫 狗 猫咪 狗狗 小猫 小狗 宠物 兔子 仓鼠 鹦鹉".split())) | frozenset(
    "闺蜜 老伴 媳妇儿 女婿 儿媳 上司 领导 搭档 合伙人 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹".split())


def looks_like_person(word: str, tag: str = "") -> bool:
    """A Chinese personal name: a common surname and one or two more characters, or the dictionary's
    transliterated/full-name tags; never a kinship word the dictionary happens to tag as a name (老公)."""
    if word in NOT_NAMES or not has_chinese(word) or not 2 <= len(word) <= 4:
        return False
    if tag in ("nrfg", "nrt"):
        return True
    surname = 2 if word[:2] in ZH_COMPOUND_SURNAMES else 1
    return word[:surname] in ZH_SURNAMES and len(word) <= surname + 2


_NAME_TAGS = ("nr", "nrfg", "nrt")
_NOT_A_DOUBLED_NAME = ("d", "t", "m", "v", "ad")  # 天天, 常常, 笑笑: doubled adverbs, times and verbs
NOT_A_NAME_START = frozenset("叫姓是在的和跟与也都就还又很最太去来做把给帮回到吃喝看想要会能让说问不没这那你他她它我")  # 叫思琪 is one "nr"
_ASPECT = frozenset("了 过 着".split())  # 明白了: a word a particle follows is a verb, whatever its tag


def given_name_at(text: str) -> str:
    """The name at the very start of `text`, where a relation word has just introduced someone (我女儿|思琪今年五岁,
    我朋友|阿杰): a word the dictionary tags a person, 小/老/阿 and a surname (小张, 老周), or a doubled given name
    (朵朵, 乐乐). Only for that place: alone, 思琪 or 朵朵 could be anything, and 明白, 城市 stay words."""
    words = tagged(text)
    if not words:
        return ""
    word, tag = words[0]
    following = words[1][0] if len(words) > 1 else ""
    if len(word) == 3 and tag in _NAME_TAGS and word[2] in NOT_A_NAME_START:
        word, following = word[:2], word[2]  # 晓雯要结婚了: the dictionary glued the verb to the name
    if (not 2 <= len(word) <= 3 or not has_chinese(word) or word in NOT_NAMES or following in _ASPECT
            or word[0] in NOT_A_NAME_START):
        return ""
    if tag in _NAME_TAGS and not word.endswith("人"):  # 杭州人 says where someone is from
        return word
    if len(word) == 2 and word[0] in "小老阿" and (word[1] in ZH_SURNAMES or word[0] == "阿"):
        return word
    if len(word) == 2 and word[0] == word[1] and not tag.startswith(_NOT_A_DOUBLED_NAME):
        return word
    return ""


def _segmenter():
    global _SEGMENTER
    if _SEGMENTER is None:
        with _LOCK:
            if _SEGMENTER is None:
                import rjieba  # the dictionary loads here, once per process

                _SEGMENTER = rjieba
    return _SEGMENTER


def has_chinese(text: str) -> bool:
    return bool(_HAN.search(text or ""))


@lru_cache(maxsize=4096)
def _tag_cached(text: str) -> tuple[tuple[str, str], ...]:
    return tuple(_segmenter().tag(text))


def tagged(text: str) -> list[tuple[str, str]]:
    """(word, tag) for the whole text; text without Chinese is split on spaces without loading the dictionary
    (English words tagged `eng`, the rest `x`)."""
    if not text:
        return []
    if not has_chinese(text):
        return [(w, "eng" if w[:1].isalnum() else "x") for w in re.findall(r"\w[\w.+#'-]*|[^\w\s]", text)]
    return list(_tag_cached(text) if len(text) <= 2000 else _segmenter().tag(text))


def cut(text: str) -> list[str]:
    """The words of the text, spaces dropped."""
    return [w for w, _ in tagged(text) if w.strip()]


def content_words(text: str) -> list[str]:
    """The Chinese words that carry content (nouns, verbal nouns, names, English terms), in order, lower-cased;
    pronouns, particles, measure words, numbers, generic nouns and single characters are left out."""
    found: list[str] = []
    for word, tag in tagged(text):
        word = word.strip().lower()
        if (len(word) < 2 or not tag.startswith(CONTENT_TAGS) or word in GENERIC_NOUNS
                or not has_chinese(word)):
            continue
        found.append(word)
    return found


def proper_names(text: str) -> list[tuple[str, str]]:
    """(word, kind) of the Chinese proper names the dictionary tags: person, place, organisation, name."""
    return [(w, PROPER_TAGS[t]) for w, t in tagged(text) if t in PROPER_TAGS and has_chinese(w) and len(w) >= 2]


def warm() -> None:
    """Load the dictionary now (a worker may call this at start so the first Chinese turn does not wait)."""
    _segmenter().cut("预热")
