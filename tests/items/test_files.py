"""`/files` and `/assets`: uploads, downloads, metadata, folders, deletes, permissions and
the size limit, on both databases."""

import uuid
from pathlib import Path
from typing import Any

import orjson
import pytest
from aiohttp import FormData

from infrastructure.settings import Settings
from tests.access.helpers import Client, call, code, ok, user_with
from tests.conftest import AUTH, make_settings

LIMIT = 64 * 1024
PDF = b"%PDF-1.4\n" + bytes(range(256)) * 40


@pytest.fixture
def uploads(tmp_path: Path) -> Path:
    return tmp_path / "uploads"


@pytest.fixture
def settings(database_url: str, uploads: Path) -> Settings:
    """The service with its uploads under the test's directory and a small size limit."""
    return make_settings(database_url, uploads_dir=str(uploads), max_upload_bytes=LIMIT)


def form(*parts: tuple[str, Any], **files: tuple[str, bytes, str | None]) -> FormData:
    """Fields first, then files (name -> (filename, bytes, content type))."""
    data = FormData()
    for name, value in parts:
        data.add_field(name, value if isinstance(value, str) else orjson.dumps(value).decode())
    for name, (filename, content, content_type) in files.items():
        data.add_field(name, content, filename=filename, content_type=content_type)
    return data


async def send(
    client: Client,
    method: str,
    path: str,
    data: FormData,
    *,
    token: str | None = None,
    params: dict[str, str] | None = None,
) -> tuple[int, Any]:
    """A multipart request (as the admin unless a token is given): status and JSON body."""
    headers = AUTH if token is None else {"Authorization": f"Bearer {token}"}
    response = await client.request(method, path, data=data, headers=headers, params=params)
    raw = await response.read()
    return response.status, (orjson.loads(raw) if raw else None)


async def upload(client: Client, content: bytes = PDF, name: str = "report.pdf", **kw: Any) -> Any:
    """Upload one file as the admin; its item."""
    fields = [(k, v) for k, v in kw.items() if k not in ("token", "content_type")]
    data = form(*fields, file=(name, content, kw.get("content_type", "application/pdf")))
    status, body = await send(client, "POST", "/files", data, token=kw.get("token"))
    assert status == 200, body
    return body["data"]


def stored(uploads: Path) -> list[str]:
    """The names in the upload directory (temporary files included)."""
    return sorted(p.name for p in uploads.iterdir()) if uploads.exists() else []


async def test_an_upload_reads_back_and_downloads_byte_for_byte(
    client: Client, uploads: Path
) -> None:
    me = await ok(client, "GET", "/users/me")
    item = await upload(client, title="Q3 report", tags=["finance", "q3"])
    assert item["title"] == "Q3 report"
    assert item["tags"] == ["finance", "q3"]
    assert item["type"] == "application/pdf"
    assert item["filesize"] == len(PDF)
    assert item["filename_download"] == "report.pdf"
    assert item["filename_disk"] == item["id"] + ".pdf"
    assert item["storage"] == "local"
    assert item["uploaded_by"] == me["id"]
    assert item["uploaded_on"]
    assert item["created_on"]
    assert stored(uploads) == [item["filename_disk"]]
    # One write: the item's history holds one creation, with what the upload found.
    history = await ok(
        client, "GET", "/revisions", params={"filter[item][_eq]": item["id"], "fields": "delta"}
    )
    assert len(history) == 1
    assert history[0]["delta"]["filesize"] == len(PDF)

    response = await client.get(f"/assets/{item['id']}", headers=AUTH)
    assert response.status == 200
    assert await response.read() == PDF
    assert response.headers["Content-Type"] == "application/pdf"
    assert response.headers["Content-Length"] == str(len(PDF))
    assert response.headers["Content-Disposition"] == 'inline; filename="report.pdf"'
    assert response.headers["ETag"]
    assert response.headers["Last-Modified"]

    again = await client.get(
        f"/assets/{item['id']}", headers={**AUTH, "If-None-Match": response.headers["ETag"]}
    )
    assert again.status == 304

    attachment = await client.get(f"/assets/{item['id']}", params={"download": ""}, headers=AUTH)
    assert attachment.headers["Content-Disposition"] == 'attachment; filename="report.pdf"'
    named = await client.get(f"/assets/{item['id']}/Bericht.pdf?download", headers=AUTH)
    assert named.headers["Content-Disposition"] == 'attachment; filename="Bericht.pdf"'


