"""Fine-tune the encoder verifier: ``python -m guardrail.training.encoder_train`` (same options).

Needs the ``encoder-train`` extra. See :mod:`guardrail.training.encoder_train` for the recipe.
"""

from guardrail.training.encoder_train import main

if __name__ == "__main__":
    raise SystemExit(main())
