import secureJsonParse from 'secure-json-parse';
import { unstorableField, unstorableTextMessage } from './input-rules.js';

/**
 * The one reading of JSON text that comes from outside (docs/decisions.md §3): a request body of
 * any device protocol or of the operator API, and JSON carried inside one (a Mender identity's
 * `id_data`). Whatever it refuses gets a message, never a partial reading: no value reaches a
 * rule, a query or a log unless all of the text passed.
 */

/**
 * Deepest nesting of arrays and objects, levels (`{"a": [1]}` is 2). The deepest body a client
 * sends is 4 (a DDI feedback's `status.result.progress`); 32 leaves room for any operator body
 * while keeping every later walk over the value short.
 */
export const JSON_MAX_DEPTH = 32;

/** 400 texts of JSON text that is refused (the field of text no engine stores is named apart). */
export const JsonTextMessages = {
  malformed: 'Body is not valid JSON',
  tooDeep: `Body must not nest arrays and objects more than ${JSON_MAX_DEPTH} levels deep`,
  prototypeKey: 'Body must not hold a __proto__ key, nor a constructor key holding prototype',
} as const;

/** JSON text refused by {@link readJsonText}: the 400 text, and the field it names when there is one. */
export interface JsonRefusal {
  refused: string;
  field?: string;
}

/** Options of {@link readJsonText}. */
export interface JsonTextOptions {
  /**
   * Escape raw control characters (U+0000 to U+001F) where they stand inside strings before
   * parsing, for the few clients that paste text in unescaped (SWUpdate's DDI feedback,
   * docs/decisions.md §12); the repaired text is then read as strictly as any other.
   */
  repairControlCharacters?: boolean;
}

/**
 * Reads JSON text strictly: refused when it is not JSON (after the repair the options allow), when
 * it nests deeper than {@link JSON_MAX_DEPTH} (measured on the text before parsing, without
 * recursion), when it holds a prototype-poisoning key (`__proto__`, or `constructor` holding
 * `prototype`, escaped or not), or when a key or string holds text no engine stores (a lone UTF-16
 * surrogate or a NUL, `isStorableText`: the refusal names its field as a dotted path).
 * @returns the value, or the {@link JsonRefusal}.
 */
export function readJsonText(source: string, options: JsonTextOptions = {}): { value: unknown } | JsonRefusal {
  const text = options.repairControlCharacters ? escapeControlCharacters(source) : source;
  if (nestsDeeperThan(text, JSON_MAX_DEPTH)) return { refused: JsonTextMessages.tooDeep };
  let value: unknown;
  try {
    value = secureJsonParse.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    // Told apart only on this refused path: valid JSON that secure-json-parse refused holds such a key.
    return isJson(text) ? { refused: JsonTextMessages.prototypeKey } : { refused: JsonTextMessages.malformed };
  }
  // Text decoded from UTF-8 has no lone surrogate and valid JSON no raw NUL: only a `\u` escape
  // can put either into a string.
  if (text.includes('\\u')) {
    const field = unstorableField(value, '', { keys: true });
    if (field === '') return { refused: unstorableTextMessage('body') };
    if (field !== undefined) return { refused: unstorableTextMessage(field), field };
  }
  return { value };
}

/**
 * `text` with raw control characters inside its strings escaped (`\n`, `\u0001`); escapes and
 * everything outside strings are kept as they are.
 */
export function escapeControlCharacters(text: string): string {
  if (!/[\u0000-\u001f]/.test(text)) return text;
  let repaired = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') {
        repaired += char + (text[i + 1] ?? '');
        i++;
        continue;
      }
      if (char === '"') inString = false;
      const code = char.charCodeAt(0);
      repaired += code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : char;
      continue;
    }
    if (char === '"') inString = true;
    repaired += char;
  }
  return repaired;
}

/**
 * Whether JSON(-like) text opens more than `limit` arrays or objects at once, brackets inside
 * strings aside: one pass over the text, no recursion, whatever the text holds.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Fewer brackets than the limit cannot nest past it: most bodies stop here.
  if ((text.match(/[[{]/g)?.length ?? 0) <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') {
      inString = true;
    } else if (char === '{' || char === '[') {
      if (++depth > limit) return true;
    } else if (char === '}' || char === ']') {
      depth--;
    }
  }
  return false;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
