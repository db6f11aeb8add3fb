"""The ``salience`` command line: a thin shell over :class:`salience.Memory`."""

from __future__ import annotations

from salience.cli import agent as _agent  # noqa: F401  (registers the commands)
from salience.cli import erase as _erase  # noqa: F401
from salience.cli import evaluation as _evaluation  # noqa: F401
from salience.cli import layers as _layers  # noqa: F401
from salience.cli import lifecycle as _lifecycle  # noqa: F401
from salience.cli import memories as _memories  # noqa: F401
from salience.cli import migrate as _migrate  # noqa: F401
from salience.cli import packs as _packs  # noqa: F401
from salience.cli import quarantine as _quarantine  # noqa: F401
from salience.cli import scoring as _scoring  # noqa: F401
from salience.cli import serve as _serve  # noqa: F401
from salience.cli import writes as _writes  # noqa: F401
from salience.cli.app import cli


def main() -> None:
    """Entry point of the ``salience`` console script."""
    cli(prog_name="salience")


__all__ = ["cli", "main"]
