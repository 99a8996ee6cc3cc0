/**
 * The one knob for waits that exist because a machine may be loaded: how long a test waits for the
 * system to get somewhere (a state, an event, a process to start). `WRS_TEST_PATIENCE` multiplies
 * them (1 by default); it never changes what a test decides, only how long it is willing to wait.
 */
export function patience(ms: number, env: NodeJS.ProcessEnv = process.env): number {
  const factor = Number(env['WRS_TEST_PATIENCE'] ?? '1');
  return Number.isFinite(factor) && factor >= 1 ? Math.round(ms * factor) : ms;
}
