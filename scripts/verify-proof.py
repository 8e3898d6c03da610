#!/usr/bin/env python3
"""Verify a firmledger ledger entry, its inclusion proof and the signed checkpoint, offline.

Needs only the Python standard library and the `openssl` command (1.1.1 or newer, for Ed25519).

    python3 scripts/verify-proof.py --key "$(cat log.vkey)" proof.json [firmware.bin]

`proof.json` is the answer of GET {bc_url}/firmware/<id>/proof (or /device/<mac>/proof, or
`firmledger ledger prove <seq>`); the key is the log's verifier key as `firmledger ledger key`
prints it (`<origin>+<key id>+<base64 key>`). With an image file, its SHA-256 must be the one the
firmware's ledger entry records. Exits 0 when everything holds, 1 naming the first thing that
does not.

Rules checked (see the README, "Verify a firmware image yourself"):
  * signed note (C2SP signed-note): key id = SHA-256(name || 0x0A || 0x01 || public key)[:4];
    the Ed25519 signature covers the note text up to its blank line;
  * checkpoint (C2SP tlog-checkpoint): origin, tree size, base64 root hash;
  * Merkle tree (RFC 9162): leaf hash = SHA-256(0x00 || leaf text), node = SHA-256(0x01 || l || r);
  * the entry hash = SHA-256(leaf text), the leaf text = previous hash, newline, canonical JSON.
"""

import argparse
import base64
import hashlib
import json
import os
import subprocess
import sys
import tempfile

SPKI_ED25519 = bytes.fromhex("302a300506032b6570032100")


def fail(message):
    print(f"FAILED: {message}")
    sys.exit(1)


def parse_vkey(vkey):
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3:
        fail("the key is not <name>+<key id>+<base64 key>")
    name, key_id, material = parts[0], parts[1], base64.b64decode(parts[2])
    if len(material) != 33 or material[0] != 0x01:
        fail("the key is not an Ed25519 signed-note key (type byte 1, 32-byte key)")
    public_key = material[1:]
    computed = hashlib.sha256(name.encode() + b"\n" + b"\x01" + public_key).digest()[:4]
    if computed.hex() != key_id:
        fail(f"the key id {key_id} does not match the key (computed {computed.hex()})")
    return name, computed, public_key


def openssl_verify(public_key, message, signature):
    with tempfile.TemporaryDirectory() as tmp:
        pem = os.path.join(tmp, "key.pem")
        with open(pem, "w") as f:
            f.write("-----BEGIN PUBLIC KEY-----\n")
            f.write(base64.b64encode(SPKI_ED25519 + public_key).decode() + "\n")
            f.write("-----END PUBLIC KEY-----\n")
        with open(os.path.join(tmp, "msg"), "wb") as f:
            f.write(message)
        with open(os.path.join(tmp, "sig"), "wb") as f:
            f.write(signature)
        result = subprocess.run(
            ["openssl", "pkeyutl", "-verify", "-pubin", "-inkey", pem, "-rawin",
             "-in", os.path.join(tmp, "msg"), "-sigfile", os.path.join(tmp, "sig")],
            capture_output=True,
        )
        return result.returncode == 0


def check_checkpoint(note, name, key_id, public_key):
    split = note.rfind("\n\n")
    if split < 0 or not note.endswith("\n"):
        fail("the checkpoint is not a signed note")
    text = note[: split + 1]
    verified = False
    for line in note[split + 2 : -1].split("\n"):
        prefix = "\u2014 " + name + " "
        if not line.startswith(prefix):
            continue
        blob = base64.b64decode(line[len(prefix):])
        if blob[:4] == key_id and openssl_verify(public_key, text.encode(), blob[4:]):
            verified = True
    if not verified:
        fail(f"the checkpoint carries no valid signature of {name}")
    origin, size, root = text.split("\n")[:3]
    if origin != name:
        fail(f"the checkpoint's origin {origin!r} is not the key's name {name!r}")
    return int(size), base64.b64decode(root)


def node(left, right):
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion(index, size, leaf, proof):
    """RFC 9162 section 2.1.3.2."""
    if not 0 <= index < size:
        fail(f"leaf index {index} is not in a tree of {size}")
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            fail("the proof is too long")
        if fn % 2 == 1 or fn == sn:
            r = node(p, r)
            while fn % 2 == 0 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        fail("the proof is too short")
    return r


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--key", required=True, help="the log's verifier key (firmledger ledger key)")
    parser.add_argument("proof", help="proof JSON (GET {bc_url}/firmware/<id>/proof)")
    parser.add_argument("image", nargs="?", help="the firmware image to check against the entry")
    args = parser.parse_args()

    name, key_id, public_key = parse_vkey(args.key)
    with open(args.proof, encoding="utf-8") as f:
        proof = json.load(f)

    size, root = check_checkpoint(proof["checkpoint"], name, key_id, public_key)
    print(f"ok  checkpoint of {name}: tree size {size}, signature verified with openssl")
    if proof["tree_size"] != size:
        fail(f"the proof is for tree size {proof['tree_size']}, the checkpoint for {size}")

    leaf_text = proof["leaf_text"].encode("utf-8")
    leaf = hashlib.sha256(b"\x00" + leaf_text).digest()
    if base64.b64encode(leaf).decode() != proof["leaf_hash"]:
        fail("the leaf text does not hash to the leaf hash")
    if hashlib.sha256(leaf_text).hexdigest() != proof["entry"]["hash"]:
        fail("the leaf text does not hash to the entry hash")
    computed = root_from_inclusion(proof["leaf_index"], size, leaf, [base64.b64decode(p) for p in proof["proof"]])
    if computed != root:
        fail("the inclusion proof does not lead to the checkpoint's root")
    print(f"ok  entry {proof['seq']} ({proof['entry']['type']} {proof['entry']['subject']}) is leaf {proof['leaf_index']} of that tree")

    fields = json.loads(proof["leaf_text"].split("\n", 1)[1])
    state = json.loads(fields["payload"])
    if args.image:
        with open(args.image, "rb") as f:
            image = f.read()
        digest = hashlib.sha256(image).hexdigest()
        if state.get("sha256") != digest:
            fail(f"the image's SHA-256 {digest} is not the one the entry records ({state.get('sha256')})")
        print(f"ok  {args.image}: SHA-256 {digest} is the one recorded (version {state.get('version')}, CID {state.get('cid')})")
    print("verified")


if __name__ == "__main__":
    main()
