import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { DeviceRow } from './report-row.js';
import { renderXmlReport } from './xml-report.js';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Parses a report back to plain strings: no number/boolean coercion, no trimming. */
function parseReport(xml: string): { root: { element?: Array<Record<string, string>> } | '' } {
  const parser = new XMLParser({
    parseTagValue: false,
    trimValues: false,
    processEntities: true,
    isArray: (tagName) => tagName === 'element',
  });
  return parser.parse(xml, true) as { root: { element?: Array<Record<string, string>> } | '' };
}

describe(renderXmlReport.name, () => {
  it('renders the exact document for two devices', () => {
    const rows: DeviceRow[] = [
      { mac: 'AC:67:B2:01:02:03', name: 'Boiler room', 'firmware-version': '1.0.2' },
      { mac: '00:1A:2B:3C:4D:5E:6F:70', name: 'Gate sensor', 'firmware-version': '2.1.0-rc1' },
    ];
    assert.equal(
      renderXmlReport(rows),
      '<?xml version="1.0" encoding="UTF-8"?>' +
        '<root>' +
        '<element><firmware-version>1.0.2</firmware-version><mac>AC:67:B2:01:02:03</mac><name>Boiler room</name></element>' +
        '<element><firmware-version>2.1.0-rc1</firmware-version><mac>00:1A:2B:3C:4D:5E:6F:70</mac><name>Gate sensor</name></element>' +
        '</root>',
    );
  });

  it('escapes & < > " and \' in text', () => {
    const xml = renderXmlReport([{ mac: 'AC:67:B2:01:02:03', name: `a&b<c>d"e'f</name><mac>x`, 'firmware-version': '1&2' }]);
    assert.ok(xml.includes('<name>a&amp;b&lt;c&gt;d&quot;e&apos;f&lt;/name&gt;&lt;mac&gt;x</name>'), xml);
    assert.ok(xml.includes('<firmware-version>1&amp;2</firmware-version>'), xml);
    assert.equal(XMLValidator.validate(xml), true);
  });

  it('orders the children firmware-version, mac, name whatever the input key order', () => {
    // Keys deliberately in the reverse of the required output order.
    const row = { name: 'n', mac: 'AC:67:B2:01:02:03', 'firmware-version': 'v' };
    const ordered = new XMLParser({ preserveOrder: true }).parse(renderXmlReport([row, row])) as Array<
      Record<string, Array<Record<string, unknown>>>
    >;
    const root = ordered.find((node) => 'root' in node)?.root ?? [];
    assert.equal(root.length, 2);
    for (const element of root) {
      const children = (element.element as Array<Record<string, unknown>>).map((c) => Object.keys(c)[0]);
      assert.deepEqual(children, ['firmware-version', 'mac', 'name']);
    }
  });

  it('renders an empty root for no devices', () => {
    const xml = renderXmlReport([]);
    assert.equal(xml, `${DECLARATION}<root></root>`);
    assert.equal(XMLValidator.validate(xml), true);
    assert.equal(parseReport(xml).root, '');
  });

  it('accepts any iterable, keeping its order', () => {
    function* rows(): Generator<DeviceRow> {
      yield { mac: 'AC:67:B2:00:00:02', name: 'second', 'firmware-version': '2' };
      yield { mac: 'AC:67:B2:00:00:01', name: 'first', 'firmware-version': '1' };
    }
    const parsed = parseReport(renderXmlReport(rows()));
    assert.notEqual(parsed.root, '');
    const names = parsed.root === '' ? [] : (parsed.root.element ?? []).map((e) => e.name);
    assert.deepEqual(names, ['second', 'first']);
  });

  it('replaces characters XML 1.0 forbids with U+FFFD and keeps TAB and LF', () => {
    const name = 'a\u0000b\u0008c\u000Bd\u000Ce\u001Ff\uFFFEg\uD800h\ti\nj';
    const xml = renderXmlReport([{ mac: 'AC:67:B2:01:02:03', name, 'firmware-version': '1\u00010' }]);
    assert.doesNotMatch(xml, /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|\p{Cs}/u);
    assert.equal(XMLValidator.validate(xml), true);
    assert.ok(xml.includes('<name>a\uFFFDb\uFFFDc\uFFFDd\uFFFDe\uFFFDf\uFFFDg\uFFFDh\ti\nj</name>'), xml);
    assert.ok(xml.includes('<firmware-version>1\uFFFD0</firmware-version>'), xml);
  });

  it('round-trips through XMLParser to the original values', () => {
    const rows: DeviceRow[] = [
      { mac: 'AC:67:B2:01:02:03', name: 'Ünïcødé Κόμβος Устройство', 'firmware-version': '1.10' },
      { mac: 'AC-67-B2', name: ` spaced & <"quoted"> 'name' `, 'firmware-version': '007' },
      { mac: 'AC:67:B2:01:02:05', name: 'true', 'firmware-version': '1e3' },
      { mac: 'AC:67:B2:01:02:06', name: '&amp; &#38; ]]> <!-- x -->', 'firmware-version': 'v2\tbeta' },
    ];
    const parsed = parseReport(renderXmlReport(rows));
    assert.notEqual(parsed.root, '');
    const elements = parsed.root === '' ? [] : (parsed.root.element ?? []);
    assert.deepEqual(
      elements.map((e) => ({ mac: e.mac, name: e.name, 'firmware-version': e['firmware-version'] })),
      rows,
    );
  });
});
