import type { RunProvider } from './provider';
import { ProviderHealth } from './provider-health';

function providerWithProbe(name: string, probe?: () => Promise<void>): RunProvider {
  const never = () => Promise.reject(new Error('not used'));
  return { name, takesCredential: false, submit: never, observe: never, logs: never, cancel: never, ...(probe ? { probe } : {}) };
}

describe('ProviderHealth', () => {
  const options = { probeIntervalMs: 60_000, failuresBeforeUnhealthy: 3, cooldownMs: 30_000 };

  it('a provider whose probe fails is unhealthy for every workspace, with the reason; a later good probe heals it', async () => {
    let up = false;
    const health = new ProviderHealth(
      [providerWithProbe('engine', () => (up ? Promise.resolve() : Promise.reject(new Error('connect ENOENT'))))],
      options,
    );
    await health.probeAll();
    expect(health.verdict('engine', 'ws-a')).toEqual({ healthy: false, reason: 'its health probe failed: connect ENOENT' });
    expect(health.verdict('engine', 'ws-b').healthy).toBe(false);
    up = true;
    await health.probeAll();
    expect(health.verdict('engine', 'ws-a')).toEqual({ healthy: true });
  });

  it('without a probe, failed calls in a row make the (provider, workspace) pair unhealthy until the cool-down ends', () => {
    let now = 1_000_000;
    const health = new ProviderHealth([providerWithProbe('k8s')], options, () => now);
    health.recordFailure('k8s', 'ws-a', new Error('HTTP 503'));
    health.recordFailure('k8s', 'ws-a', new Error('HTTP 503'));
    expect(health.verdict('k8s', 'ws-a').healthy).toBe(true);
    health.recordFailure('k8s', 'ws-a', new Error('HTTP 503'));
    expect(health.verdict('k8s', 'ws-a')).toMatchObject({
      healthy: false,
      reason: expect.stringContaining('last 3 calls for this workspace failed'),
    });
    // Another workspace reaches another cluster: unaffected.
    expect(health.verdict('k8s', 'ws-b').healthy).toBe(true);
    now += 30_001;
    expect(health.verdict('k8s', 'ws-a').healthy).toBe(true);
    // Tried again and failed again: skipped for another cool-down.
    health.recordFailure('k8s', 'ws-a', new Error('HTTP 503'));
    expect(health.verdict('k8s', 'ws-a').healthy).toBe(false);
  });

  it('one successful call clears the record', () => {
    const health = new ProviderHealth([providerWithProbe('k8s')], options);
    for (let i = 0; i < 5; i++) {
      health.recordFailure('k8s', 'ws-a', new Error('ECONNREFUSED'));
    }
    health.recordSuccess('k8s', 'ws-a');
    expect(health.verdict('k8s', 'ws-a')).toEqual({ healthy: true });
  });
});
