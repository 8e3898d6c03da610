#!/usr/bin/env python3
"""Verify a firmledger ledger entry, its inclusion proof and the signed checkpoint, offline.

Needs only the Python standard library and the `openssl` command (1.1.1 or newer, for Ed25519).

    python3 scripts/verify-proof.py --key "$(cat log.vkey)" proof.json [firmware.bin]
    python3 scripts/verify-proof.py --key "$(cat log.vkey)" --witness "$(cat w1.vkey)" \
        --tuf-root 1.root.json bundle.json firmware.bin

`proof.json` is the answer of GET {bc_url}/firmware/<id>/proof (or /device/<mac>/proof, or
`firmledger ledger prove <seq>`), or a proof bundle, GET {bc_url}/firmware/<id>/bundle; the key
is the log's verifier key as `firmledger ledger key` prints it (`<origin>+<key id>+<base64 key>`).
With an image file, its SHA-256 must be the one the firmware's ledger entry records. Each
`--witness` key (`<name>+<key id>+<base64 key>`, type 4) must have cosigned the checkpoint. A
bundle's TUF metadata is checked too: the root chain from the root you trust (`--tuf-root`, else
the bundle's version 1), the targets, snapshot and timestamp signatures and versions, their expiry
(at `--at`, default now), and that the TUF target is the binary the ledger entry records. Exits 0
when everything holds, 1 naming the first thing that does not.

Rules checked (see the README, "Verify a firmware image yourself"):
  * signed note (C2SP signed-note): key id = SHA-256(name || 0x0A || 0x01 || public key)[:4];
    the Ed25519 signature covers the note text up to its blank line;
  * checkpoint (C2SP tlog-checkpoint): origin, tree size, base64 root hash;
  * Merkle tree (RFC 9162): leaf hash = SHA-256(0x00 || leaf text), node = SHA-256(0x01 || l || r);
  * the entry hash = SHA-256(leaf text), the leaf text = previous hash, newline, canonical JSON;
  * cosignatures (C2SP tlog-cosignature, cosignature/v1): key id over type 0x04, the signature
    over "cosignature/v1\ntime <t>\n" and the checkpoint text, after an 8-byte time;
  * TUF (theupdateframework.io specification 1.0): signatures over the canonical JSON of `signed`.
"""

import argparse
import base64
import datetime
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


def parse_vkey(vkey, key_type=0x01):
    parts = vkey.strip().split("+", 2)
    if len(parts) != 3:
        fail("the key is not <name>+<key id>+<base64 key>")
    name, key_id, material = parts[0], parts[1], base64.b64decode(parts[2])
    if len(material) != 33 or material[0] != key_type:
        fail(f"the key {name} is not an Ed25519 signed-note key of type {key_type} (type byte, 32-byte key)")
    public_key = material[1:]
    computed = hashlib.sha256(name.encode() + b"\n" + bytes([key_type]) + public_key).digest()[:4]
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


def check_cosignature(note, vkey):
    """The time of a valid cosignature/v1 of the witness `vkey` on the note's text; fails without one."""
    name, key_id, public_key = parse_vkey(vkey, 0x04)
    split = note.rfind("\n\n")
    text = note[: split + 1]
    for line in note[split + 2 : -1].split("\n"):
        prefix = "\u2014 " + name + " "
        if not line.startswith(prefix):
            continue
        blob = base64.b64decode(line[len(prefix):])
        if len(blob) != 76 or blob[:4] != key_id:
            continue
        time = int.from_bytes(blob[4:12], "big")
        message = f"cosignature/v1\ntime {time}\n{text}".encode()
        if openssl_verify(public_key, message, blob[12:]):
            return name, time
    fail(f"the checkpoint carries no valid cosignature of the witness {name}")


def canonical_json(value):
    """OLPC canonical JSON, as TUF signs it: sorted keys, no spaces, only \\ and \" escaped."""
    if isinstance(value, dict):
        return "{" + ",".join(canonical_json(k) + ":" + canonical_json(value[k]) for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(v) for v in value) + "]"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    fail(f"TUF metadata holds a value canonical JSON cannot sign: {value!r}")


def tuf_signed_by(root, role, metadata):
    """Whether a threshold of the keys `root` names for `role` signed `metadata`."""
    spec = root["signed"]["roles"].get(role)
    if not spec:
        return False
    message = canonical_json(metadata["signed"]).encode()
    valid = set()
    for signature in metadata.get("signatures", []):
        key_id = signature.get("keyid")
        key = root["signed"]["keys"].get(key_id)
        if key_id in valid or key_id not in spec["keyids"] or not key or key.get("keytype") != "ed25519":
            continue
        if openssl_verify(bytes.fromhex(key["keyval"]["public"]), message, bytes.fromhex(signature["sig"])):
            valid.add(key_id)
    return len(valid) >= spec["threshold"]


