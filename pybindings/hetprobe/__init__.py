"""hetprobe: CPU/GPU interference and notification probes (Python side, growing).

Results files are JSON Lines; their schema is docs/results-schema.md.
"""

__version__ = "0.1.0"
