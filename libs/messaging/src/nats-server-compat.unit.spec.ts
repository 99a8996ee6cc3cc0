import { StreamNames } from './names';
import { DEFAULT_STREAM_SETTINGS, streamConfigs } from './streams';

/**
 * The tests run on nats-server 2.9 (Debian's) and production pins 2.12: the code keeps to what both
 * do. A stream field that 2.9 does not know (compression, subject transforms, metadata, per-message
 * TTLs, ...) would be ignored by 2.9 and enforced by 2.12, untested.
 */
const STREAM_FIELDS_OF_2_9 = new Set([
  'name',
  'subjects',
  'retention',
  'max_consumers',
  'max_msgs',
  'max_bytes',
  'max_age',
  'max_msgs_per_subject',
  'max_msg_size',
  'discard',
  'storage',
  'num_replicas',
  'no_ack',
  'duplicate_window',
  'placement',
  'mirror',
  'sources',
  'sealed',
  'deny_delete',
  'deny_purge',
  'allow_rollup_hdrs',
  'allow_direct',
  'mirror_direct',
  'republish',
  'discard_new_per_subject',
  'description',
]);

describe('what the code asks of NATS is what 2.9 and 2.12 both do', () => {
  it('configures its streams with fields nats-server 2.9 knows', () => {
    const fields = streamConfigs(new StreamNames('compat'), { ...DEFAULT_STREAM_SETTINGS, replicas: 3 }).flatMap((config) =>
      Object.keys(config),
    );
    expect(fields.filter((field) => !STREAM_FIELDS_OF_2_9.has(field))).toEqual([]);
  });
});
