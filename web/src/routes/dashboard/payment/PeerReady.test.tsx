/**
 * Issue 32, points 1–3: from "Pagar" to the QR. The payment result's main action opens the new
 * peer ready to install; the tab that opened the gateway follows the invoice and shows the same;
 * the purchase says before payment when no server can take a new peer; Home is the customer's
 * status (a card per peer, or the way to a first plan) with "Cambiar servidor" one tap away.
 */
import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Invoice } from '@vpn/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../../config/runtime';
import { fakeApi, samplePlans, sampleUser } from '../../../test/api';
import type { Handler } from '../../../test/api';
import { laptop, samplePeer } from '../../../test/peers';
import { renderApp } from '../../../test/render';

const REMOTE = '0b6c1a8e-1f2d-4c3b-9a8e-123456789abc';
const INVOICE = `GET /api/client/invoices/${REMOTE}`;
const CONF = '[Interface]\nPrivateKey = c2VjcmV0\nAddress = 10.8.0.2/32\n\n[Peer]\nEndpoint = mad1:51820\n';
const APP_URL = 'https://descargas.example/wireguard.apk';

function invoice(overrides: Partial<Invoice> = {}): Invoice {
  return {
    id: REMOTE,
    plan_name: 'Trimestral',
    peer_name: 'movil',
    amount: 12.5,
    currency: 'USD',
    status: 'paid',
    gateway: 'sandbox',
    transaction_uuid: 'tx-1',
    created: '2025-03-05T10:00:00.000Z',
    paid: '2025-03-05T10:01:00.000Z',
    delivered: true,
    operation: 'new_peer',
    peer_id: 11,
    ...overrides,
  };
}

function signedIn(routes: Record<string, Handler>) {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
  return fakeApi({
    'GET /api/client/verify-token': { body: sampleUser },
    'GET /api/client/agent': { body: { version: '1.0.20', url: APP_URL } },
    'GET /api/client/accounts/peers/11': { text: CONF },
    ...routes,
  });
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe('payment result: the peer ready to install', () => {
  it('one tap on the main action puts the QR on screen, with Descargar and the app to install', async () => {
    signedIn({ [INVOICE]: { body: invoice() }, 'GET /api/client/accounts/peers': { body: [samplePeer()] } });
    renderApp(`/dashboard/payment?status=success&transaction_uuid=tx-1&remote_id=${REMOTE}`);
    const ready = (await screen.findByRole('heading', { name: 'Tu peer movil está listo' })).closest(
      'section',
    )!;
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toBeInTheDocument();
    await userEvent.click(within(ready).getByRole('button', { name: 'Instalar movil en este dispositivo' }));
    const qr = await within(ready).findByRole('img', {
      name: 'Código QR de la configuración del peer movil',
    });
    expect(Number(qr.getAttribute('data-modules'))).toBeGreaterThanOrEqual(21);
    expect(
      within(ready).getByRole('button', { name: 'Descargar la configuración del peer movil' }),
    ).toBeEnabled();
    expect(
      within(ready).getByRole('link', { name: /Instalar la app de WireGuard \(1\.0\.20\)/ }),
    ).toHaveAttribute('href', APP_URL);
  });

  it('on Android, the APK the panel serves, with its size (never Google Play)', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Mozilla/5.0 (Linux; Android 14; Pixel 8)');
    try {
      signedIn({
        [INVOICE]: { body: invoice() },
        'GET /api/client/accounts/peers': { body: [samplePeer()] },
      });
      renderApp(`/dashboard/payment?status=success&transaction_uuid=tx-1&remote_id=${REMOTE}`, {
        config: {
          ...DEFAULT_CONFIG,
          android: { app_url: null, apk: { url: '/descargas/wireguard-android.apk', size: 11_500_000 } },
        },
      });
      await userEvent.click(
        await screen.findByRole('button', { name: 'Instalar movil en este dispositivo' }),
      );
      const link = await screen.findByRole('link', { name: /para Android \(APK, 11,5 MB\)/ });
      expect(link).toHaveAttribute('href', '/descargas/wireguard-android.apk');
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('a renewal (add_plan) offers the same peer', async () => {
    signedIn({
      [INVOICE]: { body: invoice({ operation: 'add_plan' }) },
      'GET /api/client/accounts/peers': { body: [samplePeer()] },
    });
    renderApp(`/dashboard/payment?status=success&transaction_uuid=tx-1&remote_id=${REMOTE}`);
    expect(
      await screen.findByRole('button', { name: 'Instalar movil en este dispositivo' }),
    ).toBeInTheDocument();
  });
});

describe('the tab that opened the gateway', () => {
  beforeEach(() => {
    vi.stubGlobal(
      'open',
      vi.fn(() => null),
    );
  });

  it('follows the invoice and, once paid and delivered, shows the peer ready to install', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let paid = false;
    const api = signedIn({
      'GET /api/client/plans': { body: samplePlans },
      'GET /api/client/accounts/peers': () => ({ body: paid ? [samplePeer()] : [] }),
      'GET /api/client/payments': {
        body: {
          allow_payments_qvapay: false,
          allow_payments_remesita: false,
          sandbox: true,
          new_peer_available: true,
        },
      },
      'PUT /api/client/invoices': { body: { id: REMOTE, payment_url: 'https://pasarela.example/p' } },
      [INVOICE]: () => ({
        body: paid ? invoice() : invoice({ status: 'pending', paid: null, delivered: false, peer_id: null }),
      }),
    });
    renderApp('/dashboard/plans');
    const card = await screen.findByRole('article', { name: 'Trimestral' });
    await userEvent.click(within(card).getByRole('button', { name: 'Seleccionar Plan' }));
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Nombre del nuevo peer'), 'movil');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    expect(await screen.findByText(/Esta página se actualiza sola/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Abrir la pasarela de pago/ })).toHaveAttribute(
      'href',
      'https://pasarela.example/p',
    );

    paid = true;
    await act(async () => {
      await vi.advanceTimersByTimeAsync(4_100);
    });
    expect(await screen.findByRole('heading', { name: 'Tu peer movil está listo' })).toBeInTheDocument();
    expect(api.callsTo(INVOICE).length).toBeGreaterThanOrEqual(2);
    await userEvent.click(screen.getByRole('button', { name: 'Instalar movil en este dispositivo' }));
    expect(
      await screen.findByRole('img', { name: 'Código QR de la configuración del peer movil' }),
    ).toBeInTheDocument();
  });

  it('says before payment that no server can take a new peer, and creates no invoice', async () => {
    const api = signedIn({
      'GET /api/client/plans': { body: samplePlans },
      'GET /api/client/accounts/peers': { body: [] },
      'GET /api/client/payments': {
        body: {
          allow_payments_qvapay: false,
          allow_payments_remesita: false,
          sandbox: true,
          new_peer_available: false,
        },
      },
    });
    renderApp('/dashboard/plans');
    const card = await screen.findByRole('article', { name: 'Trimestral' });
    await userEvent.click(within(card).getByRole('button', { name: 'Seleccionar Plan' }));
    const dialog = await screen.findByRole('dialog');
    expect(
      await within(dialog).findByText(/ningún servidor puede recibir un peer nuevo/),
    ).toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText('Nombre del nuevo peer'), 'movil');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    expect(api.callsTo('PUT /api/client/invoices')).toHaveLength(0);
  });
});

