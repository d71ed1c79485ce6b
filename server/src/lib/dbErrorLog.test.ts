import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers } from '../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/helpers.ts';

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  const logStream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  t = await createTestApp({ scheduler: false, logStream });
});
afterAll(() => t.close());

const failure = async (run: () => Promise<unknown>) => {
  try {
    await run();
  } catch (err) {
    return err;
  }
  throw new Error('the query did not fail');
};

describe('database errors in the logs', () => {
  it('name the query and its SQLSTATE, never a bound parameter', async () => {
    const token = 'mirror-SECRET-token-0123456789abcdefghijklmno';
    const email = 'secreta.persona@example.com';
    const [customer] = await t.ctx.db
      .insert(customers)
      .values({ username: 'duplicada', passwordHash: 'x', email })
      .returning();
    // A unique violation: PostgreSQL's detail repeats the value ("Key (email)=(…) already exists").
    const unique = await failure(() =>
      t.ctx.db.insert(customers).values({ username: 'duplicada', passwordHash: 'x', email }),
    );
    // A bad cast: the driver's own message quotes the parameter.
    const cast = await failure(() => t.ctx.db.execute(sql`select ${token}::int as n`));
    t.app.log.error({ err: unique }, 'request failed');
    t.app.log.error({ err: cast }, 'request failed');

    const [first, second] = lines.slice(-2).map((l) => JSON.parse(l) as { err: Record<string, unknown> });
    const log = lines.slice(-2).join('');
    expect(log).not.toContain(token);
    expect(log).not.toContain(email);
    expect(log).not.toContain('duplicada');
    expect(first!.err).toMatchObject({
      type: 'DatabaseError',
      sqlstate: '23505',
      query: 'insert into customers',
    });
    expect(second!.err).toMatchObject({ type: 'DatabaseError', sqlstate: '22P02', query: 'select' });
    expect(customer).toBeDefined();
  });
});
