"""Per-stage completion budgets and stop sequences for MetaRAG's judge calls.

A judge call should ask for about as many tokens as its reply needs, and stop where a model
that echoes its prompt (a base model, a confused small model) would start writing the prompt's
next section. Without both, a small local model can generate a thousand tokens of echo and
run into its timeout.

Budgets are linear in the size of what the reply covers (``base + per_item * items``) and
capped by the scorer's ``max_tokens`` setting. Stops are at most four strings (the OpenAI
API's limit), chosen so that an echo cannot eat a reply:

* never the *opening* line of a data fence: small models often begin their reply by echoing
  ``[BEGIN DATA ...]``, and a stop there leaves nothing; the parsers strip that echo instead
  (:func:`guardrail.scoring.templates.strip_echoed_fence`) and keep what follows;
* the *closing* line (``[END DATA``) and the template's next section headers, which come after
  the content of an echoing reply, so the content survives the cut;
* should a stop still match at the very start (an empty reply), MetaRAG asks once more without
  stops.
"""

from __future__ import annotations

from dataclasses import dataclass

from guardrail.judges.base import ANTONYM, DECOMPOSE, MUTATE_ALL, SYNONYM, VERIFY, VERIFY_BATCH

#: Roughly how many characters a token covers in English text, for sizing the decompose budget.
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class StageBudget:
    """``base + per_item * items`` completion tokens, and the stop sequences of one stage."""

    base: int
    per_item: int
    stop: tuple[str, ...]

    def tokens(self, items: int, cap: int) -> int:
        """The budget for ``items`` items, at most ``cap`` (and at least 16)."""
        return max(16, min(cap, self.base + self.per_item * max(items, 1)))


_END = "[END DATA"  # the end of an echoed data block: what came before it is kept

#: What each MetaRAG task asks for. Items: decompose, the answer's estimated tokens (a
#: decomposition restates the answer, with subjects repeated); synonym/antonym, the ``k``
#: variants; mutate_all, every factoid's ``2k`` variants; verify, one verdict; verify_batch,
#: one verdict line a statement.
BUDGETS: dict[str, StageBudget] = {
    DECOMPOSE: StageBudget(96, 2, ("\nInput:", "\nNow, extract", _END)),
    SYNONYM: StageBudget(32, 48, ("\nQuestion:", "\nFactoid:", _END)),
    ANTONYM: StageBudget(32, 48, ("\nQuestion:", "\nFactoid:", _END)),
    MUTATE_ALL: StageBudget(64, 48, ("\nQuestion:", "\nFactoids:", _END)),
    VERIFY: StageBudget(24, 40, ("\nStatement:", "\nPassages (Ground Truth)", "\nNow,", _END)),
    VERIFY_BATCH: StageBudget(32, 40, ("\nStatements:", "\nPassages (Ground Truth)", _END)),
}


def estimated_tokens(text: str) -> int:
    """A rough token count of ``text`` (no tokenizer: judges differ in theirs)."""
    return len(text) // CHARS_PER_TOKEN + 1
