import { describe, expect, it } from 'vitest';
import { dispositionFileName } from './contentDisposition';

describe('dispositionFileName', () => {
  it('reads the quoted and the bare filename', () => {
    expect(dispositionFileName('attachment; filename="facturas-20261125.csv"')).toBe('facturas-20261125.csv');
    expect(dispositionFileName('attachment; filename=facturas.csv')).toBe('facturas.csv');
  });

  it("prefers RFC 5987's filename* (UTF-8, percent-encoded)", () => {
    expect(
      dispositionFileName(`attachment; filename="facturas.csv"; filename*=UTF-8''facturas%20oto%C3%B1o.csv`),
    ).toBe('facturas otoño.csv');
  });

  it('keeps only the bare name: no folders, no control characters', () => {
    expect(dispositionFileName('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(dispositionFileName(`attachment; filename*=UTF-8''a%0Ab.csv`)).toBe('ab.csv');
    expect(dispositionFileName('attachment; filename=".."')).toBeNull();
  });

  it('is null without a header or a name', () => {
    expect(dispositionFileName(null)).toBeNull();
    expect(dispositionFileName('attachment')).toBeNull();
  });
});
