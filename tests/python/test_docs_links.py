"""The README is a front door and the docs hold together: every relative link in README.md,
CONTRIBUTING.md and docs/**/*.md names a file that exists and, with a #fragment, a heading of that
file (GitHub's anchors); no table cell is a wall of text; the README stays at 150 lines or fewer,
with its two commands in the first fenced block, within its first 30 lines. Needs no compiled code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO

README_MAX_LINES = 150
FIRST_COMMAND_BY_LINE = 30
TABLE_CELL_MAX_CHARS = 400  # longer, a cell wraps into a column of a few words: a subsection reads better

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
CODE_SPAN = re.compile(r"(`+)(.+?)\1")
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
REFERENCE_DEFINITION = re.compile(r"^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")
HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def documents() -> list[Path]:
    return [REPO / "README.md", REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").rglob("*.md"))]


def prose_lines(text: str):
    """(line number, line) of every line outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if m:
            if fence is None:
                fence = m.group(1)
                continue
            if m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
                continue
        if fence is None:
            yield number, line


def links(text: str):
    """(line number, target) of every Markdown link, image and reference definition outside code."""
    for number, line in prose_lines(text):
        line = CODE_SPAN.sub(lambda m: " " * len(m.group(0)), line)
        for m in INLINE_LINK.finditer(line):
            yield number, m.group(1)
        m = REFERENCE_DEFINITION.match(line)
        if m:
            yield number, m.group(1)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: its text as rendered, lower case, without punctuation but
    hyphens and underscores, each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link reads as its text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a reader can link to in a Markdown file: its headings' slugs (a repeated one
    numbered -1, -2, ... as GitHub does) and explicit <a name/id> anchors."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(document: Path, root: Path = REPO) -> list[str]:
    """Each relative link of a document that names no file under root or no anchor of it."""
    root, document = root.resolve(), document.resolve()
    broken = []
    for number, target in links(document.read_text(encoding="utf-8")):
        if not target or SCHEME.match(target) or target.startswith("//"):
            continue  # a web address: not checked here (no network in the tests)
        path_part, _, fragment = target.partition("#")
        where = f"{document.relative_to(root)}:{number}: {target}"
        resolved = (document.parent / path_part).resolve() if path_part else document
        if root not in resolved.parents and resolved != root:
            broken.append(f"{where}: outside the repository")
        elif not resolved.exists():
            broken.append(f"{where}: no such file")
        elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved):
            broken.append(f"{where}: no heading with the anchor #{fragment} in {resolved.relative_to(root)}")
    return broken


def long_table_cells(text: str, limit: int = TABLE_CELL_MAX_CHARS) -> list[str]:
    """Line number and length of each Markdown table cell over limit characters."""
    found = []
    for number, line in prose_lines(text):
        if line.lstrip().startswith("|"):
            cells = re.split(r"(?<!\\)\|", line.strip().strip("|"))
            found += [f"{number}: a cell of {len(c.strip())} characters" for c in cells if len(c.strip()) > limit]
    return found


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_table_cell_is_a_wall_of_text(document):
    long = long_table_cells(document.read_text(encoding="utf-8"))
    assert not long, f"{document.relative_to(REPO)}: make these a subsection per record:\n" + "\n".join(long)


def test_the_cell_check_sees_a_long_cell():
    table = f"| a | b |\n|---|---|\n| x | {'y' * 401} |\n| `p \\| q` | {'z' * 400} |\n"
    assert long_table_cells(table) == ["3: a cell of 401 characters"]


@pytest.mark.parametrize("document", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves(document):
    broken = broken_links(document)
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)


def test_the_checker_sees_a_broken_link_and_a_broken_anchor(tmp_path):
    (tmp_path / "a.md").write_text(
        "# Title `code`: one, two\n\n[ok](#title-code-one-two) [file](b.md) [gone](c.md) [bad](b.md#nope)\n"
        "```sh\n[not a link](x.md)\n```\n"
    )
    (tmp_path / "b.md").write_text("# B\n")
    broken = broken_links(tmp_path / "a.md", root=tmp_path)
    assert [b.split(": ", 2)[1] for b in broken] == ["c.md", "b.md#nope"], broken


def test_readme_is_a_front_door():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; at most {README_MAX_LINES}"
    first_fence = next((i for i, line in enumerate(lines, 1) if FENCE.match(line)), None)
    assert first_fence is not None, "README.md has no fenced block"
    assert first_fence <= FIRST_COMMAND_BY_LINE, (
        f"README.md's first fenced block starts at line {first_fence}; the commands belong in the first "
        f"{FIRST_COMMAND_BY_LINE} lines"
    )
    block = []
    for line in lines[first_fence:]:
        if FENCE.match(line):
            break
        block.append(line)
    commands = [line.split("#")[0].strip() for line in block]
    assert "bench/run_node.sh" in commands and "tests/run_all.sh" in commands, (
        "README.md's first fenced block is not the two commands:\n" + "\n".join(block)
    )
