import { describe, expect, it } from 'vitest';
import { renderMikrotik } from './wgconfig.ts';

const base = {
  privateKey: 'cHJpdmF0ZQ==',
  presharedKey: 'cHJlc2hhcmVk',
  address: '10.64.0.2',
  dns: '1.1.1.1',
  mtu: 1420,
  serverPublicKey: 'cHVibGlj',
  endpoint: 'vpn.example.com:51820',
  endpointHost: 'vpn.example.com',
  endpointPort: 51820,
};

// RouterOS runs a pasted script line by line: any line that does not start with '#' is a command.
const commands = (script: string) =>
  script.split(/\r\n|\r|\n|\u2028|\u2029|\u0085/).filter((l) => l.trim() && !l.startsWith('#'));

describe('MikroTik script', () => {
  it('prints a name that holds line breaks (stored before names were checked) as one comment line', () => {
    for (const name of [
      'casa\n/system reset-configuration',
      'casa\r/user add name=x group=full',
      'a\u2028/ip service enable telnet',
      'b\u0085/file remove 0',
    ]) {
      const script = renderMikrotik({ ...base, name });
      const cmds = commands(script);
      expect(cmds.every((c) => /^\/(interface|ip|routing)\b/.test(c))).toBe(true);
      expect(script).not.toMatch(/^\/(system|user|file)/m);
      expect(script.split('\n')[0]).toMatch(/^# casa|^# a|^# b/);
    }
  });
  it('keeps the commands it means to print', () => {
    const cmds = commands(renderMikrotik({ ...base, name: 'Router de casa' }));
    expect(cmds).toHaveLength(6);
    expect(cmds[0]).toBe(
      '/interface wireguard add name=wg-Router-de-casa private-key="cHJpdmF0ZQ==" mtu=1420',
    );
  });
});
