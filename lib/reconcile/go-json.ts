/**
 * Serialises a JSON value exactly as Go's `encoding/json.Marshal` does for a
 * value decoded into `interface{}` — the round trip upstream's `getPatch`
 * performs (pkg/controller/daemon/update.go). Byte equality with upstream
 * decides whether a ControllerRevision is reused, so every rule here is Go's:
 *
 * - object keys sorted by their UTF-8 bytes (Go sorts map keys as strings);
 * - no insignificant white space;
 * - `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`… (HTML-safe mode);
 * - control characters as `\b \f \n \r \t` or `\u00XX` (Go ≥ 1.22);
 * - numbers are float64 in shortest form, exponent only below 1e-6 or from
 *   1e21 on, exponent without leading zeros (`1e-7`, `1e+21`), `-0` kept.
 */

const HEX = '0123456789abcdef';

const escapeChar = (code: number): string => {
  switch (code) {
    case 0x22:
      return '\\"';
    case 0x5c:
      return '\\\\';
    case 0x08:
      return '\\b';
    case 0x0c:
      return '\\f';
    case 0x0a:
      return '\\n';
    case 0x0d:
      return '\\r';
    case 0x09:
      return '\\t';
    default:
      return `\\u${HEX[(code >> 12) & 0xf]}${HEX[(code >> 8) & 0xf]}${HEX[(code >> 4) & 0xf]}${HEX[code & 0xf]}`;
  }
};

const needsEscape = (code: number): boolean =>
  code < 0x20 ||
  code === 0x22 ||
  code === 0x5c ||
  code === 0x3c ||
  code === 0x3e ||
  code === 0x26 ||
  code === 0x2028 ||
  code === 0x2029;

/** Returns a JSON string literal with Go's escaping. */
export const marshalGoString = (s: string): string => {
  let out = '"';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const code = s.charCodeAt(i);
    const isLoneSurrogate =
      (code >= 0xd800 && code <= 0xdbff && !isLow(s.charCodeAt(i + 1))) ||
      (code >= 0xdc00 && code <= 0xdfff && !isHigh(s.charCodeAt(i - 1)));
    if (!needsEscape(code) && !isLoneSurrogate) continue;
    out += s.slice(start, i);
    // Go's decoder turns a lone surrogate into U+FFFD, which it then writes
    // as the raw character.
    out += isLoneSurrogate ? '\ufffd' : escapeChar(code);
    start = i + 1;
  }
  return `${out + s.slice(start)}"`;
};

const isHigh = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLow = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** Returns a float64 rendered as Go's `encoding/json` renders it. */
export const marshalGoNumber = (n: number): string => {
  if (!Number.isFinite(n)) {
    throw new TypeError(`json: unsupported value: ${n}`);
  }
  if (Object.is(n, -0)) return '-0';
  // JavaScript's Number#toString is the shortest round-trip form and switches
  // to exponent notation at the same thresholds as Go (1e-6, 1e21); only the
  // exponent spelling differs ("1e-7" in both, "1e+21" in both).
  return String(n);
};

const compareUtf8 = (a: string, b: string): number =>
  Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));

/** Returns `value` serialised as Go's `json.Marshal(interface{})`. */
export const marshalGoJson = (value: unknown): string => {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return marshalGoString(value);
    case 'number':
      return marshalGoNumber(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (Array.isArray(value)) {
        return `[${value.map(marshalGoJson).join(',')}]`;
      }
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((k) => record[k] !== undefined)
        .sort(compareUtf8);
      const members = keys.map(
        (k) => `${marshalGoString(k)}:${marshalGoJson(record[k])}`
      );
      return `{${members.join(',')}}`;
    }
    default:
      throw new TypeError(`json: unsupported type: ${typeof value}`);
  }
};
