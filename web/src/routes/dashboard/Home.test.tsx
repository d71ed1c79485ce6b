import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../config/runtime';
import { deferred, fakeApi, sampleUser } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';

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

  it('disables support when no support URL is configured', async () => {
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    renderApp('/dashboard/home');
    const button = await screen.findByRole('button', { name: 'Contactar con Soporte' });
    expect(button).toBeDisabled();
    expect(screen.queryByRole('link', { name: /Contactar con Soporte/ })).not.toBeInTheDocument();
    expect(screen.getByText('El soporte en línea no está configurado todavía.')).toBeInTheDocument();
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

  it('disables the support centre button too when no support URL is configured', async () => {
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/advertisements': { body: announcements },
    });
    renderApp('/dashboard/home');
    const support = (await screen.findByRole('heading', { name: 'Centro de soporte' })).closest('section')!;
    expect(within(support).getByRole('button', { name: 'Contactar con Soporte' })).toBeDisabled();
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
