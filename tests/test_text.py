"""Text helpers behind cards and summaries: sentences, word-safe clipping, query-focused excerpts, informativeness."""

import re

import pytest

from memoryhub.memories.text.prose import clip, excerpt, low_information, sentences, rule_summary

from memoryhub.memories.text.tokens import tokenize

LONG_TURN = (
    "User: Hey! Quick question about the database.\n\n"
    "Assistant: Sure. We looked at MySQL and SQLite first. After the load tests we decided on PostgreSQL 16 "
    "because of JSONB and logical replication. The migration runs next week. Anything else?"
)


def query(text):
    return set(tokenize(text))


def test_sentences_do_not_end_inside_names_versions_or_abbreviations():
    text = "Put secrets in .env files. Use Python 3.11, e.g. for node.js. Dr. Smith agreed!\n我们决定用 PostgreSQL 16。好的"
    assert sentences(text) == ["Put secrets in .env files.", "Use Python 3.11, e.g. for node.js.", "Dr. Smith agreed!",
                               "我们决定用 PostgreSQL 16。", "好的"]


@pytest.mark.parametrize("text, limit, expected", [
    ("The quick brown fox jumps over the lazy dog", 20, "The quick brown fox…"),
    ("The quick brown fox jumps over the lazy dog", 19, "The quick brown…"),
    ("short enough", 12, "short enough"),
    ("我们在做一个记账应用，数据库决定用PostgreSQL16版本", 15, "我们在做一个记账应用，数据库…"),
    ("数据库决定用PostgreSQL16版本", 12, "数据库决定用…"),  # Chinese cuts on characters, never inside the English word
    ("anything", 0, ""),
])
def test_clip_cuts_between_words_or_chinese_characters(text, limit, expected):
    assert clip(text, limit) == expected
    assert len(clip(text, limit)) <= limit


def test_clip_never_cuts_inside_a_word():
    text = "Supercalifragilistic expialidocious antidisestablishmentarianism floccinaucinihilipilification words"
    words = set(text.split())
    for limit in range(2, len(text)):
        cut = clip(text, limit)
        assert len(cut) <= limit
        kept = cut.removesuffix("…").split()
        assert all(word in words for word in kept), (limit, cut)


def test_summary_is_the_informative_sentence_not_the_greeting():
    assert rule_summary("Caroline: Hey Mel! Good to see you. I went to a LGBTQ support group yesterday.") == (
        "Caroline: I went to a LGBTQ support group yesterday.")
    assert rule_summary("Keep the API keys in .env and never commit it.", 160) == (
        "Keep the API keys in .env and never commit it.")
    assert rule_summary("Hey!") == "Hey!"
    assert rule_summary("Thanks! We moved billing to PostgreSQL 16 last week. Cheers! The old MySQL box is gone.", 60) == (
        "We moved billing to PostgreSQL 16 last week.")  # informative sentences in order, while they fit


def test_greetings_and_thanks_say_nothing():
    for text in ("Hey!", "Cheers, James!", "Caroline: Thanks, Mel!", "Wow, that's cool!", "好的，谢谢！"):
        assert low_information(text), text
    for text in ("I went bowling on Sunday", "Paris, 2019.", "Use PostgreSQL 16", "我们决定用 PostgreSQL"):
        assert not low_information(text), text


def test_a_short_entry_is_shown_whole():
    assert excerpt("Caroline: I went to a LGBTQ support group yesterday.", query("support group"), 200) == (
        "Caroline: I went to a LGBTQ support group yesterday.")


def test_a_long_entry_shows_the_sentences_that_match_with_ellipses_and_its_speaker():
    text = excerpt(LONG_TURN, query("what did we decide about postgresql"), 160)
    assert "we decided on PostgreSQL 16" in text and len(text) <= 160
    assert "Assistant: …" in text  # the speaker named, the skipped start of their answer marked
    assert "MySQL" not in text


def test_an_overlong_sentence_is_cut_around_its_match():
    sentence = "word " * 60 + "the bowling alley on the corner " + "filler " * 60
    text = excerpt(sentence, query("bowling"), 80)
    assert "bowling" in text and text.startswith("…") and text.endswith("…") and len(text) <= 80
    assert all(w in {"word", "the", "bowling", "alley", "on", "corner", "filler"} for w in re.findall(r"\w+", text))


def test_chinese_excerpt_keeps_whole_characters_and_the_match():
    text = ("用户：我们在做一个记账应用，先聊聊整体架构和部署方式。\n\n"
            "助手：好的。关于数据库，我们最后决定用 PostgreSQL 16，因为需要 JSONB 和逻辑复制。迁移计划下周开始执行。")
    cut = excerpt(text, query("数据库决定"), 60)
    assert "决定用 PostgreSQL 16" in cut and len(cut) <= 60
    assert cut.startswith("助手：") or cut.startswith("… 助手：")


