"""The shell examples of a Markdown file, and one bash script that runs them in order.

See tests/test_docs_examples.py for the convention the documentation follows.
"""

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

#: Fence languages whose blocks are shell examples.
SHELL_LANGUAGES = frozenset({"sh", "bash", "shell", "console"})
#: Written on the line before a fence, this keeps its block out of the run.
NOT_RUN = re.compile(r"^<!--\s*not run:\s*\S.*-->$")
#: The address examples use; the test substitutes the one of the service it started.
DOCUMENTED_ADDRESS = "127.0.0.1:8080"
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>```+|~~~+)\s*(?P<language>[\w+-]*)")
_MARK = "@@docs-example@@"


@dataclass(frozen=True)
class Example:
    """One shell block: where it starts (the fence's line) and the commands it holds."""

    file: str
    line: int
    source: str
    run: bool

    @property
    def place(self) -> str:
        return f"{self.file}:{self.line}"


def examples(path: Path, name: str) -> list[Example]:
    """Every shell block of the Markdown file at `path`, named `name` in reports."""
    found: list[Example] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    index = 0
    previous = ""
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            if lines[index].strip():
                previous = lines[index].strip()
            index += 1
            continue
        indent, fence, language = opening.group("indent", "fence", "language")
        body: list[str] = []
        end = index + 1
        while end < len(lines) and not lines[end].strip().startswith(fence):
            body.append(lines[end].removeprefix(indent))
            end += 1
        if language in SHELL_LANGUAGES:
            text = _console_commands(body) if language == "console" else "\n".join(body)
            found.append(Example(name, index + 1, text, run=not NOT_RUN.match(previous)))
        previous = ""
        index = end + 1
    return found


def _console_commands(body: list[str]) -> str:
    """The commands of a console session: `$ ` lines and their `\\` continuations."""
    commands: list[str] = []
    continued = False
    for line in body:
        if continued or line.startswith("$ "):
            commands.append(line if continued else line[2:])
            continued = line.endswith("\\")
    return "\n".join(commands)


def script(blocks: list[Example], address: str) -> str:
    """A bash script running `blocks` in order, each announced by a mark in the output."""
    parts = ["set -euo pipefail"]
    for block in blocks:
        parts.append(f"printf '\\n%s %s\\n' {_MARK} {shlex.quote(block.place)}")
        parts.append(block.source.replace(DOCUMENTED_ADDRESS, address))
    parts.append(f"printf '\\n%s done\\n' {_MARK}")
    return "\n".join(parts) + "\n"


def last_started(output: str) -> tuple[str | None, str]:
    """The place of the last block the output announces, and what it printed since."""
    place = None
    rest = output
    for match in re.finditer(rf"^{re.escape(_MARK)} (\S+)$", output, flags=re.MULTILINE):
        place, rest = match.group(1), output[match.end() :]
    return (None if place == "done" else place), rest.strip("\n")
