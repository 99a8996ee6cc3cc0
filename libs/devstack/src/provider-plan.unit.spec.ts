import { engineCandidates, findContainerEngine } from './container-engine';
import { passThroughEnv, passThroughVariables } from './pass-through';
import { planProviders } from './provider-plan';

describe('which container engine npm start uses', () => {
  it("looks at Docker's socket, then Podman's rootful and rootless sockets", () => {
    expect(engineCandidates({ XDG_RUNTIME_DIR: '/run/user/1000' })).toEqual([
      { socket: '/var/run/docker.sock', source: "Docker's socket" },
      { socket: '/run/podman/podman.sock', source: "Podman's rootful socket" },
      { socket: '/run/user/1000/podman/podman.sock', source: "Podman's rootless socket" },
    ]);
  });

  it('tries only the socket named by CONTAINER_ENGINE_SOCKET or DOCKER_HOST; a tcp DOCKER_HOST is explained', async () => {
    expect(engineCandidates({ DOCKER_HOST: 'unix:///x.sock' })).toEqual([{ socket: '/x.sock', source: 'DOCKER_HOST' }]);
    expect(engineCandidates({ CONTAINER_ENGINE_SOCKET: '/y.sock', DOCKER_HOST: 'unix:///x.sock' })).toEqual([
      { socket: '/y.sock', source: 'CONTAINER_ENGINE_SOCKET' },
    ]);
    expect(await findContainerEngine({ DOCKER_HOST: 'tcp://10.0.0.1:2375' })).toEqual({
      found: undefined,
      tried: [expect.stringContaining('not a unix:// socket')],
    });
  });

  it('takes the first that answers, and lists what the others said', async () => {
    const search = await findContainerEngine({ XDG_RUNTIME_DIR: '/r' }, (socket) =>
      Promise.resolve(socket === '/run/podman/podman.sock' ? undefined : 'no such socket'),
    );
    expect(search.found?.socket).toBe('/run/podman/podman.sock');
    expect(search.tried).toEqual(["Docker's socket /var/run/docker.sock: no such socket"]);
  });
});

describe('the providers npm start offers', () => {
  const found = { found: { socket: '/run/podman/podman.sock', source: "Podman's rootful socket" }, tried: [] };
  const none = { found: undefined, tried: ["Docker's socket /var/run/docker.sock: no such socket"] };

  it('with an engine: container for auto, the simulator only by name', () => {
    const plan = planProviders({}, found);
    expect(JSON.parse(plan.env['PROVIDERS_JSON']!)).toEqual([
      { provider: 'container', regions: ['local'], priority: 0 },
      { provider: 'simulator', regions: ['local-1', 'local-2'], priority: 1, auto: false },
    ]);
    expect(plan.env['CONTAINER_ENGINE_SOCKET']).toBe('/run/podman/podman.sock');
    expect(plan.lines[0]).toBe('providers: container [local], then simulator [local-1, local-2]');
    expect(plan.real).toBe(true);
  });

  it('without one: says the runs are simulated and how to get real ones', () => {
    const plan = planProviders({}, none);
    expect(plan.env).toEqual({});
    expect(plan.real).toBe(false);
    expect(plan.lines.join('\n')).toMatch(/RUNS ARE SIMULATED[\s\S]*podman system service/);
  });

  it('keeps PROVIDERS_JSON as given', () => {
    const plan = planProviders({ PROVIDERS_JSON: '[{"provider":"lab","kind":"simulator","regions":["r"],"priority":0}]' }, found);
    expect(plan.env).toEqual({ CONTAINER_ENGINE_SOCKET: '/run/podman/podman.sock' });
    expect(plan.lines[0]).toBe('providers: lab (simulator) [r] (from PROVIDERS_JSON)');
    expect(plan.real).toBe(false);
  });
});

describe('what npm start hands on', () => {
  it("every variable of the services' schemas, except the ports and upstreams the stack sets", () => {
    const names = passThroughVariables();
    for (const name of [
      'PROVIDERS_JSON',
      'CONTAINER_ENGINE_SOCKET',
      'LIMIT_ACTIVE_RUNS',
      'SSE_HEARTBEAT_MS',
      'CORS_ORIGINS',
      'GATEWAY_IDLE_TIMEOUT_MS',
      'SESSION_TTL_SECONDS',
    ]) {
      expect(names).toContain(name);
    }
    for (const name of ['PORT', 'METRICS_PORT', 'API_UPSTREAM', 'RELAY_UPSTREAM', 'HOME', 'DEV_KEYS_DIR']) {
      expect(names).not.toContain(name);
    }
    expect(passThroughEnv({ LIMIT_ACTIVE_RUNS: '5', HOME: '/root', PORT: '1' })).toEqual({ LIMIT_ACTIVE_RUNS: '5' });
  });
});
