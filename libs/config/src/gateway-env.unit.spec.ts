import { GatewayEnv } from './gateway-env';
import { ConfigError, loadConfig } from './load-config';

const upstreams = { API_UPSTREAM: 'http://127.0.0.1:3000', RELAY_UPSTREAM: 'http://127.0.0.1:3001' };

describe('the gateway restart grace', () => {
  it('is 5 s by default, and any value below the idle time-out is taken (0 tries each replica once)', () => {
    expect(loadConfig(GatewayEnv, upstreams).GATEWAY_RESTART_GRACE_MS).toBe(5000);
    expect(loadConfig(GatewayEnv, { ...upstreams, GATEWAY_RESTART_GRACE_MS: '0' }).GATEWAY_RESTART_GRACE_MS).toBe(0);
    const long = { ...upstreams, GATEWAY_RESTART_GRACE_MS: '200000', GATEWAY_IDLE_TIMEOUT_MS: '300000' };
    expect(loadConfig(GatewayEnv, long).GATEWAY_RESTART_GRACE_MS).toBe(200000);
  });

  it('is refused at or above the idle time-out, which would cut a held request first, naming both variables', () => {
    for (const env of [
      { ...upstreams, GATEWAY_RESTART_GRACE_MS: '120000' },
      { ...upstreams, GATEWAY_RESTART_GRACE_MS: '3000', GATEWAY_IDLE_TIMEOUT_MS: '1000' },
    ]) {
      expect(() => loadConfig(GatewayEnv, env)).toThrow(ConfigError);
      expect(() => loadConfig(GatewayEnv, env)).toThrow(/GATEWAY_RESTART_GRACE_MS: must be below GATEWAY_IDLE_TIMEOUT_MS/);
    }
  });
});

describe('the gateway log level', () => {
  it('is LOG_LEVEL, as for every service (info by default), and an unknown level is refused', () => {
    expect(loadConfig(GatewayEnv, upstreams).LOG_LEVEL).toBe('info');
    expect(loadConfig(GatewayEnv, { ...upstreams, LOG_LEVEL: 'warn' }).LOG_LEVEL).toBe('warn');
    expect(() => loadConfig(GatewayEnv, { ...upstreams, LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
  });
});