def test_relative_dates_in_a_memory_get_their_absolute_date():
    from datetime import date

    from memoryhub.memories.recall.dates import day, resolve

    said = date(2023, 5, 8)  # a Monday
    assert day(said) == "8 May 2023"
    assert resolve("I went yesterday, and last Friday too; two days ago it rained. Last year was calm, "
                   "3 months ago too. Last week was busy.", said) == (
        "I went yesterday (7 May 2023), and last Friday (5 May 2023) too; two days ago (6 May 2023) it rained. "
        "Last year (2022) was calm, 3 months ago (February 2023) too. Last week (the week of 1 May 2023) was busy.")
    assert resolve("我昨天去了，去年也去过，上个月没去，3天前下雨", said) == (
        "我昨天（2023年5月7日）去了，去年（2022年）也去过，上个月（2023年4月）没去，3天前（2023年5月5日）下雨")
    assert resolve("a year ago", date(2024, 2, 29)) == "a year ago (2023)"
    assert resolve("下周三我值夜班，上个星期五没去，这周日休息", said) == (
        "下周三（2023年5月17日）我值夜班，上个星期五（2023年5月5日）没去，这周日（2023年5月14日）休息")


def test_a_chinese_memory_naming_a_latin_tool_is_dated_in_chinese():
    from datetime import date

    from memoryhub.memories.recall.dates import day_for

    said = date(2023, 5, 8)
    assert day_for(said, "User: 科室里老王推荐我用Notion记笔记，我觉得还不错。 Assistant: Notion确实好用。") == "2023年5月8日"
    assert day_for(said, "User: I love 火锅 and hot pot nights. Assistant: Noted.") == "8 May 2023"


@pytest.mark.parametrize("text, expected", [
    ("Привет мир, новые книги", ["привет", "мир", "нов", "книг"]),          # Cyrillic, stemmed in Russian
    ("Καλημέρα κόσμε", ["καλημερ", "κοσμ"]),                                  # Greek, accents folded
    ("مرحبا بالعالم", ["مرحب", "عالم"]),                                      # Arabic, stemmed
    ("שָׁלוֹם עוֹלָם", ["שלום", "עולם"]),                                       # Hebrew, points folded
    ("กินข้าว", ["กิน", "นข้", "ข้า", "าว"]),                                   # Thai: pairs of characters with their marks
    ("東京タワー", ["東京", "京タ", "タワ", "ワー"]),                            # kanji and katakana
    ("학교에 갔어요", ["학교", "교에", "갔어", "어요"]),                          # Hangul: pairs inside each word
    ("She went to the café and bought books", ["go", "cafe", "buy", "book"]),  # past forms to their verb
])
def test_every_script_has_tokens(text, expected):
    assert tokenize(text) == expected


def test_a_word_and_its_inflected_or_unaccented_forms_share_tokens():
    assert set(tokenize("книга")) == set(tokenize("книги"))
    assert set(tokenize("Ελληνικά")) == set(tokenize("ελληνικα"))
    assert tokenize("naïve café") == tokenize("naive cafe")
    assert set(tokenize("학교")) <= set(tokenize("학교에서"))  # a Korean word with its particle still matches


def test_thai_is_cut_between_characters_never_before_a_vowel_mark():
    text = "สวัสดีครับ วันนี้เราไปกินข้าวที่ร้านอาหารใกล้บ้าน แล้วก็ไปดูหนังกันต่อ"
    for limit in range(2, len(text)):
        cut = clip(text, limit).removesuffix("…")
        assert len(clip(text, limit)) <= limit
        assert text.startswith(cut.rstrip())
        if cut and len(cut) < len(text):
            following = text[len(cut)]
            assert not __import__("unicodedata").category(following).startswith("M"), (limit, cut)


@pytest.mark.parametrize("text, word", [
    ("Мы решили хранить резервные копии на NAS каждую ночь. " * 3 + "Пароль от роутера записан в блокноте.", "пароль"),
    ("Συναντηθήκαμε στο καφέ. " * 4 + "Η βάση δεδομένων θα είναι PostgreSQL.", "δεδομένων"),
])
def test_excerpts_of_other_scripts_keep_the_matching_sentence(text, word):
    assert word in excerpt(text, query(word), 60).lower()


def test_the_index_also_holds_chinese_characters_alone_but_not_function_characters():
    from memoryhub.memories.text.tokens import index_tokens

    assert "猫" in index_tokens("我的猫叫豆豆") and "猫" in index_tokens("一只小猫")  # a one-character word matches
    assert "的" not in index_tokens("我的猫") and "我的" in index_tokens("我的猫")
    assert index_tokens("東京タワー") == ["東", "東京", "京", "京タ", "タワ", "ワー"]  # kana never alone
    assert index_tokens("She went home") == tokenize("She went home")
