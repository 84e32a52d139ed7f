import { describe, expect, it } from 'vitest';
import { HostPolicy } from './host-policy.ts';

describe('HostPolicy', () => {
  it('blocks a host, its subdomains and any port of it, and nothing else', () => {
    const policy = new HostPolicy([], ['bad.example']);
    expect(policy.permits('bad.example')).toBe(false);
    expect(policy.permits('BAD.example:8443')).toBe(false);
    expect(policy.permits('a.bad.example')).toBe(false);
    expect(policy.permits('notbad.example')).toBe(true);
    expect(policy.permitsUrl('not a url')).toBe(false);
  });

  it('with an allowlist, permits only the listed hosts (a port rule names that port only)', () => {
    const policy = new HostPolicy(['good.example', '127.0.0.1:4000'], []);
    expect(policy.permits('good.example')).toBe(true);
    expect(policy.permits('127.0.0.1:4000')).toBe(true);
    expect(policy.permits('127.0.0.1:4001')).toBe(false);
    expect(policy.permits('other.example')).toBe(false);
  });
});
