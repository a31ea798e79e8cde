"""A local Ray instance for the ``--ray`` tests: started once for this package (Ray takes a
few seconds to start), two CPUs, no dashboard, on 127.0.0.1, shut down at the end."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType

import pytest

from tests.needs import unavailable


@pytest.fixture(scope="package")
def ray_cluster() -> Iterator[ModuleType]:
    try:
        import ray
    except ImportError:
        unavailable("ray", "ray is not installed (pip install -e '.[dev]')")
    started = not ray.is_initialized()
    if started:
        ray.init(
            address="local",  # a new instance, never another process's cluster
            num_cpus=2,
            include_dashboard=False,
            log_to_driver=False,
            object_store_memory=128 * 1024 * 1024,
            _node_ip_address="127.0.0.1",
        )
    yield ray
    if started:
        ray.shutdown()
