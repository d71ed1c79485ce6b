import { describe, expect, it } from 'vitest';
import { dismissVersion, isVersionDismissed } from './dismissedVersions';

describe('dismissed client versions', () => {
  it('remembers each dismissed version in localStorage', () => {
    expect(isVersionDismissed('1.0.0')).toBe(false);
    dismissVersion('1.0.0');
    dismissVersion('1.1.0');
    dismissVersion('1.0.0');
    expect(isVersionDismissed('1.0.0')).toBe(true);
    expect(isVersionDismissed('1.1.0')).toBe(true);
    expect(isVersionDismissed('1.2.0')).toBe(false);
    expect(JSON.parse(localStorage.getItem('dismissed_client_versions') ?? '')).toEqual(['1.1.0', '1.0.0']);
  });

  it('treats a hand-edited or foreign value as nothing dismissed, and keeps only recent versions', () => {
    localStorage.setItem('dismissed_client_versions', '{no es json');
    expect(isVersionDismissed('1.0.0')).toBe(false);
    localStorage.setItem('dismissed_client_versions', JSON.stringify({ '1.0.0': true }));
    expect(isVersionDismissed('1.0.0')).toBe(false);
    for (let i = 0; i < 25; i++) dismissVersion(`0.${i}`);
    expect(isVersionDismissed('0.0')).toBe(false);
    expect(isVersionDismissed('0.24')).toBe(true);
  });
});
