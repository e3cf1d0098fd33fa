"""What a start checks before it builds anything: the port and the database. Each failure
is one line that names what to fix (the password of a database URL masked)."""

import socket
from pathlib import Path

import pytest

from infrastructure.database_check import DatabaseUnreachable, check_database
from infrastructure.database_url import masked_url
from infrastructure.listeners import PortInUse, bind_listeners
from infrastructure.settings import Settings
from tests.conftest import SERVER_URL
from tests.services import free_port


def test_the_default_public_url_follows_host_and_port() -> None:
    assert Settings(host="tp.example.com", port=9000).public_url == "http://tp.example.com:9000"


@pytest.mark.parametrize(
    ("host", "url"),
    [
        ("0.0.0.0", "http://127.0.0.1:9000"),
        ("::", "http://[::1]:9000"),
        ("", "http://127.0.0.1:9000"),
    ],
)
def test_a_wildcard_host_gives_a_loopback_public_url(host: str, url: str) -> None:
    assert Settings(host=host, port=9000).public_url == url


def test_an_ipv6_host_is_bracketed_in_the_public_url() -> None:
    assert Settings(host="::1", port=9000).public_url == "http://[::1]:9000"


def test_a_set_public_url_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PUBLIC_URL", "https://trace.example.com")
    assert Settings(port=9000).public_url == "https://trace.example.com"


def test_a_busy_port_is_one_line_naming_the_setting() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PortInUse) as error:
            bind_listeners("127.0.0.1", port)
    message = str(error.value)
    assert message.startswith(f"port {port} is in use")
    assert "TRACEPOINT_PORT" in message
    assert "\n" not in message


def test_a_free_port_is_bound_before_the_service_starts() -> None:
    port = free_port()
    [sock] = bind_listeners("127.0.0.1", port)
    try:
        assert sock.getsockname() == ("127.0.0.1", port)
        with pytest.raises(PortInUse):
            bind_listeners("127.0.0.1", port)
    finally:
        sock.close()


def test_a_host_not_of_this_machine_names_the_host_setting() -> None:
    with pytest.raises(PortInUse, match="TRACEPOINT_HOST"):
        bind_listeners("192.0.2.1", free_port())  # TEST-NET-1: never an address of ours


def test_the_password_of_a_database_url_is_masked() -> None:
    assert masked_url("postgresql://tp:s3cret@db:5432/tp") == "postgresql://tp:***@db:5432/tp"
    assert masked_url("postgresql://tp@db/tp") == "postgresql://tp@db/tp"


def test_a_closed_postgresql_port_names_the_masked_url_and_the_fix() -> None:
    url = f"postgresql://postgres:s3cret@127.0.0.1:{free_port()}/tp"
    with pytest.raises(DatabaseUnreachable) as error:
        check_database(url)
    message = str(error.value)
    assert "postgresql://postgres:***@127.0.0.1:" in message
    assert "s3cret" not in message
    assert "start PostgreSQL" in message
    assert "\n" not in message


def test_a_missing_postgresql_database_names_how_to_create_it() -> None:
    server = SERVER_URL.rsplit("/", 1)[0]
    try:
        check_database(SERVER_URL)
    except DatabaseUnreachable:
        pytest.skip("no PostgreSQL answers")
    with pytest.raises(DatabaseUnreachable, match=r"createdb .* tracepoint_no_such_db"):
        check_database(f"{server}/tracepoint_no_such_db")


def test_a_sqlite_file_that_is_no_database_is_named(tmp_path: Path) -> None:
    (tmp_path / "notes.db").write_text("not a database " * 100)
    with pytest.raises(DatabaseUnreachable, match="is it a SQLite file"):
        check_database(f"sqlite:///{tmp_path / 'notes.db'}")


def test_a_sqlite_folder_that_cannot_be_written_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As root every folder is writable: the check's view of the permissions is stood in.
    monkeypatch.setattr("os.access", lambda path, mode: False)
    with pytest.raises(DatabaseUnreachable, match="not writable") as error:
        check_database(f"sqlite:///{tmp_path / 'tp.db'}")
    assert str(tmp_path) in str(error.value)


def test_a_sqlite_database_in_a_writable_folder_passes(tmp_path: Path) -> None:
    check_database(f"sqlite:///{tmp_path / 'var' / 'tp.db'}")


def test_a_url_of_no_supported_database_names_the_setting() -> None:
    with pytest.raises(DatabaseUnreachable, match="TRACEPOINT_DATABASE_URL"):
        check_database("mysql://db/tp")
