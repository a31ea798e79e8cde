"""Portuguese for the offline judge."""

from __future__ import annotations

from guardrail.lang.base import Language

_NUMBERS = {
    "zero": 0, "dois": 2, "duas": 2, "três": 3, "quatro": 4, "cinco": 5, "seis": 6,
    "sete": 7, "oito": 8, "nove": 9, "dez": 10, "onze": 11, "doze": 12, "treze": 13,
    "catorze": 14, "quatorze": 14, "quinze": 15, "dezasseis": 16, "dezesseis": 16,
    "dezassete": 17, "dezessete": 17, "dezoito": 18, "dezanove": 19, "dezenove": 19,
    "vinte": 20, "trinta": 30, "quarenta": 40, "cinquenta": 50, "sessenta": 60,
    "setenta": 70, "oitenta": 80, "noventa": 90,
}  # fmt: skip
_UNITS = {
    "dia": ("days", 1.0), "dias": ("days", 1.0), "semana": ("days", 7.0),
    "semanas": ("days", 7.0), "mês": ("months", 1.0), "meses": ("months", 1.0),
    "ano": ("months", 12.0), "anos": ("months", 12.0), "hora": ("minutes", 60.0),
    "horas": ("minutes", 60.0), "minuto": ("minutes", 1.0), "minutos": ("minutes", 1.0),
    "segundo": ("seconds", 1.0), "segundos": ("seconds", 1.0), "metro": ("metres", 1.0),
    "metros": ("metres", 1.0), "quilómetro": ("metres", 1000.0),
    "quilômetro": ("metres", 1000.0), "quilómetros": ("metres", 1000.0),
    "quilômetros": ("metres", 1000.0), "grama": ("grams", 1.0), "gramas": ("grams", 1.0),
    "quilo": ("grams", 1000.0), "quilos": ("grams", 1000.0), "miligrama": ("grams", 0.001),
    "miligramas": ("grams", 0.001), "litro": ("litres", 1.0), "litros": ("litres", 1.0),
}  # fmt: skip

LANGUAGE = Language(
    code="pt",
    name="Portuguese",
    negations=frozenset("não nunca jamais nenhum nenhuma nada ninguém nem".split()),
    stopwords=frozenset(
        """o a os as um uns umas de do da dos das d em no na nos nas ao aos à às por pelo pela
        para com sem sobre entre desde até durante e ou mas que quem quando se como também
        muito é são era eram será ser estar está estão foi tem têm ele ela eles elas você
        vocês nós eu tu seu sua seus suas pode
        podem posso deve devem devo há lhe qualquer todo toda""".split()
    ),
    opposites=(
        ("aumenta", "diminui"),
        ("aumenta", "reduz"),
        ("aumentar", "reduzir"),
        ("mais", "menos"),
        ("antes", "depois"),
        ("maior", "menor"),
        ("permitido", "proibido"),
        ("seguro", "perigoso"),
        ("aberto", "fechado"),
        ("gratuito", "pago"),
        ("sempre", "nunca"),
        ("cedo", "tarde"),
        ("recomendado", "desaconselhado"),
        ("verdadeiro", "falso"),
    ),
    verdicts=(
        (
            (
                "tomado",
                "tomada",
                "tomar",
                "usado",
                "usar",
                "seguro",
                "segura",
                "inofensivo",
                "permitido",
                "recomendado",
            ),
            ("perigoso", "perigosa", "proibido", "desaconselhado", "contraindicado", "prejudicial"),
        ),
        (("obrigatório", "necessário", "exigido"), ("facultativo", "opcional")),
    ),
    numbers=_NUMBERS,
    scales={"cem": 100, "cento": 100, "mil": 1000, "milhão": 1_000_000, "milhões": 1_000_000},
    ordinals={
        "primeiro": 1,
        "primeira": 1,
        "segundo": 2,
        "segunda": 2,
        "terceiro": 3,
        "terceira": 3,
        "quarto": 4,
        "quarta": 4,
        "quinto": 5,
        "quinta": 5,
        "sexto": 6,
        "sétimo": 7,
        "oitavo": 8,
        "nono": 9,
        "décimo": 10,
    },
    months={
        "janeiro": 1,
        "fevereiro": 2,
        "março": 3,
        "abril": 4,
        "maio": 5,
        "junho": 6,
        "julho": 7,
        "agosto": 8,
        "setembro": 9,
        "outubro": 10,
        "novembro": 11,
        "dezembro": 12,
    },
    weekdays={
        "segunda-feira": 0,
        "terça-feira": 1,
        "quarta-feira": 2,
        "quinta-feira": 3,
        "sexta-feira": 4,
        "sábado": 5,
        "domingo": 6,
    },
    units=_UNITS,
    currencies={
        "euro": "eur",
        "euros": "eur",
        "cêntimos": "cent",
        "dólares": "usd",
        "reais": "brl",
        "real": "brl",
        "libras": "gbp",
    },
    free=frozenset({"gratuito", "gratuita", "gratuitos", "grátis", "gratuitamente"}),
    number_joiners=frozenset({"e"}),
    bounds=frozenset("mais menos exceder ultrapassar".split()),
    bounds_before={
        "no máximo": 1,
        "máximo": 1,
        "até": 1,
        "menos de": 1,
        "pelo menos": -1,
        "no mínimo": -1,
        "mínimo": -1,
        "mais de": -1,
        "a partir de": -1,
        "a partir dos": -1,
        "desde": -1,
    },
    bounds_after={"ou mais": -1, "ou menos": 1},
    light=frozenset("sempre momento qualquer".split()),
)
