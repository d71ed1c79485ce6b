import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../config/runtime';
import { deferred, fakeApi, samplePlans, sampleUser } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';
import { samplePeer } from '../../test/peers';
import { DataAllowanceBar } from '../../components/DataAllowanceBar';

const SUPPORT = 'https://soporte.example.com/chat';
const withSupport = { config: { ...DEFAULT_CONFIG, support_url: SUPPORT } };

const announcements = [
  {
    id: 2,
    name: 'Nuevo servidor en Toronto',
    message: 'Ya puedes mover tus peers a Toronto.\nMás rápido desde Canadá.',
    created: '2025-03-05T12:00:00.000Z',
  },
  {
    id: 1,
    name: 'Mantenimiento programado',
    message: 'El domingo a las 3:00.',
    created: '2024-12-24T10:00:00Z',
  },
];

beforeEach(() => {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
});

describe('dashboard home', () => {
  it("shows 'Cargando información...' while the announcements load", async () => {
    const pending = deferred<Reply>();
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/advertisements': () => pending.promise,
    });
    renderApp('/dashboard/home');
    expect(await screen.findByText('Cargando información...')).toBeInTheDocument();
    pending.resolve({ body: [] });
    expect(await screen.findByRole('heading', { name: 'Bienvenido a VPN Service' })).toBeInTheDocument();
    expect(screen.queryByText('Cargando información...')).not.toBeInTheDocument();
  });

  it("shows 'Hubo un error al cargar los datos.' with a retry that loads the page", async () => {
    const api = fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/advertisements': { status: 500, body: {} },
    });
    renderApp('/dashboard/home');
    expect(await screen.findByRole('alert')).toHaveTextContent('Hubo un error al cargar los datos.');
    api.on('GET /api/client/advertisements', { body: announcements });
    await userEvent.click(screen.getByRole('button', { name: 'Reintentar' }));
    expect(await screen.findByRole('heading', { name: 'Nuevo servidor en Toronto' })).toBeInTheDocument();
  });

  it('without announcements: the welcome card, three blurbs and a support button opening a new tab', async () => {
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    renderApp('/dashboard/home', withSupport);
    const card = (await screen.findByRole('heading', { name: 'Bienvenido a VPN Service' })).closest(
      'section',
    )!;
    for (const blurb of ['Protección avanzada', 'Alta velocidad', 'Salas privadas']) {
      expect(within(card).getByRole('heading', { name: blurb })).toBeInTheDocument();
    }
    const support = within(card).getByRole('link', { name: /Contactar con Soporte/ });
    expect(support).toHaveAttribute('href', SUPPORT);
    expect(support).toHaveAttribute('target', '_blank');
    expect(support.getAttribute('rel')).toContain('noopener');
    expect(screen.queryByRole('heading', { name: 'Anuncios' })).not.toBeInTheDocument();
  });

  it('leaves the private-rooms blurb out when rooms are not allowed', async () => {
    fakeApi({
      'GET /api/client/verify-token': {
        body: { ...sampleUser, web_settings: { allow_partys: false, allow_email: true } },
      },
    });
    renderApp('/dashboard/home');
    await screen.findByRole('heading', { name: 'Protección avanzada' });
    expect(screen.getByRole('heading', { name: 'Alta velocidad' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Salas privadas' })).not.toBeInTheDocument();
  });

  it('shows no support block when no support link is configured (no button that does nothing)', async () => {
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    renderApp('/dashboard/home');
    await screen.findByRole('heading', { name: 'Alta velocidad' });
    expect(screen.queryByRole('button', { name: /Contactar con Soporte/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Contactar con Soporte/ })).not.toBeInTheDocument();
    expect(screen.queryByText(/soporte en línea no está configurado/)).not.toBeInTheDocument();
  });

  it('with announcements: their cards (name, long Spanish date, message) and the support centre card', async () => {
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/advertisements': { body: announcements },
    });
    renderApp('/dashboard/home', withSupport);
    const list = await screen.findByRole('list', { name: 'Anuncios del servicio' });
    const cards = within(list).getAllByRole('article');
    expect(cards.map((c) => within(c).getByRole('heading').textContent)).toEqual([
      'Nuevo servidor en Toronto',
      'Mantenimiento programado',
    ]);
    expect(within(cards[0]!).getByText('5 de marzo de 2025')).toHaveAttribute(
      'datetime',
      '2025-03-05T12:00:00.000Z',
    );
    expect(within(cards[1]!).getByText('24 de diciembre de 2024')).toBeInTheDocument();
    expect(within(cards[0]!).getByText(/Ya puedes mover tus peers a Toronto/)).toBeInTheDocument();

    const support = screen.getByRole('heading', { name: 'Centro de soporte' }).closest('section')!;
    const link = within(support).getByRole('link', { name: /Contactar con Soporte/ });
    expect(link).toHaveAttribute('href', SUPPORT);
    expect(link).toHaveAttribute('target', '_blank');
    // The welcome blurbs belong to the layout without announcements.
    expect(screen.queryByRole('heading', { name: 'Protección avanzada' })).not.toBeInTheDocument();
  });

  it('leaves the support centre card out too when no support link is configured', async () => {
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/advertisements': { body: announcements },
    });
    renderApp('/dashboard/home');
    await screen.findByRole('list', { name: 'Anuncios del servicio' });
    expect(screen.queryByRole('heading', { name: 'Centro de soporte' })).not.toBeInTheDocument();
  });
});

