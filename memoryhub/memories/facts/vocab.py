"""The closed word classes the fact patterns are written with: kinship, occupations, languages, animals,
conditions, diets, traits — general knowledge of English and Chinese, each list a regex alternative.

A pattern names a class as `{job}` or `{rel_spouse}` (patterns.py fills them in), so adding a word here extends
every pattern that uses the class. Longer words come first in each alternative so 产品经理 wins over 经理.
"""

from __future__ import annotations


def alt(words: str) -> str:
    """A regex alternative of the space-separated words (underscores stand for spaces), longest first."""
    items = sorted({w.replace("_", " ") for w in words.split()}, key=len, reverse=True)
    return "(?:" + "|".join(item.replace(" ", r"\s+").replace(".", r"\.") for item in items) + ")"


# --- English ---------------------------------------------------------------------------------

EN_RELATIONS = {
    "spouse": "wife husband hubby spouse missus",
    "partner": "boyfriend girlfriend partner fiance fiancé fiancee fiancée bf gf other_half significant_other",
    "child": "son daughter kid child boy girl baby toddler stepson stepdaughter youngest eldest oldest firstborn "
             "little_one middle_child",
    "parent": "mom mum mother mommy mummy mama dad daddy father papa stepmom stepmother stepdad stepfather",
    "sibling": "brother sister bro sis sibling stepbrother stepsister half-brother half-sister",
}
EN_RELATION_ADJ = alt("little big older younger elder baby twin kid oldest youngest eldest middle step lovely "
                      "only late new 2-year-old 3-year-old")
EN_PLURAL_CHILDREN = alt("kids children sons daughters boys girls")

EN_JOBS = alt(
    """accountant actor actress administrator analyst animator architect artist assistant astronaut athlete
    attorney auditor author baker banker barber barista bartender biologist blogger bookkeeper builder butcher
    carpenter cashier chef chemist cleaner clerk coach composer consultant cook counselor counsellor courier
    curator dancer dentist designer detective developer dietitian director doctor driver economist editor
    educator electrician engineer entrepreneur farmer filmmaker firefighter fisherman florist founder co-founder
    cofounder freelancer gardener geologist hairdresser historian illustrator influencer instructor intern
    interpreter investor janitor jeweler journalist judge lawyer lecturer librarian lifeguard linguist machinist
    manager marketer mathematician mechanic midwife model musician nanny novelist nurse nutritionist officer
    operator optician optometrist painter paralegal paramedic pastor pediatrician pharmacist photographer
    physician physicist physiotherapist physio pilot planner plumber poet police_officer policeman policewoman
    politician priest principal producer professor programmer psychiatrist psychologist publisher radiologist
    realtor receptionist recruiter reporter researcher sailor salesman saleswoman salesperson scientist
    screenwriter secretary security_guard singer soldier solicitor specialist statistician stylist supervisor
    surgeon surveyor tailor teacher technician therapist tester trader trainer translator tutor veterinarian vet
    waiter waitress welder writer youtuber streamer maintainer sysadmin devops_engineer tech_lead cto ceo cfo
    coo vp owner homemaker housewife househusband stay-at-home_mom stay-at-home_dad stay-at-home_parent student
    undergrad undergraduate grad_student phd_student postdoc retiree contractor paramedic firefighter
    sommelier copywriter data_scientist product_manager project_manager ux_designer web_developer""")

LANGUAGES_EN = alt(
    """English Chinese Mandarin Cantonese Japanese Korean French German Spanish Portuguese Italian Dutch Russian
    Polish Czech Swedish Norwegian Danish Finnish Icelandic Greek Turkish Arabic Hebrew Persian Farsi Hindi Urdu
    Bengali Punjabi Tamil Telugu Thai Vietnamese Indonesian Malay Tagalog Filipino Swahili Ukrainian Romanian
    Hungarian Bulgarian Serbian Croatian Slovak Slovenian Catalan Basque Welsh Irish Latin Esperanto Afrikaans""")
DEMONYMS_EN = frozenset(
    """american british english scottish welsh irish canadian australian chinese japanese korean indian
    pakistani french german dutch belgian swiss austrian italian spanish portuguese brazilian mexican argentinian
    chilean colombian peruvian russian polish czech swedish norwegian danish finnish icelandic greek turkish
    egyptian nigerian kenyan ethiopian moroccan israeli iranian iraqi saudi thai vietnamese filipino indonesian
    malaysian singaporean ukrainian romanian hungarian european asian african latino latina jewish muslim
    christian catholic buddhist hindu atheist""".split())

