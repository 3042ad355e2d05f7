/** Base62 for the service's credentials (channel keys, integration tokens): digits, then A-Z, then a-z. */
export const BASE62_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ALPHABET = BASE62_ALPHABET;

/** `value` in base62, left-padded with zeros to `width` characters. */
export function base62(value: number, width: number): string {
  let out = '';
  for (let rest = value; out.length < width; rest = Math.floor(rest / 62)) out = ALPHABET[rest % 62]! + out;
  return out;
}

/** `length` random base62 characters, every character equally likely. */
export function randomBase62(length: number): string {
  // Rejection sampling keeps every character equally likely.
  const out: string[] = [];
  const buffer = new Uint8Array(length * 2);
  while (out.length < length) {
    crypto.getRandomValues(buffer);
    for (const byte of buffer) if (byte < 248 && out.length < length) out.push(ALPHABET[byte % 62]!);
  }
  return out.join('');
}
