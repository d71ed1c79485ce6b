import { describe, expect, it } from 'vitest';
import { randomKey } from './testing/keys.ts';
import { parseWgDump, renderPeersConf } from './wgtool.ts';

describe('wg tool driver text', () => {
  it('parses `wg show IFACE dump`', () => {
    const [priv, pub, psk, other] = [randomKey(), randomKey(), randomKey(), randomKey()];
    const text = [
      `${priv}\t${randomKey()}\t51820\toff`,
      `${pub}\t${psk}\t198.51.100.2:4000\t10.64.0.2/32,fd00::2/128\t1700000000\t10\t20\t25`,
      `${other}\t(none)\t(none)\t(none)\t0\t0\t0\toff`,
      '',
    ].join('\n');
    expect(parseWgDump(text)).toEqual({
      privateKey: priv,
      listenPort: 51820,
      fwmark: 0,
      peers: [
        {
          publicKey: pub,
          presharedKey: psk,
          endpoint: '198.51.100.2:4000',
          allowedIps: ['10.64.0.2/32', 'fd00::2/128'],
          lastHandshakeSec: 1700000000,
          rxBytes: 10,
          txBytes: 20,
          persistentKeepalive: 25,
        },
        {
          publicKey: other,
          presharedKey: null,
          endpoint: null,
          allowedIps: [],
          lastHandshakeSec: 0,
          rxBytes: 0,
          txBytes: 0,
          persistentKeepalive: 0,
        },
      ],
    });
  });

  it('renders upserts as [Peer] sections whose AllowedIPs line replaces the old ones', () => {
    const [pub, psk] = [randomKey(), randomKey()];
    expect(
      renderPeersConf([
        { publicKey: randomKey(), remove: true },
        {
          publicKey: pub,
          presharedKey: psk,
          replaceAllowedIps: true,
          allowedIps: ['10.64.0.2/32', 'fd00::2/128'],
        },
      ]),
    ).toBe(`[Peer]\nPublicKey = ${pub}\nPresharedKey = ${psk}\nAllowedIPs = 10.64.0.2/32, fd00::2/128\n\n`);
    expect(() => renderPeersConf([{ publicKey: 'nope' }])).toThrow(/clave/);
  });

  it('renders a mesh link with Endpoint and PersistentKeepalive, refusing unresolved or injected endpoints', () => {
    const [pub, psk] = [randomKey(), randomKey()];
    expect(
      renderPeersConf([
        {
          publicKey: pub,
          presharedKey: psk,
          endpoint: '[2001:db8::7]:51820',
          persistentKeepalive: 25,
          replaceAllowedIps: true,
          allowedIps: ['10.64.1.2/32'],
        },
      ]),
    ).toBe(
      `[Peer]\nPublicKey = ${pub}\nPresharedKey = ${psk}\nEndpoint = [2001:db8::7]:51820\nPersistentKeepalive = 25\nAllowedIPs = 10.64.1.2/32\n\n`,
    );
    expect(() => renderPeersConf([{ publicKey: pub, endpoint: '192.0.2.1:1\n[Peer]' }])).toThrow(/endpoint/);
  });
});
