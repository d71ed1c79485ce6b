import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Peer } from '@vpn/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONFIG } from '../../../config/runtime';
import { fakeApi, samplePlans, sampleUser } from '../../../test/api';
import type { Handler } from '../../../test/api';
import { laptop, samplePeer } from '../../../test/peers';
import { renderApp } from '../../../test/render';

const INVOICES = 'PUT /api/client/invoices';
const PAYMENT_URL = 'https://pasarela.example/pagar/abc';

let openSpy: ReturnType<typeof vi.fn>;

beforeEach(() => {
  openSpy = vi.fn(() => null);
  vi.stubGlobal('open', openSpy);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

async function openPlans(peers: Peer[], routes: Record<string, Handler> = {}) {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
  const api = fakeApi({
    'GET /api/client/verify-token': { body: sampleUser },
    'GET /api/client/plans': { body: samplePlans },
    'GET /api/client/accounts/peers': { body: peers },
    'GET /api/client/payments': {
      body: {
        allow_payments_qvapay: false,
        allow_payments_remesita: false,
        sandbox: true,
        new_peer_available: true,
      },
    },
    [INVOICES]: { body: { id: 'inv-1', payment_url: PAYMENT_URL } },
    ...routes,
  });
  const app = renderApp('/dashboard/plans');
  await screen.findByRole('article', { name: 'Trimestral' });
  return { api, app };
}

async function selectPlan(name: string) {
  const card = screen.getByRole('article', { name });
  await userEvent.click(within(card).getByRole('button', { name: 'Seleccionar Plan' }));
  return screen.findByRole('dialog', { name: `Adquirir el plan ${name}` });
}

describe('Plans page: cards, banner and empty state', () => {
  it('shows each plan with validity, bullets and price', async () => {
    await openPlans([]);
    const card = screen.getByRole('article', { name: 'Básico' });
    expect(within(card).getByText('1 mes')).toBeInTheDocument();
    expect(within(card).getByText('Servidores en Europa')).toBeInTheDocument();
    expect(within(card).getByText('5,00 US$')).toBeInTheDocument();
    expect(within(screen.getByRole('article', { name: 'Anual' })).getByText('1 año')).toBeInTheDocument();
    expect(screen.queryByRole('complementary', { name: 'Pasarela de pago disponible' })).toBeNull();
  });

  it('shows the gateway banner when a gateway option is enabled', async () => {
    await openPlans([], {
      'GET /api/client/payments': {
        body: {
          allow_payments_qvapay: true,
          allow_payments_remesita: false,
          sandbox: false,
          new_peer_available: true,
        },
      },
    });
    const banner = await screen.findByRole('complementary', { name: 'Pasarela de pago disponible' });
    expect(banner).toHaveTextContent('QvaPay');
  });

  it("shows the empty state with 'Contactar con Soporte' when there are no plans", async () => {
    localStorage.setItem('access', 'a1');
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/plans': { body: [] },
      'GET /api/client/payments': {
        body: {
          allow_payments_qvapay: false,
          allow_payments_remesita: false,
          sandbox: false,
          new_peer_available: true,
        },
      },
    });
    const support = 'https://soporte.example.com/chat';
    const first = renderApp('/dashboard/plans', { config: { ...DEFAULT_CONFIG, support_url: support } });
    expect(await screen.findByText('No hay planes disponibles en este momento.')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contactar con Soporte' })).toHaveAttribute('href', support);
    first.unmount();

    renderApp('/dashboard/plans');
    await screen.findByText('No hay planes disponibles en este momento.');
    expect(screen.queryByRole('link', { name: 'Contactar con Soporte' })).toBeNull();
  });
});

describe('Purchase dialog', () => {
  it('defaults to a new peer when there are no eligible peers, and validates the name', async () => {
    const { api } = await openPlans([samplePeer({ manual_payment: true })]);
    const dialog = await selectPlan('Básico');
    expect(await within(dialog).findByText(/el plan será para un peer nuevo/)).toBeInTheDocument();
    expect(within(dialog).getByRole('radio', { name: 'Peer nuevo' })).toBeChecked();
    expect(within(dialog).getByRole('radio', { name: 'Peer existente' })).toBeDisabled();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer',
    );
    expect(api.callsTo(INVOICES)).toHaveLength(0);

    await userEvent.type(within(dialog).getByLabelText('Nombre del nuevo peer'), '  tablet ');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() => expect(api.callsTo(INVOICES)).toHaveLength(1));
    expect(api.callsTo(INVOICES)[0]!.body).toEqual({ operation: 'new_peer', peer: 'tablet', plan: 1 });
    await waitFor(() => expect(openSpy).toHaveBeenCalledWith(PAYMENT_URL, '_blank'));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(screen.getByRole('link', { name: /Abrir la pasarela de pago/ })).toHaveAttribute(
      'href',
      PAYMENT_URL,
    );
  });

  it('lists only peers without manual payment and not switched off by a manager, and buys for the chosen one (add_plan)', async () => {
    const { api } = await openPlans([
      samplePeer({ manual_payment: true }),
      laptop({ manual_payment: false }),
      laptop({ id: 13, name: 'router', manual_payment: false, active: false, manager_disabled: true }),
    ]);
    const dialog = await selectPlan('Trimestral');
    const select = await within(dialog).findByRole('combobox', { name: 'Peer' });
    expect(within(dialog).getByRole('radio', { name: 'Peer existente' })).toBeChecked();
    const options = within(select)
      .getAllByRole('option')
      .map((o) => o.textContent);
    expect(options).toEqual(['Selecciona un peer', 'portatil']);
    expect(
      within(dialog).getByText(/pago manual o deshabilitados por un administrador no aparecen/),
    ).toBeInTheDocument();

    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer',
    );

    await userEvent.selectOptions(select, 'portatil');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() => expect(openSpy).toHaveBeenCalledWith(PAYMENT_URL, '_blank'));
    expect(api.callsTo(INVOICES)[0]!.body).toEqual({ operation: 'add_plan', peer: 12, plan: 2 });
  });

  it('can switch to a new peer even with eligible peers', async () => {
    const { api } = await openPlans([laptop({ manual_payment: false })]);
    const dialog = await selectPlan('Anual');
    await within(dialog).findByRole('combobox', { name: 'Peer' });
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Peer nuevo' }));
    await userEvent.type(within(dialog).getByLabelText('Nombre del nuevo peer'), 'router');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() => expect(api.callsTo(INVOICES)).toHaveLength(1));
    expect(api.callsTo(INVOICES)[0]!.body).toEqual({ operation: 'new_peer', peer: 'router', plan: 3 });
  });

  it("shows the server's message, or the spec's fallback, and opens nothing on failure", async () => {
    const { api } = await openPlans([], {
      [INVOICES]: { status: 503, body: { message: 'No hay pasarelas de pago disponibles en este momento' } },
    });
    const dialog = await selectPlan('Básico');
    await userEvent.type(await within(dialog).findByLabelText('Nombre del nuevo peer'), 'tablet');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'No hay pasarelas de pago disponibles en este momento',
    );

    api.on(INVOICES, { status: 500, body: {} });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() =>
      expect(within(dialog).getByRole('alert')).toHaveTextContent('Hubo un error al realizar la operación.'),
    );
    expect(openSpy).not.toHaveBeenCalled();
  });

  it('with QvaPay and Remesita on, the customer chooses the gateway (QvaPay preselected)', async () => {
    const { api } = await openPlans([], {
      'GET /api/client/payments': {
        body: {
          allow_payments_qvapay: true,
          allow_payments_remesita: true,
          sandbox: false,
          new_peer_available: true,
        },
      },
    });
    const dialog = await selectPlan('Básico');
    const group = within(dialog).getByRole('group', { name: 'Pasarela de pago' });
    expect(within(group).getByRole('radio', { name: 'QvaPay' })).toBeChecked();
    await userEvent.click(within(group).getByRole('radio', { name: 'Remesita' }));
    expect(within(group).getByRole('radio', { name: 'QvaPay' })).not.toBeChecked();
    await userEvent.type(within(dialog).getByLabelText('Nombre del nuevo peer'), 'tablet');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() => expect(api.callsTo(INVOICES)).toHaveLength(1));
    expect(api.callsTo(INVOICES)[0]!.body).toEqual({
      operation: 'new_peer',
      peer: 'tablet',
      plan: 1,
      gateway: 'remesita',
    });
  });

  it('with one gateway on there is nothing to choose', async () => {
    const { api } = await openPlans([], {
      'GET /api/client/payments': {
        body: {
          allow_payments_qvapay: false,
          allow_payments_remesita: true,
          sandbox: false,
          new_peer_available: true,
        },
      },
    });
    const dialog = await selectPlan('Básico');
    expect(within(dialog).queryByRole('group', { name: 'Pasarela de pago' })).toBeNull();
    await userEvent.type(within(dialog).getByLabelText('Nombre del nuevo peer'), 'tablet');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Proceder al Pago' }));
    await waitFor(() => expect(api.callsTo(INVOICES)).toHaveLength(1));
    expect(api.callsTo(INVOICES)[0]!.body).toEqual({ operation: 'new_peer', peer: 'tablet', plan: 1 });
  });
});
