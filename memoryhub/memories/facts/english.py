"""The English fact patterns, first row first (rules.py tries them in this order at the start of a clause).

Text reaches them with contractions spelt out (I'm → I am, don't → do not) and case ignored, except inside a
name slot. `{…}` is a word class of vocab.py, `<kind>` the value (values.py), `<predicate:kind>` a second
value for another predicate, `(?P<note>…)` words kept beside the value ("Pepper (beagle)"). To add a pattern,
add a row with at least one example; tests/test_fact_patterns.py runs every example.
"""

from memoryhub.memories.facts.table import Pattern as P

# "my wife is Ana" names her, "my wife is Japanese" does not (a capitalised language or nationality is no name)
_REL = (r"(?:'s\s+name\s+is|'s\s+called|'s\s+named|\s+is\s+called|\s+is\s+named|\s+named|\s+called|\s*,|"
        r"\s+is(?!\s+{lang}\b))?\s+")
# "a small flat in Lisbon", "a tiny village called Hallstatt": a description before the place itself
_DESC = (r"(?:(?:a|an|the|my|our)\s+(?:[\w'-]+\s+){0,3}?(?:(?:called|named)\s+|(?:in|near|outside|outside\s+of|"
         r"just\s+outside|on\s+the\s+outskirts\s+of)\s+))?")
_LIKE_ADJ = r"(?:(?:big|huge|massive|great|true|real|die-hard|total)\s+)?"
# How often something is done: what makes "I swim …" a habit rather than something that happened once
_OFTEN = (r"(?:(?:every|each)\s+(?:single\s+)?(?:day|morning|evening|night|week|weekend|month|year|monday|tuesday|"
          r"wednesday|thursday|friday|saturday|sunday)s?|(?:once|twice|three\s+times|four\s+times|\d+\s+times|"
          r"several\s+times|a\s+few\s+times)\s+(?:a|per|every)\s+(?:day|week|month|year)|daily|weekly|"
          r"nightly|on\s+(?:weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|"
          r"in\s+(?:my|our)\s+(?:spare|free|own)\s+time|most\s+(?:days|mornings|evenings|nights|weekends))")


def _relation(family: str, examples: tuple) -> list[P]:
    """"my (little) sister Mei", "I have a twin sister named Grace" for one family of relatives."""
    return [
        P(family, r"(?:my|our)\s+(?:{reladj}\s+)*{rel_" + family + r"}" + _REL + "<names>", examples[:1]),
        P(family, r"(?:i|we)\s+(?:have|have\s+got|also\s+have)\s+(?:a|an|one)\s+(?:{reladj}\s+)*{rel_" + family
          + r"}(?:\s+called|\s+named|\s+whose\s+name\s+is|\s*,)\s+<name>", examples[1:]),
    ]


