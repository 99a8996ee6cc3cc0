/**
 * A named crash site for fault-injection tests (FAILPOINT=<name>): the process dies with SIGKILL at
 * that point, exactly as a `kill -9` would land there. Unset in production, it costs one comparison.
 */
export class Failpoint {
  constructor(private readonly armed: string | undefined) {}

  hit(name: string): void {
    if (this.armed === name) {
      process.kill(process.pid, 'SIGKILL');
    }
  }
}
