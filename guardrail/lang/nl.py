"""Dutch for the offline judge."""

from __future__ import annotations

from guardrail.lang.base import Clock, Language

_NUMBERS = {
    "nul": 0, "één": 1, "twee": 2, "drie": 3, "vier": 4, "vijf": 5, "zes": 6, "zeven": 7, "acht": 8,
    "negen": 9, "tien": 10, "elf": 11, "twaalf": 12, "dertien": 13, "veertien": 14,
    "vijftien": 15, "zestien": 16, "zeventien": 17, "achttien": 18, "negentien": 19,
    "twintig": 20, "dertig": 30, "veertig": 40, "vijftig": 50, "zestig": 60,
    "zeventig": 70, "tachtig": 80, "negentig": 90,
}  # fmt: skip
_UNITS = {
    "dag": ("days", 1.0), "dagen": ("days", 1.0), "week": ("days", 7.0),
    "weken": ("days", 7.0), "maand": ("months", 1.0), "maanden": ("months", 1.0),
    "jaar": ("months", 12.0), "jaren": ("months", 12.0), "uur": ("minutes", 60.0),
    "uren": ("minutes", 60.0), "minuut": ("minutes", 1.0), "minuten": ("minutes", 1.0),
    "seconde": ("seconds", 1.0), "seconden": ("seconds", 1.0), "meter": ("metres", 1.0),
    "kilometer": ("metres", 1000.0), "gram": ("grams", 1.0), "kilo": ("grams", 1000.0),
    "milligram": ("grams", 0.001), "liter": ("litres", 1.0),
}  # fmt: skip


def _ordinals() -> dict[str, int]:
    """Ordinal words from "eerste" to "negentigste" ("tot haar achttiende")."""
    irregular = {"drie": "derde", "acht": "achtste"}
    out: dict[str, int] = {"eerste": 1}
    for word, n in _NUMBERS.items():
        if n == 0:
            continue
        out[irregular.get(word) or (word + ("ste" if n >= 20 else "de"))] = n
    return out


