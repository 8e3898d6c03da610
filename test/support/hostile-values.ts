import fc from 'fast-check';

/**
 * One UTF-16 code unit or code point of hostile text: NUL, a lone surrogate half, any BMP code
 * unit (control characters and surrogate halves included) or any code point.
 */
const hostileUnit: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('\u0000', '\ud800', '\udbff', '\udc00', '\udfff', '\u007f', '\u0085', '\ufeff', '\uffff'),
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }),
);

/** Text of any Unicode, NUL and lone surrogates included, up to 300 units (past every length bound). */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: hostileUnit, maxLength: 20 }),
  fc.string({ unit: hostileUnit, minLength: 60, maxLength: 300 }),
);

/** Whole numbers at and beyond the edges that matter: 2^31 (an `integer` column), 2^53 (a safe double), 2^63. */
export const edgeIntegers = [
  0,
  -1,
  1,
  2 ** 31 - 1,
  2 ** 31,
  2 ** 31 + 1,
  2 ** 32,
  2 ** 53 - 1,
  2 ** 53,
  2 ** 53 + 2,
  2 ** 63,
  -(2 ** 31),
  -(2 ** 53),
  1e300,
] as const;

/** Numbers: the edges above, any integer, any double (NaN and infinities become `null` in JSON). */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(fc.constantFrom(...edgeIntegers), fc.integer(), fc.double());

/** Digits as text: ids and pages at and far beyond every range, with leading zeros now and then. */
export const hostileDigits: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...edgeIntegers.filter((n) => n >= 0).map((n) => BigInt(n).toString())),
  fc.bigInt({ min: 0n, max: 2n ** 80n }).map(String),
  fc.bigInt({ min: 0n, max: 2n ** 40n }).map((n) => `00${n}`),
  fc.constantFrom('1e3', '1.5', '-1', '0x10', '1e300', '+1', ' 1', ''),
);

/** Any value a JSON body field may hold instead of the one expected: text, numbers, null, booleans, arrays, objects. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false) },
  { weight: 1, arbitrary: hostileDigits },
  { weight: 1, arbitrary: fc.array(fc.oneof(hostileText, hostileNumber, fc.constant(null)), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileText, fc.oneof(hostileText, hostileNumber), { maxKeys: 3 }) },
);

/** Any text a path segment or query parameter may carry: hostile text, digits, numbers as text. */
export const hostileParam: fc.Arbitrary<string> = fc.oneof(hostileText, hostileDigits, hostileNumber.map(String));
