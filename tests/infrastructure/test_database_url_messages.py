"""A database URL that cannot be used is named in its error with the password masked:
the message reaches stderr and the logs."""

import pytest

from infrastructure.database_url import DatabaseUrl, InvalidDatabaseUrl


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://tp:s3cretpw@127.0.0.1:1",
        "postgresql://tp:s3cretpw@127.0.0.1:notaport/tp",
        "mysql://tp:s3cretpw@127.0.0.1/tp",
    ],
)
def test_an_unusable_database_url_is_named_without_its_password(url: str) -> None:
    with pytest.raises(InvalidDatabaseUrl) as error:
        DatabaseUrl.parse(url)
    assert "s3cretpw" not in str(error.value)
    assert "tp:***@127.0.0.1" in str(error.value)
