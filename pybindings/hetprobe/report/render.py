"""A report written once and rendered twice: Markdown (images as files beside
it) and one self-contained HTML page (images inlined as data URIs)."""

from __future__ import annotations

import base64
import html
import math
import re
from pathlib import Path

import pandas as pd


def number(value: float) -> str:
    """A measured number as every part of a report writes it, so that one value reads the same in
    the headline, a table and summary.txt: 4 significant digits, whole numbers with thousands
    separators from 10,000 on; "" for a missing one."""
    if value is None or not math.isfinite(value):
        return ""
    from .. import _rules  # the compiled module: C++'s tables and verdicts write numbers by the same rule

    return _rules.number_text(float(value))


def _cell(value) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return number(value) if isinstance(value, float) else str(value)


def _inline_md_to_html(text: str) -> str:
    text = html.escape(text)
    text = re.sub(r"\*\*(.+?)\*\*", r"<strong>\1</strong>", text)
    return re.sub(r"`(.+?)`", r"<code>\1</code>", text)


class Document:
    def __init__(self, title: str, marks=None):
        self.title = title
        self.blocks: list[tuple] = []
        self.marks = marks  # the report's warning marks (notes.Marks), one numbering for every block

    def h2(self, text: str) -> None:
        self.blocks.append(("h2", text))

    def para(self, text: str) -> None:
        self.blocks.append(("p", text))

    def warn(self, text: str) -> None:
        self.blocks.append(("warn", text))

    def pre(self, text: str) -> None:
        self.blocks.append(("pre", text))

    def bullets(self, items: list[str]) -> None:
        self.blocks.append(("ul", list(items)))

    def table(self, frame: pd.DataFrame, index: bool = False) -> None:
        if index:
            frame = frame.reset_index()
        if isinstance(frame.columns, pd.MultiIndex):  # ("cpu-gpu-cpu", "median") -> "cpu-gpu-cpu median"
            frame = frame.set_axis([" ".join(str(p) for p in c if str(p)) for c in frame.columns], axis=1)
        self.blocks.append(("table", frame))

    def image(self, filename: str, caption: str) -> None:
        self.blocks.append(("img", filename, caption))

    def insert(self, at: int, other: Document) -> None:
        """Puts `other`'s blocks before block `at` (a section written last but read early)."""
        self.blocks[at:at] = other.blocks

    def markdown(self) -> str:
        out = [f"# {self.title}", ""]
        for kind, *rest in self.blocks:
            if kind == "h2":
                out += [f"## {rest[0]}", ""]
            elif kind == "p":
                out += [rest[0], ""]
            elif kind == "warn":
                out += [f"> **Note:** {rest[0]}", ""]
            elif kind == "pre":
                out += ["```", rest[0].rstrip(), "```", ""]
            elif kind == "ul":
                out += [f"- {item}" for item in rest[0]] + [""]
            elif kind == "table":
                frame = rest[0]
                out.append("| " + " | ".join(str(c) for c in frame.columns) + " |")
                out.append("|" + "---|" * len(frame.columns))
                for row in frame.itertuples(index=False):
                    out.append("| " + " | ".join(_cell(v).replace("|", "\\|") for v in row) + " |")
                out.append("")
            elif kind == "img":
                out += [f"![{rest[1]}]({rest[0]})", "", f"*{rest[1]}*", ""]
        return "\n".join(out)

    def html(self, directory: Path) -> str:
        body = [f"<h1>{html.escape(self.title)}</h1>"]
        for kind, *rest in self.blocks:
            if kind == "h2":
                body.append(f"<h2>{html.escape(rest[0])}</h2>")
            elif kind == "p":
                body.append(f"<p>{_inline_md_to_html(rest[0])}</p>")
            elif kind == "warn":
                body.append(f'<p class="warn"><strong>Note:</strong> {_inline_md_to_html(rest[0])}</p>')
            elif kind == "pre":
                body.append(f"<pre>{html.escape(rest[0])}</pre>")
            elif kind == "ul":
                body.append("<ul>" + "".join(f"<li>{_inline_md_to_html(i)}</li>" for i in rest[0]) + "</ul>")
            elif kind == "table":
                frame = rest[0].map(_cell) if len(rest[0]) else rest[0]
                body.append(frame.to_html(index=False, escape=True, border=0))
            elif kind == "img":
                data = base64.b64encode((Path(directory) / rest[0]).read_bytes()).decode()
                body.append(
                    f'<figure><img alt="{html.escape(rest[1])}" src="data:image/png;base64,{data}">'
                    f"<figcaption>{html.escape(rest[1])}</figcaption></figure>"
                )
        style = (
            "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}"
            "table{border-collapse:collapse;margin:1em 0;font-size:90%}td,th{padding:3px 8px;"
            "border-bottom:1px solid #ddd;text-align:right}th{background:#f4f4f4}"
            ".warn{background:#fff4d6;border-left:4px solid #e0a800;padding:.6em}"
            "img{max-width:100%}figcaption{font-style:italic;color:#555}pre{background:#f6f6f6;padding:.6em}"
        )
        return (
            f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(self.title)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
        )
