"""The report of a run directory (`hetprobe report DIR`, and characterize at the end of a run): write
writes report.md, report.html, its plots and summary.txt; the headline numbers (headline, with the
interference rows of interference_headline, the numbers written as texts says), the sections (node,
notify and clock: sections; interference; every GPU: gpus), the warnings and their marks (notes),
the interference steps as parts (parts) and the Markdown and HTML themselves (render)."""
