"""Italian for the offline judge."""

from __future__ import annotations

from guardrail.lang.base import Language

_NUMBERS = {
    "zero": 0, "due": 2, "tre": 3, "quattro": 4, "cinque": 5, "sei": 6, "sette": 7,
    "otto": 8, "nove": 9, "dieci": 10, "undici": 11, "dodici": 12, "tredici": 13,
    "quattordici": 14, "quindici": 15, "sedici": 16, "diciassette": 17, "diciotto": 18,
    "diciannove": 19, "venti": 20, "trenta": 30, "quaranta": 40, "cinquanta": 50,
    "sessanta": 60, "settanta": 70, "ottanta": 80, "novanta": 90,
}  # fmt: skip
_UNITS = {
    "giorno": ("days", 1.0), "giorni": ("days", 1.0), "settimana": ("days", 7.0),
    "settimane": ("days", 7.0), "mese": ("months", 1.0), "mesi": ("months", 1.0),
    "anno": ("months", 12.0), "anni": ("months", 12.0), "ora": ("minutes", 60.0),
    "ore": ("minutes", 60.0), "minuto": ("minutes", 1.0), "minuti": ("minutes", 1.0),
    "secondo": ("seconds", 1.0), "secondi": ("seconds", 1.0), "metro": ("metres", 1.0),
    "metri": ("metres", 1.0), "chilometro": ("metres", 1000.0),
    "chilometri": ("metres", 1000.0), "grammo": ("grams", 1.0), "grammi": ("grams", 1.0),
    "chilo": ("grams", 1000.0), "chili": ("grams", 1000.0), "milligrammo": ("grams", 0.001),
    "milligrammi": ("grams", 0.001), "litro": ("litres", 1.0), "litri": ("litres", 1.0),
}  # fmt: skip

LANGUAGE = Language(
    code="it",
    name="Italian",
    negations=frozenset("non mai nessuno nessuna nessun niente nulla né".split()),
    stopwords=frozenset(
        """il lo la i gli le l un uno una di del dello della dei degli delle d a al allo alla
        ai agli alle da dal dalla in nel nella nei nelle con su sul sulla per tra fra e ed o
        ma se che chi come quando anche molto è sono era erano sarà ha hanno aveva essere
        avere lui lei loro noi voi io tu si suo sua suoi sue può possono posso deve devono
        devo c ci qualsiasi qualunque ogni""".split()
    ),
    opposites=(
        ("aumenta", "riduce"),
        ("aumenta", "diminuisce"),
        ("aumentare", "ridurre"),
        ("più", "meno"),
        ("prima", "dopo"),
        ("maggiore", "minore"),
        ("permesso", "vietato"),
        ("consentito", "vietato"),
        ("sicuro", "pericoloso"),
        ("aperto", "chiuso"),
        ("gratuito", "pagamento"),
        ("sempre", "mai"),
        ("presto", "tardi"),
        ("consigliato", "sconsigliato"),
        ("vero", "falso"),
    ),
    verdicts=(
        (
            (
                "assunto",
                "assunta",
                "assumere",
                "preso",
                "prendere",
                "usato",
                "usare",
                "sicuro",
                "sicura",
                "innocuo",
                "consentito",
                "consigliato",
                "permesso",
            ),
            ("pericoloso", "pericolosa", "vietato", "sconsigliato", "controindicato", "dannoso"),
        ),
        (("obbligatorio", "necessario", "richiesto"), ("facoltativo", "opzionale")),
    ),
    numbers=_NUMBERS,
    scales={"cento": 100, "mille": 1000, "mila": 1000, "milione": 1_000_000, "milioni": 1_000_000},
    ordinals={
        "primo": 1,
        "prima": 1,
        "secondo": 2,
        "seconda": 2,
        "terzo": 3,
        "terza": 3,
        "quarto": 4,
        "quarta": 4,
        "quinto": 5,
        "quinta": 5,
        "sesto": 6,
        "settimo": 7,
        "ottavo": 8,
        "nono": 9,
        "decimo": 10,
    },
    months={
        "gennaio": 1,
        "febbraio": 2,
        "marzo": 3,
        "aprile": 4,
        "maggio": 5,
        "giugno": 6,
        "luglio": 7,
        "agosto": 8,
        "settembre": 9,
        "ottobre": 10,
        "novembre": 11,
        "dicembre": 12,
    },
    weekdays={
        "lunedì": 0,
        "martedì": 1,
        "mercoledì": 2,
        "giovedì": 3,
        "venerdì": 4,
        "sabato": 5,
        "domenica": 6,
    },
    units=_UNITS,
    currencies={"euro": "eur", "centesimi": "cent", "dollari": "usd", "sterline": "gbp"},
    pay=frozenset({"pagare", "a pagamento", "costa", "costano", "tariffa"}),
    immediate=frozenset({"subito", "immediatamente", "senza attesa", "senza ritardo"}),
    wait=frozenset({"attesa", "attendere", "aspettare", "solo dopo"}),
    free=frozenset({"gratuito", "gratuita", "gratuiti", "gratis", "gratuitamente"}),
    number_joiners=frozenset({"e"}),
    bounds=frozenset("più meno superare supera oltre".split()),
    bounds_before={
        "al massimo": 1,
        "massimo": 1,
        "fino a": 1,
        "meno di": 1,
        "almeno": -1,
        "minimo": -1,
        "più di": -1,
        "a partire da": -1,
        "dai": -1,
    },
    bounds_after={"o più": -1, "o meno": 1},
    light=frozenset("sempre momento qualsiasi".split()),
)
