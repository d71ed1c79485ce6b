import { describe, expect, it } from 'vitest';
import { base32Decode, base32Encode, hotp, matchTotp, otpauthUri, totp, type TotpAlgorithm } from './totp.ts';

// RFC 6238, Appendix B: the seeds and 8-digit codes published for each algorithm.
const SEEDS: Record<TotpAlgorithm, Buffer> = {
  sha1: Buffer.from('12345678901234567890'),
  sha256: Buffer.from('12345678901234567890123456789012'),
  sha512: Buffer.from('1234567890123456789012345678901234567890123456789012345678901234'),
};
const VECTORS: [number, TotpAlgorithm, string][] = [
  [59, 'sha1', '94287082'],
  [59, 'sha256', '46119246'],
  [59, 'sha512', '90693936'],
  [1111111109, 'sha1', '07081804'],
  [1111111109, 'sha256', '68084774'],
  [1111111109, 'sha512', '25091201'],
  [1111111111, 'sha1', '14050471'],
  [1111111111, 'sha256', '67062674'],
  [1111111111, 'sha512', '99943326'],
  [1234567890, 'sha1', '89005924'],
  [1234567890, 'sha256', '91819424'],
  [1234567890, 'sha512', '93441116'],
  [2000000000, 'sha1', '69279037'],
  [2000000000, 'sha256', '90698825'],
  [2000000000, 'sha512', '38618901'],
  [20000000000, 'sha1', '65353130'],
  [20000000000, 'sha256', '77737706'],
  [20000000000, 'sha512', '47863826'],
];

describe('TOTP (RFC 6238)', () => {
  it.each(VECTORS)('at T=%i with %s gives %s', (seconds, algorithm, code) => {
    expect(totp(SEEDS[algorithm], seconds * 1000, { digits: 8, algorithm })).toBe(code);
  });

  it('matches RFC 4226 HOTP values for counters 0 to 9', () => {
    const expected = [
      '755224',
      '287082',
      '359152',
      '969429',
      '338314',
      '254676',
      '287922',
      '162583',
      '399871',
      '520489',
    ];
    expect(expected.map((_, i) => hotp(SEEDS.sha1, i))).toEqual(expected);
  });

  it('accepts the previous, current and next step and nothing further, returning the step', () => {
    const now = 1_700_000_000_000;
    const step = Math.floor(now / 30_000);
    const at = (s: number) => hotp(SEEDS.sha1, s);
    expect(matchTotp(SEEDS.sha1, at(step), now)).toBe(step);
    expect(matchTotp(SEEDS.sha1, at(step - 1), now)).toBe(step - 1);
    expect(matchTotp(SEEDS.sha1, at(step + 1), now)).toBe(step + 1);
    expect(matchTotp(SEEDS.sha1, at(step - 2), now)).toBeNull();
    expect(matchTotp(SEEDS.sha1, at(step + 2), now)).toBeNull();
    expect(matchTotp(SEEDS.sha1, '12345', now)).toBeNull();
    expect(matchTotp(SEEDS.sha1, 'abcdef', now)).toBeNull();
  });

  it('round-trips base32 and reads what apps display (lower case, spaces)', () => {
    const bytes = Buffer.from('12345678901234567890');
    expect(base32Encode(bytes)).toBe('GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ');
    expect(base32Decode('gezd gnbv gy3t qojq gezd gnbv gy3t qojq')).toEqual(bytes);
    expect(() => base32Decode('A1')).toThrow();
  });

  it('builds the otpauth URI authenticator apps scan', () => {
    const uri = new URL(otpauthUri('VPN Service', 'ana', 'GEZDGNBV'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/VPN Service:ana');
    expect(Object.fromEntries(uri.searchParams)).toEqual({
      secret: 'GEZDGNBV',
      issuer: 'VPN Service',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});
