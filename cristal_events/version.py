"""The engine's version, written into every new campaign's header (``engine_version``).

A module of its own so that the service reads it without importing the package facade above it;
``cristal_events.__version__`` re-exports it. Keep it equal to ``version`` in pyproject.toml.
"""

__version__ = "0.1.0"
