import { initdbArgs, POSTGRES_SETTINGS, serverCommands, serversLine, userIds } from './private-servers';

describe('private servers (BENCH_PRIVATE_SERVERS=1): what the bench starts', () => {
  const commands = serverCommands({ nats: 40001, postgres: 40002, redis: 40003 }, '/tmp/d', '/pg/bin', { uid: 101, gid: 104 });
  const byName = new Map(commands.map((c) => [c.name, c]));

  it('names each server as CpuUsage and the results do, on its own loopback port, with the URL the stack is given', () => {
    expect(commands.map((c) => [c.name, c.port, c.url])).toEqual([
      ['nats-server', 40001, 'nats://127.0.0.1:40001'],
      ['postgres', 40002, 'postgres://postgres@127.0.0.1:40002/postgres'],
      ['redis-server', 40003, 'redis://127.0.0.1:40003'],
    ]);
  });

  it("runs NATS with JetStream and Redis as a cache that writes nothing, both on loopback, data under the run's directory", () => {
    expect(byName.get('nats-server')!.args).toEqual(['-a', '127.0.0.1', '-p', '40001', '-js', '-sd', '/tmp/d/nats']);
    expect(byName.get('redis-server')!.args).toEqual([
      '--bind',
      '127.0.0.1',
      '--port',
      '40003',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      '/tmp/d/redis',
    ]);
    expect(byName.get('nats-server')!.runAs).toBeUndefined();
  });

  it("runs Postgres as the given user with the shared server's durability settings, stopped by its fast shutdown", () => {
    const postgres = byName.get('postgres')!;
    expect(postgres.command).toBe('/pg/bin/postgres');
    expect(postgres.runAs).toEqual({ uid: 101, gid: 104 });
    expect(postgres.stopSignal).toBe('SIGINT');
    expect(postgres.args.slice(0, 6)).toEqual(['-D', '/tmp/d/postgres', '-p', '40002', '-k', '/tmp/d/postgres']);
    const settings = new Map(postgres.args.filter((_, i) => postgres.args[i - 1] === '-c').map((s) => s.split('=') as [string, string]));
    expect(settings.get('fsync')).toBe('on');
    expect(settings.get('synchronous_commit')).toBe('on');
    expect(settings.get('shared_buffers')).toBe('128MB');
    expect(settings.get('autovacuum')).toBe('on');
    expect(settings.get('listen_addresses')).toBe('127.0.0.1');
    // The one setting the shared server lacks: per-statement counters for the breakdown.
    expect(settings.get('shared_preload_libraries')).toBe('pg_stat_statements');
    expect(settings.size).toBe(Object.keys(POSTGRES_SETTINGS).length);
    expect(initdbArgs('/tmp/d/postgres')).toEqual(expect.arrayContaining(['-D', '/tmp/d/postgres', '-U', 'postgres', '--auth=trust']));
  });

  it("finds a user's ids in /etc/passwd", () => {
    const passwd = 'root:x:0:0:root:/root:/bin/bash\npostgres:x:101:104:PostgreSQL administrator,,,:/var/lib/postgresql:/bin/bash\n';
    expect(userIds(passwd, 'postgres')).toEqual({ uid: 101, gid: 104 });
    expect(userIds(passwd, 'nobody')).toBeUndefined();
  });

  it('says in the header which servers the run used', () => {
    const urls = {
      natsUrl: 'nats://127.0.0.1:4222',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
      redisUrl: 'redis://127.0.0.1:6379',
    };
    expect(serversLine(urls)).toBe(
      "shared servers (nats 127.0.0.1:4222, postgres 127.0.0.1:5432, redis 127.0.0.1:6379), whose other clients' CPU counts too",
    );
    expect(serversLine(urls, [{ name: 'postgres', pid: 7, port: 40002 }])).toBe(
      'servers private to this run (BENCH_PRIVATE_SERVERS=1, removed after it): postgres pid 7 on 127.0.0.1:40002',
    );
  });
});
