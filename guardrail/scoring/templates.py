"""Prompt templates as versioned data files.

A prompt set is a folder with ``manifest.json`` and one ``.txt`` per task, using
``${variable}`` placeholders (:class:`string.Template`). The package ships
``prompts/metarag_v1`` (MetaRAG Appendix A). Users override a set with their own folder
(:meth:`PromptSet.from_dir`) or single templates (:meth:`PromptSet.with_overrides`).
"""

from __future__ import annotations

import json
import string
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from guardrail.exceptions import ConfigError

_PROMPTS = "guardrail.scoring"


@dataclass(frozen=True)
class PromptSet:
    """Named templates, e.g. ``{"decompose": "...", "verify": "..."}``."""

    name: str
    version: str
    templates: dict[str, str] = field(default_factory=dict)

    @classmethod
    def builtin(cls, name: str = "metarag_v1") -> PromptSet:
        root = resources.files(_PROMPTS).joinpath("prompts").joinpath(name)
        if not root.joinpath("manifest.json").is_file():
            raise ConfigError(f"no built-in prompt set named {name!r}")
        manifest = json.loads(root.joinpath("manifest.json").read_text(encoding="utf-8"))
        texts = {
            task: root.joinpath(spec["file"]).read_text(encoding="utf-8")
            for task, spec in manifest["templates"].items()
        }
        return cls(name=manifest["name"], version=str(manifest["version"]), templates=texts)

    @classmethod
    def from_dir(cls, path: str | Path) -> PromptSet:
        root = Path(path)
        manifest_path = root / "manifest.json"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            texts = {
                task: (root / spec["file"]).read_text(encoding="utf-8")
                for task, spec in manifest["templates"].items()
            }
        except (OSError, KeyError, TypeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{manifest_path}: not a prompt set ({exc})") from exc
        return cls(
            name=str(manifest.get("name", root.name)),
            version=str(manifest.get("version", "custom")),
            templates=texts,
        )

    def with_overrides(self, **templates: str) -> PromptSet:
        merged = {**self.templates, **templates}
        return replace(self, version=f"{self.version}+custom", templates=merged)

    def render(self, task: str, **values: Any) -> str:
        try:
            template = self.templates[task]
        except KeyError:
            raise ConfigError(f"prompt set {self.name!r} has no template for {task!r}") from None
        try:
            return string.Template(template).substitute({k: str(v) for k, v in values.items()})
        except KeyError as exc:
            raise ConfigError(
                f"prompt {self.name}/{task} needs variable {exc.args[0]!r}, not given"
            ) from None
        except ValueError as exc:
            raise ConfigError(f"prompt {self.name}/{task} is malformed: {exc}") from None