describe('client-app banner', () => {
  const release = (version: string) => ({
    body: { version, url: `https://descargas.example.com/app-${version}.apk` },
  });

  it("shows the version and 'Descargar' (new tab) until that version is dismissed, and the next one again", async () => {
    const api = fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/agent': release('2.1.0'),
    });
    const first = renderApp('/dashboard/home');
    const banner = (
      await screen.findByRole('heading', { name: 'Nueva versión de la app cliente: 2.1.0' })
    ).closest('section')!;
    const download = within(banner).getByRole('link', { name: /Descargar/ });
    expect(download).toHaveAttribute('href', 'https://descargas.example.com/app-2.1.0.apk');
    expect(download).toHaveAttribute('target', '_blank');
    expect(download.getAttribute('rel')).toContain('noopener');

    await userEvent.click(
      within(banner).getByRole('button', { name: 'Ocultar el aviso de la versión 2.1.0' }),
    );
    expect(screen.queryByText(/Nueva versión de la app cliente/)).not.toBeInTheDocument();
    expect(JSON.parse(localStorage.getItem('dismissed_client_versions') ?? '[]')).toEqual(['2.1.0']);
    first.unmount();

    // Coming back later: still hidden for 2.1.0 …
    const second = renderApp('/dashboard/home');
    await screen.findByRole('heading', { name: 'Bienvenido a VPN Service' });
    await waitFor(() => expect(api.callsTo('GET /api/client/agent').length).toBe(2));
    expect(screen.queryByText(/Nueva versión de la app cliente/)).not.toBeInTheDocument();
    second.unmount();

    // … and back for the next release.
    api.on('GET /api/client/agent', release('2.2.0'));
    renderApp('/dashboard/home');
    expect(
      await screen.findByRole('heading', { name: 'Nueva versión de la app cliente: 2.2.0' }),
    ).toBeInTheDocument();
  });

  it('shows no banner when no release was published, nor when its call fails', async () => {
    const api = fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const none = renderApp('/dashboard/home');
    await screen.findByRole('heading', { name: 'Bienvenido a VPN Service' });
    await waitFor(() => expect(api.callsTo('GET /api/client/agent')).toHaveLength(1));
    expect(screen.queryByText(/Nueva versión/)).not.toBeInTheDocument();
    none.unmount();

    api.on('GET /api/client/agent', { status: 500, body: {} });
    renderApp('/dashboard/home');
    expect(await screen.findByRole('heading', { name: 'Bienvenido a VPN Service' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('dashboard home: peers about to expire', () => {
  const inDays = (d: number) => new Date(Date.now() + d * 24 * 3_600_000).toISOString();
  afterEach(() => vi.unstubAllGlobals());

  it('lists the peers expiring within 3 days; Renovar opens the purchase dialog with that peer and its last plan', async () => {
    const open = vi.fn(() => null);
    vi.stubGlobal('open', open);
    const api = fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': {
        body: [
          samplePeer({
            id: 21,
            name: 'movil',
            manual_payment: false,
            expiration_date: inDays(2),
            plans_history: [
              { plan_name: 'Trimestral', plan_price: 12.5, created: '2025-03-05T10:00:00.000Z' },
            ],
          }),
          samplePeer({ id: 22, name: 'portatil', manual_payment: false, expiration_date: inDays(10) }),
          samplePeer({ id: 23, name: 'router', manual_payment: true, expiration_date: inDays(1) }),
          samplePeer({
            id: 24,
            name: 'tablet',
            manual_payment: false,
            active: false,
            expiration_date: inDays(-1),
          }),
        ],
      },
      'GET /api/client/plans': { body: samplePlans },
      'PUT /api/client/invoices': { body: { id: 'inv-1', payment_url: 'https://pasarela.example/pagar/1' } },
    });
    renderApp('/dashboard/home');
    const banner = (await screen.findByRole('heading', { name: 'Peers a punto de vencer' })).closest(
      'section',
    )!;
    const items = within(banner).getAllByRole('listitem');
    expect(items.map((li) => li.textContent)).toEqual([
      expect.stringMatching(/^tablet venció el/),
      expect.stringMatching(/^router vence el .*Pago manual: contacta con soporte/),
      expect.stringMatching(/^movil vence el/),
    ]);
    expect(within(banner).queryByRole('button', { name: 'Renovar router' })).toBeNull();
    expect(banner).not.toHaveTextContent('portatil');

    await userEvent.click(within(banner).getByRole('button', { name: 'Renovar movil' }));
    const dialog = await screen.findByRole('dialog', { name: 'Renovar movil' });
    expect(within(dialog).getByRole('combobox', { name: 'Peer' })).toHaveValue('21');
    await waitFor(() => expect(within(dialog).getByRole('combobox', { name: 'Plan' })).toHaveValue('2'));
    await userEvent.selectOptions(within(dialog).getByRole('combobox', { name: 'Plan' }), '3');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() => expect(api.callsTo('PUT /api/client/invoices')).toHaveLength(1));
    expect(api.callsTo('PUT /api/client/invoices')[0]!.body).toEqual({
      operation: 'add_plan',
      peer: 21,
      plan: 3,
    });
    expect(open).toHaveBeenCalledWith('https://pasarela.example/pagar/1', '_blank');
    expect(await screen.findByRole('status')).toHaveTextContent('Pasarela de pago abierta');
  });

  it('shows no banner when no peer expires within 3 days', async () => {
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': {
        body: [samplePeer({ expiration_date: inDays(4) }), samplePeer({ id: 2, expiration_date: null })],
      },
    });
    renderApp('/dashboard/home');
    await screen.findByRole('heading', { name: 'Bienvenido a VPN Service' });
    await waitFor(() =>
      expect(screen.queryByRole('heading', { name: 'Peers a punto de vencer' })).toBeNull(),
    );
  });
});

