import { Writable } from 'node:stream';
import { EXIT, type ExitCode } from './exit-codes';
import { endOnOutputFailure } from './io';

/** A stream whose every write fails with this error, and one that keeps what is written to it. */
const failing = (error: Error): Writable => new Writable({ write: (_chunk, _encoding, done) => done(error) });
const errno = (code: string, message: string): Error => Object.assign(new Error(message), { code });

async function afterWrite(stdout: Writable, stderr: Writable): Promise<ExitCode[]> {
  const exits: ExitCode[] = [];
  endOnOutputFailure(stdout, stderr, (code) => exits.push(code));
  stdout.write('a line\n');
  await new Promise((resolve) => setImmediate(resolve));
  return exits;
}

describe('a failed write to stdout or stderr', () => {
  it('EPIPE (the reader closed the pipe): exit 0, nothing said', async () => {
    const said: string[] = [];
    const stderr = new Writable({ write: (chunk: Buffer, _e, done) => (said.push(chunk.toString()), done()) });
    expect(await afterWrite(failing(errno('EPIPE', 'write EPIPE')), stderr)).toEqual([EXIT.ok]);
    expect(said).toEqual([]);
  });

  it("any other: exit 74, stderr told the error's code only, never its message", async () => {
    const said: string[] = [];
    const stderr = new Writable({ write: (chunk: Buffer, _e, done) => (said.push(chunk.toString()), done()) });
    expect(await afterWrite(failing(errno('ENOSPC', `no space writing "token Zk3x9QpLw"`)), stderr)).toEqual([EXIT.outputFailed]);
    expect(said).toEqual(['wrs: writing to stdout failed (ENOSPC); the output is incomplete\n']);
    said.length = 0;
    expect(await afterWrite(failing(errno('E\x1b]52;c;x\x07', 'odd')), stderr)).toEqual([EXIT.outputFailed]);
    expect(said).toEqual(['wrs: writing to stdout failed; the output is incomplete\n']);
  });

  it('stderr itself: exit 74 (nowhere left to say it)', async () => {
    const stdout = new Writable({ write: (_chunk, _e, done) => done() });
    const stderr = failing(errno('ENOSPC', 'no space'));
    const exits: ExitCode[] = [];
    endOnOutputFailure(stdout, stderr, (code) => exits.push(code));
    stderr.write('error: x\n');
    await new Promise((resolve) => setImmediate(resolve));
    expect(exits).toEqual([EXIT.outputFailed]);
  });
});
