"""Propose fact triples from a folder of documents, for a person to review before probing.

Every sentence of every ``.md``, ``.txt`` and ``.rst`` file under the folder goes to the judge's
``triples`` task (:mod:`~guardrail.probe.extract`: the offline extractor for ``local``, else
the LLM), in batches. Each triple becomes a proposed fact, commented with the file and line of
its sentence; each relation the catalogue (``--relations``) does not know gets a guessed entry
— its phrasing type and negation read off the words, ``symmetric``/``transitive``/``inverse``
left for the reviewer. The output is a fact file :func:`~guardrail.probe.facts.load_facts`
reads as it is.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from guardrail.exceptions import ConfigError
from guardrail.probe.extract import Key, TripleExtractor
from guardrail.probe.facts import Relation, RelationType
from guardrail.text.sentences import split_sentences

SUFFIXES = (".md", ".txt", ".rst")
BATCH = 20
_MODALS = {"may", "can", "must", "should", "will", "might", "could", "would"}
_STATES = {"open", "closed", "free", "available", "eligible", "safe", "unsafe", "allowed", "able"}
_MARKUP = re.compile(r"^\s*(?:#+\s|[-*+]\s+|\d+[.)]\s+|>\s*)")


@dataclass(frozen=True)
class Sentence:
    text: str
    source: str  # file:line


@dataclass
class Proposal:
    """Proposed facts (each with the sentence it came from) and the relations they use."""

    facts: list[tuple[Key, Sentence]] = field(default_factory=list)
    relations: dict[str, Relation] = field(default_factory=dict)
    sentences: int = 0
    files: int = 0


def read_documents(folder: Path) -> tuple[list[Sentence], int]:
    """The sentences of the folder's documents (headings skipped), and how many files."""
    if not folder.is_dir():
        raise ConfigError(f"{folder}: not a folder of documents")
    files = sorted(p for p in folder.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file())
    if not files:
        raise ConfigError(f"{folder}: no {', '.join(SUFFIXES)} files")
    out: list[Sentence] = []
    for path in files:
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: cannot read ({exc})") from None
        for number, line in enumerate(lines, start=1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            text = _MARKUP.sub("", line)
            for start, end in split_sentences(text, rules="prose"):
                out.append(Sentence(text[start:end], f"{path.relative_to(folder)}:{number}"))
    return out, len(files)


def guess_relation(name: str) -> Relation:
    """A catalogue entry for a relation the extractor named (``may_apply_for``,
    ``contraindicated_in``, ``not_allowed_to``): phrasing type and negation from its words."""
    words = name.replace("_", " ").split()
    if words and words[0] == "not":
        rest = " ".join(words[1:]) or "related to"
        return Relation(type="passive", phrase=" ".join(words), negation=rest)
    phrase = " ".join(words) or "related to"
    head = words[0] if words else ""
    kind: RelationType = "active"
    if head in _MODALS:
        rest = " ".join(words[1:])
        negation = f"cannot {rest}" if head == "can" else f"{head} not {rest}"
    elif head in ("has", "have"):
        negation = "does not have " + " ".join(words[1:])
    elif head.endswith(("ed", "en")) or head in _STATES or head in ("a", "an", "part"):
        kind, negation = "passive", f"not {phrase}"
    elif head.endswith("s") and not head.endswith("ss"):
        negation = f"does not {head[:-1]} {' '.join(words[1:])}".strip()
    else:
        negation = f"not {phrase}"
    return Relation(type=kind, phrase=phrase, negation=negation.strip())


def _name(relation: str) -> str:
    """A catalogue key for an extracted relation (``not allowed_to`` -> ``not_allowed_to``)."""
    return re.sub(r"\W+", "_", relation.strip().lower()).strip("_") or "related_to"


async def propose(
    folder: Path, extractor: TripleExtractor, known: Mapping[str, Relation] | None = None
) -> Proposal:
    """Read the folder and propose every triple the judge finds (no repeats)."""
    sentences, files = read_documents(folder)
    proposal = Proposal(relations=dict(known or {}), sentences=len(sentences), files=files)
    seen: set[Key] = set()
    for first in range(0, len(sentences), BATCH):
        batch = sentences[first : first + BATCH]
        found = await extractor.extract([s.text for s in batch])
        for sentence, triples in zip(batch, found, strict=True):
            for s, r, o in triples:
                name = r if r in proposal.relations else _name(r)
                if name not in proposal.relations:
                    proposal.relations[name] = guess_relation(name)
                key = (s, name, o)
                if key not in seen:
                    seen.add(key)
                    proposal.facts.append((key, sentence))
    return proposal


def _flow(value: object) -> str:
    """``value`` as one line of YAML (a scalar quoted when YAML needs it)."""
    text = yaml.safe_dump([value], default_flow_style=True, width=10**6, allow_unicode=True)
    return text.strip()[1:-1]


def write_proposal(proposal: Proposal, *, folder: Path, judge: str) -> str:
    """The proposal as a fact file, commented for review."""
    lines = [
        f"# Proposed by `guardrail propose-facts` from {folder} ({proposal.files} files, "
        f"{proposal.sentences} sentences) with the {judge} judge.",
        "# REVIEW BEFORE USE: delete wrong or trivial facts, fix wordings, and set each relation's",
        "# symmetric / transitive / inverse (the proposal leaves them false / null).",
        "relations:",
    ]
    used = {name for (_, name, _), _ in proposal.facts}
    for name, rel in proposal.relations.items():
        note = "" if name in used else "  # from the catalogue, unused here"
        lines.append(f"  {_flow(name)}:{note}")
        body = rel.model_dump(exclude_defaults=False)
        for key in ("type", "phrase", "negation", "symmetric", "transitive", "inverse"):
            lines.append(f"    {key}: {_flow(body[key])}")
        if rel.synonyms:
            lines.append(f"    synonyms: {_flow(rel.synonyms)}")
    lines.append("facts:")
    for triple, sentence in proposal.facts:
        said = " ".join(sentence.text.split())
        lines.append(f"  # {sentence.source}: {said}")
        lines.append(f"  - {_flow(list(triple))}")
    return "\n".join(lines) + "\n"
