import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fallbackFontsAvailable, ReportFonts, type TextRun } from './report-fonts.js';

const UNIFONT = '/usr/share/fonts/opentype/unifont/unifont.otf';
const UNIFONT_UPPER = '/usr/share/fonts/opentype/unifont/unifont_upper.otf';
/** Tests that need GNU Unifont skip (visibly) where it is not installed; CI installs fonts-unifont. */
const needsUnifont = { skip: existsSync(UNIFONT) ? false : `${UNIFONT} missing (apt-get install fonts-unifont)` };
const needsUnifontUpper = { skip: existsSync(UNIFONT_UPPER) ? false : `${UNIFONT_UPPER} missing (apt-get install fonts-unifont)` };

/** Runs as [text, font path or 'Roboto'] pairs, for readable assertions. */
function split(fonts: ReportFonts, text: string): [string, string][] {
  return fonts.runs(text).map((run: TextRun) => [run.text, run.font?.path ?? 'Roboto']);
}

describe(ReportFonts.name, () => {
  const unifont = new ReportFonts({ fallbackFonts: [UNIFONT] });

  it('keeps Latin, Greek and Cyrillic text in one Roboto run', needsUnifont, () => {
    assert.deepEqual(split(unifont, 'device-42 pump station'), [['device-42 pump station', 'Roboto']]);
    assert.deepEqual(split(unifont, 'Ünïcødé Κόμβος Устройство'), [['Ünïcødé Κόμβος Устройство', 'Roboto']]);
  });

  it('gives a CJK word in Latin text a fallback run of its own', needsUnifont, () => {
    assert.deepEqual(split(unifont, 'abc设备def'), [
      ['abc', 'Roboto'],
      ['设备', UNIFONT],
      ['def', 'Roboto'],
    ]);
  });

  it('keeps spaces and punctuation in the surrounding run', needsUnifont, () => {
    assert.deepEqual(split(unifont, '设备-東京 第二棟'), [['设备-東京 第二棟', UNIFONT]]);
    assert.deepEqual(split(unifont, 'pump 设备 東京 station'), [
      ['pump ', 'Roboto'],
      ['设备 東京 ', UNIFONT],
      ['station', 'Roboto'],
    ]);
    // Leading spaces and punctuation join the first run after them.
    assert.deepEqual(split(unifont, ' (设备)'), [[' (设备)', UNIFONT]]);
    assert.deepEqual(split(unifont, '  '), [['  ', 'Roboto']]);
  });

  it('keeps a combining mark with its base letter', needsUnifont, () => {
    assert.deepEqual(split(unifont, 'पंप'), [['पंप', UNIFONT]]); // U+0902 ANUSVARA is a combining mark
    assert.deepEqual(split(unifont, 'e\u0301'), [['e\u0301', 'Roboto']]);
  });

  it('sends Arabic to the fallback font', needsUnifont, () => {
    assert.deepEqual(split(unifont, 'مضخة 2'), [
      ['مضخة ', UNIFONT],
      ['2', 'Roboto'],
    ]);
  });

  it('keeps code points no font has in the Roboto run', needsUnifont, () => {
    // U+1F680 ROCKET is only in unifont_upper, which this instance does not use.
    assert.deepEqual(split(unifont, 'go 🚀 now'), [['go 🚀 now', 'Roboto']]);
    assert.deepEqual(split(unifont, '\uD800x'), [['\uD800x', 'Roboto']]); // lone surrogate
  });

  it('tries the fallback fonts in order', needsUnifontUpper, () => {
    const both = new ReportFonts({ fallbackFonts: [UNIFONT, UNIFONT_UPPER] });
    assert.deepEqual(split(both, '🚀 rocket 设备'), [
      ['🚀 ', UNIFONT_UPPER],
      ['rocket ', 'Roboto'],
      ['设备', UNIFONT],
    ]);
  });

  it('returns runs that concatenate to the input', needsUnifont, () => {
    for (const text of ['', 'a', '设备', 'x设y备z', ' 设 ', 'Ωmega 株式会社\r\nline 2', '🚀🚀a🚀', 'é\u0301设\u0301']) {
      assert.equal(
        unifont
          .runs(text)
          .map((run) => run.text)
          .join(''),
        text,
      );
    }
    assert.deepEqual(unifont.runs(''), []);
  });

  it('uses the well-known Unifont locations when no paths are given', needsUnifont, () => {
    const system = new ReportFonts();
    assert.equal(system.fallbacks[0]?.path, UNIFONT);
    assert.deepEqual(system.skipped, []); // missing system locations are not worth reporting
    assert.equal(fallbackFontsAvailable(), true);
  });

  it('has no fallback when none of the given files exists, and draws everything with Roboto', () => {
    const none = new ReportFonts({ fallbackFonts: ['/nonexistent.otf'] });
    assert.deepEqual(none.fallbacks, []);
    assert.deepEqual(none.skipped, [{ path: '/nonexistent.otf', reason: 'file not found' }]);
    assert.deepEqual(split(none, 'abc设备def'), [['abc设备def', 'Roboto']]);
    assert.equal(fallbackFontsAvailable(['/nonexistent.otf']), false);
  });

  it('searches only the injected locations', () => {
    assert.deepEqual(new ReportFonts({ searchPaths: [] }).fallbacks, []);
    const missing = new ReportFonts({ searchPaths: ['/nonexistent/unifont.otf'] });
    assert.deepEqual(missing.fallbacks, []);
    assert.deepEqual(missing.skipped, []);
  });

  it('skips a file that is not a font, with the reason', () => {
    const notAFont = fileURLToPath(import.meta.url); // this compiled spec
    const fonts = new ReportFonts({ fallbackFonts: [notAFont] });
    assert.deepEqual(fonts.fallbacks, []);
    assert.equal(fonts.skipped.length, 1);
    assert.equal(fonts.skipped[0]?.path, notAFont);
    assert.match(fonts.skipped[0]?.reason ?? '', /^not a font/);
  });
});
