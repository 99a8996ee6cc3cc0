/**
 * C0 controls but tab, DEL and C1 controls: what a terminal may act on instead of showing; Unicode's
 * bidirectional controls (embeddings, overrides, isolates, marks), which reorder what it shows; and the
 * characters it shows as nothing (zero-width space, non-joiner and joiner, word joiner, BOM) or as a
 * line break (line and paragraph separators), which hide text or make two strings that differ look alike.
 */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/g;

/**
 * Text from a workload or a provider as a terminal shows it harmlessly: each control character written
 * out (`\x1b`, `\r`, `\n`, `\u202e`, `\u200b`), so an escape sequence cannot recolour, move the cursor or
 * set the clipboard (OSC 52), a `\r` cannot overwrite what came before, a `\n` or U+2028 cannot start a
 * fake line, a right-to-left override cannot show text in another order than it has and a zero-width
 * character cannot hide in a run id or a word. Tab stays.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') {
      return '\\n';
    }
    if (char === '\r') {
      return '\\r';
    }
    const code = char.charCodeAt(0);
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
