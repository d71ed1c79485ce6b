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

  it('leaves other URLs alone', () => {
    expect(redactUrl('/api/client/plans?page=2')).toBe('/api/client/plans?page=2');
  });
});
