import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminManager, AuditEntry } from '@vpn/contracts';
import { fakeApi } from '../../test/api';
import type { Handler } from '../../test/api';
import { renderApp } from '../../test/render';
import { setViewportWidth } from '../../test/viewport';
import { FakeWebSocket } from '../../test/websocket';

// Desktop: the lists are tables (phones get cards).
beforeEach(() => setViewportWidth(1280));

const owner = { id: 1, username: 'duena', role: 'owner' };

function signedIn(
  routes: Record<string, Handler>,
  me: { id: number; username: string; role: string } = owner,
) {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: me }, ...routes });
}

/** The query strings the page sends to a path (the fake records paths without them). */
function recordQueries(path: string): string[] {
  const queries: string[] = [];
  const realFetch = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
    if (url.pathname === path) queries.push(url.search);
    return realFetch(input, init);
  });
  return queries;
}

const manager = (
  id: number,
  username: string,
  role: AdminManager['role'],
  extra: Partial<AdminManager> = {},
) =>
  ({
    id,
    username,
    role,
    disabled: false,
    totp_enabled: false,
    created: '2026-01-05T10:00:00.000Z',
    ...extra,
  }) satisfies AdminManager;

describe('Gestores', () => {
  it('lists managers with Spanish roles and creates one through the dialog', async () => {
    let list = [manager(1, 'duena', 'owner', { totp_enabled: true }), manager(2, 'pepe', 'support')];
    const api = signedIn({
      'GET /api/admin/managers': () => ({ body: { count: list.length, results: list } }),
      'POST /api/admin/managers': (call) => {
        const created = manager(3, 'lola', 'finance');
        list = [...list, created];
        expect(call.body).toEqual({ username: 'lola', password: 'clave-de-lola', role: 'finance' });
        return { status: 201, body: created };
      },
    });
    renderApp('/manager/dashboard/managers');
    const table = await screen.findByRole('table', { name: 'Gestores' });
    const pepe = within(table).getByRole('row', { name: /pepe/ });
    expect(within(pepe).getByText('Soporte')).toBeInTheDocument();
    expect(within(pepe).getByText('Activo')).toBeInTheDocument();
    // Oneself: no disable, no delete.
    const me = within(table).getByRole('row', { name: /duena/ });
    expect(within(me).getByText('(usted)')).toBeInTheDocument();
    expect(within(me).queryByRole('button', { name: 'Eliminar a duena' })).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Nuevo gestor' }));
    const form = await screen.findByRole('dialog', { name: 'Nuevo gestor' });
    await userEvent.click(within(form).getByRole('button', { name: 'Crear gestor' }));
    expect(within(form).getByRole('alert')).toHaveTextContent('Complete el usuario y la contraseña.');
    await userEvent.type(within(form).getByLabelText('Usuario'), 'lola');
    await userEvent.type(within(form).getByLabelText('Contraseña'), 'clave-de-lola');
    expect(
      within(within(form).getByLabelText('Rol'))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Propietario', 'Operaciones', 'Soporte', 'Finanzas']);
    await userEvent.selectOptions(within(form).getByLabelText('Rol'), 'Finanzas');
    await userEvent.click(within(form).getByRole('button', { name: 'Crear gestor' }));
    expect(await within(table).findByRole('row', { name: /lola/ })).toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/managers')).toHaveLength(1);
  }, 20_000);

  it('disables and deletes only after confirming, and shows the server’s refusal', async () => {
    const api = signedIn({
      'GET /api/admin/managers': {
        body: { count: 2, results: [manager(1, 'duena', 'owner'), manager(2, 'pepe', 'support')] },
      },
      'PATCH /api/admin/managers/2': { body: manager(2, 'pepe', 'support', { disabled: true }) },
      'DELETE /api/admin/managers/2': {
        status: 409,
        body: { message: 'No se puede deshabilitar, degradar ni eliminar al último propietario activo.' },
      },
    });
    renderApp('/manager/dashboard/managers');
    await userEvent.click(await screen.findByRole('button', { name: 'Deshabilitar a pepe' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Deshabilitar gestor' });
    expect(confirm).toHaveTextContent(
      'pepe no podrá entrar y sus sesiones abiertas se cerrarán al instante.',
    );
    expect(api.callsTo('PATCH /api/admin/managers/2')).toHaveLength(0);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Deshabilitar pepe' }));
    await waitFor(() =>
      expect(api.callsTo('PATCH /api/admin/managers/2')[0]?.body).toEqual({ disabled: true }),
    );
    expect(await screen.findByText('pepe deshabilitado')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Eliminar a pepe' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog', { name: 'Eliminar gestor' })).getByRole('button', {
        name: 'Eliminar pepe',
      }),
    );
    expect(
      await screen.findByText('No se puede deshabilitar, degradar ni eliminar al último propietario activo.'),
    ).toBeInTheDocument();
  });

  it('keeps search and role filter in the URL query', async () => {
    signedIn({ 'GET /api/admin/managers': { body: { count: 0, results: [] } } });
    const queries = recordQueries('/api/admin/managers');
    const app = renderApp('/manager/dashboard/managers?role=finance');
    expect(await screen.findByText('No hay gestores que coincidan.')).toBeInTheDocument();
    expect(queries[0]).toBe('?role=finance&page=1&page_size=25');
    await userEvent.type(screen.getByLabelText('Buscar gestores'), 'ana');
    await waitFor(() => expect(app.router.state.location.search).toBe('?role=finance&q=ana'));
    await waitFor(() => expect(queries.at(-1)).toBe('?q=ana&role=finance&page=1&page_size=25'));
  });
});

describe('role-filtered console', () => {
  it('hides Ajustes and Gestores from a support manager and refuses their URLs', async () => {
    const api = signedIn({}, { id: 5, username: 'pepe', role: 'support' });
    renderApp('/manager/dashboard/managers');
    expect(await screen.findByText('Su rol no tiene acceso a esta sección.')).toBeInTheDocument();
    const nav = screen.getByRole('navigation', { name: 'Secciones de administración' });
    const links = within(nav)
      .getAllByRole('link')
      .map((l) => l.textContent);
    expect(links).toEqual(['Resumen', 'Clientes', 'Peers', 'Servidores', 'Planes', 'Facturas', 'Salas']);
    expect(api.callsTo('GET /api/admin/managers')).toHaveLength(0);
  });

  it('shows an owner the whole navigation, in the documented order', async () => {
    signedIn({ 'GET /api/admin/managers': { body: { count: 0, results: [] } } });
    renderApp('/manager/dashboard/managers');
    const nav = await screen.findByRole('navigation', { name: 'Secciones de administración' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((l) => l.textContent),
    ).toEqual([
      'Resumen',
      'Clientes',
      'Peers',
      'Servidores',
      'Planes',
      'Facturas',
      'Salas',
      'Contenido',
      'Ajustes',
      'Gestores',
      'Auditoría',
    ]);
  });

  it('refuses Servidores and Contenido, typed by hand, to a finance manager without calling the API', async () => {
    const api = signedIn({}, { id: 6, username: 'fina', role: 'finance' });
    const servers = renderApp('/manager/dashboard/servers');
    expect(await screen.findByText('Su rol no tiene acceso a esta sección.')).toBeInTheDocument();
    expect(api.callsTo('GET /api/admin/servers')).toHaveLength(0);
    servers.unmount();
    renderApp('/manager/dashboard/content');
    expect(await screen.findByText('Su rol no tiene acceso a esta sección.')).toBeInTheDocument();
    expect(screen.queryByText('Publicar un anuncio')).not.toBeInTheDocument();
  });

  it('refuses Ajustes to a support manager without calling the API', async () => {
    const api = signedIn({}, { id: 5, username: 'pepe', role: 'support' });
    renderApp('/manager/dashboard/settings');
    expect(await screen.findByText('Su rol no tiene acceso a esta sección.')).toBeInTheDocument();
    expect(api.callsTo('GET /api/admin/settings')).toHaveLength(0);
  });
});

const entry = (id: number, extra: Partial<AuditEntry> = {}): AuditEntry => ({
  id,
  manager: 'duena',
  manager_id: 1,
  action: 'manager.update',
  summary: 'duena modificó al gestor pepe: Rol: Soporte → Finanzas; Deshabilitado: no → sí',
  details: ['Rol: Soporte → Finanzas', 'Deshabilitado: no → sí'],
  target_type: 'manager',
  target_id: '2',
  changes: { role: { before: 'support', after: 'finance' }, disabled: { before: false, after: true } },
  reason: null,
  extra: null,
  ip: '127.0.0.1',
  created: '2026-01-05T10:00:00.000Z',
  ...extra,
});

describe('Auditoría', () => {
  it('shows each action as a sentence, its fields in words and the raw change, filters, and follows the live tail', async () => {
    let results = [
      entry(10),
      entry(9, {
        action: 'announcement.withdraw',
        target_type: 'announcement',
        target_id: '4',
        changes: {},
        extra: { fields: ['active'] },
        reason: 'Ya pasó',
      }),
    ];
    signedIn({
      'GET /api/admin/audit': () => ({ body: { count: results.length, results } }),
      'GET /api/admin/managers': {
        body: { count: 2, results: [manager(1, 'duena', 'owner'), manager(2, 'pepe', 'support')] },
      },
    });
    const queries = recordQueries('/api/admin/audit');
    const app = renderApp('/manager/dashboard/audit');
    const table = await screen.findByRole('table', { name: 'Registro de auditoría' });
    const row = within(table).getAllByRole('row')[1]!;
    expect(row).toHaveTextContent('duena modificó al gestor pepe');
    expect(row).toHaveTextContent('Rol: Soporte → Finanzas');
    // The change as recorded is one click away, codes and all.
    expect(
      within(row).getByText('Cambio registrado (campos y valores tal como se guardaron)'),
    ).toBeInTheDocument();
    expect(row).toHaveTextContent('role: support → finance');
    expect(row).toHaveTextContent('disabled: no → sí');
    expect(within(row).queryByText('manager.update', { selector: 'span' })).toBeNull();
    expect(within(table).getAllByRole('row')[2]).toHaveTextContent('Motivo: Ya pasó');
    expect(within(table).getAllByRole('row')[2]).toHaveTextContent('Campos: active');

    await userEvent.selectOptions(await screen.findByLabelText('Gestor'), 'pepe');
    await waitFor(() => expect(queries.at(-1)).toBe('?manager=2&page=1&page_size=25'));
    await userEvent.click(within(table).getByRole('button', { name: 'Anuncio 4' }));
    await waitFor(() =>
      expect(app.router.state.location.search).toBe('?manager=2&target_type=announcement&target_id=4'),
    );

    // A push about a new entry refreshes the list.
    const calls = queries.length;
    results = [entry(11, { action: 'manager.delete' }), ...results];
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    socket.push({ type: 'admin_audit', entry_id: 11 });
    await waitFor(() => expect(queries.length).toBeGreaterThan(calls));
  });
});

describe('Seguridad (two-factor)', () => {
  it('enrols with the QR code and key, then shows the recovery codes once with a copy button', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const codes = Array.from({ length: 10 }, (_, i) => `abcde-fgh${i}k`);
    let enabled = false;
    const api = signedIn({
      'GET /api/admin/me/totp': () => ({ body: { enabled, recovery_codes_left: enabled ? 10 : 0 } }),
      'GET /api/admin/me/telegram': { body: { available: false, linked: false, prefs: null } },
      'POST /api/admin/me/totp': {
        body: {
          secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
          uri: 'otpauth://totp/VPN%20Service:duena?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
        },
      },
      'POST /api/admin/me/totp/confirm': (call) => {
        if ((call.body as { code: string }).code !== '123456')
          return { status: 400, body: { message: 'El código de verificación no es válido o ya se usó' } };
        enabled = true;
        return { body: { recovery_codes: codes } };
      },
    });
    renderApp('/manager/dashboard');
    await userEvent.click(await screen.findByRole('link', { name: 'Seguridad' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Activar verificación en dos pasos' }));
    expect(
      await screen.findByRole('img', { name: 'Código QR de la verificación en dos pasos' }),
    ).toBeInTheDocument();
    expect(screen.getByLabelText('Clave secreta')).toHaveTextContent(
      'JBSW Y3DP EHPK 3PXP JBSW Y3DP EHPK 3PXP',
    );
    expect(screen.getByLabelText('Enlace otpauth://')).toHaveTextContent('otpauth://totp/');

    await userEvent.click(screen.getByRole('button', { name: 'Confirmar y activar' }));
    expect(screen.getByRole('alert')).toHaveTextContent(
      'Introduzca el código de 6 dígitos de su aplicación.',
    );
    await userEvent.type(screen.getByLabelText('Código de 6 dígitos'), '654321');
    await userEvent.click(screen.getByRole('button', { name: 'Confirmar y activar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'El código de verificación no es válido o ya se usó',
    );
    await userEvent.clear(screen.getByLabelText('Código de 6 dígitos'));
    await userEvent.type(screen.getByLabelText('Código de 6 dígitos'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Confirmar y activar' }));

    const list = await screen.findByRole('list', { name: 'Códigos de recuperación' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(codes);
    await userEvent.click(screen.getByRole('button', { name: 'Copiar los códigos de recuperación' }));
    expect(writeText).toHaveBeenCalledWith(codes.join('\n'));
    await userEvent.click(screen.getByRole('button', { name: 'Ya los he guardado' }));
    expect(await screen.findByText('Activada. Le quedan 10 códigos de recuperación.')).toBeInTheDocument();
    expect(screen.queryByText(codes[0]!)).not.toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/me/totp/confirm')).toHaveLength(2);
  }, 20_000);
});

describe('manager login with two-factor', () => {
  it('asks for the code after the password, and accepts a recovery code instead', async () => {
    const api = fakeApi({
      'POST /api/admin/login': (call) => {
        const body = call.body as { totp?: string };
        if (!body.totp)
          return {
            status: 401,
            body: { code: 'totp_required', message: 'Introduzca el código de verificación' },
          };
        if (body.totp === '111111')
          return {
            status: 401,
            body: { code: 'totp_invalid', message: 'El código de verificación no es válido o ya se usó' },
          };
        return { body: { access: 'm-a', refresh: 'm-r' } };
      },
      'GET /api/admin/verify-token': { body: owner },
    });
    const app = renderApp('/manager/login');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'duena');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'clave-segura');
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));

    const code = await screen.findByLabelText('Código de verificación');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await userEvent.type(code, '111111');
    await userEvent.click(screen.getByRole('button', { name: 'Verificar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'El código de verificación no es válido o ya se usó',
    );

    await userEvent.click(screen.getByRole('button', { name: 'Usar un código de recuperación' }));
    await userEvent.type(screen.getByLabelText('Código de recuperación'), 'abcde-fghjk');
    await userEvent.click(screen.getByRole('button', { name: 'Verificar' }));
    await waitFor(() => expect(app.path()).toBe('/manager/dashboard'));
    expect(api.callsTo('POST /api/admin/login').map((c) => c.body)).toEqual([
      { username: 'duena', password: 'clave-segura', remember: false },
      { username: 'duena', password: 'clave-segura', remember: false, totp: '111111' },
      { username: 'duena', password: 'clave-segura', remember: false, totp: 'abcde-fghjk' },
    ]);
  });
});
