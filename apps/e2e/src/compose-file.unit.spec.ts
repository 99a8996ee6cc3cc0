import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { trustProxySetting } from '@wrs/config';
import express from 'express';
import { parse } from 'yaml';

const ROOT = join(__dirname, '..', '..', '..');

interface Service {
  image?: string;
  environment?: Record<string, string>;
  ports?: string[];
  user?: string;
  volumes?: string[];
  depends_on?: unknown;
}

/**
 * What docs/compose.md promises of docker/compose.yaml, checked without an engine (compose.e2e.spec.ts
 * runs it): images from variables, nothing published but the edge and Postgres on loopback, no
 * depends_on condition relied on, the worker as uid 1000.
 */
describe('docker/compose.yaml', () => {
  const compose = parse(readFileSync(join(ROOT, 'docker/compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const services = compose.services;

  it('takes every image from a variable, the official infrastructure images by default', () => {
    expect(services['nats']?.image).toBe('${WRS_IMAGE_NATS:-nats:2.12.2-alpine}');
    expect(services['postgres']?.image).toBe('${WRS_IMAGE_POSTGRES:-postgres:15.14-alpine}');
    expect(services['redis']?.image).toBe('${WRS_IMAGE_REDIS:-redis:7.4.6-alpine}');
    for (const [name, service] of Object.entries(services)) {
      expect({ name, image: service.image }).toEqual({ name, image: expect.stringMatching(/^\$\{WRS_IMAGE_[A-Z_]+:-[^}]+\}$/) });
    }
  });

  it('publishes only the edge and Postgres, on loopback, never on the host ports of the local servers', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => `${name} ${p}`));
    expect(published.sort()).toEqual([
      'gateway 127.0.0.1:${WRS_EDGE_PORT:-8080}:8080',
      'postgres 127.0.0.1:${WRS_POSTGRES_PORT:-15432}:5432',
    ]);
  });

  it('relies on no depends_on condition: a plain list orders the first start only', () => {
    for (const [name, service] of Object.entries(services)) {
      expect({ name, plain: service.depends_on === undefined || Array.isArray(service.depends_on) }).toEqual({ name, plain: true });
    }
    // The services that read the schema are listed after migrate (the order of a first start).
    for (const name of ['api', 'stream-relay', 'run-worker']) {
      expect({ name, after: services[name]?.depends_on }).toEqual({ name, after: expect.arrayContaining(['migrate', 'nats', 'postgres']) });
    }
  });

  it('runs the worker as uid 1000 with the engine socket group, and mounts the socket only into the worker', () => {
    expect(services['run-worker']?.user).toBe('${WRS_WORKER_USER:-1000}:${WRS_ENGINE_GID:-0}');
    const mounting = Object.entries(services).filter(([, s]) => (s.volumes ?? []).some((v) => v.includes('WRS_ENGINE_SOCKET')));
    expect(mounting.map(([name]) => name)).toEqual(['run-worker']);
  });

  it("believes the gateway's X-Forwarded-For in the api and the relay: it reaches them from the project network", () => {
    for (const name of ['api', 'stream-relay']) {
      const app = express().set('trust proxy', trustProxySetting(services[name]?.environment?.['TRUSTED_PROXIES'] ?? 'loopback'));
      const trusted = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
      // Podman's and Docker's default project networks, and loopback; never a public address.
      expect({ name, trusted: ['10.89.0.7', '172.18.0.5', '127.0.0.1'].map((a) => trusted(a, 0)) }).toEqual({
        name,
        trusted: [true, true, true],
      });
      expect({ name, trusted: trusted('203.0.113.9', 0) }).toEqual({ name, trusted: false });
    }
  });
});
