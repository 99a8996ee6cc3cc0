import { OperationsEnv } from './env-schemas';
import { loadConfig } from './load-config';

describe('trace sampling settings', () => {
  it('default to a parent-based tenth of the traces that start here', () => {
    const config = loadConfig(OperationsEnv, {});
    expect(config.OTEL_TRACES_SAMPLER).toBe('parentbased_traceidratio');
    expect(config.OTEL_TRACES_SAMPLER_ARG).toBe(0.1);
  });

  it('take the standard names and a share from 0 to 1', () => {
    const config = loadConfig(OperationsEnv, { OTEL_TRACES_SAMPLER: 'always_on', OTEL_TRACES_SAMPLER_ARG: '1' });
    expect(config.OTEL_TRACES_SAMPLER).toBe('always_on');
    expect(config.OTEL_TRACES_SAMPLER_ARG).toBe(1);
    expect(loadConfig(OperationsEnv, { OTEL_TRACES_SAMPLER_ARG: '0.25' }).OTEL_TRACES_SAMPLER_ARG).toBe(0.25);
  });

  it('refuse anything else, naming the variable', () => {
    expect(() => loadConfig(OperationsEnv, { OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/OTEL_TRACES_SAMPLER/);
    expect(() => loadConfig(OperationsEnv, { OTEL_TRACES_SAMPLER_ARG: '1.5' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
    expect(() => loadConfig(OperationsEnv, { OTEL_TRACES_SAMPLER_ARG: 'half' })).toThrow(/OTEL_TRACES_SAMPLER_ARG/);
  });
});
