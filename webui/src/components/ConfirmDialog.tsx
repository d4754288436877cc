/**
 * The one confirmation dialog of the client (customer and manager): a message or a few form fields, Cancelar, and a
 * confirm button that reads 'Procesando...' while the action runs. The rooms' generic one is titled 'Confirmar
 * Acción' (the default).
 */
import { Button, Group, Modal, Stack, Text, type MantineColor } from '@mantine/core';
import { useCallback, useState, type FormEvent, type ReactNode } from 'react';

interface Props {
  opened?: boolean;
  title?: string;
  /** A message (shown as small text), or form fields when `fields` is set. */
  children: ReactNode;
  fields?: boolean;
  confirmLabel?: string;
  /** Red for actions that remove or cut something off. */
  color?: MantineColor;
  /**
   * Runs on confirming (the button, or Enter in a field). The dialog closes itself once this settles, unless it
   * resolves to `false` (it failed: the dialog stays for another try) or returns `false` at once (nothing was
   * started, e.g. the fields did not pass their checks).
   */
  onConfirm: () => Promise<unknown> | false;
  onClose: () => void;
}

export function ConfirmDialog({
  opened = true,
  title = 'Confirmar Acción',
  children,
  fields = false,
  confirmLabel = 'Confirmar',
  color,
  onConfirm,
  onClose,
}: Props) {
  const [working, setWorking] = useState(false);
  const confirm = async (event: FormEvent) => {
    event.preventDefault();
    if (working) return;
    const outcome = onConfirm();
    if (outcome === false) return;
    setWorking(true);
    let close = true;
    try {
      close = (await outcome) !== false;
    } finally {
      setWorking(false);
      if (close) onClose();
    }
  };
  return (
    <Modal opened={opened} onClose={() => !working && onClose()} title={title} centered>
      <form onSubmit={(event) => void confirm(event)} noValidate>
        <Stack>
          {fields ? (
            children
          ) : (
            <Text size="sm" component="div">
              {children}
            </Text>
          )}
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose} disabled={working}>
              Cancelar
            </Button>
            <Button type="submit" color={color} disabled={working}>
              {working ? 'Procesando...' : confirmLabel}
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

export interface Confirmation {
  title?: string;
  message: ReactNode;
  confirmLabel?: string;
  color?: MantineColor;
  onConfirm: () => Promise<unknown>;
}

/** For pages that confirm from event handlers: `ask({...})` opens the dialog, `dialog` is rendered once. */
export function useConfirmation(): { ask: (confirmation: Confirmation) => void; dialog: ReactNode } {
  const [pending, setPending] = useState<Confirmation | null>(null);
  const close = useCallback(() => setPending(null), []);
  const dialog = pending && (
    <ConfirmDialog
      title={pending.title}
      confirmLabel={pending.confirmLabel}
      color={pending.color}
      onConfirm={pending.onConfirm}
      onClose={close}
    >
      {pending.message}
    </ConfirmDialog>
  );
  return { ask: setPending, dialog };
}