EN_PETS = alt(
    """dog cat puppy kitten pup kitty bunny rabbit hamster guinea_pig parrot budgie cockatiel bird tortoise turtle
    lizard gecko snake goldfish fish ferret horse pony chinchilla hedgehog rat mouse beagle labrador lab retriever
    golden_retriever poodle bulldog french_bulldog frenchie terrier corgi dachshund husky collie border_collie
    spaniel cocker_spaniel shepherd german_shepherd pug chihuahua shih_tzu schnauzer greyhound whippet dalmatian
    rottweiler doberman boxer maltese pomeranian samoyed shiba shiba_inu akita mutt rescue_dog tabby siamese
    persian ragdoll maine_coon sphynx bengal""")

EN_CONDITIONS = alt(
    """asthma diabetes type_1_diabetes type_2_diabetes adhd add autism dyslexia epilepsy migraines migraine
    hypertension high_blood_pressure low_blood_pressure high_cholesterol arthritis rheumatoid_arthritis eczema
    psoriasis celiac_disease coeliac_disease celiac coeliac crohn's crohn's_disease ibs anxiety depression
    insomnia sleep_apnea sleep_apnoea tinnitus scoliosis anemia anaemia lupus gout hypothyroidism
    hyperthyroidism pcos endometriosis fibromyalgia ptsd ocd bipolar_disorder vertigo colour_blindness
    color_blindness a_bad_back a_bad_knee back_pain chronic_pain long_covid heart_disease kidney_disease cancer
    hay_fever lactose_intolerance""")
EN_CONDITION_ADJ = {"diabetic": "diabetes", "asthmatic": "asthma", "epileptic": "epilepsy", "anemic": "anemia",
                    "lactose intolerant": "lactose intolerance", "gluten intolerant": "gluten intolerance",
                    "colorblind": "colour blindness", "colourblind": "colour blindness", "deaf": "deaf",
                    "hard of hearing": "hard of hearing", "pregnant": "pregnant", "short-sighted": "short-sighted",
                    "nearsighted": "short-sighted", "autistic": "autism", "dyslexic": "dyslexia"}

EN_DIETS = alt(
    """vegan vegetarian pescatarian pescetarian flexitarian keto paleo gluten-free dairy-free halal kosher
    plant-based raw_vegan teetotal teetotaler teetotaller""")

EN_TRAITS = alt(
    """introvert introverted extrovert extroverted extravert ambivert shy outgoing night_owl morning_person
    early_bird early_riser perfectionist optimist pessimist realist people_person homebody bookworm workaholic
    neat_freak clean_freak procrastinator overthinker worrier chatterbox loner free_spirit creature_of_habit
    introverted extroverted impatient patient stubborn competitive curious organised organized messy lazy
    sensitive easygoing easy-going laid-back laid_back anxious_person talkative quiet spontaneous
    detail-oriented absent-minded forgetful""")

# Verbs that make "I want to …" a life goal, not a request to look at something now.
EN_GOAL_VERBS = alt(
    """learn become visit travel move buy start open build run finish complete lose gain save retire study master
    climb get write quit pass apply publish launch own adopt speak read see_the_world go_back backpack hike
    compete qualify""")
EN_SKILL_VERBS = alt(
    """speak play code program write read cook bake drive ride swim sing dance draw paint knit sew ski snowboard
    surf skate juggle sail dive fly_a_plane touch-type type""")

# --- Chinese -----------------------------------------------------------------------------

ZH_RELATIONS = {
    "spouse": "老公 老婆 妻子 丈夫 爱人 媳妇 媳妇儿 太太 先生 夫人 老伴 另一半",
    "partner": "男朋友 女朋友 男友 女友 对象 未婚夫 未婚妻 伴侣",
    "child": "儿子 女儿 闺女 孩子 小孩 宝宝 大宝 二宝 小儿子 大儿子 小女儿 大女儿 娃",
    "parent": "爸爸 妈妈 爸 妈 父亲 母亲 老爸 老妈 爹 娘 继父 继母",
    "sibling": "哥哥 姐姐 弟弟 妹妹 哥 姐 弟 妹 兄弟 姐妹 大哥 二哥 大姐 二姐 小弟 小妹 表哥 表姐 表弟 表妹 堂哥 堂姐 堂弟 堂妹",
}
ZH_JOBS = alt(
    """工程师 程序员 开发者 开发 设计师 学生 大学生 研究生 博士生 博士 硕士生 留学生 实习生 老师 教师 教授 讲师
    产品经理 项目经理 经理 总监 主管 老板 运维 架构师 分析师 数据分析师 科学家 研究员 作家 编辑 医生 护士 律师
    会计 会计师 出纳 创业者 站长 主播 画师 插画师 译者 翻译 测试 运营 记者 厨师 司机 警察 军人 农民 公务员 销售
    客服 模特 演员 导演 歌手 摄影师 理发师 美甲师 健身教练 教练 程序猿 前端 后端 全栈 前端工程师 后端工程师
    全栈工程师 算法工程师 嵌入式工程师 建筑师 药剂师 兽医 牙医 心理咨询师 咨询师 保安 快递员 外卖员 服务员 店长
    店主 自由职业者 自由职业 全职妈妈 全职爸爸 家庭主妇 博主 UP主 自媒体 电工 木匠 飞行员 空姐 空乘 船员 机长
    退休教师 公司职员 职员 上班族 打工人 销售经理 财务 人事 HR 律师助理 文员 秘书 程序媛 大夫 医师 学者""")
