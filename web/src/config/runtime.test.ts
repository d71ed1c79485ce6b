import { describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../test/api';
import { DEFAULT_CONFIG, loadRuntimeConfig } from './runtime';

describe('loadRuntimeConfig', () => {
  it('reads the company name, captcha and support URL served at /config.json', async () => {
    const served = {
      company_name: 'Nube VPN',
      support_url: 'https://t.me/soporte',
      public_url: 'https://vpn.example',
      captcha: { provider: 'turnstile', site_key: '0x4AAA' },
    };
    const fetchImpl = vi.fn(async () => jsonResponse(200, served));
    await expect(loadRuntimeConfig(fetchImpl)).resolves.toEqual(served);
    expect(fetchImpl).toHaveBeenCalledWith('/config.json', expect.anything());
  });

  it("falls back to 'VPN Service' and ALTCHA when the file is missing or malformed", async () => {
    vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    await expect(loadRuntimeConfig(async () => jsonResponse(404, {}))).resolves.toEqual(DEFAULT_CONFIG);
    await expect(loadRuntimeConfig(async () => jsonResponse(200, { company_name: 3 }))).resolves.toEqual(
      DEFAULT_CONFIG,
    );
    expect(DEFAULT_CONFIG.company_name).toBe('VPN Service');
  });
});
