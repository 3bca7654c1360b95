"""Reading the text files people hand to the table (configurations, rule files, chip exports, scenarios).

One function, `read_text`, so every command says the same thing about a file it
cannot use: missing, a directory, unreadable, or bytes that are not UTF-8 (then
the line and column of the first bad byte, and the `iconv` command that converts
a spreadsheet's Windows-1252 or Latin-1 export). A UTF-8 byte-order mark, which
spreadsheets write, is dropped.
"""

from __future__ import annotations

from pathlib import Path

from table_runtime.errors import TableError

# Windows-1252 decodes every byte a Latin-1 file holds as the same letters (é, à, ç, ...), and also "€" (0x80).
SPREADSHEET_ENCODING = "cp1252"


class InputFileError(TableError, ValueError):
    """A file that cannot be read as text; `path` names it, `line` the line of the first bad byte (or None)."""

    def __init__(self, path: Path, message: str, *, line: int | None = None, column: int | None = None) -> None:
        self.where = "" if line is None else f"line {line}, column {column}: " if column else f"line {line}: "
        super().__init__(f"{path}: {self.where}{message}")
        self.path = path
        self.line = line
        self.message = message


def read_text(path: str | Path) -> str:
    """The file's text, decoded as UTF-8; else `InputFileError` saying which file, line and column."""
    return decode_file(path)[0]


def decode_file(path: str | Path, *, fallback: str | None = None) -> tuple[str, str]:
    """(text, encoding): UTF-8 first, else `fallback` when given; else `InputFileError` saying where."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError as error:
        raise InputFileError(path, "is a directory, not a file") from error
    except OSError as error:
        raise InputFileError(path, f"cannot read: {error.strerror or error}") from error
    try:
        return data.decode("utf-8-sig"), "utf-8"
    except UnicodeDecodeError as error:
        if fallback is not None:
            try:
                return data.decode(fallback), fallback
            except UnicodeDecodeError:
                pass
        line_start = data.rfind(b"\n", 0, error.start) + 1
        line = data.count(b"\n", 0, error.start) + 1
        converted = path.with_name(f"{path.stem}-utf8{path.suffix}")
        raise InputFileError(
            path, f"byte 0x{data[error.start]:02x} is not UTF-8; convert the file, e.g. "
                  f"iconv -f WINDOWS-1252 -t UTF-8 {path} > {converted}",
            line=line, column=error.start - line_start + 1) from error