ZH_LANGUAGES = alt(
    """中文 汉语 简体中文 繁体中文 普通话 粤语 广东话 闽南语 上海话 四川话 英文 英语 日语 日文 韩语 韩文 法语
    法文 德语 德文 西班牙语 俄语 葡萄牙语 意大利语 荷兰语 阿拉伯语 泰语 越南语 印尼语 土耳其语 希腊语 瑞典语
    波兰语 乌克兰语 印地语 拉丁语 世界语""")
ZH_PETS = alt(
    """猫 狗 猫咪 狗狗 小猫 小狗 柯基 金毛 泰迪 哈士奇 二哈 柴犬 拉布拉多 边牧 萨摩耶 比熊 博美 法斗 雪纳瑞 阿拉斯加
    德牧 秋田 中华田园犬 土狗 英短 美短 蓝猫 布偶 布偶猫 橘猫 狸花猫 暹罗猫 加菲猫 无毛猫 兔子 小兔子 仓鼠
    鹦鹉 乌龟 金鱼 龙猫 刺猬 八哥 蜥蜴""")
ZH_CONDITIONS = alt(
    """高血压 低血压 高血脂 高血糖 糖尿病 哮喘 过敏性鼻炎 鼻炎 胃炎 胃病 心脏病 抑郁症 焦虑症 抑郁 焦虑 失眠 失眠症
    偏头痛 头痛 颈椎病 腰椎间盘突出 腰椎病 痛风 贫血 近视 远视 散光 色盲 乳糖不耐受 乳糖不耐 湿疹 荨麻疹 关节炎
    甲亢 甲减 多动症 自闭症 癫痫 胆结石 肾结石 脂肪肝 乙肝 痔疮 腰疼 腰痛 强迫症 心律不齐""")
ZH_DIETS = alt("素食 吃素 纯素 全素 蛋奶素 清真 生酮 低碳 轻断食 断食 节食 戒糖 无麸质")
ZH_TRAITS = alt(
    """内向 外向 慢热 社恐 社牛 害羞 急性子 慢性子 完美主义者 完美主义 夜猫子 宅男 宅女 乐天派 话痨 工作狂 强迫症
    宅 i人 e人 拖延症 路痴 吃货 起床困难户 早起党 夜猫 乐观 悲观 敏感 固执 细心 粗心 马虎 懒 懒人 开朗 安静 佛系""")
ZH_OWN_CLASSIFIERS = "辆台套部架块把栋"

# Words that make "my X" / 我X someone other than the user (their clauses are theirs).
EN_OTHER_WORDS = """friend colleague coworker co-worker boss manager neighbour neighbor roommate flatmate classmate
    teacher doctor client customer cousin aunt uncle niece nephew grandma grandpa grandmother grandfather in-law
    landlord landlady teammate buddy mate character protagonist hero"""
EN_PET_WORDS = "dog cat puppy kitten pup kitty bunny rabbit hamster parrot bird fish horse pet"
ZH_OTHER_WORDS = """朋友 同事 同学 老板 领导 上司 室友 邻居 客户 老师 师傅 网友 闺蜜 哥们 舅舅 叔叔 阿姨 姑姑 舅妈 婶婶
    爷爷 奶奶 外公 外婆 姥姥 姥爷 侄子 侄女 外甥 外甥女 房东 家人 亲戚"""
ZH_PET_WORDS = "猫 狗 猫咪 狗狗 小猫 小狗 宠物"
EN_INSTRUMENTS = alt(
    """piano keyboard guitar acoustic_guitar electric_guitar bass bass_guitar violin viola cello double_bass drums
    flute clarinet oboe bassoon saxophone sax trumpet trombone tuba french_horn harp ukulele banjo mandolin
    harmonica accordion organ recorder""")
