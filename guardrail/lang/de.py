"""German for the offline judge."""

from __future__ import annotations

from guardrail.lang.base import Clock, Language

_NUMBERS = {
    "null": 0,
    "eins": 1,
    "zwei": 2,
    "zwo": 2,
    "drei": 3,
    "vier": 4,
    "fünf": 5,
    "sechs": 6,
    "sieben": 7,
    "acht": 8,
    "neun": 9,
    "zehn": 10,
    "elf": 11,
    "zwölf": 12,
    "dreizehn": 13,
    "vierzehn": 14,
    "fünfzehn": 15,
    "sechzehn": 16,
    "siebzehn": 17,
    "achtzehn": 18,
    "neunzehn": 19,
    "zwanzig": 20,
    "dreißig": 30,
    "vierzig": 40,
    "fünfzig": 50,
    "sechzig": 60,
    "siebzig": 70,
    "achtzig": 80,
    "neunzig": 90,
}
_UNITS = {
    "tag": ("days", 1.0),
    "tage": ("days", 1.0),
    "tagen": ("days", 1.0),
    "tages": ("days", 1.0),
    "woche": ("days", 7.0),
    "wochen": ("days", 7.0),
    "monat": ("months", 1.0),
    "monate": ("months", 1.0),
    "monaten": ("months", 1.0),
    "monats": ("months", 1.0),
    "jahr": ("months", 12.0),
    "jahre": ("months", 12.0),
    "jahren": ("months", 12.0),
    "jahres": ("months", 12.0),
    "stunde": ("minutes", 60.0),
    "stunden": ("minutes", 60.0),
    "std": ("minutes", 60.0),
    "minute": ("minutes", 1.0),
    "minuten": ("minutes", 1.0),
    "sekunde": ("seconds", 1.0),
    "sekunden": ("seconds", 1.0),
    "meter": ("metres", 1.0),
    "kilometer": ("metres", 1000.0),
    "zentimeter": ("metres", 0.01),
    "gramm": ("grams", 1.0),
    "kilogramm": ("grams", 1000.0),
    "milligramm": ("grams", 0.001),
    "liter": ("litres", 1.0),
    "milliliter": ("litres", 0.001),
}


def _ordinals() -> dict[str, int]:
    """Ordinal words from "erste" to "neunzigste", in every ending ("am fünfzehnten")."""
    irregular = {"eins": "erste", "drei": "dritte", "sieben": "siebte", "acht": "achte"}
    out: dict[str, int] = {}
    for word, n in _NUMBERS.items():
        if n == 0 or word == "zwo":
            continue
        base = irregular.get(word) or (word + ("ste" if n >= 20 else "te"))
        for ending in ("", "n", "r", "s", "m"):
            out[base + ending] = n
    return out


