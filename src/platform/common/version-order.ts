/**
 * Firmware version order (docs/decisions.md §8): versions split at dots; segments that are numbers
 * compare as numbers (`1.10` > `1.9`), missing segments count as 0 (`1.2` = `1.2.0`).
 * A segment with a numeric head and a suffix (`3-rc1`) orders after a smaller number and
 * before the bare number (`3-rc1` < `3`); other text compares by code points; a leading `v`
 * is ignored.
 * @returns negative when `a` orders before `b`, 0 when equal, positive after.
 */
export function compareVersions(a: string, b: string): number {
  if (a === b) return 0;
  const left = a.trim().replace(/^v/i, '').split('.');
  const right = b.trim().replace(/^v/i, '').split('.');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const order = compareSegments(left[i] ?? '0', right[i] ?? '0');
    if (order !== 0) return order;
  }
  return 0;
}

const SEGMENT = /^(\d+)(.*)$/;

function compareSegments(a: string, b: string): number {
  const ma = SEGMENT.exec(a);
  const mb = SEGMENT.exec(b);
  if (ma && mb) {
    const order = compareNumbers(ma[1], mb[1]);
    if (order !== 0) return order;
    const [sa, sb] = [ma[2], mb[2]];
    if (sa === sb) return 0;
    if (sa === '') return 1; // 3 > 3-rc1
    if (sb === '') return -1;
    return compareCodePoints(sa, sb);
  }
  if (ma) return 1; // a number orders after text
  if (mb) return -1;
  return compareCodePoints(a, b);
}

/** Orders two runs of decimal digits by their value, of any length. */
function compareNumbers(a: string, b: string): number {
  // Up to 15 digits a double is exact; beyond, BigInt.
  const [na, nb] = a.length <= 15 && b.length <= 15 ? [Number(a), Number(b)] : [BigInt(a), BigInt(b)];
  return na === nb ? 0 : na < nb ? -1 : 1;
}

/** Orders text by Unicode code points (JS `<` compares UTF-16 code units). */
function compareCodePoints(a: string, b: string): number {
  const left = [...a];
  const right = [...b];
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = left[i].codePointAt(0)! - right[i].codePointAt(0)!;
    if (order !== 0) return order < 0 ? -1 : 1;
  }
  return Math.sign(left.length - right.length);
}
