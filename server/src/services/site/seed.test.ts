import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcements, plans, servers } from '../../db/schema.ts';
import { decrypt } from '../../lib/crypto.ts';
import { createTestApp, type TestApp } from '../../../test/helpers.ts';
import { seedDemoContent } from './seed.ts';
import { getSiteSettings } from './settings.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

describe('seedDemoContent', () => {
  it('fills an empty database once with plans, an announcement, two servers and the public switches', async () => {
    expect(await seedDemoContent(t.ctx.db, t.ctx.keys.encryption)).toBe(true);
    const planRows = await t.ctx.db.select().from(plans);
    expect(planRows).toHaveLength(3);
    for (const p of planRows) expect(p.description.split('. ').length).toBeGreaterThan(1);
    expect(await t.ctx.db.select().from(announcements)).toHaveLength(1);
    const serverRows = await t.ctx.db.select().from(servers);
    expect(serverRows.map((s) => s.allowRooms).sort()).toEqual([false, true]);
    // Server private keys are encrypted at rest and decrypt to a 32-byte key.
    for (const s of serverRows) {
      expect(s.privateKeyEnc.startsWith('v1:')).toBe(true);
      expect(Buffer.from(decrypt(t.ctx.keys.encryption, s.privateKeyEnc), 'base64')).toHaveLength(32);
    }
    const site = await getSiteSettings(t.ctx.db);
    expect(site).toMatchObject({ show_landing: true, allow_registration: true, allow_partys: true });

    expect(await seedDemoContent(t.ctx.db, t.ctx.keys.encryption)).toBe(false);
    expect(await t.ctx.db.select().from(plans)).toHaveLength(3);
  });
});
