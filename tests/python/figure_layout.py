"""What a reader sees of a matplotlib Figure, measured on the rendered canvas (display pixels): where the
data is drawn, what a legend covers, what an axes' edge cuts off, and how large the text is once the PNG
is shown on report.html's page. The figure tests assert on these, not on how a plot was coded."""

from __future__ import annotations

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.legend import Legend
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from matplotlib.transforms import Bbox

# report/render.py: the page's body is at most 1100 px wide and an image at most as wide as the page, so a
# wider PNG is shrunk, its text with it.
PAGE_PX = 1100
# The smallest text height (px, as shown on that page) that still reads without zooming.
MIN_TEXT_PX = 9.0


def _renderer(fig):
    """The figure drawn on an Agg canvas (hetprobe's figures are built without pyplot, so without one)."""
    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    return fig.canvas.get_renderer()


def _px(box: Bbox) -> str:
    return f"x {box.x0:.0f}-{box.x1:.0f}, y {box.y0:.0f}-{box.y1:.0f} px"


def _on_data(artist, ax) -> bool:
    """Whether the artist is placed in data coordinates (a reference line at y=1 or a shaded band spans
    the axes in axes coordinates: a legend may sit over those)."""
    return artist.get_transform().contains_branch(ax.transData)


def _marker_px(line: Line2D, fig) -> float:
    return line.get_markersize() * fig.dpi / 72 / 2


def data_points(ax) -> list[tuple[float, float, float]]:
    """(x, y, radius) in display pixels of every data point an axes draws: line vertices (with their
    marker's radius), scatter offsets and error-bar ends."""
    fig = ax.figure
    out = []
    for line in ax.lines:
        if not line.get_visible() or not _on_data(line, ax):
            continue
        xy = np.column_stack([line.get_xdata(orig=False), line.get_ydata(orig=False)]).astype(float)
        xy = xy[np.isfinite(xy).all(axis=1)]
        if not len(xy):
            continue
        has_marker = line.get_marker() not in (None, "", " ", "None", "none")
        radius = _marker_px(line, fig) if has_marker else 0.0
        out += [(x, y, radius) for x, y in line.get_transform().transform(xy)]
    for coll in ax.collections:
        if not coll.get_visible():
            continue
        if isinstance(coll, LineCollection):  # error bars
            for seg in coll.get_segments():
                for x, y in coll.get_transform().transform(np.asarray(seg, dtype=float)):
                    out.append((x, y, 0.0))
        elif isinstance(coll, PathCollection):  # scatter
            for x, y in coll.get_offset_transform().transform(coll.get_offsets()):
                out.append((x, y, 0.0))
    return out


def bars(ax, r=None) -> list[Bbox]:
    """The display extents of the bars an axes draws (Rectangles in data coordinates; a histogram's too)."""
    r = r or _renderer(ax.figure)
    return [
        p.get_window_extent(r) for p in ax.patches if isinstance(p, Rectangle) and p.get_visible() and _on_data(p, ax)
    ]


def shapes(ax, r) -> list[Bbox]:
    """The display extents of every patch an axes draws in data coordinates: bars, boxes of a box plot; each
    as drawn, cut at the axes' edge where it is clipped there (a histogram's bar on a log axis starts at 0,
    -inf on the canvas: only the part inside its axes is seen)."""
    out = []
    for p in ax.patches:
        if p.get_visible() and _on_data(p, ax):
            box = p.get_window_extent(r)
            box = Bbox.intersection(box, ax.get_window_extent(r)) if p.get_clip_on() else box
            if box is not None:
                out.append(box)
    return out


def legends(fig) -> list[Legend]:
    found = [ax.get_legend() for ax in fig.axes] + list(fig.legends)
    return [lg for lg in found if lg is not None and lg.get_visible()]


def legend_overlaps(fig) -> list[str]:
    """What every legend of the figure covers: data points, bars and boxes of any of its axes, as text."""
    r = _renderer(fig)
    out = []
    for lg in legends(fig):
        box = lg.get_window_extent(r)
        for i, ax in enumerate(fig.axes):
            for x, y, rad in data_points(ax):
                if box.x0 - rad < x < box.x1 + rad and box.y0 - rad < y < box.y1 + rad:
                    out.append(f"legend over a point of axes {i} at ({x:.0f}, {y:.0f}) px")
            for b in shapes(ax, r):
                if b.width > 0 and b.height > 0 and box.overlaps(b):
                    out.append(f"legend over a bar or box of axes {i} at {_px(b)}")
    return out


def clipped(fig, tolerance: float = 0.5) -> list[str]:
    """Data points that the axes edge cuts (their marker partly outside the axes), as text. A point
    wholly outside the axes is not drawn at all, and not listed."""
    r = _renderer(fig)
    out = []
    for i, ax in enumerate(fig.axes):
        if not ax.get_visible():
            continue
        box = ax.get_window_extent(r)
        for x, y, rad in data_points(ax):
            near = box.x0 - rad <= x <= box.x1 + rad and box.y0 - rad <= y <= box.y1 + rad
            inside = (
                box.x0 - tolerance <= x - rad
                and x + rad <= box.x1 + tolerance
                and box.y0 - tolerance <= y - rad
                and y + rad <= box.y1 + tolerance
            )
            if near and not inside and rad > 0:
                out.append(f"axes {i}: a point at ({x:.0f}, {y:.0f}) px cut by its edge {_px(box)}")
    return out


def rows_cut(ax, tolerance: float = 0.5) -> list[str]:
    """Horizontal bars (one per row) whose height the top or bottom edge of the axes cuts, as text."""
    r = _renderer(ax.figure)
    box = ax.get_window_extent(r)
    return [
        f"a bar at {_px(b)} past the top or bottom edge of the axes at {_px(box)}"
        for b in bars(ax, r)
        if b.y0 < box.y0 - tolerance or b.y1 > box.y1 + tolerance
    ]


def text_px(fig, width_px: float, dpi: float) -> list[tuple[float, str]]:
    """(height in px as shown on the report's page, text) of every visible text of the figure, saved as a
    PNG `width_px` wide at `dpi`."""
    shrink = min(1.0, PAGE_PX / width_px)
    _renderer(fig)
    out = []
    for t in fig.findobj(Text):
        shown = t.get_visible() and t.get_text().strip() and (t.axes is None or t.axes.get_visible())
        if shown:
            out.append((t.get_fontsize() * dpi / 72 * shrink, t.get_text()))
    return out


def small_text(fig, width_px: float, dpi: float) -> list[str]:
    """The texts under MIN_TEXT_PX on the report's page, as text."""
    return [f"{px:.1f} px: {text!r}" for px, text in text_px(fig, width_px, dpi) if px < MIN_TEXT_PX]
