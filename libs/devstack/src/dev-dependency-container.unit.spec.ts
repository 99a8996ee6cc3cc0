import { createOptions, DEV_DEPENDENCY_LABEL, devContainerSpec, runCommand, type DevContainerSpec } from './dev-dependency-container';

const image = (name: string) => ({ image: name, variable: 'WRS_IMAGE_X' });

function spec(...args: Parameters<typeof devContainerSpec>): DevContainerSpec {
  const made = devContainerSpec(...args);
  if (typeof made === 'string') {
    throw new Error(made);
  }
  return made;
}

describe('a dev dependency as a container: published where its URL says', () => {
  it("publishes NATS on the URL's loopback host and port, named and labelled after what it is", () => {
    const nats = spec('nats', 'nats://127.0.0.1:14222', image('nats:2'));
    expect(createOptions(nats)).toEqual({
      name: 'wrs-dev-nats-14222',
      Image: 'nats:2',
      Cmd: ['-js', '-sd', '/data'],
      Env: [],
      Labels: { [DEV_DEPENDENCY_LABEL]: 'nats' },
      ExposedPorts: { '4222/tcp': {} },
      HostConfig: { PortBindings: { '4222/tcp': [{ HostIp: '127.0.0.1', HostPort: '14222' }] } },
    });
    expect(runCommand(nats)).toBe(
      `docker run -d --name wrs-dev-nats-14222 --label ${DEV_DEPENDENCY_LABEL}=nats -p 127.0.0.1:14222:4222 nats:2 -js -sd /data`,
    );
  });

  it('takes the default port when the URL names none, localhost as 127.0.0.1, and a bare host:port for NATS', () => {
    expect(createOptions(spec('redis', 'redis://localhost', image('redis:7'))).HostConfig?.PortBindings).toEqual({
      '6379/tcp': [{ HostIp: '127.0.0.1', HostPort: '6379' }],
    });
    expect(spec('nats', '127.0.0.2:4333', image('nats:2'))).toMatchObject({
      name: 'wrs-dev-nats-4333',
      hostIp: '127.0.0.2',
      hostPort: 4333,
    });
    expect(runCommand(spec('redis', 'redis://[::1]:16379', image('redis:7')))).toContain(
      `-p '[::1]:16379:6379' redis:7 redis-server --save '' --appendonly no`,
    );
  });

  it("gives Postgres the URL's user and database, trusted, and keeps the image's own command", () => {
    const postgres = spec('postgres', 'postgres://dev%40x:secret@127.0.0.1:15432/wrs_dev', image('postgres:15'));
    expect(createOptions(postgres)).toMatchObject({
      name: 'wrs-dev-postgres-15432',
      Env: ['POSTGRES_USER=dev@x', 'POSTGRES_DB=wrs_dev', 'POSTGRES_HOST_AUTH_METHOD=trust'],
      HostConfig: { PortBindings: { '5432/tcp': [{ HostIp: '127.0.0.1', HostPort: '15432' }] } },
    });
    expect(createOptions(postgres)).not.toHaveProperty('Cmd');
    expect(spec('postgres', 'postgres://127.0.0.1:5432', image('postgres:15')).env).toEqual([
      'POSTGRES_USER=postgres',
      'POSTGRES_DB=postgres',
      'POSTGRES_HOST_AUTH_METHOD=trust',
    ]);
  });

  it('starts nothing for a server on another host', () => {
    expect(devContainerSpec('postgres', 'postgres://db.internal:5432/wrs', image('postgres:15'))).toBe(
      'db.internal is not a loopback address of this machine',
    );
    expect(devContainerSpec('redis', 'redis://10.0.0.5:6379', image('redis:7'))).toBe('10.0.0.5 is not a loopback address of this machine');
  });
});
