"""How the shell examples are read from Markdown (tests/test_docs_examples.py runs them)."""

import subprocess
from dataclasses import replace
from pathlib import Path

from tests.markdown_examples import Example, examples, last_started, script

DOCUMENT = """# Title

```sh
TOKEN=abc
```

<!-- not run: needs a partner server -->
```bash
make run
```

```json
{"not": "shell"}
```

- In a list:
  ```console
  $ echo "$TOKEN" \\
      more
  abc more
  ```
"""


def _examples(tmp_path: Path) -> list[Example]:
    path = tmp_path / "doc.md"
    path.write_text(DOCUMENT)
    return examples(path, "doc.md")


def test_shell_blocks_are_found_with_the_line_of_their_fence(tmp_path: Path) -> None:
    found = _examples(tmp_path)
    assert [(e.place, e.run) for e in found] == [
        ("doc.md:3", True),
        ("doc.md:8", False),
        ("doc.md:17", True),
    ]


def test_a_console_block_runs_its_prompted_commands_not_their_output(tmp_path: Path) -> None:
    console = _examples(tmp_path)[2]
    assert console.source == 'echo "$TOKEN" \\\n    more'


def test_the_documented_address_becomes_the_test_service_address(tmp_path: Path) -> None:
    block = replace(_examples(tmp_path)[0], source="curl http://127.0.0.1:8080/x")
    assert "curl http://127.0.0.1:4321/x" in script([block], "127.0.0.1:4321")


def test_a_failing_block_is_named_with_what_it_printed(tmp_path: Path) -> None:
    blocks = [e for e in _examples(tmp_path) if e.run]
    failing = replace(blocks[1], line=30, source="echo partial\nfalse\necho never")
    result = subprocess.run(
        ["bash", "-c", script([blocks[0], failing], "127.0.0.1:1")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode != 0
    assert last_started(result.stdout) == ("doc.md:30", "partial")


def test_blocks_that_all_ran_name_no_failure(tmp_path: Path) -> None:
    blocks = [e for e in _examples(tmp_path) if e.run]
    result = subprocess.run(
        ["bash", "-c", script(blocks, "127.0.0.1:1")], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0
    assert last_started(result.stdout)[0] is None
