import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { TextField } from './Field';
import { FormDialog } from './FormDialog';

function renderDialog(props: { busy?: boolean; error?: string | null } = {}) {
  const onClose = vi.fn();
  const onSubmit = vi.fn();
  render(
    <FormDialog
      onClose={onClose}
      title="Cambiar alias"
      description="Los demás miembros de tus salas lo verán."
      submitLabel="Guardar"
      onSubmit={onSubmit}
      busy={props.busy ?? false}
      error={props.error ?? null}
    >
      <TextField label="Alias" name="alias" autoFocus />
    </FormDialog>,
  );
  return { onClose, onSubmit };
}

describe('FormDialog', () => {
  it('is a labelled, described dialog with the focus in its first field', () => {
    renderDialog();
    const dialog = screen.getByRole('dialog', { name: 'Cambiar alias' });
    expect(dialog).toHaveAccessibleDescription('Los demás miembros de tus salas lo verán.');
    expect(screen.getByLabelText('Alias')).toHaveFocus();
  });

  it('submits with the button and with Enter, and shows the Spanish error above the fields', async () => {
    const { onSubmit } = renderDialog({ error: 'Por favor, ingrese un alias' });
    expect(screen.getByRole('alert')).toHaveTextContent('Por favor, ingrese un alias');
    await userEvent.click(screen.getByRole('button', { name: 'Guardar' }));
    await userEvent.type(screen.getByLabelText('Alias'), 'juanito{Enter}');
    expect(onSubmit).toHaveBeenCalledTimes(2);
  });

  it('closes with Escape, the × and Cancelar', async () => {
    const { onClose } = renderDialog();
    await userEvent.keyboard('{Escape}');
    await userEvent.click(screen.getByRole('button', { name: 'Cerrar' }));
    await userEvent.click(screen.getByRole('button', { name: 'Cancelar' }));
    expect(onClose).toHaveBeenCalledTimes(3);
  });

  it('while busy: reads Procesando..., disables its buttons and stays open on Escape', async () => {
    const { onClose, onSubmit } = renderDialog({ busy: true });
    expect(screen.getByRole('button', { name: /Procesando/ })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Cancelar' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Cerrar' })).toBeDisabled();
    await userEvent.keyboard('{Escape}');
    expect(onClose).not.toHaveBeenCalled();
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