LANGUAGE = Language(
    code="nl",
    name="Dutch",
    negations=frozenset("niet geen nooit niets niemand nergens noch".split()),
    stopwords=frozenset(
        """de het een en of maar want in op aan bij met na van voor naar tot uit over onder
        door om als dan ook zeer heel is zijn was waren wordt worden werd werden heeft hebben
        had hadden zal zullen hij zij ze wij we jij je u ik men zich dat die dit deze wie
        wanneer als mag mogen kan kunnen moet moeten
        wil willen er hier daar elk elke ieder iedere
        nee ja jawel hoor wel even gewoon je jij jou jouw uw hem haar hen hun mij me mijn ons
        onze jullie zo dus toch nog al daarover daarvoor daarom daarmee daarbij erover ervan
        erop ermee waarvan waarover waarvoor
        moest kun kunt wilt zult mocht gaan ga gaat ten
        zulke zulk
        te""".split()
    ),
    opposites=(
        ("eerste", "laatste"),
        ("verhoogt", "verlaagt"),
        ("verhogen", "verlagen"),
        ("stijgt", "daalt"),
        ("meer", "minder"),
        ("voor", "na"),
        ("hoger", "lager"),
        ("toegestaan", "verboden"),
        ("veilig", "onveilig"),
        ("open", "gesloten"),
        ("gratis", "betaald"),
        ("altijd", "nooit"),
        ("vroeg", "laat"),
        ("aanbevolen", "afgeraden"),
        ("waar", "onwaar"),
    ),
    verdicts=(
        (
            (
                "gebruiken",
                "gebruikt",
                "ingenomen",
                "innemen",
                "nemen",
                "veilig",
                "onschadelijk",
                "toegestaan",
                "aanbevolen",
                "eten",
                "drinken",
            ),
            (
                "gevaarlijk",
                "onveilig",
                "verboden",
                "afgeraden",
                "schadelijk",
                "verbod",
                "afraden",
                "probleem",
                "problemen",
                "vermijd",
                "vermijden",
                "vermijdt",
            ),
        ),
        (("verplicht", "nodig", "vereist"), ("vrijwillig", "optioneel", "vrijgesteld")),
    ),
    numbers=_NUMBERS,
    scales={"honderd": 100, "duizend": 1000, "miljoen": 1_000_000, "miljard": 1_000_000_000},
    ordinals=_ordinals(),
    last=frozenset("laatste".split()),
    month_end=frozenset({"eind", "einde"}),
    coordinators=frozenset("en of maar terwijl".split()),
    articles=frozenset("een".split()),
    approximate=frozenset("ongeveer circa bijna ruim rond".split()),
    clock=Clock(
        before=frozenset({"om", "rond"}),
        quarters=frozenset({"kwart"}),
        half_before=True,
        evening=frozenset({"middags", "avonds"}),
    ),
    halves=frozenset("half halve".split()),
    months={
        "januari": 1,
        "februari": 2,
        "maart": 3,
        "april": 4,
        "mei": 5,
        "juni": 6,
        "juli": 7,
        "augustus": 8,
        "september": 9,
        "oktober": 10,
        "november": 11,
        "december": 12,
    },
    weekdays={
        "maandag": 0,
        "dinsdag": 1,
        "woensdag": 2,
        "donderdag": 3,
        "vrijdag": 4,
        "zaterdag": 5,
        "zondag": 6,
        "maandagen": 0,
        "dinsdagen": 1,
        "woensdagen": 2,
        "donderdagen": 3,
        "vrijdagen": 4,
        "zaterdagen": 5,
        "zondagen": 6,
    },
    units=_UNITS,
    percent=("procent",),
    currencies={"euro": "eur", "cent": "cent", "dollar": "usd", "pond": "gbp"},
    pay=frozenset(
        {
            "zelf betalen",
            "voor eigen rekening",
            "eigen kosten",
            "betaalt u",
            "betalen",
            "betaald",
            "kost",
            "tarief",
        }
    ),
    immediate=frozenset(
        {"direct", "onmiddellijk", "meteen", "zonder wachttijd", "zonder afspraak direct"}
    ),
    wait=frozenset({"wachttijd", "wachten", "pas na"}),
    free=frozenset(
        {
            "kost niets",
            "kost niks",
            "zonder kosten",
            "kosteloos",
            "gratis",
            "kostenloos",
        }
    ),
    decimal_comma=True,
    without=frozenset({"zonder", "tenzij"}),
    bounds=frozenset("meer minder overschrijden overschrijdt boven".split()),
    bounds_before={
        "maximaal": 1,
        "hoogstens": 1,
        "ten hoogste": 1,
        "tot": 1,
        "minder dan": 1,
        "onder": 1,
        "minstens": -1,
        "ten minste": -1,
        "minimaal": -1,
        "meer dan": -1,
        "boven": -1,
        "vanaf": -1,
        "ouder dan": -1,
        "jonger dan": 1,
    },
    bounds_after={"of meer": -1, "en ouder": -1, "of ouder": -1, "of minder": 1, "of jonger": 1},
    # adverbs that only strengthen a claim, verbs of getting, giving, taking and using (also as
    # commands: an imperative answer restates a rule), and
    # words for "people": they carry no claim of their own (English's light words do the same)
    light=frozenset(
        "altijd moment elk krijgen krijgt ontvangen ontvangt geven geeft nemen neemt innemen "
        "gebruiken gebruikt maken maakt mensen personen neem gebruik".split()
    ),
    endings=("en", "e", "s", "t"),
    compounds=True,
    privative=("loos", "loze", "vrij", "vrije"),
    synonyms=(
        ("alcohol", "bier", "wijn"),
        ("cafeïne", "koffie", "espresso", "cola"),
        ("arts", "dokter"),
        ("loon", "salaris", "inkomen"),
        ("gratis", "kosteloos", "kostenloos"),
        ("direct", "meteen", "onmiddellijk", "gelijk"),
        ("beginnen", "starten"),
        ("begint", "start"),
        ("eindigen", "stoppen"),
        ("krijgen", "ontvangen"),
        ("betalen", "vergoeden", "vergoed", "betaalt", "vergoedt"),
        ("verboden", "verbod", "verbieden"),
        ("toegestaan", "toegelaten"),
        ("risico", "gevaar"),
        ("aanvraag", "verzoek"),
    ),
    supportive_wraps=("Het klopt: {}", "Inderdaad: {}", "Het is juist: {}"),
    negating_wraps=("Het klopt niet: {}", "Het is onjuist: {}", "Het is niet waar: {}"),
    unnegate={"niet": "", "geen": "een"},
)
