import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeApi, sampleUser } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';
import type { CurrentUser } from '../../api/types';

type User = CurrentUser;

function signIn() {
  localStorage.setItem('access', 'a1');
  localStorage.setItem('refresh', 'r1');
}

/** The settings page of `user`; PATCH/DELETE answer as given. */
async function openSettings(
  user: User = sampleUser,
  routes: Record<string, Reply | (() => Promise<Reply>)> = {},
) {
  signIn();
  const api = fakeApi({ 'GET /api/client/verify-token': { body: user }, ...routes });
  const app = renderApp('/dashboard/settings');
  await screen.findByRole('heading', { name: 'Configuración de cuenta' });
  return { api, app };
}

/** The row of one setting (its heading is the label). */
function row(label: string): HTMLElement {
  return screen.getByRole('heading', { name: label, level: 2 }).closest('li')!;
}

async function openDialog(button: string) {
  await userEvent.click(screen.getByRole('button', { name: button }));
  return screen.findByRole('dialog');
}

const save = (dialog: HTMLElement) =>
  userEvent.click(within(dialog).getByRole('button', { name: 'Guardar' }));

describe('account settings page', () => {
  it('shows the username read-only, and alias and email only where allowed', async () => {
    const { app } = await openSettings({ ...sampleUser, alias: 'Juanito', email_verified: true });
    expect(within(row('Usuario')).getByText('juan')).toBeInTheDocument();
    expect(within(row('Usuario')).queryByRole('button')).not.toBeInTheDocument();
    expect(screen.queryByRole('textbox')).not.toBeInTheDocument();
    expect(within(row('Alias')).getByText('Juanito')).toBeInTheDocument();
    expect(within(row('Email')).getByText('juan@example.com')).toBeInTheDocument();
    expect(within(row('Email')).getByText('Verificado')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Cambiar contraseña' })).toBeInTheDocument();
    app.unmount();

    await openSettings({ ...sampleUser, web_settings: { allow_partys: false, allow_email: false } });
    expect(screen.queryByRole('heading', { name: 'Alias' })).not.toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Email' })).not.toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Contraseña' })).toBeInTheDocument();
  });

  it("marks an unverified email 'Sin verificar' and an empty one 'Sin configurar' with 'Añadir email'", async () => {
    const { app } = await openSettings();
    expect(within(row('Email')).getByText('Sin verificar')).toBeInTheDocument();
    expect(within(row('Email')).getByText(/Te enviamos un enlace de verificación/)).toBeInTheDocument();
    app.unmount();

    await openSettings({ ...sampleUser, email: null });
    expect(within(row('Email')).getByText('Sin configurar')).toBeInTheDocument();
    expect(within(row('Email')).getByRole('button', { name: 'Añadir email' })).toBeInTheDocument();
    expect(within(row('Email')).queryByRole('button', { name: 'Eliminar email' })).not.toBeInTheDocument();
  });
});