async def test_type_and_title_come_from_the_file_name_when_not_given(client: Client) -> None:
    item = await upload(client, b"a,b\n1,2\n", "annual_report-2024.csv", content_type=None)
    assert item["type"] == "text/csv"
    assert item["title"] == "Annual Report 2024"
    assert item["filename_disk"].endswith(".csv")

    response = await client.get(f"/assets/{item['id']}", headers=AUTH)
    assert response.headers["Content-Type"].startswith("text/csv")
    assert await response.read() == b"a,b\n1,2\n"

    text = await upload(client, b"hi", "hi.txt", content_type="text/plain; charset=UTF-8")
    assert (text["type"], text["charset"]) == ("text/plain", "utf-8")
    # A type written by a client is served only when it is a media type.
    await ok(client, "PATCH", f"/files/{text['id']}", {"type": "text/html\r\nX-Evil: 1"})
    response = await client.get(f"/assets/{text['id']}", headers=AUTH)
    assert response.headers["Content-Type"] == "application/octet-stream"
    assert "X-Evil" not in response.headers


async def test_several_files_in_one_request_make_several_items(client: Client) -> None:
    data = FormData()
    data.add_field("title", "First")
    data.add_field("file", b"one", filename="one.txt", content_type="text/plain")
    data.add_field("description", "the second")
    data.add_field("file", b"second file", filename="two.txt", content_type="text/plain")
    status, body = await send(client, "POST", "/files", data, params={"fields": "id,title,*"})
    assert status == 200, body
    first, second = body["data"]
    assert (first["title"], first["filesize"], first["description"]) == ("First", 3, None)
    # The fields before a file are that file's: the second gets its own title.
    assert (second["title"], second["filesize"], second["description"]) == ("Two", 11, "the second")
    listed = await ok(client, "GET", "/files", params={"fields": "id", "sort": "filesize"})
    assert [f["id"] for f in listed] == [first["id"], second["id"]]


async def test_uploads_must_be_multipart_with_fields_before_files(client: Client) -> None:
    status, body = await call(client, "POST", "/files", {"filename_download": "x.txt"})
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")
    status, body = await send(client, "POST", "/files", form(("title", "no file")))
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")
    late = FormData()
    late.add_field("file", b"x", filename="x.txt", content_type="text/plain")
    late.add_field("title", "too late")
    status, body = await send(client, "POST", "/files", late)
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")
    status, body = await send(
        client, "POST", "/files", form(("filesize", "1"), file=("x.txt", b"x", "text/plain"))
    )
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")
    assert await ok(client, "GET", "/files") == []


async def test_metadata_changes_by_patch_and_read_only_fields_stay(client: Client) -> None:
    item = await upload(client)
    changed = await ok(
        client, "PATCH", f"/files/{item['id']}", {"title": "Renamed", "description": "d"}
    )
    assert (changed["title"], changed["description"]) == ("Renamed", "d")
    assert changed["filesize"] == len(PDF)
    status, body = await call(client, "PATCH", f"/files/{item['id']}", {"filesize": 1})
    assert (status, code(body)) == (400, "INVALID_PAYLOAD")
    batch = await ok(client, "PATCH", "/files", {"keys": [item["id"]], "data": {"location": "HQ"}})
    assert batch[0]["location"] == "HQ"


