"""python -m hetprobe ...: the same as the hetprobe command."""

from .cli import entry_point

entry_point()
