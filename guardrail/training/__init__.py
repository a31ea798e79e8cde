"""Training recipes for the shipped models (offline verifier, word-level localizer).

Nothing here runs at scoring time, and no runtime module imports this package (pinned by
``tests/test_import_graph.py``): only ``scripts/``, ``benchmarks/`` and the tests do. The
recipes need scikit-learn and numpy.
"""