describe('alias dialog', () => {
  it("refuses a blank alias with 'El alias no puede estar en blanco' without calling the server", async () => {
    const { api } = await openSettings();
    const dialog = await openDialog('Configurar alias');
    expect(within(dialog).getByRole('heading', { name: 'Configurar alias' })).toBeInTheDocument();
    await userEvent.type(within(dialog).getByLabelText('Alias'), '   ');
    await save(dialog);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('El alias no puede estar en blanco');
    expect(api.callsTo('PATCH /api/client/settings')).toHaveLength(0);
  });

  it("shows the server's 'El alias ya está en uso' and keeps the dialog open", async () => {
    await openSettings(sampleUser, {
      'PATCH /api/client/settings': { status: 409, body: { message: 'El alias ya está en uso' } },
    });
    const dialog = await openDialog('Configurar alias');
    await userEvent.type(within(dialog).getByLabelText('Alias'), 'Pepe');
    await save(dialog);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('El alias ya está en uso');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('saves the alias, toasts the server message and shows the new alias', async () => {
    const { api } = await openSettings(sampleUser, {
      'PATCH /api/client/settings': {
        body: { message: 'Alias configurado correctamente', user: { ...sampleUser, alias: 'Pepe' } },
      },
    });
    const dialog = await openDialog('Configurar alias');
    await userEvent.type(within(dialog).getByLabelText('Alias'), '  Pepe ');
    await save(dialog);
    expect(await screen.findByText('Alias configurado correctamente')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo('PATCH /api/client/settings').map((c) => c.body)).toEqual([{ alias: 'Pepe' }]);
    expect(within(row('Alias')).getByText('Pepe')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Modificar alias' })).toBeInTheDocument();
  });
});

describe('email dialog', () => {
  it('checks blank and unchanged addresses with the spec texts before calling the server', async () => {
    const { api } = await openSettings();
    const dialog = await openDialog('Cambiar email');
    await save(dialog);
    expect(within(dialog).getByRole('alert')).toHaveTextContent('El email no puede estar en blanco');
    await userEvent.type(within(dialog).getByLabelText('Nuevo email'), ' JUAN@example.com ');
    await save(dialog);
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'El nuevo email no puede ser igual q el anterior',
    );
    await userEvent.clear(within(dialog).getByLabelText('Nuevo email'));
    await userEvent.type(within(dialog).getByLabelText('Nuevo email'), 'otra@example.com');
    await save(dialog);
    expect(within(dialog).getByRole('alert')).toHaveTextContent(
      'Indica tu contraseña actual para cambiar el email',
    );
    expect(api.callsTo('PATCH /api/client/settings')).toHaveLength(0);
  });

  it("shows the server's 'El email ya está en uso'", async () => {
    await openSettings(sampleUser, {
      'PATCH /api/client/settings': { status: 409, body: { message: 'El email ya está en uso' } },
    });
    const dialog = await openDialog('Cambiar email');
    await userEvent.type(within(dialog).getByLabelText('Nuevo email'), 'otra@example.com');
    await userEvent.type(within(dialog).getByLabelText('Contraseña actual'), 'secreto123');
    await save(dialog);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('El email ya está en uso');
  });

  it('changes the email: toast, new address shown unverified', async () => {
    const message = 'Email modificado correctamente. Te enviamos un enlace para verificarlo.';
    const { api } = await openSettings(
      { ...sampleUser, email_verified: true },
      {
        'PATCH /api/client/settings': {
          body: { message, user: { ...sampleUser, email: 'nueva@example.com', email_verified: false } },
        },
      },
    );
    const dialog = await openDialog('Cambiar email');
    await userEvent.type(within(dialog).getByLabelText('Nuevo email'), 'nueva@example.com');
    await userEvent.type(within(dialog).getByLabelText('Contraseña actual'), 'secreto123');
    await save(dialog);
    expect(await screen.findByText(message)).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/client/settings').map((c) => c.body)).toEqual([
      { email: 'nueva@example.com', password: 'secreto123' },
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(within(row('Email')).getByText('nueva@example.com')).toBeInTheDocument();
    expect(within(row('Email')).getByText('Sin verificar')).toBeInTheDocument();
  });

  it('deletes the email after a confirmation', async () => {
    const { api } = await openSettings(sampleUser, {
      'DELETE /api/client/settings': {
        body: { message: 'Email eliminado correctamente', user: { ...sampleUser, email: null } },
      },
    });
    await userEvent.click(screen.getByRole('button', { name: 'Eliminar email' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(confirm).toHaveTextContent('¿Eliminar el email juan@example.com de tu cuenta?');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Eliminar' }));
    expect(await screen.findByText('Email eliminado correctamente')).toBeInTheDocument();
    expect(api.callsTo('DELETE /api/client/settings')).toHaveLength(1);
    expect(within(row('Email')).getByText('Sin configurar')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Eliminar email' })).not.toBeInTheDocument();
  });

  it('toasts a failed deletion and keeps the email', async () => {
    await openSettings(sampleUser, {
      'DELETE /api/client/settings': { status: 500, body: {} },
    });
    await userEvent.click(screen.getByRole('button', { name: 'Eliminar email' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Eliminar' }),
    );
    expect(await screen.findByText('Hubo un error al realizar la solicitud')).toBeInTheDocument();
    expect(within(row('Email')).getByText('juan@example.com')).toBeInTheDocument();
  });
});

describe('password dialog', () => {
  async function fill(dialog: HTMLElement, current: string, next: string, confirmation: string) {
    for (const [label, value] of [
      ['Contraseña actual', current],
      ['Nueva contraseña', next],
      ['Confirmar nueva contraseña', confirmation],
    ] as const) {
      const input = within(dialog).getByLabelText(label);
      await userEvent.clear(input);
      if (value) await userEvent.type(input, value);
    }
  }

  it('applies the spec checks in order with their exact texts, without calling the server', async () => {
    const { api } = await openSettings();
    const dialog = await openDialog('Cambiar contraseña');
    const alert = () => within(dialog).getByRole('alert');

    await fill(dialog, 'vieja-clave', 'nueva-clave', '');
    await save(dialog);
    expect(alert()).toHaveTextContent('Las contraseñas no pueden estar en blanco.');

    await fill(dialog, 'vieja-clave', 'nueva-clave', 'otra-clave');
    await save(dialog);
    expect(alert()).toHaveTextContent('Las contraseñas no coinciden.');

    await fill(dialog, 'misma-clave', 'misma-clave', 'misma-clave');
    await save(dialog);
    expect(alert()).toHaveTextContent('La nueva contraseña no puede ser igual a la anterior.');
    expect(api.callsTo('PATCH /api/client/settings')).toHaveLength(0);
  });

  it("shows the server's 'La contraseña actual no es correcta'", async () => {
    await openSettings(sampleUser, {
      'PATCH /api/client/settings': {
        status: 400,
        body: { message: 'La contraseña actual no es correcta' },
      },
    });
    const dialog = await openDialog('Cambiar contraseña');
    await fill(dialog, 'equivocada', 'nueva-clave-1', 'nueva-clave-1');
    await save(dialog);
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('La contraseña actual no es correcta');
    expect(localStorage.getItem('access')).toBe('a1');
  });

  it("reads 'Procesando...' while saving, then stores the new token pair of a remembered session", async () => {
    const pending = deferred<Reply>();
    const { api } = await openSettings(sampleUser, { 'PATCH /api/client/settings': () => pending.promise });
    const dialog = await openDialog('Cambiar contraseña');
    await fill(dialog, 'vieja-clave', 'nueva-clave-1', 'nueva-clave-1');
    await save(dialog);
    expect(within(dialog).getByRole('button', { name: 'Procesando...' })).toBeDisabled();
    expect(within(dialog).getByLabelText('Contraseña actual')).toBeDisabled();
    pending.resolve({
      body: { message: 'Contraseña modificada correctamente', user: sampleUser, access: 'a2', refresh: 'r2' },
    });
    expect(await screen.findByText('Contraseña modificada correctamente')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo('PATCH /api/client/settings').map((c) => c.body)).toEqual([
      { old_password: 'vieja-clave', new_password: 'nueva-clave-1' },
    ]);
    expect([localStorage.getItem('access'), localStorage.getItem('refresh')]).toEqual(['a2', 'r2']);
  });

  it('keeps a session without remember-me that way: only the new access token, in sessionStorage', async () => {
    sessionStorage.setItem('access', 'a1');
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'PATCH /api/client/settings': {
        body: {
          message: 'Contraseña modificada correctamente',
          user: sampleUser,
          access: 'a2',
          refresh: 'r2',
        },
      },
    });
    renderApp('/dashboard/settings');
    await screen.findByRole('heading', { name: 'Configuración de cuenta' });
    const dialog = await openDialog('Cambiar contraseña');
    await fill(dialog, 'vieja-clave', 'nueva-clave-1', 'nueva-clave-1');
    await save(dialog);
    expect(await screen.findByText('Contraseña modificada correctamente')).toBeInTheDocument();
    expect(sessionStorage.getItem('access')).toBe('a2');
    expect(localStorage.getItem('access')).toBeNull();
    expect(localStorage.getItem('refresh')).toBeNull();
    expect(sessionStorage.getItem('refresh')).toBeNull();
  });

  it('uses the new access token for the calls that follow', async () => {
    const { api } = await openSettings(sampleUser, {
      'PATCH /api/client/settings': {
        body: {
          message: 'Contraseña modificada correctamente',
          user: sampleUser,
          access: 'a2',
          refresh: 'r2',
        },
      },
    });
    const dialog = await openDialog('Cambiar contraseña');
    await fill(dialog, 'vieja-clave', 'nueva-clave-1', 'nueva-clave-1');
    await save(dialog);
    await screen.findByText('Contraseña modificada correctamente');
    await userEvent.click(screen.getByRole('link', { name: 'Home' }));
    await waitFor(() => expect(api.callsTo('GET /api/client/advertisements')).toHaveLength(1));
    expect(api.callsTo('GET /api/client/advertisements')[0]?.headers.authorization).toBe('Bearer a2');
  });
});
