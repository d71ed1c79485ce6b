import { describe, expect, it } from 'vitest';
import { CreateRoomBody, JoinRoomBody } from './rooms.ts';
import { InvoiceBody } from './invoices.ts';
import { RegisterBody } from './auth.ts';
import { NewManagerBody } from './adminManagers.ts';
import { AdminPlanCreate } from './adminCatalog.ts';
import { SettingsPatchBody } from './account.ts';
import { msg } from './messages.ts';

// A newline in a name starts a new RouterOS command in the MikroTik script; a tab, a NUL or an
// escape sequence corrupts logs and terminals. Each of these must be refused where names enter.
const controls = [
  'casa\n/system reset-configuration',
  'a\rb',
  'tab\there',
  'nul\u0000',
  'esc\u001b[31m',
  'del\u007f',
  'ls\u2028x',
  'c1\u0085x',
];

const refusedWith = (result: { success: boolean; error?: { issues: { message: string }[] } }) => {
  expect(result.success).toBe(false);
  expect(result.error!.issues.map((i) => i.message)).toContain(msg.nameControlChars);
};

describe('names refuse control characters at the contract', () => {
  it.each(controls)('peer name for a purchase: %j', (name) => {
    refusedWith(InvoiceBody.safeParse({ operation: 'new_peer', peer: name, plan: 1 }));
  });
  it.each(controls)('room name: %j', (name) => {
    refusedWith(CreateRoomBody.safeParse({ name, peer: 1 }));
    refusedWith(JoinRoomBody.safeParse({ operation: 'join', name, password: 'x', peer: 1 }));
  });
  it.each(controls)('customer username and alias: %j', (name) => {
    refusedWith(RegisterBody.safeParse({ username: name, password: 'secreto123', captcha_token: 't' }));
    expect(SettingsPatchBody.safeParse({ alias: name }).success).toBe(false);
  });
  it.each(controls)('manager username: %j', (name) => {
    refusedWith(NewManagerBody.safeParse({ username: name, password: 'secreto-largo-1', role: 'support' }));
  });
  it.each(controls)('plan name: %j', (name) => {
    refusedWith(AdminPlanCreate.safeParse({ name, price: '5', validity_days: 30 }));
  });
  it('keeps ordinary names, accents and emoji', () => {
    expect(InvoiceBody.safeParse({ operation: 'new_peer', peer: 'Móvil de Ana 📱', plan: 1 }).success).toBe(
      true,
    );
    expect(CreateRoomBody.safeParse({ name: 'Sala de juegos', peer: 1 }).success).toBe(true);
  });
});
