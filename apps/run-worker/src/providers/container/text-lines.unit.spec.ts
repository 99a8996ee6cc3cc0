import { TextLines } from './text-lines';

describe('TextLines', () => {
  it('gives each newline-ended line as its chunk comes, a character cut between chunks whole, and the last line at the end', () => {
    const lines: string[] = [];
    const text = new TextLines((line) => lines.push(line));
    const bytes = Buffer.from('{"status":"€"}\n{"a":1}\nlast', 'utf8');
    const cut = bytes.indexOf(Buffer.from('€')) + 1; // inside the euro sign's three bytes
    text.push(bytes.subarray(0, cut));
    expect(lines).toEqual([]);
    text.push(bytes.subarray(cut));
    expect(lines).toEqual(['{"status":"€"}', '{"a":1}']);
    text.end();
    expect(lines).toEqual(['{"status":"€"}', '{"a":1}', 'last']);
  });

  it('gives no line at the end when the text ended with a newline', () => {
    const lines: string[] = [];
    const text = new TextLines((line) => lines.push(line));
    text.push(Buffer.from('one\n'));
    text.end();
    expect(lines).toEqual(['one']);
  });
});
