"""Benchmarks: each module prints a table and writes JSON; run one as ``python -m benchmarks.NAME``.

Shared plumbing (repository root, data root, the results writer) lives in
:mod:`benchmarks._common`.
"""
