import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';

export const ADMIN_PASSWORD = 'clave-de-gestor-e2e';

/** Debian's Chromium, headless, with the flags the architecture asks for (no browser download). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
