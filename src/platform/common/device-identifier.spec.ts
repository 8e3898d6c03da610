import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalIdentifier, isControllerId } from './device-identifier.js';

describe(canonicalIdentifier.name, () => {
  it('reads a hardware address in any notation as its canonical mac', () => {
    for (const text of ['ac-67-b2-01-02-03', 'AC67B2010203', 'ac67.b201.0203', 'AC:67:B2:01:02:03']) {
      assert.equal(canonicalIdentifier(text), 'AC:67:B2:01:02:03', text);
    }
  });

  it('keeps any other controller id as it is, case and all, up to 256 characters', () => {
    for (const text of ['pump-7', 'Pump-7', 'dev_01.eu~x', "a!$&'()*+,;=:@b", 'x'.repeat(256), 'AC:67-B2']) {
      assert.equal(canonicalIdentifier(text), text, text);
    }
  });

  it('refuses what hawkBit refuses (empty, whitespace, over 256) and what a client cannot paste into a URL path', () => {
    for (const text of [
      '',
      'two words',
      'tab\there',
      'x'.repeat(257),
      'a/b',
      'a?b',
      'a#b',
      '50%',
      'back\\slash',
      'quote"',
      'ünïcode',
      'nul\0',
    ]) {
      assert.equal(canonicalIdentifier(text), null, JSON.stringify(text));
      assert.equal(isControllerId(text), false, JSON.stringify(text));
    }
  });
});
