"""Write examples/data/sample.jsonl: a small labelled set for `guardrail eval` and `calibrate`.

Written for the project (no third-party text): 14 short source documents in the domains the
guard is meant for (health, migration, labour, finance, public services), each with a faithful
answer and one or two answers that add or change a fact. Every hallucinated answer marks the
characters of the unsupported part, so the span metrics have labels too. Rows carry
``meta.source_id`` so `--holdout-frac` keeps a document's answers on one side of the split.

    python examples/data/make_sample.py      # rewrites sample.jsonl (deterministic)
"""

from __future__ import annotations

import json
from pathlib import Path

HERE = Path(__file__).resolve().parent

# (source id, task, question, context, [(answer, hallucinated part or None), ...])
DOCS: list[tuple[str, str, str, str, list[tuple[str, str | None]]]] = [
    ("library", "qa", "When is the city library open on Saturdays?",
     "The city library is open on Saturdays from 10:00 to 14:00. It is closed on Sundays and "
     "public holidays.",
     [("The library is open on Saturdays from 10:00 to 14:00.", None),
      ("The library is open on Saturdays from 10:00 to 18:00.", "18:00"),
      ("The library opens at 10:00 on Saturdays and on Sundays.", "and on Sundays")]),
    ("paracetamol", "qa", "How much paracetamol may an adult take in a day?",
     "Adults may take 500 mg to 1 g of paracetamol every four to six hours, and no more than "
     "4 g in 24 hours.",
     [("An adult may take at most 4 g of paracetamol in 24 hours.", None),
      ("An adult may take at most 8 g of paracetamol in 24 hours.", "8 g"),
      ("Adults may take up to 4 g a day, and it is safe to double the dose for a fever.",
       "it is safe to double the dose for a fever")]),
    ("ibuprofen", "qa", "Can pregnant women take ibuprofen?",
     "Ibuprofen is contraindicated in the third trimester of pregnancy. Paracetamol is "
     "generally considered the first choice for pain relief during pregnancy.",
     [("Ibuprofen is contraindicated in the third trimester of pregnancy.", None),
      ("Yes, ibuprofen is safe throughout pregnancy.", "safe throughout pregnancy")]),
    ("work-permit", "qa", "When can asylum seekers apply for a work permit?",
     "Asylum seekers may apply for a work permit once their application has been pending for "
     "six months without a first decision.",
     [("They may apply once their application has been pending for six months without a "
       "decision.", None),
      ("They may apply for a work permit immediately after they arrive.",
       "immediately after they arrive")]),
    ("student-visa", "qa", "How many hours a week can students work?",
     "Students holding a student visa may work up to 20 hours per week during term time and "
     "full time during official holidays.",
     [("Students may work up to 20 hours per week during term time.", None),
      ("Students may work up to 30 hours per week during term time.", "30 hours"),
      ("Students may work 20 hours a week, and full time during holidays.", None)]),
    ("notice", "qa", "How much notice must an employer give after two years?",
     "After two years of employment the employer must give at least one month of notice. "
     "After five years the notice period is two months.",
     [("After two years the employer must give at least one month of notice.", None),
      ("After two years the employer must give three months of notice.", "three months")]),
    ("parental-leave", "qa", "How long is parental leave?",
     "Each parent is entitled to 16 weeks of paid parental leave, which can be taken until the "
     "child turns eight.",
     [("Each parent can take 16 weeks of paid leave until the child turns eight.", None),
      ("Each parent can take 26 weeks of paid leave until the child turns eight.", "26 weeks"),
      ("Each parent gets 16 weeks of paid leave, and unused weeks can be sold back to the "
       "employer.", "unused weeks can be sold back to the employer")]),
    ("savings", "qa", "What interest does the savings account pay?",
     "The easy-access savings account pays 2.1% interest a year, paid monthly. Withdrawals are "
     "free.",
     [("It pays 2.1% a year, paid monthly.", None),
      ("It pays 3.5% a year, paid monthly.", "3.5%")]),
    ("card-fees", "qa", "Is there a fee for paying abroad with the debit card?",
     "Card payments in euro are free everywhere in the euro area. Payments in other currencies "
     "cost 1.5% of the amount.",
     [("Payments in other currencies cost 1.5% of the amount.", None),
      ("Paying abroad is always free.", "always free")]),
    ("bridge", "summary", "",
     "The North Bridge reopened on Monday after three weeks of repairs. Buses run on their "
     "normal routes again. Cyclists must still use the temporary lane until Friday.",
     [("The North Bridge reopened on Monday after three weeks of repairs, and buses run "
       "normally again.", None),
      ("The North Bridge reopened on Wednesday after three weeks of repairs.", "Wednesday"),
      ("The bridge reopened on Monday; cyclists can use the main lane again.",
       "cyclists can use the main lane again")]),
    ("vaccination", "summary", "",
     "The clinic offers flu vaccinations on weekday mornings from October to December. "
     "Appointments are required for children under twelve.",
     [("Flu vaccinations are offered on weekday mornings from October to December.", None),
      ("Flu vaccinations are offered every evening from October to December.",
       "every evening")]),
    ("pension", "summary", "",
     "From next year the state pension age rises from 66 to 67 for people born after 1960. "
     "People born earlier are not affected.",
     [("The pension age rises to 67 for people born after 1960.", None),
      ("The pension age rises to 68 for everyone.", "68 for everyone")]),
    ("train", "data2text", "",
     '{"train": "IC 512", "from": "Utrecht", "to": "Groningen", "departs": "08:14", '
     '"platform": "5b", "status": "on time"}',
     [("Train IC 512 from Utrecht to Groningen departs at 08:14 from platform 5b and is on "
       "time.", None),
      ("Train IC 512 from Utrecht to Groningen departs at 08:41 from platform 5b.", "08:41")]),
    ("clinic", "data2text", "",
     '{"name": "Westside Health Centre", "opens": "08:00", "closes": "17:30", '
     '"walk_in": false, "phone": "020 555 0199"}',
     [("Westside Health Centre is open from 08:00 to 17:30; call 020 555 0199 for an "
       "appointment.", None),
      ("Westside Health Centre is open from 08:00 to 17:30 and accepts walk-in patients.",
       "accepts walk-in patients")]),
]  # fmt: skip


def rows() -> list[dict[str, object]]:
    out = []
    for source_id, task, question, context, answers in DOCS:
        for i, (answer, bad) in enumerate(answers):
            spans = []
            if bad is not None:
                start = answer.index(bad)
                spans = [[start, start + len(bad)]]
            out.append(
                {
                    "id": f"{source_id}-{i}",
                    "source": "guardrail-sample",
                    "task": task,
                    "question": question,
                    "context": context,
                    "answer": answer,
                    "label": int(bad is not None),
                    "spans": spans,
                    "meta": {"source_id": source_id},
                }
            )
    return out


def main() -> None:
    lines = [json.dumps(row, ensure_ascii=False) for row in rows()]
    (HERE / "sample.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} rows to {HERE / 'sample.jsonl'}")


if __name__ == "__main__":
    main()