describe('dashboard home: peers running out of data', () => {
  it('lists peers past 80 % of their allowance, fullest first, with Añadir plan opening the purchase dialog', async () => {
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': {
        body: [
          samplePeer({
            id: 31,
            name: 'movil',
            manual_payment: false,
            data: { used: 850_000_000, allowance: 1e9 },
          }),
          samplePeer({
            id: 32,
            name: 'portatil',
            manual_payment: false,
            data: { used: 790_000_000, allowance: 1e9 },
          }),
          samplePeer({
            id: 33,
            name: 'tablet',
            manual_payment: false,
            active: false,
            data: { used: 2_500_000_000, allowance: 2_500_000_000 },
          }),
          samplePeer({ id: 34, name: 'router', manual_payment: false, data: null }),
        ],
      },
      'GET /api/client/plans': { body: samplePlans },
    });
    renderApp('/dashboard/home');
    const banner = (await screen.findByRole('heading', { name: 'Datos casi agotados' })).closest('section')!;
    expect(
      within(banner)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'tablet agotó sus 2,5 GB: deshabilitado hasta que añadas un plan' + 'Añadir plan',
      'movil ha usado el 85 % de sus 1 GB' + 'Añadir plan',
    ]);
    await userEvent.click(within(banner).getByRole('button', { name: 'Añadir plan movil' }));
    const dialog = await screen.findByRole('dialog', { name: 'Renovar movil' });
    expect(within(dialog).getByRole('combobox', { name: 'Peer' })).toHaveValue('31');
  });
});

describe('data allowance bar', () => {
  it('shows what was used of the allowance, and says when it is used up', () => {
    const { rerender } = render(<DataAllowanceBar used={850_000} allowance={1_000_000} />);
    const bar = screen.getByRole('progressbar', { name: 'Datos del plan' });
    expect(bar).toHaveAttribute('aria-valuenow', '85');
    expect(bar).toHaveAttribute('aria-valuetext', '850 KB de 1 MB (85 %)');
    expect(screen.queryByText(/Datos agotados/)).toBeNull();
    rerender(<DataAllowanceBar used={1_200_000} allowance={1_000_000} />);
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuetext', '1 MB de 1 MB (100 %)');
    expect(screen.getByText(/Datos agotados: el peer está deshabilitado/)).toBeInTheDocument();
  });
});
