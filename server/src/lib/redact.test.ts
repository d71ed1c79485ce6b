import { describe, expect, it } from 'vitest';
import { redactUrl } from './redact.ts';

describe('redactUrl', () => {
  it('hides a mirror link token and keeps the rest of the path', () => {
    expect(redactUrl('/api/mirror/AbC123_-xyzAbC123_-xyzAbC123_-xyzAbC123_-xyz')).toBe(
      '/api/mirror/[redactado]',
    );
    expect(redactUrl('/api/mirror/AbC123?x=1')).toBe('/api/mirror/[redactado]?x=1');
  });

  it('hides the websocket token query parameter wherever it sits', () => {
    expect(redactUrl('/ws?token=eyJhbGciOi.abc.def')).toBe('/ws?token=[redactado]');
    expect(redactUrl('/ws?a=1&token=secreto&b=2')).toBe('/ws?a=1&token=[redactado]&b=2');
  });

  it("hides a payment notification URL's secret and keeps the invoice id", () => {
    const id = '0b8f5c2e-4a8e-4b8a-9d6e-3f1f2a0c9e11';
    expect(redactUrl(`/api/payments/remesita/ipn/${id}/Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MA`)).toBe(
      `/api/payments/remesita/ipn/${id}/[redactado]`,
    );
    expect(redactUrl(`/api/payments/remesita/ipn/${id}/s3cr3t-value_ABCDEFGHIJ?x=1`)).toBe(
      `/api/payments/remesita/ipn/${id}/[redactado]?x=1`,
    );
  });

  it('leaves other URLs alone', () => {
    expect(redactUrl('/api/client/plans?page=2')).toBe('/api/client/plans?page=2');
  });
});
