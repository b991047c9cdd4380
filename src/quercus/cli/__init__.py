"""The ``quercus`` command: a thin argparse front end over the public API."""

from __future__ import annotations

import argparse
import sys

from .. import __version__
from ..data.errors import DataError
from .demo import run_demo


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="quercus", description="Decision trees: ID3, C4.5, CART and forests."
    )
    parser.add_argument("--version", action="version", version=f"quercus {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("demo", help="the lecture data sets, worked through")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    try:
        if args.command == "demo":
            return run_demo(sys.stdout)
    except (DataError, OSError) as exc:
        if args.debug:
            raise
        print(f"quercus: error: {exc}", file=sys.stderr)
        return 1
    parser.error(f"unknown command {args.command!r}")
    return 2
