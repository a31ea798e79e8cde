"""The HTTP service and the review web page (needs the ``server`` extra).

``create_app(checker=..., queue=..., api_key=..., reviewer_tokens=...)`` returns a new FastAPI
app; ``guardrail serve`` runs one with uvicorn. Nothing here is built at import time.
"""

from guardrail.server.app import Checker, create_app
from guardrail.server.auth import LoginThrottle

__all__ = ["Checker", "LoginThrottle", "create_app"]
