/**
 * C0 controls but tab, DEL and C1 controls: what a terminal may act on instead of showing; every format
 * character (Unicode's Cf: the bidirectional controls, which reorder what it shows, zero-width space,
 * non-joiner and joiner, word joiner, BOM, soft hyphen, invisible operators, the Mongolian vowel
 * separator, tag characters, ...); every character Unicode renders as nothing (Default_Ignorable_Code_Point:
 * Hangul fillers such as U+3164, variation selectors, the combining grapheme joiner, ...); and the line and
 * paragraph separators, which a terminal may show as a line break. What shows as nothing hides text or
 * makes two strings that differ look alike.
 */
const CONTROL = /[\x00-\x08\x0a-\x1f\x7f-\x9f\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/gu;

/**
 * Text from a workload or a provider as a terminal shows it harmlessly: each control character written
 * out (`\x1b`, `\r`, `\n`, `\u202e`, `\u200b`, `\u{e0041}` above U+FFFF), so an escape sequence cannot
 * recolour, move the cursor or set the clipboard (OSC 52), a `\r` cannot overwrite what came before, a
 * `\n` or U+2028 cannot start a fake line, a right-to-left override cannot show text in another order
 * than it has and an invisible character (zero-width, a Hangul filler, a tag, a variation selector) cannot
 * hide in a run id or a word, nor carry hidden text. Tab stays.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') {
      return '\\n';
    }
    if (char === '\r') {
      return '\\r';
    }
    const code = char.codePointAt(0) ?? 0;
    if (code > 0xffff) {
      return `\\u{${code.toString(16)}}`;
    }
    return code > 0xff ? `\\u${code.toString(16).padStart(4, '0')}` : `\\x${code.toString(16).padStart(2, '0')}`;
  });
}
