import { describe, expect, it } from 'vitest';
import { configFileName } from './peers';

describe('configFileName', () => {
  it('keeps a name the WireGuard apps accept and adds -sala for the room-only file', () => {
    expect(configFileName('movil')).toBe('movil.conf');
    expect(configFileName('movil', 'conf', 'room')).toBe('movil-sala.conf');
    expect(configFileName('router', 'mikrotik', 'room')).toBe('router-sala.rsc');
  });

  it('reduces other names to the apps’ alphabet, at most 32 characters with the suffix', () => {
    expect(configFileName('Móvil de Ana', 'conf', 'room')).toBe('Movil-de-Ana-sala.conf');
    const long = 'Portátil de la casa de mis abuelos en Holguín';
    const tunnel = configFileName(long, 'conf', 'room').replace(/\.conf$/, '');
    expect(tunnel).toMatch(/^[A-Za-z0-9_=+.-]{1,32}$/);
    expect(tunnel.endsWith('-sala')).toBe(true);
    expect(tunnel).not.toContain('--');
    // A valid 32-character name keeps all of it in the normal file, and is cut for the room-only one.
    const exact = 'a'.repeat(32);
    expect(configFileName(exact)).toBe(`${exact}.conf`);
    expect(configFileName(exact, 'conf', 'room')).toBe(`${'a'.repeat(27)}-sala.conf`);
  });
});
