import { describe, expect, it } from 'vitest';
import { normalizeCidr, parseCidr } from './cidr.ts';

describe('CIDR normalisation', () => {
  it('masks host bits the way WireGuard stores allowed IPs', () => {
    expect(normalizeCidr('10.64.0.1/10')).toBe('10.64.0.0/10');
    expect(normalizeCidr('10.64.3.7/32')).toBe('10.64.3.7/32');
    expect(normalizeCidr('192.0.2.77/24')).toBe('192.0.2.0/24');
  });

  it('prints IPv6 in canonical RFC 5952 form', () => {
    expect(normalizeCidr('FD00:0:0:0:0:0:0:2/128')).toBe('fd00::2/128');
    expect(normalizeCidr('fd00:0::2/128')).toBe('fd00::2/128');
    expect(normalizeCidr('2001:db8:0:0:1:0:0:1/128')).toBe('2001:db8::1:0:0:1/128');
    expect(normalizeCidr('fd12:3456::1/48')).toBe('fd12:3456::/48');
    expect(normalizeCidr('::ffff:192.0.2.1/128')).toBe('::ffff:c000:201/128');
    expect(normalizeCidr('::/0')).toBe('::/0');
  });

  it('returns the network and family of an interface address', () => {
    expect(parseCidr('10.64.0.1/10')).toEqual({
      family: 4,
      address: '10.64.0.1',
      prefixLength: 10,
      network: '10.64.0.0/10',
    });
    expect(parseCidr('fd00::1/64')?.network).toBe('fd00::/64');
  });

  it('rejects what is not a CIDR', () => {
    for (const bad of ['10.64.0.1', '10.64.0.256/32', '10.64.0.1/33', 'fd00::1/129', '1::2::3/64', 'x/1'])
      expect(parseCidr(bad)).toBeNull();
  });
});