describe('Home: the customer status', () => {
  it('leads a new customer to a first plan', async () => {
    signedIn({ 'GET /api/client/accounts/peers': { body: [] } });
    renderApp('/dashboard/home');
    const first = (await screen.findByRole('heading', { name: 'Empieza con tu primer plan' })).closest(
      'section',
    )!;
    expect(within(first).getByRole('link', { name: 'Elegir un plan' })).toHaveAttribute(
      'href',
      '/dashboard/plans',
    );
  });

  it('a card per peer: state, expiry, data, QR, Descargar, Renovar; a silent server says so with Cambiar servidor', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true, now: new Date('2025-03-26T09:00:00.000Z') });
    signedIn({
      'GET /api/client/accounts/peers': {
        body: [
          samplePeer({ manual_payment: false, data: { used: 2_000_000_000, allowance: 10_000_000_000 } }),
          laptop({ manual_payment: false }),
        ],
      },
      'GET /api/client/network/12': { body: [] },
    });
    renderApp('/dashboard/home');
    const movil = await screen.findByRole('article', { name: 'movil' });
    expect(movil).toHaveTextContent('Activo hasta el 5 de abril de 2025 · quedan 10 días');
    expect(movil).toHaveTextContent('2 GB de 10 GB');
    expect(within(movil).getByRole('button', { name: 'Renovar el peer movil' })).toBeInTheDocument();
    expect(
      within(movil).getByRole('button', { name: 'Descargar la configuración del peer movil' }),
    ).toBeEnabled();
    expect(within(movil).queryByRole('button', { name: /Cambiar el servidor/ })).toBeNull();

    const portatil = screen.getByRole('article', { name: 'portatil' });
    expect(portatil).toHaveTextContent('El servidor Miami 1 no responde (Sin conexión)');
    await userEvent.click(within(movil).getByRole('button', { name: 'Ver QR del peer movil' }));
    expect(await screen.findByRole('dialog', { name: 'Código QR del peer movil' })).toBeInTheDocument();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(
      within(portatil).getByRole('button', { name: 'Cambiar el servidor del peer portatil' }),
    );
    expect(
      await screen.findByRole('heading', { name: 'Cambiar el servidor del peer portatil' }),
    ).toBeInTheDocument();
  });
});
