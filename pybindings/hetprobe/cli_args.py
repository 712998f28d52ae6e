"""The Python subcommands' argument parsing: argparse, with an option's value that starts with "-"
taken as its value. argparse reads ``--tolerance -5%`` or ``--interference-args '--no-host-stream'``
as two options and says only "expected one argument"; given to the option, the value gets the
option's own check and its message (exit 2)."""

from __future__ import annotations

import argparse


def dash_values(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """`argv` with ``--option VALUE`` written ``--option=VALUE`` where the option takes one value and the
    value starts with "-" (everything after a lone ``--`` is left as it is)."""
    takes_one = {
        name
        for action in parser._actions  # argparse keeps its actions there; they are read, never changed
        if isinstance(action, argparse._StoreAction) and action.nargs is None
        for name in action.option_strings
        if name.startswith("--")
    }
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return out + argv[i:]
        if word in takes_one and i + 1 < len(argv) and argv[i + 1].startswith("-") and argv[i + 1] != "--":
            out.append(f"{word}={argv[i + 1]}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


def parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """parser.parse_args, each option's value that starts with "-" given to the option (dash_values)."""
    return parser.parse_args(dash_values(parser, argv))
