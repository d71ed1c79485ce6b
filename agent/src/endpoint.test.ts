import { describe, expect, it } from 'vitest';
import { canonicalEndpoint, dnsResolver, parseEndpoint, resolveEndpoint } from './endpoint.ts';

describe('mesh endpoints', () => {
  it('parses host:port, IPv4:port and [IPv6]:port; refuses everything else', () => {
    expect(parseEndpoint('vpn2.example.com:51820')).toEqual({
      host: 'vpn2.example.com',
      port: 51820,
      family: 0,
    });
    expect(parseEndpoint('192.0.2.1:51820')).toEqual({ host: '192.0.2.1', port: 51820, family: 4 });
    expect(parseEndpoint('[2001:DB8:0::1]:443')).toEqual({ host: '2001:db8::1', port: 443, family: 6 });
    for (const bad of [
      '2001:db8::1:51820', // bare IPv6: ambiguous
      '[192.0.2.1]:51820',
      'vpn2.example.com',
      'vpn2.example.com:0',
      'vpn2.example.com:65536',
      ':51820',
      '999.0.2.1:51820',
      'host name:51820',
      'host\nprivate_key=00:51820',
      'vpn2.example.com:51820\nremove=true',
      '-bad.example.com:1',
    ])
      expect(parseEndpoint(bad), bad).toBeNull();
  });

  it('canonicalises address endpoints as UAPI reports them, and nothing that needs a lookup', () => {
    expect(canonicalEndpoint('[2001:0db8:0:0::0001]:51820')).toBe('[2001:db8::1]:51820');
    expect(canonicalEndpoint('192.0.2.1:51820')).toBe('192.0.2.1:51820');
    expect(canonicalEndpoint('vpn2.example.com:51820')).toBeNull();
    expect(canonicalEndpoint(null)).toBeNull();
  });

  it('resolves literals without a lookup, names with the resolver (first answer written)', async () => {
    const never = () => Promise.reject(new Error('no debería consultarse'));
    expect(await resolveEndpoint('192.0.2.1:51820', never)).toEqual({
      endpoint: '192.0.2.1:51820',
      candidates: ['192.0.2.1:51820'],
    });
    const r = await resolveEndpoint('vpn2.example.com:51820', async () => ['2001:db8::7', '198.51.100.7']);
    expect(r).toEqual({
      endpoint: '[2001:db8::7]:51820',
      candidates: ['[2001:db8::7]:51820', '198.51.100.7:51820'],
    });
  });

  it('fails with a reason when the name does not resolve, resolves to nothing or takes too long', async () => {
    await expect(
      resolveEndpoint('gone.example.com:51820', () => Promise.reject(new Error('ENOTFOUND'))),
    ).rejects.toThrow(/ENOTFOUND/);
    await expect(resolveEndpoint('empty.example.com:51820', async () => [])).rejects.toThrow(
      /no tiene direcciones/,
    );
    await expect(
      resolveEndpoint('slow.example.com:51820', () => new Promise<string[]>(() => undefined), 50),
    ).rejects.toThrow(/no respondió/);
    await expect(resolveEndpoint('not an endpoint', async () => ['192.0.2.1'])).rejects.toThrow(
      /mal formado/,
    );
  });

  it('uses node:dns by default (localhost from the hosts file)', async () => {
    const r = await resolveEndpoint('localhost:51820', dnsResolver);
    expect(r.endpoint).toMatch(/^(127\.0\.0\.1|\[::1\]):51820$/);
  });
});