async def test_new_bytes_replace_the_old_ones(client: Client, uploads: Path) -> None:
    me = await ok(client, "GET", "/users/me")
    item = await upload(client)
    data = form(("title", "Now text"), file=("notes.txt", b"plain words", "text/plain"))
    status, body = await send(client, "PATCH", f"/files/{item['id']}", data)
    assert status == 200, body
    replaced = body["data"]
    assert (replaced["id"], replaced["title"]) == (item["id"], "Now text")
    assert (replaced["type"], replaced["filesize"]) == ("text/plain", 11)
    assert replaced["filename_disk"] == item["id"] + ".txt"
    assert replaced["modified_by"] == me["id"]
    assert replaced["modified_on"]
    assert replaced["uploaded_by"] == me["id"]
    assert stored(uploads) == [replaced["filename_disk"]]
    response = await client.get(f"/assets/{item['id']}", headers=AUTH)
    assert await response.read() == b"plain words"

    missing = str(uuid.uuid4())
    status, body = await send(client, "PATCH", f"/files/{missing}", form(file=("a", b"a", None)))
    assert (status, code(body)) == (403, "FORBIDDEN")
    assert stored(uploads) == [replaced["filename_disk"]]


async def test_deleting_a_folder_moves_its_files_to_the_root(client: Client) -> None:
    folder = await ok(client, "POST", "/folders", {"name": "Certificates"})
    item = await upload(client, folder=folder["id"])
    assert item["folder"] == folder["id"]
    inside = await ok(client, "GET", "/files", params={"filter[folder][_eq]": folder["id"]})
    assert [f["id"] for f in inside] == [item["id"]]
    named = await ok(client, "GET", f"/files/{item['id']}", params={"fields": "folder.name"})
    assert named == {"folder": {"name": "Certificates"}}

    await ok(client, "DELETE", f"/folders/{folder['id']}")
    assert (await ok(client, "GET", f"/files/{item['id']}"))["folder"] is None
    response = await client.get(f"/assets/{item['id']}", headers=AUTH)
    assert await response.read() == PDF


async def test_an_unknown_folder_is_refused(client: Client, uploads: Path) -> None:
    data = form(("folder", str(uuid.uuid4())), file=("a.txt", b"a", "text/plain"))
    status, body = await send(client, "POST", "/files", data)
    assert (status, code(body)) == (400, "INVALID_FOREIGN_KEY")
    assert stored(uploads) == []


async def test_deleting_files_removes_their_bytes(client: Client, uploads: Path) -> None:
    one, _two, three = [await upload(client, title=t) for t in ("one", "two", "three")]
    await ok(client, "DELETE", f"/files/{one['id']}")
    assert one["filename_disk"] not in stored(uploads)
    status, body = await call(client, "GET", f"/assets/{one['id']}")
    assert (status, code(body)) == (403, "FORBIDDEN")

    await ok(client, "DELETE", "/files", {"query": {"filter": {"title": {"_eq": "two"}}}})
    assert stored(uploads) == [three["filename_disk"]]
    await ok(client, "DELETE", "/files", [three["id"]])
    assert stored(uploads) == []
    assert await ok(client, "GET", "/files") == []


