"""``guardrail probe``: HalluVault-style metamorphic testing of a chatbot before it goes live.

Facts in (:mod:`~guardrail.probe.facts`), logically derived facts out of a real logic engine
(:mod:`~guardrail.probe.reasoning`, clingo), each with its derivation; questions with known
answers (:mod:`~guardrail.probe.questions`), asked in the paper's prompt
(:mod:`~guardrail.probe.prompt`) of an answer function (:mod:`~guardrail.probe.chatbot`);
replies read into triples by the judge (:mod:`~guardrail.probe.extract`) and classified by the
similarity oracles (:mod:`~guardrail.probe.oracles`); the run (:mod:`~guardrail.probe.run`),
its figures (:mod:`~guardrail.probe.report`) and HTML page (:mod:`~guardrail.probe.html`);
fact files proposed from documents (:mod:`~guardrail.probe.propose`); a scripted chatbot for
tests (:mod:`~guardrail.probe.scripted`).
"""
