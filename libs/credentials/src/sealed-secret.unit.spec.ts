import { generateKeyPairSync } from 'node:crypto';
import { openSecret, sealSecret, SecretOpenError } from './sealed-secret';

describe('sealed provider secrets', () => {
  const current = generateKeyPairSync('x25519');
  const previous = generateKeyPairSync('x25519');
  const privateKeks = new Map([
    ['k2', current.privateKey],
    ['k1', previous.privateKey],
  ]);
  const secret = 'sk-live-0123456789abcdefghij';

  it('round-trips, and the sealed form holds no part of the secret', () => {
    const sealed = sealSecret(secret, { id: 'k2', publicKey: current.publicKey }, 'ws-1/cred-1');
    expect(JSON.stringify(sealed)).not.toContain('0123456789');
    expect(openSecret(sealed, privateKeks, 'ws-1/cred-1')).toBe(secret);
  });

  it('uses a fresh data key per secret', () => {
    const a = sealSecret(secret, { id: 'k2', publicKey: current.publicKey }, 'x');
    const b = sealSecret(secret, { id: 'k2', publicKey: current.publicKey }, 'x');
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.wrappedKey).not.toBe(b.wrappedKey);
  });

  it('opens secrets sealed under an older KEK after rotation', () => {
    const old = sealSecret(secret, { id: 'k1', publicKey: previous.publicKey }, 'x');
    expect(openSecret(old, privateKeks, 'x')).toBe(secret);
  });

  it('refuses a record moved to another credential (associated data) or altered', () => {
    const sealed = sealSecret(secret, { id: 'k2', publicKey: current.publicKey }, 'ws-1/cred-1');
    expect(() => openSecret(sealed, privateKeks, 'ws-2/cred-1')).toThrow(SecretOpenError);
    const flipped = Buffer.from(sealed.ciphertext, 'base64');
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    expect(() => openSecret({ ...sealed, ciphertext: flipped.toString('base64') }, privateKeks, 'ws-1/cred-1')).toThrow(SecretOpenError);
    expect(() => openSecret({ ...sealed, kekId: 'k9' }, privateKeks, 'ws-1/cred-1')).toThrow(SecretOpenError);
  });
});
