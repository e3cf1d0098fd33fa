"""The bootstrap admin's generated credentials are kept in a file only the service's user
can read, shown framed once the service listens, and gone after the admin's first sign-in."""

import stat
from pathlib import Path
from typing import Any

from api.operations.first_start import first_start_notice
from application.access.bootstrap import BOOTSTRAP_ADMIN_ID, BootstrapCredentials
from application.access.first_credentials import FirstCredentials
from infrastructure.settings import Settings

GENERATED = BootstrapCredentials("admin@tracepoint.local", "pw-123", "tok-456", generated=True)
URL = "http://127.0.0.1:8080"


def keeper(tmp_path: Path, **settings: Any) -> FirstCredentials:
    path = tmp_path / "var" / "bootstrap-admin.txt"
    return FirstCredentials(Settings(bootstrap_credentials_file=str(path), **settings))


def test_generated_credentials_are_kept_readable_by_the_owner_only(tmp_path: Path) -> None:
    kept = keeper(tmp_path)
    assert kept.keep(GENERATED) is None
    assert stat.S_IMODE(kept.path.stat().st_mode) == 0o600
    text = kept.path.read_text()
    assert "password: pw-123" in text
    assert "static token: tok-456" in text


def test_the_admins_first_sign_in_deletes_the_file(tmp_path: Path) -> None:
    kept = keeper(tmp_path)
    kept.keep(GENERATED)
    kept.signed_in("another-user")
    assert kept.waiting()
    kept.signed_in(BOOTSTRAP_ADMIN_ID)
    assert not kept.path.exists()


def test_a_password_set_in_the_environment_is_neither_written_nor_shown(tmp_path: Path) -> None:
    kept = keeper(tmp_path, admin_password="operators-own")
    given = BootstrapCredentials("admin@tracepoint.local", "operators-own", "tok-456", True)
    kept.keep(given)
    notice = first_start_notice(given, kept, None, URL)
    for text in (kept.path.read_text(), notice):
        assert "operators-own" not in text
        assert "(as set in TRACEPOINT_ADMIN_PASSWORD)" in text


def test_credentials_all_set_in_the_environment_leave_any_file_alone(tmp_path: Path) -> None:
    keeper(tmp_path).keep(GENERATED)
    fixed = keeper(tmp_path, admin_email="a@b.c", admin_password="p", admin_token="t")
    fixed.signed_in(BOOTSTRAP_ADMIN_ID)
    assert fixed.path.exists()
    assert not fixed.waiting()


def test_the_start_that_created_the_admin_shows_the_credentials_framed(tmp_path: Path) -> None:
    kept = keeper(tmp_path)
    notice = first_start_notice(GENERATED, kept, kept.keep(GENERATED), URL)
    lines = notice.splitlines()
    assert lines[0] == lines[-1]
    assert set(lines[0]) == {"+", "-"}
    assert all(line.startswith("| ") and line.endswith(" |") for line in lines[1:-1])
    assert len({len(line) for line in lines}) == 1
    assert any("pw-123" in line for line in lines)
    assert str(kept.path) in notice


def test_a_later_start_names_the_file_without_the_password(tmp_path: Path) -> None:
    kept = keeper(tmp_path)
    kept.keep(GENERATED)
    notice = first_start_notice(None, kept, None, URL)
    assert str(kept.path) in notice
    assert "pw-123" not in notice


def test_after_the_first_sign_in_a_start_shows_nothing(tmp_path: Path) -> None:
    assert first_start_notice(None, keeper(tmp_path), None, URL) == ""


def test_credentials_that_could_not_be_kept_are_shown_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "var").write_text("a file where the folder should be")
    kept = keeper(tmp_path)
    error = kept.keep(GENERATED)
    assert error is not None
    notice = first_start_notice(GENERATED, kept, error, URL)
    assert "could NOT be kept" in notice
    assert "pw-123" in notice
