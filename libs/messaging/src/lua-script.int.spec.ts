import { randomUUID } from 'node:crypto';
import { isolatedRedis } from '@wrs/testing';
import { LuaScript } from './lua-script';

describe('LuaScript against real Redis', () => {
  const spec = isolatedRedis();

  it('loads a script Redis does not hold on first use, then runs it by its SHA1 alone', async () => {
    // A script no other run has loaded: a unique comment makes a unique SHA1.
    const script = new LuaScript(`-- ${randomUUID()}\nreturn redis.call('INCRBY', KEYS[1], ARGV[1])`);
    const { env, redis } = spec;
    const key = `${env.namespace}:lua:${randomUUID()}`;
    expect(await redis.script('EXISTS', script.sha)).toEqual([0]);
    expect(await script.run(redis, [key], [2])).toBe(2);
    expect(await redis.script('EXISTS', script.sha)).toEqual([1]);
    expect(await script.run(redis, [key], [3])).toBe(5);
    await redis.del(key);
  });

  it("passes a script's own error through (not mistaken for a missing script)", async () => {
    const script = new LuaScript(`-- ${randomUUID()}\nreturn redis.error_reply('boom')`);
    await expect(script.run(spec.redis, [], [])).rejects.toThrow('boom');
  });
});
