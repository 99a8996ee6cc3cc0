/**
 * Tries `attempt` until it succeeds or `waitSeconds` have passed, then throws its last error. Compose
 * starts containers in any order (depends_on conditions are not honoured everywhere), so a service waits
 * for what it needs itself; 0 tries once, as a service under an orchestrator that restarts it should.
 */
export async function waitAtStart<T>(
  what: string,
  waitSeconds: number,
  attempt: () => Promise<T>,
  log: (line: string) => void = (line) => console.error(line),
): Promise<T> {
  const deadline = Date.now() + (Number.isFinite(waitSeconds) ? waitSeconds : 0) * 1000;
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (error) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw error;
      }
      // One line when the wait begins and one every 10 tries: enough to see what a service waits for.
      if (tries % 10 === 1) {
        log(
          JSON.stringify({
            level: 'info',
            msg: `waiting for ${what}`,
            tries,
            secondsLeft: Math.ceil(left / 1000),
            error: error instanceof Error ? error.message : String(error),
          }),
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(1000, left)));
    }
  }
}