def expires(metadata):
    return datetime.datetime.fromisoformat(metadata["signed"]["expires"].replace("Z", "+00:00"))


def check_tuf(bundle, state, trusted_root_file, at):
    """TUF client checks over the bundle's metadata; returns the target's description."""
    tuf = bundle["tuf"]
    roots = tuf["root"]
    if trusted_root_file:
        with open(trusted_root_file, encoding="utf-8") as f:
            trusted = json.load(f)
        where = f"the root in {trusted_root_file}"
    else:
        trusted = roots[0]
        where = "the bundle's root v1 (give --tuf-root for the one your device holds)"
    if not tuf_signed_by(trusted, "root", trusted):
        fail(f"TUF: {where} is not signed by its own root keys")
    for candidate in roots:
        version = candidate["signed"]["version"]
        if version <= trusted["signed"]["version"]:
            continue
        if version != trusted["signed"]["version"] + 1:
            fail(f"TUF: root v{version} follows v{trusted['signed']['version']}")
        if not (tuf_signed_by(trusted, "root", candidate) and tuf_signed_by(candidate, "root", candidate)):
            fail(f"TUF: root v{version} is not signed by the root keys of v{trusted['signed']['version']} and its own")
        trusted = candidate
    print(f"ok  TUF root v{trusted['signed']['version']} reached from {where}")
    for role in ("targets", "snapshot", "timestamp"):
        if not tuf_signed_by(trusted, role, tuf[role]):
            fail(f"TUF: {role} v{tuf[role]['signed']['version']} is not signed by the {role} keys of root v{trusted['signed']['version']}")
    if tuf["snapshot"]["signed"]["meta"]["targets.json"]["version"] != tuf["targets"]["signed"]["version"]:
        fail("TUF: the snapshot does not list this targets version")
    if tuf["timestamp"]["signed"]["meta"]["snapshot.json"]["version"] != tuf["snapshot"]["signed"]["version"]:
        fail("TUF: the timestamp does not list this snapshot version")
    for role, metadata in (("root", trusted), ("targets", tuf["targets"]), ("snapshot", tuf["snapshot"]), ("timestamp", tuf["timestamp"])):
        if expires(metadata) <= at:
            fail(f"TUF: {role} v{metadata['signed']['version']} expired {metadata['signed']['expires']}")
    target = tuf["targets"]["signed"]["targets"].get(tuf["target"])
    if target is None:
        fail(f"TUF: the targets metadata names no target {tuf['target']}")
    if tuf["target"] != state.get("cid") or target["length"] != state.get("size") or target["hashes"].get("sha256") != state.get("sha256"):
        fail("TUF: the target's name, length or SHA-256 is not what the ledger entry records")
    print(f"ok  TUF targets v{tuf['targets']['signed']['version']} (signed, listed by snapshot and timestamp, not expired) name "
          f"{tuf['target']}: {target['length']} bytes, the SHA-256 the ledger entry records")


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
    parser.add_argument("--witness", action="append", default=[], help="a witness's verifier key that must have cosigned (repeatable)")
    parser.add_argument("--tuf-root", help="the TUF root metadata you trust (a bundle's TUF chain starts there; default its v1)")
    parser.add_argument("--at", help="judge TUF expiry at this ISO 8601 time (default: now)")
    args = parser.parse_args()

    name, key_id, public_key = parse_vkey(args.key)
    with open(args.proof, encoding="utf-8") as f:
        proof = json.load(f)

    bundle = proof.get("format")
    if bundle is not None and bundle != "firmledger-proof-bundle/v1":
        fail(f"unknown bundle format {bundle!r}")
    if not proof.get("checkpoint"):
        fail("the proof carries no checkpoint")
    size, root = check_checkpoint(proof["checkpoint"], name, key_id, public_key)
    print(f"ok  checkpoint of {name}: tree size {size}, signature verified with openssl")
    for vkey in args.witness:
        witness, time = check_cosignature(proof["checkpoint"], vkey)
        stamp = datetime.datetime.fromtimestamp(time, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        print(f"ok  cosigned by the witness {witness} at {stamp}")
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
    if bundle:
        if fields["type"] != "firmware.published":
            fail(f"the bundle's entry is a {fields['type']}, not a firmware.published entry")
        at = datetime.datetime.fromisoformat(args.at.replace("Z", "+00:00")) if args.at else datetime.datetime.now(datetime.timezone.utc)
        if at.tzinfo is None:
            at = at.replace(tzinfo=datetime.timezone.utc)
        check_tuf(proof, state, args.tuf_root, at)
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
