import { WrsApiError } from '../errors';
import type { Run, RunEvent } from '../types';
import { describeEvent, errorLine, runLines } from './render';
import { unexpectedErrorLine } from './run-cli';
import { shellWord } from './shell-word';
import { visible } from './visible';

const at = '2026-11-26T00:00:00.000Z';
const OSC52 = '\x1b]52;c;ZWNobyBwd25lZA==\x07';
/**
 * What human output never passes raw: C0 (but tab) and C1 controls, DEL, format characters (Cf: bidi
 * controls, zero-width characters, soft hyphen, tags, ...), what Unicode renders as nothing (Default_Ignorable_Code_Point:
 * Hangul fillers, variation selectors, ...) and U+2028/U+2029.
 */
const NOT_SHOWN = /[\x00-\x08\x0a-\x1f\x7f-\x9f\p{Cf}\p{Default_Ignorable_Code_Point}\u2028\u2029]/u;

describe('human output shows control characters instead of passing them to the terminal', () => {
  it('writes out ESC, OSC, BEL, CR, LF, DEL and C1 controls; keeps tab and ordinary text', () => {
    expect(visible(`copy${OSC52}done`)).toBe('copy\\x1b]52;c;ZWNobyBwd25lZA==\\x07done');
    expect(visible('\x1b[2J\x1b[31mred')).toBe('\\x1b[2J\\x1b[31mred');
    expect(visible('progress 10%\rprogress 100%')).toBe('progress 10%\\rprogress 100%');
    expect(visible('one line\nfake line')).toBe('one line\\nfake line');
    expect(visible('\0\x7f\x9b31m\x9d52;c;x\x9c')).toBe('\\x00\\x7f\\x9b31m\\x9d52;c;x\\x9c');
    expect(visible('a\tb  ünïcødé → ok')).toBe('a\tb  ünïcødé → ok');
  });

  it('writes out Unicode bidirectional controls, which reorder what a terminal shows (Trojan Source), as \\u202e', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(visible(`ok${bidi}.`)).toBe('ok\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c.');
    // Shown as "access granted" on a terminal, though the line holds "detnarg".
    expect(visible('access \u202edetnarg\u202c')).toBe('access \\u202edetnarg\\u202c');
    // Letters of right-to-left scripts are text, not controls.
    expect(visible('שלום مرحبا')).toBe('שלום مرحبا');
  });

  it('writes out what a terminal shows as nothing or as a line break: zero-width characters, word joiner, BOM, U+2028, U+2029', () => {
    const invisible = '\u200b\u200c\u200d\u2060\ufeff\u2028\u2029';
    expect(visible(`ok${invisible}.`)).toBe('ok\\u200b\\u200c\\u200d\\u2060\\ufeff\\u2028\\u2029.');
    // A run id that looks like another: the zero-width space shows.
    expect(visible('run 5555\u200b5555 canceled')).toBe('run 5555\\u200b5555 canceled');
    expect(visible('one line\u2028fake line')).toBe('one line\\u2028fake line');
  });

  it('writes out the other invisible characters: soft hyphen, invisible operators, Mongolian vowel separator, Hangul fillers, tags, variation selectors', () => {
    expect(visible('a\u00adb\u2062c\u180ed\u3164e\u115f\u1160\uffa0f\u034fg')).toBe(
      'a\\xadb\\u2062c\\u180ed\\u3164e\\u115f\\u1160\\uffa0f\\u034fg',
    );
    // Tag characters (U+E0000-U+E007F) spell hidden ASCII: "hi" here. Astral ones are written \u{...}.
    expect(visible('ok\u{e0001}\u{e0068}\u{e0069}\u{e007f}.')).toBe('ok\\u{e0001}\\u{e0068}\\u{e0069}\\u{e007f}.');
    // Variation selectors can carry a hidden payload after any character (and change nothing it shows).
    expect(visible('run\ufe00\ufe0f\u{e0100}\u{e01ef}\u180b.')).toBe('run\\ufe00\\ufe0f\\u{e0100}\\u{e01ef}\\u180b.');
    // A label that looks like another.
    expect(visible('team=m\u3164l')).toBe('team=m\\u3164l');
    // What it costs: an emoji with a presentation selector, or a subdivision flag (tags), shows its parts.
    expect(visible('\u26a0\ufe0f')).toBe('\u26a0\\ufe0f');
    expect(visible('\u{1f3f4}\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}')).toBe(
      '\u{1f3f4}\\u{e0067}\\u{e0062}\\u{e0073}\\u{e0063}\\u{e0074}\\u{e007f}',
    );
  });

  it('writes out every format character (Cf) and every default-ignorable code point; keeps visible text', () => {
    const passedRaw: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      const char = String.fromCodePoint(code);
      if (/[\p{Cf}\p{Default_Ignorable_Code_Point}]/u.test(char)) {
        const shown = visible(char);
        if (
          shown !==
          (code > 0xffff
            ? `\\u{${code.toString(16)}}`
            : code > 0xff
              ? `\\u${code.toString(16).padStart(4, '0')}`
              : `\\x${code.toString(16).padStart(2, '0')}`)
        ) {
          passedRaw.push(code.toString(16));
        }
      }
    }
    expect(passedRaw).toEqual([]);
    // Letters, marks, symbols, spaces and emoji are text, kept as they are; so is a lone surrogate.
    const text = 'Zürich, 東京, שלום \u00a0\u2003\u2800 e\u0301 \u{1f600}\u{1f44d}\u{1f3fd} \u2705 \ud800';
    expect(visible(text)).toBe(text);
  });

  it("in a run's command and failure, and in waiting, refusal and failure events", () => {
    const run = {
      id: 'r',
      state: 'failed',
      terminal: true,
      workload: { image: 'busybox', command: ['/bin/sh', '-c', `printf '${OSC52}'`] },
      provider: 'auto',
      region: 'auto',
      placement: null,
      createdAt: at,
      finishedAt: at,
      exitCode: 1,
      failure: { code: 'provider_error', message: 'boom\r\x1b[2Kall fine' },
      cancellation: null,
      logLines: 0,
      version: 3,
    } as unknown as Run;
    const lines = runLines({
      ...run,
      workload: { ...run.workload, labels: { team: 'ml\u202e\u200b\u2028\ufeff\u3164\u{e0041}' } },
      failure: { code: 'provider_error', message: 'boom\r\x1b[2Kall fine\u2066\u2060\u2029\u00ad\ufe0f' },
    } as Run);
    expect(lines).toContain("  command    /bin/sh -c printf '\\x1b]52;c;ZWNobyBwd25lZA==\\x07'");
    expect(lines).toContain('  failure    provider_error: boom\\r\\x1b[2Kall fine\\u2066\\u2060\\u2029\\xad\\ufe0f');
    expect(lines).toContain('  labels     team=ml\\u202e\\u200b\\u2028\\ufeff\\u3164\\u{e0041}');
    expect(lines.join('')).not.toMatch(NOT_SHOWN);
    expect(runLines({ ...run, workload: { image: 'busybox\u202e' } } as Run)).toContain('  image      busybox\\u202e');

    const event = (type: string, data: object) => ({ type, runId: 'r', workspaceId: 'ws', time: at, data }) as unknown as RunEvent;
    expect(describeEvent(event('run.waiting', { at, reason: 'capacity', message: `full${OSC52}` }))).toBe(
      'waiting (capacity): full\\x1b]52;c;ZWNobyBwd25lZA==\\x07',
    );
    expect(
      describeEvent(
        event('run.dispatch_refused', { at, refusal: { provider: 'p', region: 'r', code: 'c', message: 'no\nrunning: fake' } }),
      ),
    ).toBe('queued again: p/r refused it (c: no\\nrunning: fake)');
    expect(describeEvent(event('run.failed', { at, exitCode: null, failure: { code: 'provider_error', message: '\x9b2J' } }))).toBe(
      'failed: provider_error: \\x9b2J',
    );
    expect(describeEvent(event('run.waiting', { at, reason: 'capacity', message: 'full \u2067x\u2069' }))).toBe(
      'waiting (capacity): full \\u2067x\\u2069',
    );
  });

  it('in an error line, keeping the line breaks it puts between field errors', () => {
    expect(errorLine(new Error('bad\x1b[8m hidden'))).toBe('error: bad\\x1b[8m hidden');
    const refused = new WrsApiError(
      400,
      'validation_failed',
      false,
      'req-1',
      'The request is not valid.',
      undefined,
      {
        errors: [{ field: 'workload.image', message: 'not\n  workload.args: fake' }],
      },
      1,
    );
    expect(errorLine(refused).split('\n')).toEqual([
      'error: 400 validation_failed: The request is not valid. (request req-1)',
      '  workload.image: not\\n  workload.args: fake',
    ]);
  });

  it("in the last resort's line for an error runCli could not print: written out and cleared of the token", () => {
    const quoted = new SyntaxError(`Unexpected token 'Z', "Zk3x9QpLw\x1b"... is not valid JSON ${OSC52}`);
    expect(unexpectedErrorLine(quoted, 'Zk3x9QpLw')).toBe(
      `wrs: unexpected error: Unexpected token 'Z', "[redacted]\\x1b"... is not valid JSON \\x1b]52;c;ZWNobyBwd25lZA==\\x07`,
    );
    expect(unexpectedErrorLine('\x9b2J', undefined)).toBe('wrs: unexpected error: \\x9b2J');
  });

  it('in a word of a command to paste: a plain word as is, anything else quoted so it runs nothing', () => {
    expect(shellWord('eyJjIjoiMjAyNi0xMS0yNiJ9.abc_-=')).toBe('eyJjIjoiMjAyNi0xMS0yNiJ9.abc_-=');
    expect(shellWord('abc;curl x|sh')).toBe("'abc;curl x|sh'");
    expect(shellWord("it's $(id)")).toBe(`'it'\\''s $(id)'`);
    expect(shellWord(`a${OSC52}`)).toBe("'a\\x1b]52;c;ZWNobyBwd25lZA==\\x07'");
    // A word a shell would expand: bash's ~root and ~+, zsh's =ls.
    expect(shellWord('~root')).toBe("'~root'");
    expect(shellWord('~+')).toBe("'~+'");
    expect(shellWord('=ls')).toBe("'=ls'");
  });
});
