/**
 * The migrations as an upgrade meets them. Drizzle's migrator runs a migration only when its
 * journal `when` is later than the last applied one's, so a migration given an earlier `when` than
 * one already released is silently skipped on every upgraded database (a fresh one still gets it).
 * That happened once: 0027 and 0031 of one session were numbered, and timed, below the released
 * 0033 and would never have reached a running install (renumbered 0035 and 0036). A new migration
 * takes the number after the highest on main and a later `when` (docs/decisions.md, "Migrations");
 * the journal's order and an upgrade on PGlite are checked here. */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';
import { describe, expect, it } from 'vitest';
import { newPglite } from './client.ts';

const folder = new URL('../../drizzle/', import.meta.url).pathname;
interface Entry {
  idx: number;
  when: number;
  tag: string;
}
const journal = JSON.parse(readFileSync(join(folder, 'meta/_journal.json'), 'utf8')) as { entries: Entry[] };

describe('migrations', () => {
  it('every later migration in the journal has a later `when` and a higher number, and every file is listed', () => {
    const { entries } = journal;
    for (let i = 1; i < entries.length; i++) {
      const [prev, cur] = [entries[i - 1]!, entries[i]!];
      expect(cur.when, `${cur.tag} after ${prev.tag}`).toBeGreaterThan(prev.when);
      expect(cur.tag > prev.tag, `${cur.tag} after ${prev.tag}`).toBe(true);
    }
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.sql'))
      .map((f) => f.replace(/\.sql$/, ''))
      .sort();
    expect(entries.map((e) => e.tag)).toEqual(files);
  });

  it('a database migrated by an earlier release gets every migration added since', async () => {
    // The release before the last three migrations: a copy of the folder with a shorter journal.
    const cut = journal.entries.length - 3;
    const older = mkdtempSync(join(tmpdir(), 'migrations-'));
    try {
      cpSync(folder, older, { recursive: true });
      writeFileSync(
        join(older, 'meta/_journal.json'),
        JSON.stringify({ ...journal, entries: journal.entries.slice(0, cut) }),
      );
      const pglite = newPglite();
      const db = drizzle(pglite);
      await migrate(db, { migrationsFolder: older });
      const applied = async () =>
        (await pglite.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations'))
          .rows[0]!.n;
      expect(await applied()).toBe(cut);
      await migrate(db, { migrationsFolder: folder });
      expect(await applied()).toBe(journal.entries.length);
      await pglite.close();
    } finally {
      rmSync(older, { recursive: true, force: true });
    }
  });
});