ROWS: list[P] = [
    # --- what to call the user, and the assistant ---
    P("nickname", r"(?:please\s+)?(?:do\s+not|never|stop)\s+(?:call(?:ing)?|address(?:ing)?)\s+me\s+(?:as\s+)?<nick>",
      (("Please do not call me Bobby.", "Bobby"),), negative=True, request=True),
    P("nickname", r"(?:you\s+can\s+|you\s+may\s+|please\s+|just\s+|feel\s+free\s+to\s+|now\s+)*"
                  r"(?:call|address)\s+me\s+(?:as\s+)?<nick>",
      (("Just call me Sam, everybody does.", "Sam"), ("call me bob", "bob")), request=True),
    P("nickname", r"(?:everyone|everybody|(?:most\s+)?(?:people|folks)|my\s+friends|friends|my\s+family|they|my\s+"
                  r"(?:colleagues|coworkers|kids|students))(?:\s+[\w'-]+){0,3}?\s+calls?\s+me\s+<nick>",
      (("My friends call me Jojo.", "Jojo"), ("Most folks call me Ossi.", "Ossi"))),
    P("nickname", r"i\s+(?:go|usually\s+go)\s+by\s+<nick>", (("I go by Teddy.", "Teddy"),)),
    P("nickname", r"(?:(?:most\s+)?people|everyone|everybody|friends|my\s+friends)\s+(?:usually\s+)?know\s+me\s+as\s+<nick>",
      (("Most people know me as Sunny.", "Sunny"),)),
    P("nickname", r"i\s+am\s+(?:usually\s+|mostly\s+)?known\s+as\s+<nick>", (("I'm known as Red.", "Red"),)),
    P("nickname", r"i\s+(?:prefer|like)\s+(?:to\s+be\s+called|being\s+called)\s+<nick>",
      (("I prefer being called Liz.", "Liz"),)),
    P("calledBy", r"i\s+will\s+call\s+you\s+<nick>", (("I'll call you Jarvis.", "Jarvis"),), request=True),
    P("calledBy", r"your\s+name\s+(?:is|will\s+be)\s+(?:now\s+)?<nick>", (("Your name is Friday now.", "Friday"),),
      request=True),
    P("name", r"(?:my\s+(?:full\s+|real\s+|first\s+)?name(?:'s|\s+is)|the\s+name(?:'s|\s+is)|name's)\s+<nick>",
      (("The name's Dmitri.", "Dmitri"), ("my name is Bob Smith", "Bob Smith"))),
    P("name", r"i\s+am\s+called\s+<nick>", (("I am called Ines.", "Ines"),)),
    P("name", r"(?:this\s+is|it\s+is)\s+<name>\s+(?:here|speaking)", (("Hi, this is Kofi here.", "Kofi"),)),
    P("name", r"<name>\s+here{end}", (("Hi there, Priyanka here.", "Priyanka"),)),

    # --- the language to answer in, or the user's own ---
    P("language", r"(?:please\s+)?(?:always\s+|only\s+|just\s+)?(?:reply|respond|answer|talk|speak|write|chat|"
                  r"communicate)(?:\s+(?:to|with)\s+me|\s+me)?(?:\s+only)?\s+in\s+(?:plain\s+|simple\s+|formal\s+|informal\s+|"
                  r"british\s+|american\s+|brazilian\s+|european\s+|simplified\s+|traditional\s+)?<lang>",
      (("Please reply in Spanish from now on.", "Spanish"), ("Could you always respond in French?", "French")),
      request=True),
    P("language", r"(?:please\s+)?use\s+<lang>(?:\s+(?:with\s+me|when\s+you\s+(?:reply|answer|talk)))?{end}",
      (("Please use German with me.", "German"),), request=True),
    P("language", r"(?:please\s+)?(?:keep|give|write|put)\s+(?:me\s+)?(?:your\s+|the\s+|all\s+)?(?:answers|replies|"
                  r"responses)\s+in\s+<lang>", (("Please keep your answers in Portuguese.", "Portuguese"),), request=True),
    P("language", r"i\s+(?:would\s+like|want|would\s+prefer|prefer)\s+(?:your\s+|the\s+)?(?:answers|replies|responses)"
                  r"\s+in\s+<lang>", (("I'd like answers in English.", "English"),), request=True),
    P("language", r"<lang>\s+is\s+my\s+(?:native|first|mother)\s+(?:language|tongue)",
      (("Tagalog is my first language.", "Tagalog"),)),
    P("language", r"my\s+(?:native|first|mother)\s+(?:language|tongue)\s+is\s+<lang>",
      (("My native language is Portuguese.", "Portuguese"),)),
    P("language", r"i\s+am\s+a\s+native\s+<lang>\s+speaker", (("I am a native Polish speaker.", "Polish"),)),
    P("language", r"i\s+(?:speak|am)\s+<lang>\s+natively", (("I speak Greek natively.", "Greek"),)),
    P("language", r"i\s+(?:would\s+)?prefer\s+(?:answers\s+|replies\s+)?(?:in\s+)?<lang>{end}",
      (("I prefer English.", "English"),), request=True),

    # --- the model the user works with (the seed's `model`) ---
    P("model", r"(?:my\s+model\s+is|i\s+am\s+(?:now\s+)?using\s+(?:the\s+)?model|switch(?:ed)?\s+the\s+model\s+to)\s+"
               r"<model>", (("my model is claude-3.5-sonnet", "claude-3.5-sonnet"),), request=True),

    # --- birthday and age (before places: "born in March") ---
    P("birthday", r"my\s+birthday(?:\s+is|'s|\s+falls)?\s+(?:on\s+|in\s+)?<date>",
      (("My birthday is on March 14.", "March 14"), ("my birthday's the 3rd of May", "the 3rd of May"))),
    P("birthday", r"i\s+was\s+born\s+(?:on\s+|in\s+)?<date>", (("I was born on 3 October 1988.", "3 October 1988"),)),
    P("birthday", r"<date>\s+is\s+my\s+birthday", (("June 5 is my birthday", "June 5"),)),
    P("age", r"i\s+am\s+<num>(?:\s+years?\s+old|\s+yrs?\s+old|\s+y/?o)?(?:\s+(?:now|this\s+year))?{end}",
      (("I'm 29 years old.", "29"), ("i am 63", "63"))),
    P("age", r"i\s+(?:just\s+|recently\s+)?turned\s+<num>", (("I just turned 50.", "50"),)),
    P("age", r"i\s+am\s+in\s+my\s+(?P<v__word__0>(?:early\s+|mid\s+|mid-|late\s+)?(?:twenties|thirties|forties|"
             r"fifties|sixties|seventies|eighties|[2-9]0s))", (("I'm in my late thirties.", "late thirties"),)),

    # --- where they are from and where they live ---
    P("hometown", r"(?:i\s+am|i\s+come|i\s+hail)\s+(?:originally\s+)?from\s+" + _DESC + "<place>",
      (("I'm originally from Cork.", "Cork"), ("I come from Lagos", "Lagos"),
       ("I hail from a small village in Wales.", "Wales"))),
    P("hometown", r"i\s+was\s+born\s+(?:and\s+(?:raised|bred)\s+)?in\s+" + _DESC + "<place>",
      (("I was born in Nairobi.", "Nairobi"), ("I was born and bred in Leeds", "Leeds"))),
    P("hometown", r"(?:i|we)\s+(?:moved|came|emigrated|immigrated|relocated)\s+(?:here\s+|over\s+|to\s+(?-i:[A-Z])[\w'.-]*"
                  r"(?:\s+(?-i:[A-Z])[\w'.-]*)?\s+)?from\s+<place>",
      (("I moved here from Kraków when I was twelve.", "Kraków"),)),
    P("hometown", r"i\s+(?:grew\s+up|was\s+raised)\s+in\s+" + _DESC + "<place>",
      (("I grew up in a small town called Tromsø.", "Tromsø"), ("I was raised in Perth", "Perth"))),
    P("hometown", r"my\s+home\s*town\s+is\s+" + _DESC + "<place>",
      (("My hometown is Utrecht.", "Utrecht"), ("My hometown is a tiny village called Hallstatt.", "Hallstatt"))),
    P("location", r"(?:i|we)\s+(?:do\s+not|no\s+longer)\s+live\s+in\s+<place>",
      (("I don't live in Boston anymore.", "Boston"),), negative=True),
    P("location", r"(?:i|we)\s+{adv}(?:live|reside|stay|have\s+lived|have\s+been\s+living)(?:\s+with\s+(?:my|our|a|two|three)"
                  r"(?:\s+[\w'-]+){1,4}?)?\s+in\s+" + _DESC + "<place>",
      (("I live in Rotterdam with my family.", "Rotterdam"), ("I currently reside in Lyon.", "Lyon"),
       ("I live in a small flat in Lisbon.", "Lisbon"), ("I've lived in Vancouver for ten years", "Vancouver"),
       ("I live with my partner Sam in Portland.", "Portland"))),
    P("location", r"(?:i\s+am|we\s+are)\s+{adv}(?:living|based|located|settled)\s+in\s+" + _DESC + "<place>",
      (("I am based in Austin these days.", "Austin"),)),
    P("location", r"(?:i|we)\s+(?:have\s+)?(?:just\s+|recently\s+|finally\s+)?(?:moved|relocated)\s+to\s+<place>",
      (("We moved to Denver two years ago.", "Denver"),)),
    P("location", r"{adv}(?:(?:have\s+)?been\s+)?(?:living|based)\s+in\s+<place>(?=\s+(?:with|for|since|now|these\s+days|at\s+the\s+moment)\b|{end})",
      (("Currently living in Montreal with my two cats.", "Montreal"), ("Based in Oslo.", "Oslo"),
       ("Been living in Austin since 2019.", "Austin"))),
    P("location", r"(?:my|our)\s+home\s+is\s+(?:in\s+)?<place>", (("My home is in Galway.", "Galway"),)),
    P("location", r"home\s+(?:for\s+(?:me|us)\s+)?is\s+(?:in\s+)?<place>", (("Home for me is Auckland.", "Auckland"),)),
    P("location", r"i\s+(?:work|study)\s+in\s+<place>{end}", (("I work in Manchester.", "Manchester"),)),

    # --- health, allergies, diet (before traits and jobs: "I am vegan") ---
    P("allergy", r"i\s+am\s+not\s+allergic\s+to\s+<things>", (("I'm not allergic to penicillin.", "penicillin"),),
      negative=True),
    P("allergy", r"i\s+am\s+{adv}{severe}allergic\s+to\s+<things>",
      (("I'm allergic to shellfish.", "shellfish"), ("I'm allergic to cats and dust.", "dust"))),
    P("allergy", r"i\s+(?:have|have\s+got|got)\s+(?:a|an)\s+{severe}(?P<v__word__0>[\w\s-]{2,30}?)\s+allerg(?:y|ies)",
      (("I have a severe nut allergy.", "nut"),)),
    P("allergy", r"<things>\s+(?:gives?|causes?|makes?|made)\s+me\s+(?:a|an)?\s*{severe}(?:allergic\s+reactions?|allergies|an\s+allergy|hives|break\s+out|swell\s+up|a\s+rash)",
      (("Penicillin gives me a bad allergic reaction.", "Penicillin"), ("Eggs make me break out in hives.", "Eggs"))),
    P("allergy", r"i\s+(?:cannot|can\s+not|must\s+not|do\s+not|never)\s+(?:eat|have|drink|touch|take)\s+<things>\s*[,;]?\s*"
                 r"(?:(?:because|as|since)\s+)?i\s+am\s+{adv}{severe}allergic\b",
      (("I can't eat nuts, I'm allergic.", "nuts"),)),
    P("allergy", r"i\s+(?:get|have|had)\s+(?:a|an)?\s*{severe}allergic\s+reactions?\s+to\s+<things>",
      (("I get an allergic reaction to latex.", "latex"),)),
    P("allergy", r"i\s+have\s+(?:allergies|an\s+allergy)\s+to\s+<things>", (("I have an allergy to wasps.", "wasps"),)),
    P("health", r"i\s+(?:have|have\s+got|got|suffer\s+from|live\s+with|am\s+living\s+with|struggle\s+with|deal\s+with|"
                r"was\s+diagnosed\s+with|have\s+been\s+diagnosed\s+with|got\s+diagnosed\s+with)\s+"
                r"(?:(?:a|an|mild|severe|chronic|bad|terrible|occasional|really\s+bad)\s+)*"
                r"(?P<v__word__0>(?:type\s+[12]\s+)?{condition}|[\w-]+(?:itis|osis|emia|algia)|[\w'-]+(?:\s+[\w'-]+)?"
                r"\s+(?:disease|syndrome|disorder))\b",
      (("I have type 2 diabetes.", "type 2 diabetes"), ("I suffer from migraines.", "migraines"),
       ("I was diagnosed with ADHD.", "ADHD"))),
    P("health", r"as\s+(?:someone|somebody|a\s+person)\s+(?:with|who\s+has)\s+(?:(?:a|an|mild|severe|chronic)\s+)*"
                r"(?P<v__word__0>(?:type\s+[12]\s+)?{condition})\b",
      (("As someone with celiac disease, I need to be careful.", "celiac disease"),)),
    P("health", r"i\s+am\s+{adv}(?P<v__word__0>diabetic|asthmatic|epileptic|anemic|anaemic|lactose\s+intolerant|coeliac|celiac|"
                r"gluten\s+intolerant|colou?rblind|deaf|hard\s+of\s+hearing|pregnant|short-sighted|nearsighted|"
                r"autistic|dyslexic)\b", (("I'm diabetic.", "diabetic"), ("I am pregnant", "pregnant"))),
    P("diet", r"i\s+(?:am|have\s+been|went)\s+{adv}(?:a\s+|an\s+)?(?:strict\s+|full\s+|mostly\s+|mainly\s+|fully\s+)?"
              r"(?P<v__word__0>{diet})(?:\s+(?:because\s+of|due\s+to)\s+(?:my\s+|a\s+)?(?P<health__word__1>{condition})|"
              r"\s+(?:for|since|because|about|over|almost|nearly|last|in|a|an|one|two|three|four|five|six|seven|eight|"
              r"nine|ten|\d+)\b[^,;:]*)?{end}",
      (("I'm vegetarian.", "vegetarian"), ("I am a strict vegan", "vegan"), ("I've been vegan for five years.", "vegan"),
       ("I'm gluten-free because of celiac disease.", "celiac disease"), ("I went vegan two years ago.", "vegan"))),
    P("diet", r"i\s+(?:eat|follow|keep|am\s+on|do|eat\s+only|only\s+eat)\s+(?:a\s+|an\s+)?(?:strict\s+)?"
              r"(?P<v__word__0>{diet}|low[-\s]carb|low[-\s]fodmap|low[-\s]sodium|low[-\s]salt|mediterranean|"
              r"intermittent\s+fasting|halal|kosher)(?:\s+(?:diet|food))?"
              r"(?:\s+(?:for|because\s+of|due\s+to)\s+(?:my\s+)?(?P<health__word__1>{condition}))?",
      (("I follow a keto diet.", "keto"), ("I keep kosher.", "kosher"),
       ("I'm on a low-FODMAP diet for my IBS.", "IBS"))),

    # --- who they are ---
    P("trait", r"i\s+am\s+{adv}(?:a\s+|an\s+)?(?:(?:total|real|complete|bit\s+of\s+a|kind\s+of\s+a|huge|big|true|"
               r"natural|born|bit|little|typical|classic)\s+)*(?P<v__word__0>{trait})\b",
      (("I'm a total night owl.", "night owl"), ("I'm pretty shy around new people.", "shy"),
       ("I am an introvert", "introvert"))),
    P("trait", r"i\s+am\s+(?:a|an)\s+(?P<v__word__0>[\w-]+\s+person)\b", (("I'm a morning person.", "morning person"),)),
    P("trait", r"(?:i\s+tend\s+to\s+be|(?:people|friends|everyone|my\s+friends)\s+(?:say|tell\s+me|think)\s+(?:that\s+)?"
               r"i\s+am|i\s+have\s+been\s+told\s+(?:that\s+)?i\s+am)\s+{adv}(?:too\s+|a\s+bit\s+|a\s+little\s+)?"
               r"(?P<v__word__0>{trait}|[a-z]+(?:-[a-z]+)?){end}",
      (("People say I'm stubborn.", "stubborn"), ("People tell me I'm too blunt.", "blunt"))),

    # --- family, partner, pets ---
    *_relation("spouse", (("My husband's name is Daniel.", "Daniel"), ("I have a wife called Ana.", "Ana"))),
    P("spouse", r"i\s+(?:am|have\s+been)\s+(?:happily\s+)?married\s+to\s+<name>", (("I'm married to Keiko.", "Keiko"),)),
    *_relation("partner", (("My girlfriend Chloe loves sushi.", "Chloe"), ("I have a boyfriend named Jon.", "Jon"))),
    P("partner", r"i\s+am\s+(?:engaged\s+to|dating|seeing|going\s+out\s+with)\s+<name>",
      (("I'm engaged to Priya.", "Priya"),)),
    P("child", r"(?:i|we)\s+(?:have|have\s+got)\s+(?:two|three|four|five|six|\d|twin|twins)\s*{children}?\s*[,:]?\s*"
               r"(?:called\s+|named\s+)?<names>",
      (("I have two kids, Noah and Mia.", "Mia"), ("We've got twin girls, Ella and Rose.", "Rose"))),
    P("child", r"(?:my|our)\s+{children}\s+(?:are\s+)?(?:called\s+|named\s+)?<names>",
      (("Our kids Leo and Zoe are at school.", "Leo"),)),
    *_relation("child", (("My daughter Ava just turned six.", "Ava"), ("We have a son named Ravi.", "Ravi"))),
    *_relation("parent", (("My father's name is Rashid.", "Rashid"), ("I have a stepmom called Jill.", "Jill"))),
    P("parent", r"(?:mom|mum|dad|mother|father|mama|papa|mommy|mummy|daddy)(?:'s\s+name\s+is|\s+is\s+called)\s+<name>",
      (("Dad's name is Ahmed.", "Ahmed"),)),
    *_relation("sibling", (("My older brother Tom is a chef.", "Tom"), ("I have a twin sister named Grace.", "Grace"))),
    P("pet", r"{have}\s+(?:two|three|four|\d)\s+(?P<note>{pet})s\s*[,:]\s*(?:called\s+|named\s+)?<names>",
      (("We've got two cats, Salt and Pepper.", "Salt (cat)"),)),
    P("pet", r"{have}\s+(?:a|an|one|two|three)?\s*(?:[a-z-]+\s+){0,2}?(?P<note>{pet})s?\s*,?\s+"
             r"(?:called|named|whose\s+name\s+is|(?:her|his|its|their)\s+names?\s+(?:is|are))\s+<names>",
      (("We have a cat named Miso.", "Miso (cat)"), ("I have a golden retriever called Max.", "Max (golden retriever)"),
       ("I just adopted a rescue cat, her name is Pixel.", "Pixel (cat)"))),
    P("pet", r"(?:my|our)\s+(?:(?:little|new|old|rescue|sweet|lazy)\s+)?(?P<note>{pet})" + _REL + "<names>",
      (("My dog Biscuit hates thunder.", "Biscuit (dog)"),)),
    P("pet", r"{have}\s+(?:a|an|one|two|three)\s+(?P<v__word__0>{pet})s?{end}", (("We have a hamster.", "hamster"),)),

    # --- work and study ---
    P("employer", r"(?:i|we)\s+{adv}(?:work|am\s+working|have\s+been\s+working|intern)(?:\s+(?:remotely|part-time|"
                  r"full-time|freelance|from\s+home))?(?:\s+in\s+(?P<note>[a-z][\w\s-]{1,30}?))?\s+(?:at|for)\s+<org>"
                  r"(?:\s+as\s+(?:{a})?<job:job>)?",
      (("I work at Spotify.", "Spotify"), ("I've been working for Deloitte since 2019.", "Deloitte"),
       ("I work for a bank", "bank"), ("I work remotely for a fintech startup called Plaid.", "Plaid"),
       ("I work in marketing at Unilever.", "Unilever (marketing)"))),
    P("job", r"i\s+work\s+as\s+(?:{a})?<job>(?:\s+(?:at|for|in)\s+<employer:org>)?",
      (("I work as a nurse at the children's hospital.", "nurse"),)),
    P("employer", r"i\s+have\s+(?:been|worked)\s+(?:at|with)\s+(?P<v__org__0>(?-i:[A-Z])[\w'.&-]*(?:\s+(?-i:[A-Z])[\w'.&-]*)*)"
                  r"\s+(?:for|since)\b", (("I've been at Airbus for six years now.", "Airbus"),)),
    P("employer", r"i\s+am\s+(?:employed|hired)\s+(?:by|at)\s+<org>", (("I'm employed by Siemens.", "Siemens"),)),
    P("employer", r"i\s+(?:just\s+|recently\s+)?joined\s+(?P<v__org__0>(?-i:[A-Z])[\w'.&-]*(?:\s+(?-i:[A-Z])[\w'.&-]*)*)",
      (("I recently joined Stripe.", "Stripe"),)),
    P("education", r"i\s+am\s+(?:a\s+|an\s+)?(?P<job__word__0>(?:phd\s+|grad\s+|graduate\s+|master's\s+|medical\s+|law\s+)?"
                   r"student|undergrad|freshman|sophomore|postdoc)\s+(?:at|in)\s+<org>",
      (("I'm a PhD student at Leiden University.", "Leiden University"),)),
    P("job", r"i\s+am\s+(?:not|no\s+longer)\s+(?:{a})?<job>", (("I'm not a teacher anymore.", "teacher"),), negative=True),
    P("job", r"i\s+am\s+(?:a|an)\s+[\w\s-]{2,40}?\s+turned\s+(?:a\s+|an\s+)?<job>",
      (("I'm a software engineer turned product manager.", "product manager"),)),
    P("job", r"i\s+(?:am|have\s+been|have\s+worked\s+as)\s+{adv}(?:a|an|the)\s+<job>(?:\s+(?:at|for|with|in)\s+<employer:org>|"
             r"\s+from\s+<hometown:place>|\s+(?:working|based|living)\s+in\s+<location:place>)?",
      (("I'm a high school chemistry teacher.", "high school chemistry teacher"),
       ("I'm a planner at Maersk", "planner"), ("I've been a firefighter for twelve years.", "firefighter"),
       ("I'm an architect working in Dubai.", "Dubai"))),
    P("job", r"as\s+(?:a|an)\s+(?!former\b|retired\b|ex-)<job>(?=\s+(?:i|myself|me)\b|{end})",
      (("As a nurse I see this all the time.", "nurse"), ("As a freelance designer, I set my own hours.",
                                                          "freelance designer")), gate="ephemeral"),
    P("education", r"i\s+am\s+(?:a|an)\s+<org>\s+(?:grad|graduate|alum|alumnus|alumna)\b",
      (("I'm an Oxford grad.", "Oxford"),)),
    P("job", r"i\s+am\s+(?P<v__word__0>retired|unemployed|self-employed|between\s+jobs|a\s+stay-at-home\s+\w+)\b",
      (("I'm retired.", "retired"),)),
    P("job", r"my\s+(?:job|occupation|profession)\s+is\s+(?:being\s+)?(?:{a})?<job>", (("My job is nursing assistant.",
                                                                                      "nursing assistant"),)),
    P("job", r"i\s+(?P<v__word__0>teach\s+[\w\s]{2,30}?|practise\s+law|practice\s+law|practise\s+medicine|"
             r"practice\s+medicine)(?:\s+in\s+<location:place>|\s+at\s+<employer:org>)?{end}",
      (("I teach maths at a primary school.", "teach maths"), ("I teach yoga in Seville.", "Seville"))),
    P("job", r"i\s+(?:do|make)\s+<thing>\s+for\s+a\s+living", (("I do voice acting for a living.", "voice acting"),)),
    P("education", r"i\s+(?:graduated|graduate)\s+(?:from\s+)?<org>", (("I graduated from Trinity College.",
                                                                        "Trinity College"),)),
    P("education", r"i\s+(?:studied|study|am\s+studying|majored\s+in|did\s+my\s+\w+)\s+(?:(?P<note>[\w\s-]{2,40}?)\s+)?"
                   r"at\s+<org>", (("I studied physics at ETH Zurich.", "ETH Zurich (physics)"),)),
    P("education", r"i\s+(?:have|hold|got|earned|did)\s+(?:a|an|my)\s+(?P<note>(?:bachelor's|bachelors|bachelor|"
                   r"master's|masters|master|phd|ph\.d\.|doctorate|mba|degree|diploma)(?:\s+degree)?"
                   r"(?:\s+in\s+[\w\s-]+?)?)\s+(?:from|at)\s+<org>",
      (("I have a master's degree from Stanford.", "Stanford (master's degree)"),)),
    P("education", r"i\s+(?:went\s+to|attended)\s+(?P<v__org__0>(?:the\s+)?(?-i:[A-Z])[\w'.&-]*(?:\s+(?:of\s+)?"
                   r"(?-i:[A-Z])[\w'.&-]*)*\s*(?:University|College|School|Institute|Academy|Polytechnic)"
                   r"(?:\s+of\s+(?-i:[A-Z])\w+)*|(?:the\s+)?University\s+of\s+(?-i:[A-Z])[\w\s]+)",
      (("I went to Boston College.", "Boston College"),)),
    P("education", r"my\s+alma\s+mater\s+is\s+<org>", (("My alma mater is Yale.", "Yale"),)),

    # --- likes and dislikes ---
    P("preference", r"i\s+{adv}(?:do\s+not|did\s+not|never)\s+{adv}(?:like|enjoy|love|care\s+for|dig)\s+<things>",
      (("I don't really enjoy crowds.", "crowds"), ("I really don't like spicy food.", "spicy food")), negative=True),
    P("preference", r"i\s+{adv}(?:dislike|hate|detest|loathe|despise|cannot\s+stand|can\s+not\s+stand|cannot\s+bear|"
                    r"am\s+not\s+(?:a\s+" + _LIKE_ADJ + r"fan\s+of|into|keen\s+on|fond\s+of|big\s+on))\s+<things>",
      (("I hate olives.", "olives"), ("I can't stand loud music.", "loud music"),
       ("I'm not a fan of horror movies.", "horror movies")), negative=True),
    P("preference", r"i\s+(?:do\s+not|never|rarely|no\s+longer|cannot|can\s+not)\s+(?:eat|drink|touch|have)\s+(?:any\s+)?<things>",
      (("I don't eat pork.", "pork"), ("I can't have dairy.", "dairy")), negative=True),
    P("preference", r"i\s+(?:do\s+not|never)\s+drink{end}", (("I don't drink.", "alcohol"),), negative=True,
      value="alcohol"),
    P("preference", r"i\s+(?:do\s+not|never)\s+smoke\b", (("I never smoke.", "smoking"),), negative=True,
      value="smoking"),
    P("preference", r"(?:i\s+am\s+)?(?:really\s+)?not\s+(?:a|an|much\s+of\s+a|really\s+a)\s+(?:big\s+|huge\s+)?"
                    r"<things>\s+(?:drinker|eater|fan|lover)\b",
      (("Not a coffee drinker myself, I stick to tea.", "coffee"), ("I'm not much of a beer drinker.", "beer")),
      negative=True),
    P("preference", r"i\s+(?:avoid|stay\s+away\s+from|steer\s+clear\s+of)\s+<things>",
      (("I avoid caffeine.", "caffeine"),), negative=True),
    P("preference", r"i\s+am\s+(?:a|an)\s+(?:(?:big|huge|massive|great|die-hard|lifelong|loyal|total|true)\s+)?"
                    r"(?!(?:big|huge|massive|great|die-hard|lifelong|loyal|total|true)\s+(?:fan|supporter|lover)\b)"
                    r"(?P<v__thing__0>[\w'-]+(?:\s+[\w'-]+){0,2}?)\s+(?:fan|supporter|lover|enthusiast|nerd|geek|buff)\b(?!\s+of\b)",
      (("I'm a massive Arsenal fan.", "Arsenal"),)),
    P("preference", r"<things>\s+(?:is|are)\s+(?:really\s+|totally\s+)?my\s+(?:thing|jam|passion|obsession)\b",
      (("Chess is my thing.", "Chess"),)),
    P("preference", r"(?:a\s+)?" + _LIKE_ADJ + r"(?:fan|lover)\s+of\s+<things>",
      (("Big fan of board games here.", "board games"),)),
    P("preference", r"<things>\s+(?:is|are)\s+(?:just\s+)?(?:the\s+worst|disgusting|gross|revolting)",
      (("Mushrooms are the worst, I never eat them.", "Mushrooms"),), negative=True),
    P("preference", r"my\s+(?P<note>(?:all-time\s+|absolute\s+)?favou?rite\s+[\w\s-]{1,30}?)\s+(?:is|are|has\s+to\s+be|"
                    r"would\s+be)\s+<things>",
      (("My favourite food is ramen.", "ramen (favourite food)"),)),
    P("preference", r"<things>\s+(?:is|are)\s+my\s+(?P<note>(?:all-time\s+|absolute\s+)?favou?rite(?:\s+[\w\s-]{1,30}?)?)"
                    r"{end}", (("Jazz is my favourite kind of music.", "Jazz (favourite kind of music)"),
                               ("Sushi is my all-time favorite.", "Sushi (all-time favorite)"))),
    P("preference", r"i\s+{adv}(?:like|love|enjoy|adore|prefer|dig|am\s+{adv}(?:a\s+" + _LIKE_ADJ + r"(?:fan|lover)\s+of|"
                    r"into|crazy\s+about|passionate\s+about|obsessed\s+with|fond\s+of|keen\s+on|mad\s+about))\s+<things>",
      (("I really enjoy baking sourdough.", "baking sourdough"), ("I'm a huge fan of jazz.", "jazz"),
       ("I adore old sci-fi films.", "old sci-fi films"))),

    # --- what they can do, do regularly, want ---
    P("skill", r"i\s+(?:play|can\s+play)\s+(?:the\s+)?(?P<v__word__0>{instrument})\b", (("I play the cello in a band.", "cello"),)),
    P("skill", r"i\s+speak\s+(?:fluent\s+|some\s+|a\s+little\s+|basic\s+|good\s+|decent\s+|conversational\s+)?<lang>",
      (("I speak fluent Japanese.", "Japanese"),)),
    P("skill", r"i\s+(?:can|am\s+able\s+to)\s+{adv}(?P<v__thing__0>{skillverb}\b[^,;:]*)",
      (("I can ride a unicycle.", "ride a unicycle"), ("I can speak German pretty well", "speak German")),
      gate="ephemeral"),
    P("skill", r"i\s+am\s+{adv}(?:good|great|decent|skilled|experienced|an\s+expert|proficient|fluent|handy|"
               r"talented|competent|excellent|brilliant|not\s+bad)\s+(?:at|in|with)\s+<things>",
      (("I'm fluent in Arabic.", "Arabic"), ("I'm good at chess", "chess")), gate="ephemeral"),
    P("skill", r"i\s+know\s+how\s+to\s+<thing>", (("I know how to sail.", "sail"),), gate="ephemeral"),
    # before the skill of years: done that often, it is a habit
    P("habit", r"(?:i|we)\s+have\s+been\s+(?P<v__thing__0>[a-z]+ing\b[^,;:]{0,40}?\b" + _OFTEN + r")\b",
      (("I've been practicing yoga daily for five years.", "practicing yoga daily"),), gate="habit"),
    P("skill", r"i\s+have\s+(?:been\s+)?(?:playing|played|coding\s+in|coded\s+in|programming\s+in|doing|done|"
               r"practi[cs]ing|practi[cs]ed|speaking|spoken|writing)\s+(?P<v__thing__0>[^,;:]+?)\s+(?:for\s+(?:(?:over\s+|"
               r"almost\s+|about\s+)?[\w-]+\s+(?:years?|decades?)|ages|a\s+long\s+time|years)|since\s+(?:i\s+was|"
               r"childhood|school|college|university|high\s+school|\d{4}))",
      (("I've been playing cello for ten years.", "cello"),), gate="ephemeral"),
    P("goal", r"(?:my|one\s+of\s+my)\s+(?:[\w-]+\s+)?(?:goals?|dreams?|plans?|ambitions?|aims?|resolutions?|new\s+year's\s+resolutions?)"
              r"(?:\s+this\s+year|\s+for\s+this\s+year)?\s+(?:is|are)\s+to\s+<thing>",
      (("My goal is to lose ten pounds.", "lose ten pounds"),)),
    P("goal", r"i\s+(?:really\s+)?(?:want|would\s+(?:like|love)|hope|plan|intend|aim|am\s+planning|am\s+hoping|"
              r"am\s+aiming|have\s+decided|decided|dream|am\s+going)\s+(?:to|of)\s+(?P<v__thing__0>{goalverb}\b[^,;:]*)",
      (("I want to learn Korean next year.", "learn Korean next year"), ("I hope to visit Iceland someday.",
                                                                       "visit Iceland someday")), gate="goal"),
    P("goal", r"i\s+(?:am|have\s+been)\s+{adv}(?:slowly\s+)?learning\s+(?:to\s+|how\s+to\s+)?<thing>",
      (("I'm learning to play piano.", "play piano"),), gate="goal"),
    P("habit", r"(?P<note>(?:on\s+(?:weekends|mondays|tuesdays|wednesdays|thursdays|fridays|saturdays|sundays)|"
               r"every\s+(?:day|morning|evening|night|week|weekend|month|monday|tuesday|wednesday|thursday|friday|"
               r"saturday|sunday)|once\s+a\s+(?:week|month)|twice\s+a\s+(?:week|month)))\s*,?\s+i\s+<thing>",
      (("On Sundays I call my grandmother.", "call my grandmother (on sundays)"),), gate="habit"),
    P("goal", r"i\s+am\s+(?:training|preparing|saving(?:\s+up)?|studying)\s+for\s+<thing>",
      (("I'm training for the Berlin marathon.", "Berlin marathon"),), gate="goal"),
    P("habit", r"i\s+(?:usually|always|normally|typically|generally|often|regularly|habitually|tend\s+to|try\s+to)\s+"
               r"<thing>",
      (("I usually read before bed.", "read before bed"),), gate="habit"),
    # a modal or "used to" says what may, will or once did happen, not what they do: no habit
    P("habit", r"(?:i|we)\s+(?!am\b|was\b|have\b|had\b|do\s+not\b|did\b|will\b|would\b|could\b|should\b|might\b|"
               r"may\b|must\b|can\b|shall\b|used\s+to\b|are\s+going\b)(?P<v__thing__0>[a-z]+\b[^,;:]{0,60}?\b"
               + _OFTEN + r"\b[^,;:]*)",
      (("I meditate twice a day.", "meditate twice a day"), ("I go running every morning.", "go running every morning"),
       ("I write poetry in my spare time.", "write poetry in my spare time")), gate="habit"),

    # --- what they own ---
    P("owns", r"i\s+(?:own|drive|ride)\s+(?:a|an|two|the)\s+(?:(?:old|new|little|beat-up|used|vintage|red|"
              r"black|white|blue)\s+)*(?P<v__org__0>(?-i:[A-Z])[\w'.-]*(?:\s+(?-i:[A-Z0-9])[\w'.-]*){0,3})",
      (("I drive a Subaru Outback.", "Subaru Outback"), ("I own an old Vespa.", "Vespa"))),
    P("owns", r"i\s+(?:have|have\s+got|got|own)\s+(?:a|an|two)\s+<brands>{end}",
      (("I've got a Kindle and an old iPad.", "iPad"), ("I have a Tesla.", "Tesla"))),
    P("owns", r"(?:i|we)\s+own\s+(?:a|an|two|three|the)\s+<things>", (("I own a sailboat.", "sailboat"),
                                                                  ("I own two bikes and a kayak.", "kayak"))),
    P("owns", r"i\s+(?:have|have\s+got|got)\s+(?:a|an|two)\s+(?:new\s+|old\s+)?(?P<v__org__0>(?-i:[A-Z]|i[A-Z])[\w'.-]*"
              r"(?:\s+[\w'.-]+){0,2}?\s+\d+\w*)", (("I've got an iPhone 15.", "iPhone 15"),)),
    P("owns", r"i\s+(?:just\s+|recently\s+|finally\s+)?(?:bought|got\s+myself|purchased)\s+(?:a|an|myself\s+a)\s+<brands>",
      (("I bought a Fujifilm X100V last year.", "Fujifilm X100V"),)),
    P("owns", r"my\s+car\s+is\s+(?:a|an)\s+<thing>", (("My car is a Prius.", "Prius"),)),

    # --- a named someone's birthday: theirs, not the user's ---
    P("birthday", r"(?!(?:my|our|his|her|your|their|the|this|that)\b)(?P<subject>(?-i:[A-Z][\w-]+(?:\s+[A-Z][\w-]+)?))"
                  r"'s\s+birthday(?:\s+is|\s+falls)?\s+(?:on\s+|in\s+)?<date>",
      (("Ava's birthday is on June 3.", "June 3"),)),

    # --- a name said on its own: "Hey, I'm Olivia" (last: "I am vegan", "I am 41" come first) ---
    P("name", r"i\s+am\s+(?P<v__name__0>(?-i:[A-ZÀ-ÖØ-Þ][\w'-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'-]*){0,2})),\s+(?:a|an)\s+<job:job>"
              r"(?:\s+from\s+<hometown:place>)?",
      (("I'm Ana Lucía, a graphic designer from Bogotá.", "Ana Lucía"),)),
    P("name", r"i\s+am\s+(?P<v__name__0>(?-i:[A-ZÀ-ÖØ-Þ][\w'-]*(?:\s+[A-ZÀ-ÖØ-Þ][\w'-]*){0,2}))(?=\s+(?:and|from)\b|{end})",
      (("Hi there, I'm Priyanka.", "Priyanka"), ("I am Lena Vogt", "Lena Vogt"))),
]
