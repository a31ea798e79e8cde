"""The shared login throttle on both review-database backends: the per-network, per-reviewer
and service-wide counts are the same SQL on SQLite and PostgreSQL."""

from __future__ import annotations

from guardrail.server.throttle import SharedLoginThrottle


class _Clock:
    now = 5_000.0

    def __call__(self) -> float:
        return self.now


def test_every_budget_holds_on_the_backend(store):
    clock = _Clock()
    throttle = SharedLoginThrottle(
        store.db, max_failures=3, max_reviewer_failures=2, max_global_failures=6, clock=clock
    )
    # Two failures naming alice from two networks spend her budget, not the networks'.
    assert throttle.attempt("10.1.0.0/24", "alice") is None
    assert throttle.attempt("10.2.0.0/24", "alice") is None
    assert throttle.attempt("10.3.0.0/24", "alice") is not None
    # One network's own budget: three failures, then it waits.
    for _ in range(3):
        assert throttle.attempt("10.4.0.0/24") is None
    assert throttle.retry_after("10.4.0.0/24") is not None
    # Five failures so far (alice's refused try is not one); a sixth spends the service's.
    assert throttle.attempt("10.5.0.0/24", "bob") is None
    assert throttle.attempt("10.6.0.0/24") is not None
    clock.now += 301  # the window passes: everyone may try again
    assert throttle.attempt("10.6.0.0/24", "alice") is None
