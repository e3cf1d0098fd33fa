"""The audit tree and its heads as implementations nobody here wrote read them: pymerkle's
RFC 9162 tree gives the same roots, and the OpenSSL command line verifies a head's
signature over the bytes docs/audit.md documents."""

import base64
import struct
import subprocess
from pathlib import Path

from pymerkle import InmemoryTree

from domain.audit.merkle import LeafList, leaf_hash, root
from tests.access.helpers import Client, ok
from tests.audit.helpers import capture


def test_every_root_agrees_with_pymerkle() -> None:
    entries = [bytes([n % 251]) * (n % 7) for n in range(70)]
    theirs = InmemoryTree(algorithm="sha256")
    ours = LeafList([leaf_hash(e) for e in entries])
    for size, entry in enumerate(entries, start=1):
        theirs.append_entry(entry)
        assert root(ours, size) == theirs.get_root(size), size


async def test_openssl_verifies_a_head_s_signature_over_the_documented_bytes(
    client: Client, tmp_path: Path
) -> None:
    await capture(client, 1, 2)
    key = await ok(client, "GET", "/audit/public-key")
    head = await ok(client, "GET", "/audit/heads/latest")
    # RFC 6962's TreeHeadSignature, written from the documentation, not from our code.
    message = (
        bytes([0, 1])
        + struct.pack(">QQ", head["timestamp"], head["tree_size"])
        + bytes.fromhex(head["root_hash"])
    )
    (tmp_path / "key.pem").write_text(key["public_key"])
    (tmp_path / "head.bin").write_bytes(message)
    (tmp_path / "head.sig").write_bytes(base64.b64decode(head["signature"]))
    (tmp_path / "other.bin").write_bytes(message[:-1] + bytes([message[-1] ^ 1]))

    def verify(data: str) -> subprocess.CompletedProcess[str]:
        command = ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "key.pem", "-rawin"]
        command += ["-in", data, "-sigfile", "head.sig"]
        return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)

    good = verify("head.bin")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Signature Verified Successfully" in good.stdout
    assert verify("other.bin").returncode != 0
