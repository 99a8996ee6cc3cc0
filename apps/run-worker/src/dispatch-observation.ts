import { dispatchDuration, inSpan, SpanKind } from '@wrs/observability';
import { ProviderError } from './providers/provider';

/**
 * Times a provider's answer to a submit (outcome `accepted`, `refused` for a typed provider refusal,
 * `error` otherwise) in a client span, so slow or failing providers show per provider.
 */
export function observeDispatch<T>(provider: string, submit: () => Promise<T>): Promise<T> {
  const started = process.hrtime.bigint();
  const outcome = (value: string): void => {
    dispatchDuration.observe({ provider, outcome: value }, Number(process.hrtime.bigint() - started) / 1e9);
  };
  return inSpan(`dispatch ${provider}`, { kind: SpanKind.CLIENT, attributes: { 'wrs.provider': provider } }, async () => {
    try {
      const result = await submit();
      outcome('accepted');
      return result;
    } catch (error) {
      outcome(error instanceof ProviderError ? 'refused' : 'error');
      throw error;
    }
  });
}
