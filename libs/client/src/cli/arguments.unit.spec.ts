import { UsageError } from './exit-codes';
import { parseInvocation } from './arguments';

describe('wrs arguments', () => {
  it('reads runs create with repeated options and a command after --', () => {
    const invocation = parseInvocation([
      '--json',
      'runs',
      'create',
      '--image',
      'img',
      '--provider',
      'auto',
      '--region',
      'auto',
      '--env',
      'A=1',
      '--env',
      'B=2',
      '--follow',
      '--',
      '/bin/sh',
      '-c',
      'echo hi',
    ]);
    expect(invocation).toMatchObject({ command: 'runs create', operand: undefined, rest: ['/bin/sh', '-c', 'echo hi'] });
    expect(invocation.options).toMatchObject({ json: true, image: 'img', env: ['A=1', 'B=2'], follow: true });
  });

  it('takes the run id of get, events and cancel', () => {
    expect(parseInvocation(['runs', 'events', 'r-1', '--follow', '--after', '7'])).toMatchObject({
      command: 'runs events',
      operand: 'r-1',
      options: { follow: true, after: '7' },
    });
    expect(parseInvocation(['runs', 'cancel', 'r-1'])).toMatchObject({ command: 'runs cancel', operand: 'r-1' });
  });

  it('reads webhooks commands: create with its url and events, the others with an id', () => {
    expect(
      parseInvocation(['webhooks', 'create', '--url', 'https://h.example/x', '--event', 'started', '--event', 'completed']),
    ).toMatchObject({
      command: 'webhooks create',
      options: { url: 'https://h.example/x', event: ['started', 'completed'] },
    });
    expect(parseInvocation(['webhooks', 'rotate-secret', 'w-1'])).toMatchObject({ command: 'webhooks rotate-secret', operand: 'w-1' });
    expect(parseInvocation(['webhooks', 'list'])).toMatchObject({ command: 'webhooks list', operand: undefined });
  });

  it.each([
    [['webhooks', 'create'], /needs --url/],
    [['webhooks', 'deliveries'], /needs a webhook id/],
    [['webhooks', 'list', 'x'], /unexpected argument: x/],
    [['webhooks', 'get', 'w', '--url', 'x'], /--url does not apply to webhooks get/],
    [['runs', 'get'], /needs a run id/],
    [['runs', 'get', 'a', 'b'], /unexpected argument: b/],
    [['runs', 'get', 'a', '--image', 'x'], /--image does not apply to runs get/],
    [['runs', 'get', 'a', '--token', 'x'], /Unknown option '--token'/],
    [['runs', 'launch'], /unknown command: runs launch/],
    [['version', 'extra'], /unexpected argument: extra/],
    [['workspace', '--', 'x'], /only runs create takes a command/],
    // The contract's Last-Event-ID is digits only; fetch would send " 1043" trimmed, which the server takes.
    [['runs', 'events', 'r', '--after', ' 1043'], /--after takes an event id .*, not " 1043"/],
    [['runs', 'events', 'r', '--follow', '--after', '1043\r'], /--after takes an event id .*, not "1043\\r"/],
    [['runs', 'events', 'r', '--after='], /--after takes an event id/],
    [['runs', 'events', 'r', '--after=-1'], /--after takes an event id/],
    [['runs', 'events', 'r', '--after', '9007199254740993'], /--after takes an event id/],
  ])('refuses %j', (argv, message) => {
    expect(() => parseInvocation(argv)).toThrow(UsageError);
    expect(() => parseInvocation(argv)).toThrow(message);
  });

  it('has no way to pass a token as a flag', () => {
    expect(() => parseInvocation(['workspace', '--token=abc'])).toThrow(UsageError);
  });
});
