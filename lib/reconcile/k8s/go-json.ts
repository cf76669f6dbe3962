/**
 * Serialises a JSON value exactly as Go's `encoding/json.Marshal` does for a
 * value decoded into `interface{}` — the round trip upstream's `getPatch`
 * performs (pkg/controller/daemon/update.go). Byte equality with upstream
 * decides whether a ControllerRevision is reused, so every rule here is Go's
 * (checked against Go 1.26 by test/fixtures/go-oracle):
 *
 * - object keys sorted by their UTF-8 bytes (Go sorts map keys as strings);
 * - no insignificant white space;
 * - `<`, `>`, `&`, U+2028 and U+2029 escaped as `\u003c`… (HTML-safe mode);
 * - control characters as `\b \f \n \r \t` or `\u00XX` (Go ≥ 1.22); DEL raw;
 * - a lone surrogate becomes a raw U+FFFD (Go's decoder replaces it), also in
 *   keys, where two keys that become equal collapse into one, last one wins;
 * - numbers are float64 in shortest form, exponent only below 1e-6 or from
 *   1e21 on, exponent without leading zeros (`1e-7`, `1e+21`), `-0` kept.
 *
 * Upstream decodes with k8s.io/apimachinery's `json.Unmarshal`, which keeps
 * integers as int64: it differs from the above only for `-0` (rendered `0`)
 * and integers beyond ±2^53, which `JSON.parse` cannot carry anyway (pass a
 * `bigint` to have one rendered exactly). Neither occurs in the JSON an API
 * server serves for a pod template short of an int64 field above 2^53.
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

const LONE_SURROGATE =
  /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Returns `s` with every lone surrogate replaced by U+FFFD, as Go's JSON
 * decoder does for a `\ud800`-style escape that is not half of a pair.
 */
export const toWellFormed = (s: string): string =>
  s.replace(LONE_SURROGATE, '\ufffd');

/** Returns a JSON string literal with Go's escaping. */
export const marshalGoString = (s: string): string => {
  const text = toWellFormed(s);
  let out = '"';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!needsEscape(code)) continue;
    out += text.slice(start, i) + escapeChar(code);
    start = i + 1;
  }
  return `${out + text.slice(start)}"`;
};

/** Returns a float64 rendered as Go's `encoding/json` renders it. */
export const marshalGoNumber = (n: number): string => {
  if (!Number.isFinite(n)) {
    throw new TypeError(`json: unsupported value: ${n}`);
  }
  if (Object.is(n, -0)) return '-0';
  // JavaScript's Number#toString is the shortest round-trip form and switches
  // to exponent notation at the same thresholds as Go (1e-6, 1e21), with the
  // same exponent spelling ("1e-7", "1e+21", "5e-324").
  return String(n);
};

const marshalGoObject = (record: Record<string, unknown>): string => {
  // Keys that differ only in lone surrogates are one key to Go: last wins.
  const members = new Map<string, unknown>();
  for (const [key, member] of Object.entries(record)) {
    if (member !== undefined) members.set(toWellFormed(key), member);
  }
  const sorted = Array.from(members, ([key, member]) => ({
    key,
    member,
    bytes: Buffer.from(key, 'utf8'),
  })).sort((a, b) => Buffer.compare(a.bytes, b.bytes));
  const body = sorted.map(
    ({ key, member }) => `${marshalGoString(key)}:${marshalGoJson(member)}`
  );
  return `{${body.join(',')}}`;
};

/**
 * Returns `value` serialised as Go's `json.Marshal(interface{})` after
 * `json.Unmarshal` — byte for byte (see the module header for the rules).
 * `undefined` members are left out, `undefined` itself renders as `null`;
 * a `bigint` renders as the integer it holds (Go's int64 path).
 *
 * @throws TypeError for a non-finite number or a non-JSON type.
 */
export const marshalGoJson = (value: unknown): string => {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return marshalGoString(value);
    case 'number':
      return marshalGoNumber(value);
    case 'bigint':
      return value.toString();
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      return Array.isArray(value)
        ? `[${value.map(marshalGoJson).join(',')}]`
        : marshalGoObject(value as Record<string, unknown>);
    default:
      throw new TypeError(`json: unsupported type: ${typeof value}`);
  }
};
