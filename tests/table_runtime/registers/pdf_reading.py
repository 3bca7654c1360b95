"""A register's PDF read back as a reader sees it: each page rasterised (its size, whether anything is printed on
it) and its text extracted, with pdfium (pypdfium2), a PDF engine apart from the one that wrote it."""

from __future__ import annotations

from dataclasses import dataclass

import pypdfium2

A4_POINTS = (595.28, 841.89)  # 210 x 297 mm


@dataclass(frozen=True, slots=True)
class Page:
    """One page: its size in points, the share of its pixels that are not white, and its text."""

    width: float
    height: float
    inked: float
    text: str


def pages(data: bytes) -> list[Page]:
    document = pypdfium2.PdfDocument(data)
    try:
        out = []
        for page in document:
            width, height = page.get_size()
            image = page.render(scale=1).to_pil().convert("L")
            histogram = image.histogram()
            inked = 1.0 - histogram[255] / sum(histogram)
            out.append(Page(width, height, inked, page.get_textpage().get_text_range()))
        return out
    finally:
        document.close()


def is_a4(page: Page, *, landscape: bool) -> bool:
    width, height = A4_POINTS[::-1] if landscape else A4_POINTS
    return abs(page.width - width) < 1 and abs(page.height - height) < 1


def words(text: str) -> str:
    """The text with its runs of white space as one space (a line break between cells is a space)."""
    return " ".join(text.split())
