import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { enableProcessMetrics, metricsRegistry } from '@wrs/observability';
import { parse, parseAllDocuments } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

/** Every metric name a PromQL expression refers to (ours and Node's process metrics). */
function metricNames(expr: string): string[] {
  return [...expr.matchAll(/\b((?:wrs|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!);
}

/** The series names a registered metric exposes: a histogram's `_bucket`, `_count` and `_sum` too. */
function exposedNames(): Set<string> {
  enableProcessMetrics('test');
  const names = new Set<string>();
  for (const metric of metricsRegistry.getMetricsAsArray()) {
    const { name } = metric as unknown as { name: string };
    names.add(name);
    if (metric.constructor.name === 'Histogram') {
      ['_bucket', '_count', '_sum'].forEach((suffix) => names.add(`${name}${suffix}`));
    }
  }
  return names;
}

describe('the dashboard and the alert rules', () => {
  const dashboard = JSON.parse(readFileSync(join(ROOT, 'deploy/observability/grafana-dashboard.json'), 'utf8')) as {
    panels: { title: string; targets: { expr: string }[] }[];
  };
  const rules = parse(readFileSync(join(ROOT, 'deploy/observability/prometheus-rules.yaml'), 'utf8')) as {
    spec: { groups: { rules: { alert: string; expr: string }[] }[] };
  };
  const exposed = exposedNames();

  it.each(dashboard.panels.map((p) => [p.title, p.targets.map((t) => t.expr)] as const))(
    'dashboard panel "%s" only uses metrics the code registers',
    (_title, exprs) => {
      const used = exprs.flatMap(metricNames);
      expect(used.length).toBeGreaterThan(0);
      expect(used.filter((name) => !exposed.has(name))).toEqual([]);
    },
  );

  it.each(rules.spec.groups.flatMap((g) => g.rules).map((r) => [r.alert, r.expr] as const))(
    'alert %s only uses metrics the code registers',
    (_alert, expr) => {
      const used = metricNames(expr);
      expect(used.length).toBeGreaterThan(0);
      expect(used.filter((name) => !exposed.has(name))).toEqual([]);
    },
  );

  it('has the alerts operators expect: consumer lag, projection lag, error rate, stuck runs', () => {
    const alerts = rules.spec.groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect(alerts).toEqual(
      expect.arrayContaining(['WrsConsumerBacklog', 'WrsProjectionLag', 'WrsHighErrorRate', 'WrsStuckRuns', 'WrsRunsWaiting']),
    );
  });

  it('does not call a run stuck while it waits for a place (the worker counts it as `waiting`, not `queued`)', () => {
    const stuck = rules.spec.groups.flatMap((g) => g.rules).find((r) => r.alert === 'WrsStuckRuns')!;
    const states = new RegExp(`^(?:${/state=~"([^"]+)"/.exec(stuck.expr)![1]})$`);
    expect(['queued', 'starting', 'canceling'].every((state) => states.test(state))).toBe(true);
    expect(['waiting', 'running'].some((state) => states.test(state))).toBe(false);
    const waiting = rules.spec.groups.flatMap((g) => g.rules).find((r) => r.alert === 'WrsRunsWaiting')!;
    expect(waiting.expr).toContain('wrs_runs_oldest_unchanged_age_seconds{state="waiting"}');
  });

  it("offers every service in the dashboard's service choice: its values come from a metric every process exposes", () => {
    const templating = (dashboard as unknown as { templating: { list: { name: string; query: string }[] } }).templating;
    const service = templating.list.find((v) => v.name === 'service')!;
    // Node's process metrics: the api, the relay, the worker and the gateway all expose them (HTTP histograms only two do).
    expect(metricNames(service.query)).toEqual(['process_cpu_seconds_total']);
  });

  it("keeps each process's own `service` label under the Prometheus Operator (honorLabels), which the dashboard and alerts group by", () => {
    const monitor = parseAllDocuments(readFileSync(join(ROOT, 'deploy/observability/service-monitor.yaml'), 'utf8'))
      .map((d) => d.toJSON() as { kind: string; spec: { endpoints: { honorLabels?: boolean }[] } })
      .find((d) => d.kind === 'ServiceMonitor')!;
    expect(monitor.spec.endpoints.length).toBeGreaterThan(0);
    expect(monitor.spec.endpoints.every((e) => e.honorLabels === true)).toBe(true);
  });
});

describe('metric names and labels follow the Prometheus conventions', () => {
  const ours = metricsRegistry
    .getMetricsAsArray()
    .map((m) => m as unknown as { name: string; labelNames: string[]; constructor: { name: string } })
    .filter((m) => m.name.startsWith('wrs_'));

  it('registers the metrics the issue lists', () => {
    expect(ours.map((m) => m.name)).toEqual(
      expect.arrayContaining([
        'wrs_http_request_duration_seconds',
        'wrs_runs_created_total',
        'wrs_runs_finished_total',
        'wrs_jetstream_consumer_pending_messages',
        'wrs_jetstream_consumer_redelivered_messages',
        'wrs_projection_lag_seconds',
        'wrs_dispatch_duration_seconds',
        'wrs_sse_open_streams',
        'wrs_sse_events_sent_total',
        'wrs_rate_limit_rejections_total',
        'wrs_idempotent_replays_total',
      ]),
    );
  });

  it.each(ours.map((m) => [m.name, m] as const))('%s: unit in the name, _total on counters, no unbounded label', (name, metric) => {
    const kind = metric.constructor.name;
    if (kind === 'Counter') {
      expect(name).toMatch(/_total$/);
    } else {
      expect(name).not.toMatch(/_total$/);
    }
    if (kind === 'Histogram') {
      expect(name).toMatch(/_seconds$/);
    }
    expect(name).toMatch(/_(seconds|total|messages|streams|active)$/);
    // Ids would make one series per run, workspace or request.
    for (const label of metric.labelNames) {
      expect(['runId', 'workspaceId', 'requestId', 'traceId', 'path', 'url', 'token']).not.toContain(label);
    }
  });
});