LANGUAGE = Language(
    code="de",
    name="German",
    negations=frozenset(
        "nicht kein keine keinen keinem keiner keines nie niemals nirgends weder noch "
        "nichts niemand".split()
    ),
    stopwords=frozenset(
        """der die das den dem des ein eine einen einem einer eines und oder aber sondern denn
        in im ins an am auf aus bei beim mit nach von vom vor zu zum zur für über unter durch
        um als wie so auch nur noch schon sehr ist sind war waren wird werden wurde wurden
        hat haben hatte hatten habe sein seine seinen seiner es er sie wir ihr ihre ihren
        ihrem ihrer ich du man sich dass wenn weil ob diese dieser dieses diesen jede jeder
        jedes alle kann können konnte darf dürfen durfte muss müssen musste soll sollen
        sollte will wollen mag mögen möchte möchten bitte dort hier da dann also bis seit
        während ab gegen ohne pro je sehr mehr
        ja nein doch mal halt eben etwa einfach lieber gern gerne eigentlich wirklich ruhig
        ihn ihm ihnen mich mir dich dir uns euch euer eure mein meine meinen meinem meiner
        dein deine deinen deinem deiner unser unsere unseren unserem unserer
        dazu daran darauf damit dabei davon dafür darum darüber dahin daher
        weiter weg zurück los her hin fest
        musst kannst darfst sollst willst möchtest magst gehen geht gehst
        diesem jener jene jenes jenem jenen
        wer wen wem was wo zwar""".split()
    ),
    opposites=(
        ("erste", "letzte"),
        ("ersten", "letzten"),
        ("erster", "letzter"),
        ("erhöht", "senkt"),
        ("erhöhen", "senken"),
        ("erhöhte", "senkte"),
        ("steigt", "sinkt"),
        ("steigen", "sinken"),
        ("stieg", "sank"),
        ("höher", "niedriger"),
        ("mehr", "weniger"),
        ("vor", "nach"),
        ("früher", "später"),
        ("erlaubt", "verboten"),
        ("zulässig", "unzulässig"),
        ("sicher", "unsicher"),
        ("geöffnet", "geschlossen"),
        ("kostenlos", "kostenpflichtig"),
        ("immer", "nie"),
        ("sofort", "später"),
        ("größer", "kleiner"),
        ("empfohlen", "abgeraten"),
        ("wahr", "falsch"),
        ("gestiegen", "gesunken"),
        ("zugenommen", "abgenommen"),
        ("verstärkt", "schwächt"),
        ("gewonnen", "verloren"),
    ),
    verdicts=(
        (
            (
                "eingenommen",
                "einnehmen",
                "genommen",
                "nehmen",
                "verwendet",
                "anwenden",
                "angewendet",
                "sicher",
                "unbedenklich",
                "harmlos",
                "erlaubt",
                "empfohlen",
                "zulässig",
                "ratsam",
                "empfehlenswert",
                "essen",
                "trinken",
            ),
            (
                "gefährlich",
                "bedenklich",
                "verboten",
                "unzulässig",
                "kontraindiziert",
                "schädlich",
                "meiden",
                "vermeiden",
                "verzichten",
                "abgeraten",
                "abraten",
                "problem",
                "probleme",
            ),
        ),
        (
            ("pflicht", "erforderlich", "notwendig", "vorgeschrieben"),
            ("freiwillig", "optional", "befreit"),
        ),
    ),
    numbers=_NUMBERS,
    scales={
        "hundert": 100,
        "tausend": 1000,
        "million": 1_000_000,
        "millionen": 1_000_000,
        "milliarde": 1_000_000_000,
        "milliarden": 1_000_000_000,
    },
    ordinals=_ordinals(),
    last=frozenset("letzte letzten letzter letztes letztem".split()),
    month_end=frozenset({"ende"}),
    coordinators=frozenset("und oder aber während sowie".split()),
    articles=frozenset("ein eine einen einem einer eines".split()),
    approximate=frozenset("etwa ungefähr rund circa ca fast knapp annähernd".split()),
    clock=Clock(
        before=frozenset({"um", "gegen"}),
        hours=frozenset({"uhr"}),
        quarters=frozenset({"viertel"}),
        half_before=True,
        evening=frozenset({"abends", "nachmittags", "nachts"}),
    ),
    halves=frozenset("halb halbe halben halbes halber".split()),
    months={
        "januar": 1,
        "jänner": 1,
        "februar": 2,
        "märz": 3,
        "april": 4,
        "mai": 5,
        "juni": 6,
        "juli": 7,
        "august": 8,
        "september": 9,
        "oktober": 10,
        "november": 11,
        "dezember": 12,
    },
    weekdays={
        "montag": 0,
        "montags": 0,
        "dienstag": 1,
        "dienstags": 1,
        "mittwoch": 2,
        "mittwochs": 2,
        "donnerstag": 3,
        "donnerstags": 3,
        "freitag": 4,
        "freitags": 4,
        "samstag": 5,
        "samstags": 5,
        "sonnabend": 5,
        "sonntag": 6,
        "sonntags": 6,
    },
    units=_UNITS,
    percent=("prozent",),
    currencies={
        "euro": "eur",
        "cent": "cent",
        "dollar": "usd",
        "pfund": "gbp",
        "franken": "chf",
    },
    pay=frozenset(
        {
            "selbst zahlen",
            "selbst bezahlen",
            "auf eigene kosten",
            "zahlen sie selbst",
            "bezahlen",
            "zahlen",
            "muss zahlen",
            "müssen zahlen",
            "kostenpflichtig",
            "gebühr",
            "zuzahlung",
            "kostet",
        }
    ),
    immediate=frozenset({"sofort", "unverzüglich", "umgehend", "ohne wartezeit"}),
    wait=frozenset({"wartezeit", "warten", "erst nach", "wartefrist", "warte", "wartet"}),
    free=frozenset(
        {
            "kostet nichts",
            "umsonst",
            "ohne kosten",
            "ohne zuzahlung",
            "kostenlos",
            "kostenfrei",
            "gratis",
            "gebührenfrei",
            "unentgeltlich",
        }
    ),
    decimal_comma=True,
    without=frozenset({"ohne", "außer"}),
    bounds=frozenset("mehr weniger über unter überschreiten überschreitet länger".split()),
    capitalized_nouns=True,
    name_openers=frozenset(
        "in nach aus bei von für mit ohne durch gegen über unter zwischen an auf bis ab seit "
        "und oder wie als".split()
    ),
    bounds_before={
        "höchstens": 1,
        "maximal": 1,
        "bis zu": 1,
        "weniger als": 1,
        "unter": 1,
        "mindestens": -1,
        "wenigstens": -1,
        "mehr als": -1,
        "über": -1,
        "ab": -1,
        "erst ab": -1,
        "länger als": -1,
        "kürzer als": 1,
        "älter als": -1,
        "jünger als": 1,
    },
    bounds_after={
        "oder mehr": -1,
        "und mehr": -1,
        "und älter": -1,
        "oder älter": -1,
        "oder weniger": 1,
        "und jünger": 1,
    },
    # adverbs that only strengthen a claim, verbs of getting, giving, taking and using (also as
    # commands: an imperative answer restates a rule), and
    # words for "people": they carry no claim of their own (English's light words do the same)
    light=frozenset(
        "jederzeit immer stets bekommen bekommt erhalten erhält geben gibt gegeben nehmen nimmt "
        "genommen einnehmen eingenommen machen macht nutzen nutzt verwenden verwendet personen "
        "menschen leute nimm verwende".split()
    ),
    # nouns' and adjectives' endings, and verbs' ("gewöhnt", "gewöhnen")
    endings=(
        "ungen",
        "ung",
        "ten",
        "test",
        "tet",
        "est",
        "en",
        "er",
        "es",
        "em",
        "et",
        "st",
        "te",
        "e",
        "n",
        "s",
        "t",
    ),
    compounds=True,
    privative=("los", "lose", "losen", "loser", "loses", "frei", "freie", "freien", "freier"),
    synonyms=(
        ("alkohol", "bier", "wein", "sekt", "schnaps"),
        ("koffein", "kaffee", "espresso", "cola"),
        ("gefahr", "risiko"),
        ("arzt", "ärztin", "doktor"),
        ("lohn", "gehalt", "verdienst"),
        ("gebühr", "gebühren", "entgelt"),
        ("kostenlos", "gratis", "kostenfrei", "gebührenfrei", "umsonst", "unentgeltlich"),
        ("sofort", "umgehend", "unverzüglich", "gleich"),
        ("beginnen", "anfangen", "starten", "losgehen"),
        ("beginnt", "fängt", "startet"),
        ("enden", "aufhören"),
        ("bekommen", "erhalten", "kriegen"),
        ("erlaubt", "gestattet"),
        ("verboten", "untersagt"),
        ("nötig", "notwendig", "erforderlich"),
        ("dürfen", "können"),
        ("zahlen", "bezahlen"),
        ("tag", "tage", "tagen"),
    ),
    supportive_wraps=("Es stimmt: {}", "Tatsächlich gilt: {}", "Richtig ist: {}"),
    negating_wraps=("Es stimmt nicht: {}", "Es ist falsch: {}", "Nicht richtig ist: {}"),
    unnegate={
        "nicht": "",
        "kein": "ein",
        "keine": "eine",
        "keinen": "einen",
        "keinem": "einem",
        "keiner": "einer",
        "keines": "eines",
    },
)
