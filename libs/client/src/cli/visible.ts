/**
 * C0 controls but tab, DEL and C1 controls: what a terminal may act on instead of showing; and Unicode's
 * bidirectional controls (embeddings, overrides, isolates, marks), which reorder what it shows.
 */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text from a workload or a provider as a terminal shows it harmlessly: each control character written
 * out (`\x1b`, `\r`, `\n`, `\u202e`), so an escape sequence cannot recolour, move the cursor or set the
 * clipboard (OSC 52), a `\r` cannot overwrite what came before, a `\n` cannot start a fake line and a
 * right-to-left override cannot show text in another order than it has. Tab stays.
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