async def test_a_caller_without_read_permission_gets_nothing(client: Client) -> None:
    item = await upload(client)
    nobody = await user_with(client)
    status, body = await call(client, "GET", f"/assets/{item['id']}", token=nobody.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    status, body = await call(client, "GET", "/files", token=nobody.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    status, body = await call(client, "GET", f"/assets/{uuid.uuid4()}")
    assert (status, code(body)) == (403, "FORBIDDEN")
    status, body = await call(client, "GET", "/assets/not-a-key")
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_an_item_rule_limits_which_files_a_caller_reads(client: Client) -> None:
    mine = await upload(client, title="mine")
    other = await upload(client, title="other")
    reader = await user_with(
        client,
        {
            "collection": "files",
            "action": "read",
            "fields": ["*"],
            "permissions": {"title": {"_eq": "mine"}},
        },
    )
    listed = await ok(client, "GET", "/files", token=reader.token, params={"fields": "id"})
    assert listed == [{"id": mine["id"]}]
    # `<img src>` cannot send a header: the token travels in the query.
    response = await client.get(f"/assets/{mine['id']}", params={"access_token": reader.token})
    assert response.status == 200
    assert await response.read() == PDF
    status, body = await call(client, "GET", f"/assets/{other['id']}", token=reader.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    status, body = await call(client, "GET", f"/files/{other['id']}", token=reader.token)
    assert (status, code(body)) == (403, "FORBIDDEN")


async def test_uploads_and_deletes_need_their_permissions(client: Client, uploads: Path) -> None:
    item = await upload(client)
    reader = await user_with(client, {"collection": "files", "action": "read", "fields": ["*"]})
    data = form(file=("a.txt", b"a", "text/plain"))
    status, body = await send(client, "POST", "/files", data, token=reader.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    data = form(file=("a.txt", b"a", "text/plain"))
    status, body = await send(client, "PATCH", f"/files/{item['id']}", data, token=reader.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    status, body = await call(client, "DELETE", f"/files/{item['id']}", token=reader.token)
    assert (status, code(body)) == (403, "FORBIDDEN")
    assert stored(uploads) == [item["filename_disk"]]

    uploader = await user_with(
        client,
        {"collection": "files", "action": "create", "fields": ["*"]},
        {"collection": "files", "action": "read", "fields": ["id", "title", "uploaded_by"]},
    )
    own = await upload(client, name="mine.txt", content=b"m", token=uploader.token)
    assert own == {"id": own["id"], "title": "Mine", "uploaded_by": uploader.id}


async def test_an_upload_over_the_limit_is_refused_and_nothing_is_kept(
    client: Client, uploads: Path
) -> None:
    data = FormData()
    data.add_field("file", b"small", filename="small.txt", content_type="text/plain")
    data.add_field("file", b"x" * (LIMIT + 1), filename="big.bin")
    status, body = await send(client, "POST", "/files", data)
    assert status == 413, body
    assert code(body) == "CONTENT_TOO_LARGE"
    assert await ok(client, "GET", "/files") == []
    assert stored(uploads) == []
    await upload(client, b"x" * LIMIT, "exactly.bin")


async def test_master_data_links_to_files_by_relation(client: Client) -> None:
    status, body = await call(
        client, "POST", "/items/product", {"product_name": "P", "primary_image": str(uuid.uuid4())}
    )
    assert (status, code(body)) == (400, "INVALID_FOREIGN_KEY")
    image = await upload(client, b"\x89PNG\r\n", "front.png", content_type="image/png")
    product = await ok(
        client,
        "POST",
        "/items/product",
        {"product_name": "P", "primary_image": image["id"]},
        params={"fields": "product_name,primary_image.title,primary_image.type"},
    )
    assert product == {
        "product_name": "P",
        "primary_image": {"title": "Front", "type": "image/png"},
    }
    # Deleting the file clears the link.
    await ok(client, "DELETE", f"/files/{image['id']}")
    products = await ok(client, "GET", "/items/product", params={"fields": "primary_image"})
    assert products == [{"primary_image": None}]


async def test_a_file_name_holding_nul_is_400_and_stores_nothing(client: Client) -> None:
    # Written by hand: aiohttp's own client refuses to send such a header at all.
    body = (
        b'--XYZ\r\nContent-Disposition: form-data; name="file"; filename="a\x00b.txt"\r\n'
        b"Content-Type: text/plain\r\n\r\nabc\r\n--XYZ--\r\n"
    )
    headers = {**AUTH, "Content-Type": "multipart/form-data; boundary=XYZ"}
    response = await client.post("/files", data=body, headers=headers)
    assert response.status == 400
    [error] = (await response.json())["errors"]
    assert error["extensions"]["code"] == "INVALID_PAYLOAD"
    assert error["message"].startswith("The request body cannot be read:")
    listed = await client.get("/files", headers=AUTH)
    assert (await listed.json())["data"] == []
