import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkpointText,
  COSIGNATURE_ED25519,
  cosignatureLine,
  ED25519,
  generateSigner,
  NoteFormatError,
  parseCheckpoint,
  parseNote,
  parseSigner,
  parseVerifier,
  signNote,
  verifyCosignature,
  verifyNote,
} from './signed-note.js';

/** The example of Go's reference implementation (golang.org/x/mod/sumdb/note, package documentation). */
const GO = {
  signer: 'PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz',
  verifier: 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW',
  text: "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n",
  note:
    "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n\n" +
    '\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n',
};

/** The verifier-key example of the C2SP signed-note specification. */
const C2SP = {
  verifier: 'example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k',
  note: 'This is an example message.\n\n\u2014 example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n',
};

describe('signed notes (C2SP signed-note, tlog-checkpoint, tlog-cosignature)', () => {
  it('signs the Go reference example byte for byte, and derives its verifier key and key id', () => {
    const signer = parseSigner(GO.signer);
    assert.equal(signer.text, GO.verifier);
    assert.equal(signer.secret, GO.signer);
    assert.equal(signNote(GO.text, signer), GO.note);
  });

  it('verifies the Go and C2SP examples and refuses them altered', () => {
    assert.ok(verifyNote(parseNote(GO.note), parseVerifier(GO.verifier)));
    assert.ok(verifyNote(parseNote(C2SP.note), parseVerifier(C2SP.verifier)));
    assert.equal(verifyNote(parseNote(C2SP.note.replace('example', 'exemple')), parseVerifier(C2SP.verifier)), false);
    assert.equal(verifyNote(parseNote(GO.note), parseVerifier(C2SP.verifier)), false, 'another key: its signature is not there');
  });

  it('refuses verifier keys whose id does not match, and notes that are not notes', () => {
    assert.throws(() => parseVerifier(GO.verifier.replace('c74f20a3', 'c74f20a4')), NoteFormatError);
    assert.throws(() => parseSigner(GO.signer.replace('PeterNeumann', 'Peter')), NoteFormatError);
    assert.throws(() => parseNote('no blank line\n\u2014 a AAAAAAA=\n'), NoteFormatError);
    assert.throws(() => parseNote('text\n\nnot a signature\n'), NoteFormatError);
    assert.throws(() => parseNote('text\u0007\n\n\u2014 a AAAAAAA=\n'), NoteFormatError);
  });

  it('writes and reads a checkpoint body', () => {
    const root = Buffer.alloc(32, 7);
    const text = checkpointText({ origin: 'example.com/log', size: 42, root });
    assert.equal(text, `example.com/log\n42\n${root.toString('base64')}\n`);
    assert.deepEqual(parseCheckpoint(text), { origin: 'example.com/log', size: 42, root });
    assert.throws(() => parseCheckpoint('example.com/log\n042\nAAAA\n'), NoteFormatError);
  });

  it('cosigns a checkpoint as tlog-cosignature defines it and verifies only the right witness', () => {
    const log = generateSigner('example.com/log', ED25519);
    const witness = generateSigner('witness.example/w1', COSIGNATURE_ED25519);
    const other = generateSigner('witness.example/w1', COSIGNATURE_ED25519);
    const text = checkpointText({ origin: 'example.com/log', size: 3, root: Buffer.alloc(32, 1) });
    const note = parseNote(signNote(text, log, [cosignatureLine(text, witness, 1_679_315_147)]));
    assert.ok(verifyNote(note, log));
    assert.equal(verifyCosignature(note, parseVerifier(witness.text)), 1_679_315_147);
    assert.equal(verifyCosignature(note, other), null);
    const bytes = Buffer.from(note.signatures[1].line.split(' ')[2], 'base64');
    assert.equal(bytes.length, 4 + 8 + 64, 'key id, big-endian time, signature');
    assert.equal(bytes.readBigUInt64BE(4), 1_679_315_147n);
    assert.notEqual(witness.keyId.toString('hex'), generateSigner('x', ED25519).keyId.toString('hex'));
  });
});
