"""Placeholder: command registration is filled in by its owner."""

import typer


def register(app: typer.Typer) -> None:
    """Add this module's commands to the root app."""
