"""The package version, in one place (the top package and the telemetry scope read it)."""

__version__ = "0.1.0"
