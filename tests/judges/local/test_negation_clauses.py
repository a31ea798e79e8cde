"""A negation denies within its own clause.

Three ways a negation reached words it does not govern, and made a faithful statement look
reversed:

* **"and not"** — in "swallow the capsule whole *and not* open it" the negation denies what
  follows it ("open"), never the word before the conjunction ("whole"). The same holds for
  "und nicht", "et non", "e non", "y no", "e não", "en niet".
* **a conditional clause after the denied verb** (English) — "Do not lift heavy loads *if* the
  wound is still open" denies lifting, not the wound being open. Not in the other languages,
  where an imperative and an infinitive do not share a root: there the condition's words are
  what tie "Ne conduisez pas si ..." to "Vous pouvez conduire si ...".
* **a second instruction after "and" in another language** — "No conduzca *y* llame a su
  médico" denies driving, not calling the doctor (English already stopped at "and").

Each case keeps a control: the statement that does say the opposite stays contradicted."""

from __future__ import annotations

import pytest

from guardrail.judges.local.verify import Support
from tests.verifying import assert_told_apart, verified

#: (language, context, statement that agrees, statement that disagrees)
AND_NOT = [
    (
        "en",
        "The capsules should be swallowed whole and not opened.",
        "The capsules should be swallowed whole.",
        "The capsules can be opened.",
    ),
    (
        "en",
        "Keep the vaccine in the fridge and not in the freezer.",
        "Keep the vaccine in the fridge.",
        "You can keep the vaccine in the freezer.",
    ),
    (
        "de",
        "Die Kapseln bitte im Ganzen schlucken und nicht öffnen.",
        "Die Kapseln bitte im Ganzen schlucken.",
        "Die Kapseln darf man öffnen.",
    ),
    (
        "fr",
        "Les gélules doivent être avalées entières et non ouvertes.",
        "Les gélules doivent être avalées entières.",
        "Les gélules peuvent être ouvertes.",
    ),
    (
        "it",
        "Le capsule vanno deglutite intere e non aperte.",
        "Le capsule vanno deglutite intere.",
        "Le capsule possono essere aperte.",
    ),
    (
        "nl",
        "Slik de capsules in hun geheel door en niet openmaken.",
        "Slik de capsules in hun geheel door.",
        "U mag de capsules openmaken.",
    ),
]


@pytest.mark.parametrize(("language", "context", "agrees", "disagrees"), AND_NOT)
def test_and_not_denies_what_follows(
    language: str, context: str, agrees: str, disagrees: str
) -> None:
    assert_told_apart(language, context, agrees, disagrees)


#: (context, statement about the condition, statement that disagrees)
CONDITION = [
    (
        "Do not lift heavy loads if the wound is still open.",
        "The wound may still be open.",
        "You can lift heavy loads if the wound is still open.",
    ),
    (
        "Do not breastfeed when the rash is on the nipple.",
        "The rash can be on the nipple.",
        "You can breastfeed when the rash is on the nipple.",
    ),
]


@pytest.mark.parametrize(("context", "condition", "disagrees"), CONDITION)
def test_a_condition_is_not_denied(context: str, condition: str, disagrees: str) -> None:
    kept, caught = verified("en", [condition, disagrees], context)
    assert kept is not Support.CONTRADICTED, condition
    assert caught is Support.CONTRADICTED, disagrees


#: (language, context with an imperative, a permission with the infinitive): in these
#: languages the two verb forms do not share a root, so the condition's words stay denied
#: with the verb and the permission is still read as the opposite.
CONDITION_ELSEWHERE = [
    ("fr", "Ne conduisez pas si les gouttes vous rendent somnolent.",
     "Vous pouvez conduire si les gouttes vous rendent somnolent."),
    ("es", "No conduzca si las gotas le producen sueño.",
     "Puede conducir si las gotas le producen sueño."),
]  # fmt: skip


@pytest.mark.parametrize(("language", "context", "disagrees"), CONDITION_ELSEWHERE)
def test_an_imperative_with_a_condition_still_denies(
    language: str, context: str, disagrees: str
) -> None:
    (found,) = verified(language, [disagrees], context)
    assert found is not Support.SUPPORTED, disagrees


#: (language, context, the second instruction, the denied first one said positively)
SECOND_INSTRUCTION = [
    (
        "es",
        "No conduzca y llame a su médico de cabecera si aparece fiebre.",
        "Llame a su médico de cabecera si aparece fiebre.",
    ),
    (
        "fr",
        "Ne conduisez pas et prévenez votre pharmacien en cas de vertiges.",
        "Prévenez votre pharmacien en cas de vertiges.",
    ),
    (
        "it",
        "Non guidare e avvisa il farmacista in caso di vertigini.",
        "Avvisa il farmacista in caso di vertigini.",
    ),
    (
        "pt",
        "Não conduza e avise o farmacêutico se tiver tonturas.",
        "Avise o farmacêutico se tiver tonturas.",
    ),
    (
        "nl",
        "Rijd geen auto en waarschuw de apotheker bij duizeligheid.",
        "Waarschuw de apotheker bij duizeligheid.",
    ),
]


@pytest.mark.parametrize(("language", "context", "second"), SECOND_INSTRUCTION)
def test_and_ends_what_a_negation_denies(language: str, context: str, second: str) -> None:
    (found,) = verified(language, [second], context)
    assert found is not Support.CONTRADICTED, second


#: (context whose negation is a few words before its bound, the same bound said as "at most",
#: a statement above the bound)
BOUND_AFTER_A_VERB = [
    (
        "Drivers will not be scheduled for more than 9 hours a day.",
        "Drivers can be scheduled for at most 9 hours a day.",
        "Drivers can be scheduled for more than 9 hours a day.",
    ),
    (
        "Apprentices must not be asked to work more than 40 hours a week.",
        "Apprentices can be asked to work up to 40 hours a week.",
        "Apprentices can be asked to work more than 40 hours a week.",
    ),
]


@pytest.mark.parametrize(("context", "agrees", "disagrees"), BOUND_AFTER_A_VERB)
def test_a_negation_a_few_words_before_its_bound(context: str, agrees: str, disagrees: str) -> None:
    """ "will not be scheduled for more than 9 hours" is "at most 9 hours", as "not more than 9"
    is: the words between the negation and its bound do not make it a denial."""
    assert_told_apart("en", context, agrees, disagrees)
