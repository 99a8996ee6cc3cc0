/** A model class that validates one kind against its JSON schema. */
export type Model = new (data: unknown) => { validate(): void };

/**
 * kind -> the model that validates it: kubernetes-models for Kubernetes' own kinds, the Prometheus
 * Operator's CRD schemas for its kinds (ServiceMonitor, PrometheusRule). Throws for a kind without one.
 */
export function modelFor(apiVersion: string, kind: string): Model {
  const group = apiVersion.includes('/') ? apiVersion : `v1`;
  const path = group === 'v1' ? `v1/${kind}` : `${group}/${kind}`;
  const pkg = group.startsWith('monitoring.coreos.com/') ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  const module = require(`${pkg}/${path}`) as Record<string, Model>;
  const model = module[kind];
  if (!model) {
    throw new Error(`no schema for ${apiVersion} ${kind}`);
  }
  return model;
}
